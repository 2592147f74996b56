import Foundation
import MotionChecksum
import MotionConfig
import MotionCore
import MotionFeatures
import MotionSinks

/// Runs a pipeline end to end: discover → process recordings in parallel → write splits in
/// canonical order → SHA256SUMS → manifest → move the finished dataset into place.
public enum PipelineRunner {
    public static func run(_ spec: PipelineSpec, options: RunOptions) throws -> RunSummary {
        let layout = try ChannelLayout.make(spec)
        let sources = try InputDiscovery.recordings(spec)
        let intervals: IntervalLabels? = try spec.labels.flatMap { labels in
            guard labels.from == .intervals, let path = labels.path else { return nil }
            return try IntervalLabels.load(path: PathText.join(spec.baseDirectory, path))
        }
        let rate = spec.resample.rateHz
        let length = spec.window.length.samples(atRateHz: rate)
        let stride = spec.window.stride.samples(atRateHz: rate)
        let subjects = Array(Set(sources.map(\.subject))).sorted(by: Text.utf8Less)
        let recordingNames = sources.map(\.name).sorted(by: Text.utf8Less)
        let subjectIndex = Dictionary(uniqueKeysWithValues: subjects.enumerated().map { ($1, Int32($0)) })
        let recordingIndex = Dictionary(uniqueKeysWithValues: recordingNames.enumerated().map { ($1, Int32($0)) })
        let splitter = SplitAssigner(spec.split)
        let splitOf = sources.map { splitter.split(of: splitter.key(subject: $0.subject, recording: $0.name)) }
        var warnings: [String] = []
        if spec.split.by == .subject && sources.count > 1 && subjects.count == sources.count {
            warnings.append("every recording is its own subject while splitting by subject; check the `subject` template (default `{dir}`), or recordings of one person may leak across splits")
        }
        let featureNames = spec.features.isEmpty ? [] :
            FeaturePlan(features: spec.features, channelNames: layout.channelNames, rateHz: rate, windowLength: length).featureNames
        let description = DatasetDescription(
            sampleRateHz: rate, windowLength: length, windowStride: stride, channelNames: layout.channelNames,
            channelUnits: layout.channelUnits, classNames: spec.labels?.classes ?? [], featureNames: featureNames,
            subjectNames: subjects, recordingNames: recordingNames, hasFolds: spec.split.folds != nil)

        let outDir = PathText.normalize(options.outputDirectory ?? PathText.join(spec.baseDirectory, spec.output.path))
        let staging = DatasetStaging(outputDirectory: outDir)
        try staging.begin()
        var finished = false
        defer { if !finished { staging.abandon() } }

        var sinks: [SplitName: SplitSink] = [:]
        // HDF5 chunks are compressed on their own threads, shared by the three files.
        let chunkCompression = HDF5ChunkCompressionPool(threads: Swift.max(1, options.jobs))
        for split in SplitName.allCases {
            switch spec.output.type {
            case .hdf5:
                sinks[split] = try HDF5SplitSink(directory: staging.partialDirectory, split: split.rawValue, description: description,
                                                 compression: chunkCompression)
            case .shards:
                throw MotionError(.config, "`output.type: shards` in \(spec.file) is not supported by this build yet; use `hdf5`")
            }
        }

        var totals = Totals(channels: layout.channelNames.count, features: featureNames.count)
        let executor = OrderedExecutor<RecordingProcessor, Result<ProcessedRecording, Error>>()
        let isTrain = splitOf.map { $0 == .train }
        try executor.run(
            count: sources.count, jobs: options.jobs, maxInFlight: options.jobs * 2,
            makeWorker: { RecordingProcessor(spec: spec, layout: layout) },
            work: { processor, i in
                Result { try processor.process(sources[i], isTrain: isTrain[i], intervals: intervals) }
            },
            consume: { i, outcome in
                let source = sources[i]
                switch outcome {
                case .failure(let error):
                    guard spec.onError == .skip else { throw error }
                    totals.recordingsDropped["skipped_on_error", default: 0] += 1
                    totals.skipped.append((source.name, "\(error)"))
                    options.log("skipped recording `\(source.name)`: \(error)")
                case .success(let done):
                    totals.add(done)
                    let fold = splitter.fold(of: splitter.key(subject: source.subject, recording: source.name))
                    try sinks[splitOf[i]]!.append(done.windows, subjectIndex: subjectIndex[source.subject]!,
                                                  recordingIndex: recordingIndex[source.name]!, foldIndex: fold)
                    for w in done.warnings { options.log("warning: \(w)") }
                }
            })

        var files: [SplitName: [WrittenFile]] = [:]
        for split in SplitName.allCases { files[split] = try sinks[split]!.finish() }
        sinks.removeAll()
        let total = SplitName.allCases.reduce(0) { $0 + files[$1]!.reduce(0) { $0 + $1.numWindows } }
        if total == 0 {
            throw MotionError(.dataError, "the run produced no window: \(totals.explanation(windowLength: length, rateHz: rate, recordings: sources.count))")
        }
        for split in SplitName.allCases {
            let n = files[split]!.reduce(0) { $0 + $1.numWindows }
            let share = Double(n) / Double(total)
            let wanted = [SplitName.train: spec.split.train, .validation: spec.split.validation, .test: spec.split.test][split]!
            if n == 0 && wanted > 0 {
                warnings.append("split `\(split.rawValue)` is empty (it was meant to hold \(Int(wanted * 100)) % of the windows)")
            } else if abs(share - wanted) > 0.10 {
                warnings.append(String(format: "split `%@` holds %.1f %% of the windows, more than 10 points off its fraction %.1f %%",
                                       split.rawValue, share * 100, wanted * 100))
            }
        }
        if files[.train]!.reduce(0, { $0 + $1.numWindows }) == 0 {
            warnings.append("the train split is empty, so the manifest's normalization statistics are null")
        }
        for w in warnings { options.log("warning: \(w)") }

        // Checksums, then the manifest, written last.
        var checksums: [(path: String, sha256: String, bytes: Int)] = []
        for split in SplitName.allCases {
            for f in files[split]! {
                let (hex, bytes) = try SHA256.hexOfFile(path: staging.partialDirectory + "/" + f.path)
                checksums.append((f.path, hex, bytes))
            }
        }
        let sums = checksums.map { "\($0.sha256)  \($0.path)\n" }.joined()
        try staging.write("SHA256SUMS", sums)
        let inputs = try ManifestBuilder.inputEntries(spec)
        let manifest = ManifestBuilder.manifest(
            spec: spec, description: description, inputs: inputs, totals: totals, recordings: sources.count,
            files: files, checksums: checksums)
        try staging.write("manifest.json", manifest.pretty() + "\n")
        try staging.commit()
        finished = true

        return RunSummary(
            outputDirectory: outDir, recordings: sources.count, rowsRead: totals.rowsRead, rowsDropped: totals.rowsDropped,
            windowsDropped: totals.windowsDropped, recordingsDropped: totals.recordingsDropped, skipped: totals.skipped,
            gaps: totals.gaps, gapSeconds: Double(totals.invalidPoints) / rate,
            windowsPerSplit: SplitName.allCases.map { ($0.rawValue, files[$0]!.reduce(0) { $0 + $1.numWindows }) },
            warnings: warnings, bytesWritten: checksums.reduce(0) { $0 + $1.bytes })
    }
}

/// Counters summed over recordings in canonical order.
struct Totals {
    var rowsRead = 0
    var rowsDropped: [String: Int] = [:]
    var windowsDropped: [String: Int] = [:]
    var recordingsDropped: [String: Int] = [:]
    var skipped: [(String, String)] = []
    var gaps = 0
    var invalidPoints = 0
    var shortRecordings = 0
    var xMoments: RunningMoments
    var featureMoments: RunningMoments

    init(channels: Int, features: Int) {
        xMoments = RunningMoments(columns: channels)
        featureMoments = RunningMoments(columns: features)
    }

    mutating func add(_ r: ProcessedRecording) {
        rowsRead += r.rowsRead
        rowsDropped.add(r.rowsDropped)
        windowsDropped.add(r.windowsDropped)
        if let d = r.recordingDropped { recordingsDropped[d, default: 0] += 1 }
        gaps += r.gaps
        invalidPoints += r.invalidPoints
        if let m = r.xMoments { xMoments.combine(m) }
        if let m = r.featureMoments { featureMoments.combine(m) }
    }

    func explanation(windowLength: Int, rateHz: Double, recordings: Int) -> String {
        var parts: [String] = ["\(recordings) recording(s) read"]
        for (k, v) in recordingsDropped.sorted(by: { $0.key < $1.key }) { parts.append("\(v) recording(s) dropped (\(k))") }
        for (k, v) in windowsDropped.sorted(by: { $0.key < $1.key }) { parts.append("\(v) window(s) dropped (\(k))") }
        if windowsDropped.isEmpty {
            parts.append("no gap-free stretch of any recording is as long as one window (\(windowLength) samples = \(Double(windowLength) / rateHz) s)")
        }
        return parts.joined(separator: ", ")
    }
}
