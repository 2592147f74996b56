import MotionConfig
import MotionCore
import MotionSinks
import MotionFeatures
import MotionIngest
import MotionLabels
import MotionResample
import MotionWindowing
import MotionInputs
import MotionRecords

/// Runs one recording through ingest → resample → window → label → features, streamed in
/// blocks (`StreamingRecording`, the one engine). Stateless apart from per-thread scratch (the
/// feature extractor), so one instance serves one worker thread.
package final class RecordingProcessor {
    /// Keep every valid row of `x` in `ProcessedRecording.rows` (`motionprep live-vectors`).
    package var collectRows = false
    package let spec: PipelineSpec
    package let layout: ChannelLayout
    package let windowPlan: WindowPlan
    package let aligner: LabelAligner?
    package let featurePlan: FeaturePlan?
    private var extractor: FeatureExtractor?

    /// Input bytes per block.
    package let streamBlockBytes: Int
    /// Recordings below this many bytes are parsed once and held as blocks for the extra passes
    /// (`RecordingReader.keepsFirstRead`).
    package let keepBlocksBytes = StreamDefaults.keepBlocksBytes
    /// Notices for the user (a recording whose label rows are read in a pass of their own).
    package let log: (String) -> Void
    /// The most grid values, and the most window values, one recording may use: the resource
    /// limits, or the run's memory budget when that is smaller.
    package let valueLimit: Int
    /// `apply` (`keepUnlabelled`): every window is kept, the `qa` policy does not drop.
    package let keepsEveryWindow: Bool

    /// - Parameter keepUnlabelled: keep the windows the label policy would drop, with y = −1
    ///   (`motionprep apply`, `LabelAligner.keepUnlabelled`).
    package init(spec: PipelineSpec, layout: ChannelLayout, streamBlockBytes: Int = StreamDefaults.blockBytes,
         log: @escaping (String) -> Void = { _ in }, valueLimit: Int = ResourceLimits.maxGridValues, keepUnlabelled: Bool = false) {
        self.valueLimit = valueLimit
        keepsEveryWindow = keepUnlabelled
        self.spec = spec
        self.layout = layout
        self.streamBlockBytes = streamBlockBytes
        self.log = log
        let rate = spec.resample.rateHz
        windowPlan = WindowPlan(length: spec.window.length.samples(atRateHz: rate),
                                stride: spec.window.stride.samples(atRateHz: rate))
        if let l = spec.labels {
            var a = LabelAligner(policy: l.policy, minFraction: l.minFraction,
                                 map: l.map.map { ($0.key, $0.value) }, classes: l.classes)
            a.keepUnlabelled = keepUnlabelled
            a.perSample = l.perSample
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

    /// Processes `source` into a record saved at `recordPath` (created in `recordFolder` through
    /// its descriptor when given, `recordPath` then only naming it), streamed in blocks (bounded
    /// memory, windows left in the record file).
    ///
    /// The record's inputs are hashed from the bytes the readers parsed (`ledger`, one per
    /// recording); every read of a file must give the same bytes.
    /// `reserve` is called with the values (4-byte units) the recording will hold at most, before
    /// its grid and windows are allocated (the run's `MemoryBudget`); it may wait, and it is
    /// called again with more while a zero-phase transform holds a long segment. `keepWindows` grants
    /// holding each block of windows in memory for the writer as well (`RecordWriter`).
    package func processToRecord(_ source: RecordingSource, isTrain: Bool, intervals: IntervalLabels?, ledger: InputLedger,
                         recordPath: String, recordFolder: WritableFolder? = nil, pipelineSHA256: String, isCancelled: () -> Bool,
                         bytesRead: (Int) -> Void = { _ in },
                         reserve: (Int) throws -> Void = { _ in },
                         keepWindows: @escaping (Int) -> Bool = { _ in false }) throws -> RecordingRecord {
        let bytes = source.keepBlocksMeasure(spec)
        // A recording below `keepBlocksBytes` is parsed once and held as blocks when the
        // anti-aliasing median needs an extra pass (about the bytes of the files, in values; with
        // `antialias_from: leading` the pass reads only the files' heads, and keeps those). A
        // compressed file is read (and decompressed) again instead: its text's size is unknown.
        let keep = spec.resample.antialias && bytes < keepBlocksBytes
        let reserved = ResourceLimits.streamedEstimate(blockBytes: streamBlockBytes, channels: layout.channelNames.count,
                                                       length: windowPlan.length, features: featurePlan?.count ?? 0)
            + (keep ? bytes / 4 : 0)
        try reserve(reserved)
        if extractor == nil, let featurePlan { extractor = FeatureExtractor(plan: featurePlan) }
        // The streamed recording asks for more while it holds a zero-phase segment; it does not
        // outlive this call.
        return try withoutActuallyEscaping(reserve) { reserve in
            func make(_ track: LabelTrack?) throws -> StreamingRecording {
                try StreamingRecording(source: source, spec: spec, layout: layout, windowPlan: windowPlan,
                                       aligner: aligner, featurePlan: featurePlan, extractor: extractor,
                                       isTrain: isTrain, intervals: intervals, blockBytes: streamBlockBytes,
                                       valueLimit: valueLimit, ledger: ledger, keepBlocks: keep, labelTrack: track,
                                       reserved: reserved, reserve: reserve)
            }
            // The pipeline's `qa`: a pass of its own first (RecordingQA.swift).
            var qa: RecordingQA?
            if let q = spec.qa {
                let start = try RecordingQA(spec: q, layout: layout, rateHz: spec.resample.rateHz, drops: q.policy == .drop && !keepsEveryWindow)
                qa = try StreamingRecording.attempt(source, log: log, isCancelled: isCancelled, make: make) { streaming in
                    try streaming.qaPass(start, isCancelled: isCancelled)
                }
            }
            return try StreamingRecording.attempt(source, log: log, isCancelled: isCancelled, make: make) { streaming in
                streaming.qa = qa
                return try streaming.run(recordPath: recordPath, recordFolder: recordFolder, pipelineSHA256: pipelineSHA256,
                                  isCancelled: isCancelled, bytesRead: bytesRead, keep: keepWindows, collectRows: collectRows)
            }
        }
    }
}
