import Foundation
import MotionChecksum
import MotionConfig
import MotionCore
import MotionDataset
import MotionSinks
import MotionOutput
import MotionInputs
import MotionRecords

/// The single writer: receives recordings in canonical order, appends their windows to the
/// split sinks, sums the counters, and finally writes SHA256SUMS and the manifest.
final class DatasetWriter {
    let plan: RunPlan
    let job: DatasetJob
    var staging: DatasetStaging { job.staging }
    private var sinks: [SplitName: SplitSink] = [:]
    private(set) var totals: Totals
    private var inputs: [InputEntry] = []
    /// Recordings appended from their record files rather than from memory.
    private(set) var readBack = 0
    /// Why a run that produced no window got none, when the inputs can be read again (`run`, not
    /// `merge`): the slow streams of the first recordings (``SlowStreams``), nil when none is slow.
    var explainNoWindow: (() -> String?)?
    private let log: (String) -> Void
    private let checkpoint: (String) -> Void
    /// `output.partitioned`: the partitions this writer writes (all of them for `run
    /// --partitions N`, one for a `--worker I/N` part, none for `merge`) and how many the run
    /// has; nil for the default layout.
    let partitioning: (indices: [Int], count: Int)?
    /// Per partition written: its split sinks, its counters (recordings in canonical order)
    /// and its recordings' input files.
    private var partitionSinks: [Int: [SplitName: SplitSink]] = [:]
    private var partitionTotals: [Int: Totals] = [:]
    private var partitionInputs: [Int: [InputEntry]] = [:]

    /// - Parameter jobs: threads for compressing HDF5 chunks (shared by the three split files).
    init(plan: RunPlan, job: DatasetJob, jobs: Int, log: @escaping (String) -> Void,
         checkpoint: @escaping (String) -> Void = { _ in }, partitioning: (indices: [Int], count: Int)? = nil) throws {
        self.plan = plan
        self.job = job
        self.log = log
        self.checkpoint = checkpoint
        self.partitioning = partitioning
        totals = Totals(channels: plan.description.channelNames.count, features: plan.description.featureNames.count)
        let chunkCompression = HDF5ChunkCompressionPool(threads: Swift.max(1, jobs), deflateLevel: plan.spec.output.deflateLevel)
        func makeSinks(_ partition: DatasetPartition?) throws -> [SplitName: SplitSink] {
            var out: [SplitName: SplitSink] = [:]
            for split in SplitName.datasetSplits {
                switch plan.spec.output.type {
                case .hdf5:
                    out[split] = try HDF5SplitSink(directory: staging.folder, split: split.rawValue, description: plan.description,
                                                   compression: chunkCompression, partition: partition)
                case .shards:
                    out[split] = try ShardSplitSink(directory: staging.folder, split: split.rawValue, description: plan.description,
                                                    windowsPerShard: plan.spec.output.windowsPerShard,
                                                    compressionLevel: plan.spec.output.compressionLevel,
                                                    compress: plan.spec.output.compression == .zstd, seed: plan.spec.split.seed,
                                                    threads: Swift.max(1, jobs), partition: partition)
                case .createml:
                    // Never partitioned: the pipeline refuses `partitioned` with `createml`.
                    out[split] = try CreateMLSplitSink(directory: staging.folder, split: split.rawValue, description: plan.description)
                }
            }
            return out
        }
        if let partitioning {
            for p in partitioning.indices {
                partitionSinks[p] = try makeSinks(DatasetPartition(index: p, count: partitioning.count))
                partitionTotals[p] = Totals(channels: plan.description.channelNames.count, features: plan.description.featureNames.count)
            }
        } else {
            sinks = try makeSinks(nil)
        }
    }

    /// Appends recording `i` (an index into `plan.sources`).
    func append(_ i: Int, _ outcome: Result<RecordingRecord, Error>) throws {
        let source = plan.sources[i]
        // `output.partitioned`: the recording's partition is its worker's (docs/scale.md).
        let partition = partitioning.map { RunPlan.worker(of: source.name, count: $0.count) }
        switch outcome {
        case .failure(let error):
            guard plan.spec.onError == .skip, PipelineRunner.canSkip(error) else { throw error }
            totals.recordingsDropped["skipped_on_error", default: 0] += 1
            totals.skipped.append((source.name, "\(error)"))
            if let partition {
                partitionTotals[partition]!.recordingsDropped["skipped_on_error", default: 0] += 1
                partitionTotals[partition]!.skipped.append((source.name, "\(error)"))
            }
            log("warning: skipped recording `\(source.name)`: \(error)")
        case .success(let record):
            let done = record.processed
            inputs += record.inputs
            totals.add(done)
            if let partition {
                partitionTotals[partition]!.add(done)
                partitionInputs[partition, default: []] += record.inputs
            }
            let sink = partition.map { partitionSinks[$0]![plan.splitOf[i]]! } ?? sinks[plan.splitOf[i]]!
            if record.kept == nil && record.stored != nil { readBack += 1 }
            try record.forEachBatch { batch in
                try sink.append(batch, subjectIndex: plan.subjectIndex[source.subject]!,
                                recordingIndex: plan.recordingIndex[source.name]!, foldIndex: plan.foldOf[i])
            }
            if let rowSink = sink as? CreateMLSplitSink {
                try rowSink.append(rows: done.createml ?? RowStretches(), recording: source.name)
            }
            for w in done.warnings { log("warning: \(w)") }
        }
    }

    /// Gives up after a failure, before the partial folder is removed: closes every split's
    /// files without writing more (`SplitSink.abandon()`), so no HDF5 handle is left open.
    func abandon() {
        for split in SplitName.datasetSplits { sinks[split]?.abandon() }
        sinks.removeAll()
        for p in partitionSinks.keys.sorted() { for split in SplitName.datasetSplits { partitionSinks[p]![split]?.abandon() } }
        partitionSinks.removeAll()
    }

    /// Closes the splits and writes SHA256SUMS then manifest.json into the partial folder.
    /// On failure, the splits not closed yet stay open for ``abandon()``.
    /// `runInputs` are the files read for the whole run (labels, IIO layout files), listed in
    /// the manifest's `inputs` after the recordings' files.
    func finish(runInputs: [InputEntry] = []) throws -> RunSummary {
        if partitioning != nil {
            // One machine, every partition: what N workers' parts give `merge`, through the
            // same text (docs/scale.md, "The partitioned layout").
            let summaries = try finishPartitions().map { try JSONNode(JSONParser.parse(Array($0.json.compact().utf8))).decode(PartitionSummary.self) }
            return try complete(partitions: summaries, runInputs: runInputs)
        }
        var files: [SplitName: [WrittenFile]] = [:]
        // `createml`: the rows written, and the windows the pipeline cut (for the warnings below).
        var rowSinks: [SplitName: CreateMLSplitRows] = [:]
        for split in SplitName.datasetSplits {
            files[split] = try sinks[split]!.finish()
            if let r = sinks[split] as? CreateMLSplitSink { rowSinks[split] = r.rows }
        }
        sinks.removeAll()
        return try complete(files: files, totals: totals, recordInputs: inputs, runInputs: runInputs, rowSinks: rowSinks)
    }

    /// Closes every partition's split files, hashes them, and describes each partition
    /// (`output.partitioned`): its files, counters and moments, for `part.json` or `merge`.
    func finishPartitions() throws -> [PartitionSummary] {
        guard let partitioning else { preconditionFailure("finishPartitions without partitions") }
        var out: [PartitionSummary] = []
        for p in partitioning.indices.sorted() {
            var files: [(split: SplitName, file: WrittenFile)] = []
            for split in SplitName.datasetSplits {
                for var f in try partitionSinks[p]![split]!.finish() {
                    try staging.checkIdentity()
                    let (hex, bytes) = try f.checksum(in: staging.folder)
                    f.sha256 = hex
                    f.bytes = bytes
                    files.append((split, f))
                }
                partitionSinks[p]![split] = nil
            }
            out.append(PartitionSummary(partition: p, files: files, totals: partitionTotals[p]!,
                                        inputs: partitionInputs[p] ?? []))
        }
        partitionSinks.removeAll()
        return out
    }

    /// The manifest of a partitioned dataset from its partitions' summaries, in partition
    /// order: files listed partition by partition, counters summed, normalisation moments
    /// combined partition after partition (`run --partitions N` and `merge` alike).
    func complete(partitions summaries: [PartitionSummary], runInputs: [InputEntry]) throws -> RunSummary {
        let byIndex = Dictionary(uniqueKeysWithValues: plan.sources.enumerated().map { ($1.name, $0) })
        var combined = Totals(channels: plan.description.channelNames.count, features: plan.description.featureNames.count)
        var files: [SplitName: [WrittenFile]] = [:]
        var recordInputs: [InputEntry] = []
        for s in summaries.sorted(by: { $0.partition < $1.partition }) {
            combined.merge(s.totals)
            for f in s.files { files[f.split, default: []].append(f.file) }
            recordInputs += s.inputs
        }
        combined.skipped.sort { (byIndex[$0.0] ?? 0) < (byIndex[$1.0] ?? 0) }
        combined.labelRowsNoOverlap.sort()
        return try complete(files: files, totals: combined, recordInputs: recordInputs, runInputs: runInputs)
    }

    /// A `--worker I/N` part of a `createml` output (docs/scale.md, "Many machines"): its CSVs
    /// (closed, with sizes and SHA-256), what each split holds and left out, its counters and
    /// its recordings' input files, for `part.json`. No annotation file: `merge` writes it.
    func finishCreateMLPart(worker: Int) throws -> PartitionSummary {
        var files: [(split: SplitName, file: WrittenFile)] = []
        var rows: [SplitName: CreateMLSplitRows] = [:]
        for split in SplitName.datasetSplits {
            guard let sink = sinks[split] as? CreateMLSplitSink else { preconditionFailure("finishCreateMLPart without createml") }
            for f in sink.finishPart() { files.append((split, f)) }
            rows[split] = sink.rows
        }
        sinks.removeAll()
        var s = PartitionSummary(partition: worker, files: files, totals: totals, inputs: inputs)
        s.createml = rows
        return s
    }

    /// `merge` of a `createml` output's parts (their CSVs already moved into the staging
    /// folder): each split's files in canonical order (subject, recording, stretch — the order
    /// of a single run), its `annotations.csv` written from them, then counters summed and
    /// SHA256SUMS and manifest.json written as a single run writes them.
    func completeCreateML(parts summaries: [PartitionSummary], runInputs: [InputEntry]) throws -> RunSummary {
        let byIndex = Dictionary(uniqueKeysWithValues: plan.sources.enumerated().map { ($1.name, $0) })
        var combined = Totals(channels: plan.description.channelNames.count, features: plan.description.featureNames.count)
        var written: [String: WrittenFile] = [:]
        var recordInputs: [InputEntry] = []
        let classes = plan.description.classNames.count
        var rows: [SplitName: CreateMLSplitRows] = [:]
        for split in SplitName.datasetSplits { rows[split] = CreateMLSplitRows(classes: classes) }
        for s in summaries.sorted(by: { $0.partition < $1.partition }) {
            combined.merge(s.totals)
            for f in s.files { written[f.file.path] = f.file }
            recordInputs += s.inputs
            for (split, r) in s.createml ?? [:] {
                rows[split]!.files += r.files
                rows[split]!.windowCount += r.windowCount
                for (c, n) in r.windowClassCounts.enumerated() where c < classes { rows[split]!.windowClassCounts[c] += n }
                rows[split]!.rowsUnlabelled += r.rowsUnlabelled
                rows[split]!.stretchesTooShort += r.stretchesTooShort
                rows[split]!.rowsTooShort += r.rowsTooShort
            }
        }
        combined.skipped.sort { (byIndex[$0.0] ?? 0) < (byIndex[$1.0] ?? 0) }
        combined.labelRowsNoOverlap.sort()
        var files: [SplitName: [WrittenFile]] = [:]
        for split in SplitName.datasetSplits {
            // Stable: a recording's stretches keep their order; recordings in canonical order.
            rows[split]!.files = rows[split]!.files.enumerated().sorted { a, b in
                let x = byIndex[a.element.recording] ?? 0, y = byIndex[b.element.recording] ?? 0
                return x != y ? x < y : a.offset < b.offset
            }.map(\.element)
            let folder = try staging.folder.subfolder(split.rawValue)
            files[split] = rows[split]!.files.map { written[$0.path]! }
                + [try CreateMLSplitSink.writeAnnotations(in: folder, split: split.rawValue, files: rows[split]!.files, classes: classes)]
        }
        return try complete(files: files, totals: combined, recordInputs: recordInputs, runInputs: runInputs, rowSinks: rows)
    }

    /// Warnings, the no-window check, SHA256SUMS and manifest.json for the split files `files`.
    private func complete(files: [SplitName: [WrittenFile]], totals: Totals, recordInputs: [InputEntry],
                          runInputs: [InputEntry], rowSinks: [SplitName: CreateMLSplitRows] = [:]) throws -> RunSummary {
        let spec = plan.spec
        let rate = spec.resample.rateHz
        var files = files
        for split in SplitName.datasetSplits where files[split] == nil { files[split] = [] }
        // The windows of each split, as written (or, for `createml`, as cut and kept).
        let windowFiles: [SplitName: [WrittenFile]] = rowSinks.isEmpty ? files : rowSinks.mapValues {
            [WrittenFile(path: "", numWindows: $0.windowCount, classCounts: $0.windowClassCounts)]
        }
        var warnings = plan.planWarnings
        if let ignored = plan.ignoredLabelRows, let w = IgnoredLabelRows.noOverlapWarning(totals.labelRowsNoOverlap.sorted(), path: ignored.path) {
            warnings.append(w)
        }
        let count = { (s: SplitName) in windowFiles[s]!.reduce(0) { $0 + $1.numWindows } }
        let total = SplitName.datasetSplits.reduce(0) { $0 + count($1) }
        if !rowSinks.isEmpty, rowSinks.values.allSatisfy({ $0.files.isEmpty }) {
            throw MotionError(.dataError, "\(spec.file): the run produced no Create ML stretch (a labelled, gap-free run of rows of one class at least one window, \(plan.windowLength) samples, long): \(CreateMLSummary(rowSinks).explanation); \(totals.explanation(windowLength: plan.windowLength, rateHz: rate, recordings: plan.sources.count))")
        }
        if total == 0 {
            let at = spec.window.location.map { "\($0): " } ?? ""
            let cause = explainNoWindow?().map { $0 + "; " } ?? ""
            throw MotionError(.dataError, "\(at)the run produced no window: \(cause)\(totals.explanation(windowLength: plan.windowLength, rateHz: rate, recordings: plan.sources.count))")
        }
        for split in SplitName.datasetSplits {
            let n = count(split)
            let share = Double(n) / Double(total)
            let wanted = [SplitName.train: spec.split.train, .validation: spec.split.validation, .test: spec.split.test][split]!
            let silence = "; " + PipelineSpec.WarningName.splitShare.silenceHint
            // What the split shares out: subjects, or recordings (`split.by`).
            let few = "few " + (spec.split.by == .recording ? "recordings" : "subjects")
            if spec.ignoreWarnings.contains(.splitShare) {
                // Expected by the user (docs/pipeline.md, `ignore_warnings`).
            } else if n == 0 && wanted > 0 {
                warnings.append("split `\(split.rawValue)` is empty (it was meant to hold \(Int((wanted * 100).rounded())) % of the windows)" + (spec.split.allocation == .hash ? "; with \(few), `split.allocation: exact` gives every split its share" : "") + silence)
            } else if abs(share - wanted) > 0.10 {
                warnings.append(String(format: "split `%@` holds %.1f %% of the windows, more than 10 points off its fraction %.1f %%",
                                       split.rawValue, share * 100, wanted * 100)
                                + (spec.split.allocation == .hash ? "; with \(few), `split.allocation: exact` shares them by count" : "; with \(few) or recordings of unequal length, shares of windows cannot match the fractions") + silence)
            }
        }
        if count(.train) == 0 {
            warnings.append("the train split is empty, so the manifest's normalization statistics are null")
        }
        let classNames = plan.description.classNames
        if !classNames.isEmpty {
            var perClass = [Int](repeating: 0, count: classNames.count)
            for f in windowFiles.values.joined() { for (c, n) in f.classCounts.enumerated() where c < perClass.count { perClass[c] += n } }
            for (c, n) in perClass.enumerated() where n == 0 && !spec.ignoreWarnings.contains(.emptyClass) {
                warnings.append("class `\(classNames[c])` got no window in any split; check `labels.map` and `labels.classes` against the labels in the data (`motionprep inspect`); " + PipelineSpec.WarningName.emptyClass.silenceHint)
            }
            if !spec.ignoreWarnings.contains(.splitMissingClass) {
                warnings += Self.missingClassWarnings(files: windowFiles, classNames: classNames, split: spec.split)
            }
        }
        warnings += plan.layout.chainWarnings(spec: spec, sources: plan.sources)
        for w in warnings { log("warning: \(w)") }

        let manifestInputs = try Self.manifestInputs(recordInputs + runInputs).map {
            DatasetManifest.Input(path: $0.path, bytes: $0.bytes, sha256: $0.sha256, role: $0.role.rawValue)
        }
        let checksums = try job.seal(SplitName.datasetSplits.flatMap { files[$0]! }, checkpoint: checkpoint) { checksums in
            ManifestBuilder.manifest(
                spec: spec, pipelineSHA256: plan.pipelineSHA256, description: plan.description,
                inputs: manifestInputs,
                totals: totals, recordings: plan.sources.count, files: files, checksums: checksums,
                foldCount: plan.foldCount,
                ignoredLabelRows: plan.ignoredLabelRows.map { $0.counts.merging(["no_overlap": totals.labelRowsNoOverlap.count]) { a, _ in a } },
                chain: plan.layout.chain(spec: spec, sources: plan.sources),
                createml: rowSinks.isEmpty ? nil : CreateMLSummary(rowSinks).manifestValue(description: plan.description),
                partitions: partitioning?.count).text
        }
        var summary = RunSummary(
            outputDirectory: staging.outputDirectory, recordings: plan.sources.count, rowsRead: totals.rowsRead,
            rowsDropped: totals.rowsDropped, windowsDropped: totals.windowsDropped, recordingsDropped: totals.recordingsDropped,
            skipped: totals.skipped, gaps: totals.gaps, gapSeconds: Double(totals.invalidPoints) / rate,
            windowsPerSplit: SplitName.datasetSplits.map { ($0.rawValue, count($0)) },
            warnings: warnings, bytesWritten: checksums.reduce(0) { $0 + $1.bytes })
        if !rowSinks.isEmpty {
            summary.createmlPerSplit = CreateMLSummary(rowSinks).sinks.map {
                ($0.split.rawValue, $0.sink.files.count, $0.sink.files.reduce(0) { $0 + $1.rows })
            }
        }
        return summary
    }
}
extension DatasetWriter {
    /// A split that holds windows but none of a class another split has (`split_missing_class`):
    /// a model validated or tested on it is not measured on that class. Empty splits are
    /// `split_share`'s to warn about.
    static func missingClassWarnings(files: [SplitName: [WrittenFile]], classNames: [String], split: SplitSpec) -> [String] {
        var present: [SplitName: Set<Int>] = [:]
        for s in SplitName.datasetSplits {
            for f in files[s] ?? [] {
                for (i, n) in f.classCounts.enumerated() where i < classNames.count && n > 0 { present[s, default: []].insert(i) }
            }
        }
        var out: [String] = []
        for (name, missing) in SplitClassCoverage.missing(present, classCount: classNames.count) {
            let listed = SplitClassCoverage.list(missing.map { classNames[$0] })
            let fix = split.stratify != nil
                ? "each class needs a \(split.by.rawValue) for every split with a fraction above 0"
                : "`split.stratify: label` (with `allocation: exact` and `labels.from: path`) shares out each class's \(split.by.rawValue)s on their own"
            out.append("split `\(name.rawValue)` has no window of class(es) \(listed), which other splits have; \(fix); "
                       + PipelineSpec.WarningName.splitMissingClass.silenceHint)
        }
        return out
    }

    /// The manifest's `inputs`: each file once (a layout folder shared by many dumps), in
    /// `InputEntry.manifestOrder`. Two entries for one file with different bytes mean it changed
    /// between reads (a resumed record's or another part's against this run's): refused.
    static func manifestInputs(_ all: [InputEntry]) throws -> [InputEntry] {
        var seen: [String: InputEntry] = [:]
        var out: [InputEntry] = []
        for e in all {
            let key = e.role.rawValue + "\u{0}" + e.path
            if let earlier = seen[key] {
                guard earlier.sha256 == e.sha256 && earlier.bytes == e.bytes else {
                    throw MotionError(.dataError, "input \(e.path) (\(e.role.rawValue)) was read with two different contents while this dataset was made (\(earlier.bytes) bytes, sha256 \(earlier.sha256.prefix(12))…, and \(e.bytes) bytes, \(e.sha256.prefix(12))…): it changed between the reads of two workers, or of an interrupted run and its resume; run again from the start")
                }
                continue
            }
            seen[key] = e
            out.append(e)
        }
        return out.sorted(by: InputEntry.manifestOrder)
    }
}
