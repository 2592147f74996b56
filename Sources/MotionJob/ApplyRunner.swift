#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MotionChecksum
import MotionConfig
import MotionCore
import MotionDataset
import MotionSinks
import MotionOutput
import MotionInputs
import MotionRecords
import MotionEngine

/// Command-line options of `motionprep apply`.
public struct ApplyOptions: Sendable {
    /// `INPUT…`: files and folders (docs/commands.md, "apply").
    public var inputs: [String]
    /// `--out DIR`.
    public var outputDirectory: String
    /// `--input N`: every input goes to `inputs[N]` of the dataset's pipeline.
    public var inputIndex: Int?
    /// `--jobs N`.
    public var jobs: Int
    public var log: @Sendable (String) -> Void
    public var progress: @Sendable (RunProgress) -> Void
    public var isCancelled: @Sendable () -> Bool
    /// Test hooks, as `RunOptions`'s.
    public var checkpoint: @Sendable (String) -> Void = { _ in }
    public var streamBlockBytes = StreamDefaults.blockBytes
    public var memoryBudgetValues = ResourceLimits.defaultRunBudgetValues

    public init(inputs: [String], outputDirectory: String, inputIndex: Int? = nil, jobs: Int,
                log: @escaping @Sendable (String) -> Void = { _ in },
                progress: @escaping @Sendable (RunProgress) -> Void = { _ in },
                isCancelled: @escaping @Sendable () -> Bool = { false }) {
        self.inputs = inputs
        self.outputDirectory = outputDirectory
        self.inputIndex = inputIndex
        self.jobs = jobs
        self.log = log
        self.progress = progress
        self.isCancelled = isCancelled
    }
}

/// `motionprep apply DATASET_DIR INPUT… --out DIR`: processes new recordings with the pipeline a
/// dataset was made with, exactly as `run` processed its recordings, and writes every window
/// (unlabelled, or labelled when the inputs carry labels the pipeline reads) with `x_normalized`
/// and `features_normalized` standardised by the dataset's train statistics
/// (docs/commands.md, "apply"; docs/dataset-format.md, "Applied windows").
///
/// Same stages, same workers, same output safety as `run` (staging in `DIR.partial/`, the
/// `DIR.lock`, ownership checks, inputs hashed from the bytes parsed); no splits, no `--resume`.
public enum ApplyRunner {
    /// The one "split" of an applied output: `windows.h5` or `windows/windows-NNNNN.tar.zst`.
    public static let splitName = "windows"
    public static let format = SourceDataset.appliedFormat
    public static let formatVersion = 1

    public static func run(_ dataset: SourceDataset, options: ApplyOptions) throws -> RunSummary {
        try check(dataset)
        let files = try ApplyInputs.assign(options.inputs, spec: appliedSpec(dataset.spec), inputIndex: options.inputIndex)
        let spec = appliedSpec(dataset.spec, files: files)
        let sources = try InputDiscovery.recordings(spec, log: options.log)
        let ledger = InputLedger(baseDirectory: spec.baseDirectory, onFirstBytes: { options.checkpoint("input-read") })
        let plan = try RunPlan(spec: spec, sources: sources, ledger: ledger)
        try checkChannels(plan.layout, dataset: dataset, sources: sources)
        let d = plan.description
        var description = DatasetDescription(
            sampleRateHz: d.sampleRateHz, windowLength: d.windowLength, windowStride: d.windowStride,
            channelNames: d.channelNames, channelUnits: d.channelUnits, classNames: dataset.classes,
            featureNames: d.featureNames, subjectNames: d.subjectNames, recordingNames: d.recordingNames, hasFolds: false,
            hasYSeq: dataset.spec.labels?.perSample ?? false)
        if dataset.spec.qa != nil { description.qaColumns = QASpec.columns }
        guard description.featureNames == dataset.featureNames, description.windowLength == dataset.windowLength,
              description.windowStride == dataset.windowStride, description.sampleRateHz == dataset.sampleRateHz else {
            throw MotionError(.config, "\(dataset.manifestPath) does not agree with its own `pipeline.resolved` (window, rate or feature names differ from what the pipeline gives); the manifest was edited")
        }

        let outDir = PathText.normalize(options.outputDirectory)
        try checkOutsideDataset(output: outDir, dataset: dataset.directory)
        var reads = PipelineRunner.readPaths(spec, sources: sources).filter { $0.role != "pipeline file" }
        reads.append((dataset.directory, "source dataset"))
        let job = try DatasetJob(outputDirectory: outDir, reads: reads, log: options.log)
        defer { job.end() }
        try job.begin()
        let staging = job.staging
        let recordsDir = staging.partialDirectory + "/records"
        let recordsFolder = try staging.folder.subfolder("records")
        // Every data file is created after this point, through the staging folder's descriptor.
        options.checkpoint("before-data-files")

        let normalization = SinkNormalization(
            x: Standardization(mean: dataset.xStatistics!.mean, std: dataset.xStatistics!.std),
            features: dataset.featureStatistics.map { Standardization(mean: $0.mean, std: $0.std) })
        let sink: SplitSink
        switch spec.output.type {
        case .createml:
            // Refused by `check` (a Create ML folder has no statistics to apply).
            throw MotionError(.config, "\(dataset.directory) is a Create ML folder; `apply` writes hdf5 or shards only")
        case .hdf5:
            sink = try HDF5SplitSink(directory: staging.folder, split: splitName, description: description,
                                     compression: HDF5ChunkCompressionPool(threads: Swift.max(1, options.jobs),
                                                                                          deflateLevel: spec.output.deflateLevel),
                                     normalization: normalization)
        case .shards:
            sink = try ShardSplitSink(directory: staging.folder, split: splitName, description: description,
                                      windowsPerShard: spec.output.windowsPerShard, compressionLevel: spec.output.compressionLevel,
                                      compress: spec.output.compression == .zstd, seed: spec.split.seed,
                                      threads: Swift.max(1, options.jobs), shuffle: false, normalization: normalization)
        }
        job.onAbandon { sink.abandon() }

        var totals = Totals(channels: description.channelNames.count, features: description.featureNames.count)
        var inputs: [InputEntry] = []
        let progress = ProgressTracker(total: sources.count,
                                       totalBytes: sources.reduce(0) { $0 + $1.fileBytes },
                                       report: options.progress)
        let streamedCount = ResumeCounter()
        let budget = MemoryBudget(capacity: options.memoryBudgetValues)
        let valueLimit = Swift.min(ResourceLimits.maxGridValues, budget.capacity)
        try job.execute(
            count: sources.count, jobs: options.jobs, budget: budget,
            makeWorker: {
                RecordingProcessor(spec: spec, layout: plan.layout,
                                   streamBlockBytes: options.streamBlockBytes, log: options.log, valueLimit: valueLimit,
                                   keepUnlabelled: true)
            },
            work: { processor, k in
                if options.isCancelled() { return .failure(RunInterrupted(message: "")) }
                return Result {
                    let record = try processor.processToRecord(
                        sources[k], isTrain: false, intervals: nil, ledger: ledger.child(),
                        recordPath: recordsDir + "/" + RecordStore.fileName(for: k), recordFolder: recordsFolder, pipelineSHA256: plan.pipelineSHA256,
                        isCancelled: options.isCancelled, bytesRead: { progress.reading(k, bytes: $0) },
                        reserve: { try budget.reserve(item: k, values: $0) },
                                                             keepWindows: { budget.tryReserve(item: k, values: $0, itemLimit: RecordStore.keptValuesLimit) })
                    if record.stored != nil { streamedCount.increment() }
                    return record
                }
            },
            consume: { k, outcome in
                let source = sources[k]
                switch outcome {
                case .failure(let e) where e is RunInterrupted:
                    throw RunInterrupted(message: "interrupted after \(k) of \(sources.count) recordings; nothing was written to \(outDir)")
                case .failure(let e):
                    guard spec.onError == .skip, PipelineRunner.canSkip(e) else { throw e }
                    totals.recordingsDropped["skipped_on_error", default: 0] += 1
                    totals.skipped.append((source.name, "\(e)"))
                    options.log("skipped recording `\(source.name)`: \(e)")
                    progress.finished(k, windows: 0, bytes: source.fileBytes)
                case .success(let record):
                    inputs += record.inputs
                    totals.add(record.processed)
                    try record.forEachBatch { batch in
                        var batch = batch
                        // `from: intervals` is not read by `apply` (no labels): `y_seq` is −1 throughout.
                        if description.hasYSeq && batch.ySeq.isEmpty {
                            batch.ySeq = [Int64](repeating: -1, count: batch.count * batch.length)
                        }
                        try sink.append(batch, subjectIndex: plan.subjectIndex[source.subject]!,
                                        recordingIndex: plan.recordingIndex[source.name]!, foldIndex: nil)
                    }
                    for w in record.processed.warnings { options.log("warning: \(w)") }
                    progress.finished(k, windows: record.windowCount, bytes: record.inputs.reduce(0) { $0 + $1.bytes })
                }
            })

        let written = try sink.finish()
        let windows = written.reduce(0) { $0 + $1.numWindows }
        if windows == 0 {
            throw MotionError(.dataError, "no window to apply the dataset to: \(totals.explanation(windowLength: description.windowLength, rateHz: description.sampleRateHz, recordings: sources.count))")
        }
        staging.removeRecords()
        let manifestInputs = try DatasetWriter.manifestInputs(inputs + ledger.otherEntries())
        let checksums = try job.seal(written, checkpoint: options.checkpoint) { checksums in
            appliedManifest(dataset: dataset, description: description, inputs: manifestInputs, totals: totals,
                            recordings: sources.count, files: written, checksums: checksums).text
        }
        try job.commit(checkpoint: options.checkpoint)
        var summary = RunSummary(
            outputDirectory: outDir, recordings: sources.count, rowsRead: totals.rowsRead, rowsDropped: totals.rowsDropped,
            windowsDropped: totals.windowsDropped, recordingsDropped: totals.recordingsDropped, skipped: totals.skipped,
            gaps: totals.gaps, gapSeconds: Double(totals.invalidPoints) / description.sampleRateHz,
            windowsPerSplit: [(splitName, windows)], warnings: [], bytesWritten: checksums.reduce(0) { $0 + $1.bytes })
        summary.streamed = streamedCount.value
        return summary
    }

    /// The dataset's pipeline as `apply` runs it: paths relative to the current folder, no
    /// intervals file (it is the dataset's, not the new recordings'; windows are unlabelled),
    /// and csv files without the label column read as unlabelled.
    /// `files`: each input's files (`InputSpec.files`), when known.
    static func appliedSpec(_ source: PipelineSpec, files: [[String]]? = nil) -> PipelineSpec {
        var spec = source
        spec.baseDirectory = "."
        if spec.labels?.from == .intervals { spec.labels = nil }
        for i in spec.inputs.indices {
            spec.inputs[i].csv?.labelColumnOptional = true
            if let files { spec.inputs[i].files = files[i] }
        }
        return spec
    }

    /// Refuses a dataset `apply` cannot reproduce: a `pipeline.resolved` that does not give the
    /// manifest's `pipeline.sha256` (edited, or written by another motionprep), a dataset
    /// without train statistics, and one whose manifest or files `checkDatasetFiles` refuses.
    static func check(_ dataset: SourceDataset) throws {
        try checkImplementation(dataset)
        let hash = SHA256Text.hex(dataset.spec.canonicalJSON())
        guard hash == dataset.pipelineSHA256 else {
            throw MotionError(.config, "\(dataset.manifestPath): `pipeline.resolved` does not give the manifest's `pipeline.sha256` (\(dataset.pipelineSHA256.prefix(12))…; it gives \(hash.prefix(12))…), so it is not the pipeline the dataset was made with: the manifest was edited, or written by another version of motionprep")
        }
        if dataset.spec.output.type == .createml {
            throw MotionError(.config, "\(dataset.directory) is a Create ML folder (`storage: \"createml\"`): it holds rows for Create ML, no windows or train statistics to apply; make the dataset with `output.type: hdf5` or `shards` to use `apply`")
        }
        guard dataset.xStatistics != nil else {
            throw MotionError(.config, "\(dataset.directory) has no train statistics (its manifest's `normalization.x` is null: the train split is empty), so `apply` cannot write `x_normalized`; rerun `motionprep run` with a train split that holds windows")
        }
        if !dataset.featureNames.isEmpty && dataset.featureStatistics == nil {
            throw MotionError(.config, "\(dataset.directory) has no train statistics for its features (its manifest's `normalization.features` is null), so `apply` cannot write `features_normalized`")
        }
        // The statistics are the model's only if the manifest is `run`'s for the data beside it.
        try checkDatasetFiles(dataset)
    }

    /// Refuses inputs that give other channels than the dataset's x (an IIO layout folder of the
    /// new recordings with other channels or units), naming the first difference.
    static func checkChannels(_ layout: ChannelLayout, dataset: SourceDataset, sources: [RecordingSource]) throws {
        let names = layout.channelNames, units = layout.channelUnits
        guard names != dataset.channelNames || units != dataset.channelUnits else { return }
        let file = sources.first?.files.first?.path ?? "the inputs"
        for (i, name) in dataset.channelNames.enumerated() {
            guard let j = names.firstIndex(of: name) else {
                throw MotionError(.dataError, "\(file) and the other inputs give no channel `\(name)`, which the dataset \(dataset.directory) has (its channels: \(Text.joinedBounded(dataset.channelNames))); apply needs every channel the model was trained on")
            }
            if units[j] != dataset.channelUnits[i] {
                throw MotionError(.dataError, "\(file): channel `\(name)` is in \(units[j]) but in \(dataset.channelUnits[i]) in the dataset \(dataset.directory); apply refuses a different unit")
            }
        }
        throw MotionError(.dataError, "\(file) and the other inputs give the channels \(Text.joinedBounded(names)), not the dataset's \(Text.joinedBounded(dataset.channelNames)) in that order")
    }

    /// Refuses an output folder inside the source dataset (it would hold files the dataset's
    /// manifest does not list, and `validate` would fail it). The dataset folder itself is
    /// refused by `takeOutput`, as an input.
    static func checkOutsideDataset(output: String, dataset: String) throws {
        let out = OutputFolder.resolved(output), source = OutputFolder.resolved(dataset)
        if out.hasPrefix(source == "/" ? "/" : source + "/") {
            throw MotionError(.cannotCreate, "refusing to write to \(output): it is inside the source dataset \(dataset), which must hold only the files its manifest lists; choose an output folder outside it (`--out`)")
        }
    }

    /// `manifest.json` of an applied output (docs/dataset-format.md, "Applied windows"): a
    /// ``DatasetManifest`` with ``DatasetManifest/applied`` set, one split (`windows`), the
    /// dataset's pipeline and train statistics, and no split policy.
    static func appliedManifest(dataset: SourceDataset, description d: DatasetDescription, inputs: [InputEntry], totals: Totals,
                                recordings: Int, files: [WrittenFile],
                                checksums: [(path: String, sha256: String, bytes: Int)]) -> DatasetManifest {
        var classCounts = [Int](repeating: 0, count: d.classNames.count)
        for f in files { for (i, c) in f.classCounts.enumerated() where i < classCounts.count { classCounts[i] += c } }
        let split = DatasetManifest.Split(
            numWindows: files.reduce(0) { $0 + $1.numWindows }, classCounts: classCounts,
            files: files.map { f in
                let sum = checksums.first { $0.path == f.path }!
                return DatasetManifest.DataFile(split: .windows, path: f.path, bytes: sum.bytes, sha256: sum.sha256,
                                                numWindows: f.numWindows, classCounts: f.classCounts)
            })
        func moments(_ s: SourceDataset.Statistics?) -> DatasetManifest.Moments? {
            s.map { DatasetManifest.Moments(mean: $0.mean, std: $0.std) }
        }
        return DatasetManifest(
            formatVersion: formatVersion, createdBy: ManifestBuilder.createdBy, storage: dataset.spec.output.type.rawValue,
            pipeline: DatasetManifest.Pipeline(name: dataset.pipelineName, sha256: dataset.pipelineSHA256,
                                               resolved: dataset.spec.canonicalValue()),
            sampleRateHz: d.sampleRateHz, windowLength: d.windowLength, windowStride: d.windowStride,
            channels: zip(d.channelNames, d.channelUnits).map { DatasetManifest.Channel(name: $0, unit: $1) },
            classes: d.classNames, featureNames: d.featureNames,
            inputs: inputs.map { DatasetManifest.Input(path: $0.path, bytes: $0.bytes, sha256: $0.sha256, role: $0.role.rawValue) },
            subjects: d.subjectNames, recordings: d.recordingNames,
            arrays: DatasetSchema.appliedArrays(windowLength: d.windowLength, channels: d.channelNames.count,
                                                features: d.featureNames.count, hasYSeq: d.hasYSeq, qaColumns: d.qaColumns.count),
            splitPolicy: nil,
            normalization: DatasetManifest.Normalization(x: moments(dataset.xStatistics), features: moments(dataset.featureStatistics)),
            counts: DatasetManifest.Counts(
                recordings: recordings, rowsRead: totals.rowsRead, rowsDropped: totals.rowsDropped,
                windowsDropped: totals.windowsDropped, recordingsDropped: totals.recordingsDropped,
                skippedRecordings: totals.skipped.map { DatasetManifest.SkippedRecording(recording: $0.0, error: $0.1) },
                labelRowsIgnored: nil, gaps: totals.gaps, gapSeconds: Double(totals.invalidPoints) / d.sampleRateHz),
            splits: [.windows: split],
            applied: DatasetManifest.Applied(name: dataset.pipelineName, manifestSHA256: SHA256.hex(of: dataset.manifestBytes),
                                             pipelineSHA256: dataset.pipelineSHA256))
    }
}
