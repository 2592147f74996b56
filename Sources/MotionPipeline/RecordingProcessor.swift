import MotionConfig
import MotionCore
import MotionFeatures
import MotionIngest
import MotionLabels
import MotionResample
import MotionWindowing

/// What one recording produced: its windows and what was counted on the way.
public struct ProcessedRecording: Sendable {
    public var source: RecordingSource
    public var windows: WindowBatch
    public var rowsRead: Int
    public var rowsDropped: ReasonCounts
    public var windowsDropped: ReasonCounts
    /// `too_few_samples` when the recording yields no grid.
    public var recordingDropped: String?
    public var gaps: Int
    public var invalidPoints: Int
    public var warnings: [String]
    /// Moments of x's channels over every time step of every window (train recordings only).
    public var xMoments: RunningMoments?
    public var featureMoments: RunningMoments?
    /// The longest run of valid grid points (gap-free stretch), for the message of a run without
    /// windows; nil when not known (a recording resumed from a record file).
    public var longestRun: Int? = nil
    /// Lines of the intervals file whose row (of this recording, label in `classes`) covers no
    /// grid point of it (`counts.label_rows_ignored.no_overlap`).
    public var labelRowsNoOverlap: [Int] = []
}

/// Runs one recording through ingest → resample → window → label → features. Stateless apart
/// from per-thread scratch (the feature extractor), so one instance serves one worker thread.
final class RecordingProcessor {
    let spec: PipelineSpec
    let layout: ChannelLayout
    let windowPlan: WindowPlan
    let aligner: LabelAligner?
    let featurePlan: FeaturePlan?
    private var extractor: FeatureExtractor?

    /// Recordings whose files total at least this many bytes are streamed (`StreamingRecording`).
    let streamThresholdBytes: Int
    /// Input bytes per block when streaming.
    let streamBlockBytes: Int
    /// Streamed recordings below this many bytes are parsed once and held as blocks for the
    /// extra passes (`StreamingRecording.keepBlocks`).
    let keepBlocksBytes = RunOptions.defaultKeepBlocksBytes
    /// Notices for the user (a streamed recording processed whole after all).
    let log: (String) -> Void
    /// The most grid values, and the most window values, one recording may use: the resource
    /// limits, or the run's memory budget when that is smaller.
    let valueLimit: Int

    /// - Parameter keepUnlabelled: keep the windows the label policy would drop, with y = −1
    ///   (`motionprep apply`, `LabelAligner.keepUnlabelled`).
    init(spec: PipelineSpec, layout: ChannelLayout, streamThresholdBytes: Int = RunOptions.defaultStreamThresholdBytes,
         streamBlockBytes: Int = RunOptions.defaultStreamBlockBytes, log: @escaping (String) -> Void = { _ in },
         valueLimit: Int = ResourceLimits.maxGridValues, keepUnlabelled: Bool = false) {
        self.valueLimit = valueLimit
        self.spec = spec
        self.layout = layout
        self.streamThresholdBytes = streamThresholdBytes
        self.streamBlockBytes = streamBlockBytes
        self.log = log
        let rate = spec.resample.rateHz
        windowPlan = WindowPlan(length: spec.window.length.samples(atRateHz: rate),
                                stride: spec.window.stride.samples(atRateHz: rate))
        if let l = spec.labels {
            var a = LabelAligner(policy: l.policy, minFraction: l.minFraction,
                                 map: l.map.map { ($0.key, $0.value) }, classes: l.classes)
            a.keepUnlabelled = keepUnlabelled
            aligner = a
        } else {
            aligner = nil
        }
        if spec.features.isEmpty {
            featurePlan = nil
        } else {
            featurePlan = FeaturePlan(features: spec.features, channelNames: layout.channelNames, rateHz: rate,
                                      windowLength: windowPlan.length)
        }
    }

    /// Processes `source` into a record saved at `recordPath`: streamed in blocks when it is large
    /// and its inputs allow it (bounded memory, windows left in the record file), else whole.
    /// Both give the same bytes; a streamed recording that whole processing must judge (an
    /// error, or label events far out of time order) is processed whole after all.
    ///
    /// The record's inputs are hashed from the bytes the readers parsed (`ledger`, one per
    /// recording); every read of a file, in either path, must give the same bytes.
    /// `reserve` is called with the values (4-byte units) the recording will hold at most, before
    /// its grid and windows are allocated (the run's `MemoryBudget`); it may wait.
    func processToRecord(_ source: RecordingSource, isTrain: Bool, intervals: IntervalLabels?, ledger: InputLedger,
                         recordPath: String, pipelineSHA256: String, isCancelled: () -> Bool,
                         bytesRead: (Int) -> Void = { _ in },
                         reserve: (Int) throws -> Void = { _ in }) throws -> RecordingRecord {
        let bytes = source.fileBytes
        if bytes >= streamThresholdBytes {
            // A recording below `keepBlocksBytes` is parsed once and held as blocks when the
            // anti-aliasing median needs an extra pass (about the bytes of the files, in values).
            let keep = spec.resample.antialias && bytes < keepBlocksBytes
            let reserved = ResourceLimits.streamedEstimate(blockBytes: streamBlockBytes, channels: layout.channelNames.count,
                                                           length: windowPlan.length, features: featurePlan?.count ?? 0)
                + (keep ? bytes / 4 : 0)
            try reserve(reserved)
            if extractor == nil, let featurePlan { extractor = FeatureExtractor(plan: featurePlan) }
            // The streamed recording asks for more while it holds a zero-phase segment; it
            // does not outlive this call.
            let streamed: RecordingRecord? = try withoutActuallyEscaping(reserve) { reserve in
                let streaming = try StreamingRecording(source: source, spec: spec, layout: layout, windowPlan: windowPlan,
                                                       aligner: aligner, featurePlan: featurePlan, extractor: extractor,
                                                       isTrain: isTrain, intervals: intervals, blockBytes: streamBlockBytes,
                                                       valueLimit: valueLimit, ledger: ledger, keepBlocks: keep,
                                                       reserved: reserved, reserve: reserve)
                do {
                    return try streaming.run(recordPath: recordPath, pipelineSHA256: pipelineSHA256,
                                             isCancelled: isCancelled, bytesRead: bytesRead)
                } catch let e as RunInterrupted {
                    throw e
                } catch let e as MotionError where e.exitStatus == .ioError {
                    // A read failed, or a file changed as it was read: whole processing would only
                    // read it once more.
                    throw e
                } catch let e as StreamFallback where e.isLabelEventOutOfOrder {
                    log("notice: recording `\(source.name)`: \(e.description) (label rows far out of time order), so it is processed whole, in memory")
                } catch let e where !(e is StreamFallback) && source.files.count == 1 {
                    // One file: its errors come in the order whole processing raises them.
                    throw e
                } catch {
                    // Several files (read interleaved) or a case left to whole processing: it gives
                    // the recording's error its canonical message.
                }
                return nil
            }
            if let streamed { return streamed }
        }
        let processed = try process(source, isTrain: isTrain, intervals: intervals, reserve: reserve, ledger: ledger)
        let record = RecordingRecord(processed: processed, inputs: try ledger.inputs(for: source), stored: nil)
        try RecordStore.save(record, pipelineSHA256: pipelineSHA256, to: recordPath)
        return record
    }

    /// Processes `source` whole, in memory. Throws a `UserFacingError` when the recording cannot be read.
    func process(_ source: RecordingSource, isTrain: Bool, intervals: IntervalLabels?,
                 reserve: (Int) throws -> Void = { _ in }, ledger: InputLedger? = nil) throws -> ProcessedRecording {
        let recording = try RecordingLoader.load(source, spec: spec, layout: layout, intervals: intervals, gridLimit: valueLimit,
                                                 ledger: ledger)
        let T = windowPlan.length
        let C = layout.channelNames.count
        // Transforms hold the untransformed grid and, for one segment at a time, float64 buffers
        // of the channels they write (2 values each) and a few temporaries.
        let scratch = layout.transforms.map { $0.inputChannels + 2 * $0.channelCount + 4 } ?? 0
        try reserve(ResourceLimits.wholeEstimate(streams: recording.streams, rateHz: spec.resample.rateHz, channels: C,
                                                 length: T, stride: windowPlan.stride, features: featurePlan?.count ?? 0,
                                                 scratchPerPoint: scratch))
        var result = ProcessedRecording(source: source,
                                        windows: WindowBatch(length: T, channelCount: C, featureCount: featurePlan?.count ?? 0),
                                        rowsRead: recording.rowsRead, rowsDropped: recording.rowsDropped, windowsDropped: [:],
                                        recordingDropped: nil, gaps: 0, invalidPoints: 0, warnings: recording.warnings)
        let rate = spec.resample.rateHz
        var inputs = spec.resampleInputs(recording.streams)
        result.warnings += try spec.antialias(&inputs, recording: source.name)
        guard var signal = Resampler.resample(inputs, rateHz: rate, magnitudes: layout.magnitudes.map(\.axes)) else {
            result.recordingDropped = "too_few_samples"
            result.longestRun = 0
            if let intervals {
                result.labelRowsNoOverlap = LabelSources.noOverlapLines(intervals, recording: source.name, spec: spec,
                                                                        gridCount: 0, time: { _ in 0 })
            }
            return result
        }
        if let intervals {
            result.labelRowsNoOverlap = LabelSources.noOverlapLines(intervals, recording: source.name, spec: spec,
                                                                    gridCount: signal.grid.count, time: signal.grid.time)
        }
        let gapStats = signal.gapStatistics
        result.gaps = gapStats.gaps
        result.invalidPoints = gapStats.invalidPoints
        if layout.transforms != nil {
            // Segments too short for a zero-phase filter are dropped, and the windows they would
            // have given counted (docs/signal.md, "Transforms").
            let transformed = layout.transformed(signal, rateHz: rate)
            signal = transformed.signal
            let lost = transformed.dropped.reduce(0) { $0 + ($1.count >= T ? ($1.count - T) / windowPlan.stride + 1 : 0) }
            if lost > 0 { result.windowsDropped["short_segment", default: 0] += lost }
        }
        let segments = signal.segments
        result.longestRun = segments.map(\.count).max() ?? 0
        // Counted before the starts are listed: the list itself (8 bytes a window) could be large.
        let windowCount = segments.reduce(0) { $0 + ($1.count >= T ? ($1.count - T) / windowPlan.stride + 1 : 0) }
        try ResourceLimits.checkWindows(recording: source.name, files: source.files.map(\.path).joined(separator: ", "),
                                        windows: windowCount, length: T, channels: C, limit: valueLimit)
        let starts = windowPlan.starts(in: segments)
        var keptStarts: [Int]
        var classIds: [Int64]
        if let aligner {
            let labelled = aligner.label(track: recording.labels ?? .empty, gridCount: signal.grid.count,
                                         gridTime: signal.grid.time, starts: starts, length: T)
            keptStarts = labelled.kept.map { starts[$0] }
            classIds = labelled.classIds
            result.windowsDropped.add(labelled.dropped)
        } else {
            keptStarts = starts
            classIds = [Int64](repeating: -1, count: starts.count)
        }
        var batch = result.windows
        batch.x.reserveCapacity(keptStarts.count * T * C)
        for s in keptStarts {
            batch.x.append(contentsOf: signal.values[(s * C)..<((s + T) * C)])
            batch.startTimes.append(signal.grid.time(s))
        }
        batch.y = classIds
        if let featurePlan {
            if extractor == nil { extractor = FeatureExtractor(plan: featurePlan) }
            let F = featurePlan.count
            batch.features = [Float](repeating: 0, count: keptStarts.count * F)
            batch.x.withUnsafeBufferPointer { x in
                batch.features.withUnsafeMutableBufferPointer { out in
                    extractor!.extract(windows: x, count: keptStarts.count, into: out)
                }
            }
        }
        if isTrain && batch.count > 0 {
            // Per block of `RecordStore.blockWindows` windows, combined in order: what a streamed
            // recording computes, so both give the same bits.
            let n = RecordStore.blockWindows
            result.xMoments = RunningMoments.of(batch.x, columns: C, rowsPerBlock: n * T)
            if featurePlan != nil {
                result.featureMoments = RunningMoments.of(batch.features, columns: batch.featureCount, rowsPerBlock: n)
            }
        }
        result.windows = batch
        return result
    }
}
