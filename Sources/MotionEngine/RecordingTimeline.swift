import MotionConfig
import MotionCore
import MotionResample
import MotionWindowing
import MotionInputs

/// One recording on the pipeline's grid, for drawing: its resampled signal (decimated to min/max
/// buckets), its gaps and its label segments. Built by ``RecordingTimeline/load(spec:maxRecordings:maxPoints:)``.
public struct Timeline: Sendable {
    /// A time range in seconds on the recording's own clock, `start` inclusive, `end` exclusive.
    public struct Span: Sendable, Equatable {
        public var start: Double
        public var end: Double
        public init(start: Double, end: Double) {
            self.start = start
            self.end = end
        }
    }

    /// A run of grid time with one label (after `labels.map`).
    public struct LabelSegment: Sendable, Equatable {
        public var start: Double
        public var end: Double
        public var label: String
        /// The label's class id in `labels.classes`, or `nil` when it is not a class.
        public var classIndex: Int?
        public init(start: Double, end: Double, label: String, classIndex: Int?) {
            self.start = start
            self.end = end
            self.label = label
            self.classIndex = classIndex
        }
    }

    public var recording: String
    public var subject: String
    /// The grid: t_k = t0 + k / rateHz for k in 0 ..< count.
    public var t0: Double
    public var rateHz: Double
    public var count: Int
    public var channelNames: [String]
    public var channelUnits: [String]
    /// Grid points per bucket: the smallest power of two that gives at most `maxPoints / 2`
    /// buckets (1: no decimation), so that a recording read in blocks can merge its buckets
    /// pairwise as it grows and end with the buckets the whole grid gives.
    public var bucketSize: Int
    /// Per bucket and channel, time-major (`[b * C + c]`), the smallest and largest valid value
    /// of the bucket's grid points; NaN where the bucket has no valid point.
    public var minimum: [Float]
    public var maximum: [Float]
    /// Runs of invalid grid points (docs/signal.md, "Resampling and gaps"): from the first invalid point's time to the time of
    /// the next valid point (or the grid's end, t0 + count / rateHz).
    public var gaps: [Span]
    /// Grid index ranges of the same runs.
    public var gapIndices: [Range<Int>]
    /// Label segments clipped to the grid's range `t0 ..< t0 + count / rateHz`, unlabelled time left out.
    public var labels: [LabelSegment]
    /// Why the recording has no grid (it could not be read, or a stream has fewer than 2
    /// samples); the other fields are then empty.
    public var problem: String?
    public var warnings: [String]

    /// Number of buckets.
    public var bucketCount: Int { channelNames.isEmpty ? 0 : minimum.count / channelNames.count }
    /// The end of the grid's range, seconds.
    public var end: Double { t0 + Double(count) / rateHz }
}

/// Ingest + resample per recording, as `motionprep run` does them, for `motionprep report
/// --recordings`: never windows, never writes. Each recording goes through the streamed engine
/// of `run` (`StreamingRecording.timeline`, through `StreamingRecording.attempt`), in bounded
/// memory, bucket by bucket.
public enum RecordingTimeline {
    /// The first `maxRecordings` timelines in the pipeline's recording order.
    public struct Loaded: Sendable {
        public var timelines: [Timeline]
        /// All recordings the pipeline's inputs make (the page says when only some are drawn).
        public var totalRecordings: Int
    }

    /// Reads and resamples the first `maxRecordings` recordings of `spec` (sorted by subject and
    /// name, as the manifest lists them). A recording that cannot be read becomes a timeline
    /// with a `problem`, so one bad file does not hide the others.
    ///
    /// - Parameters:
    ///   - maxPoints: about this many points per channel at most: the grid is cut into
    ///     `maxPoints / 2` buckets of whole grid points, each drawn by its minimum and maximum.
    ///   - blockBytes: input bytes per block (tests set a huge value to read each file in one
    ///     block, and compare).
    /// - Throws: `MotionError` when the inputs match nothing or the layout or labels file is unusable.
    public static func load(spec: PipelineSpec, maxRecordings: Int, maxPoints: Int = 1200,
                            blockBytes: Int = StreamDefaults.blockBytes) throws -> Loaded {
        let sources = try InputDiscovery.recordings(spec)
        let layout = try ChannelLayout.make(spec)
        let intervals: IntervalLabels? = try spec.labels.flatMap { labels in
            guard labels.from == .intervals, let path = labels.path else { return nil }
            return try IntervalLabels.load(path: PathText.join(spec.baseDirectory, path))
        }
        var out: [Timeline] = []
        for source in sources.prefix(max(0, maxRecordings)) {
            var t = Timeline(recording: source.name, subject: source.subject, t0: 0, rateHz: spec.resample.rateHz, count: 0,
                             channelNames: layout.channelNames, channelUnits: layout.channelUnits, bucketSize: 1,
                             minimum: [], maximum: [], gaps: [], gapIndices: [], labels: [], problem: nil, warnings: [])
            do {
                try fill(&t, source: source, spec: spec, layout: layout, intervals: intervals, maxPoints: maxPoints,
                         blockBytes: blockBytes)
            } catch let e as any UserFacingError {
                t.problem = e.message
            }
            out.append(t)
        }
        return Loaded(timelines: out, totalRecordings: sources.count)
    }

    /// The recording's timeline, through the engine that `run` streams recordings with (no
    /// windows cut): the same grid, transforms and labels.
    private static func fill(_ t: inout Timeline, source: RecordingSource, spec: PipelineSpec, layout: ChannelLayout,
                             intervals: IntervalLabels?, maxPoints: Int, blockBytes: Int) throws {
        let bytes = source.keepBlocksMeasure(spec)
        let rate = spec.resample.rateHz
        let plan = WindowPlan(length: spec.window.length.samples(atRateHz: rate), stride: spec.window.stride.samples(atRateHz: rate))
        let keep = spec.resample.antialias && bytes < StreamDefaults.keepBlocksBytes
        var buckets = Buckets(channels: layout.channelNames.count, maxBuckets: max(1, maxPoints / 2))
        let result = try StreamingRecording.attempt(source, isCancelled: { false }, make: { track in
            // A second attempt (label rows read first) starts its buckets again.
            buckets = Buckets(channels: layout.channelNames.count, maxBuckets: max(1, maxPoints / 2))
            return try StreamingRecording(source: source, spec: spec, layout: layout, windowPlan: plan, aligner: nil,
                                          featurePlan: nil, extractor: nil, isTrain: false, intervals: intervals,
                                          blockBytes: blockBytes, keepBlocks: keep, labelTrack: track)
        }) { streaming in
            try withoutActuallyEscaping({ (first: Int, rows: UnsafeBufferPointer<Float>, valid: UnsafeBufferPointer<Bool>) in
                buckets.add(first: first, rows: rows, valid: valid)
            }) { observe in
                try streaming.timeline(isCancelled: { false }, observe: observe)
            }
        }
        t.warnings = result.warnings
        guard let t0 = result.t0, result.count > 0, !result.tooFewSamples else {
            t.problem = "a stream has fewer than 2 samples or the streams do not overlap in time: no grid (too_few_samples)"
            return
        }
        t.t0 = t0
        t.count = result.count
        buckets.finish(into: &t)
        addLabels(result.labels, spec: spec, to: &t)
    }

    /// Label segments after `map`, clipped to the grid's range; equal neighbours merged.
    private static func addLabels(_ track: LabelTrack?, spec: PipelineSpec, to t: inout Timeline) {
        guard let labelSpec = spec.labels, let track else { return }
        var rename: [String: String] = [:]
        for kv in labelSpec.map where rename[kv.key] == nil { rename[kv.key] = kv.value }
        let lo = t.t0, hi = t.end
        for i in track.times.indices where track.labels[i] >= 0 {
            let start = max(lo, track.times[i])
            let end = min(hi, i + 1 < track.times.count ? track.times[i + 1] : hi)
            guard end > start else { continue }
            let raw = track.names[Int(track.labels[i])]
            let name = rename[raw] ?? raw
            if var last = t.labels.last, last.label == name, last.end == start {
                last.end = end
                t.labels[t.labels.count - 1] = last
                continue
            }
            t.labels.append(Timeline.LabelSegment(start: start, end: end, label: name,
                                                  classIndex: labelSpec.classes.firstIndex(of: name)))
        }
    }

    /// Min/max of the valid values per bucket of grid points, and the runs of invalid points,
    /// taken row by row in grid order: the bucket size doubles (neighbouring buckets merged)
    /// whenever the buckets would pass `maxBuckets`, so it ends as the smallest power of two
    /// that gives at most `maxBuckets` for the grid's length, whether the grid came whole or in
    /// blocks.
    package struct Buckets {
        package let channels: Int
        package let maxBuckets: Int
        package private(set) var size = 1
        private var lo: [Float] = []
        private var hi: [Float] = []
        private var count = 0
        private var gapStart: Int?
        package private(set) var gapIndices: [Range<Int>] = []

        package init(channels: Int, maxBuckets: Int) {
            self.channels = channels
            self.maxBuckets = maxBuckets
        }

        /// Grid points `first ..< first + valid.count` (the next ones), `channels` values each.
        package mutating func add(first: Int, rows: UnsafeBufferPointer<Float>, valid: UnsafeBufferPointer<Bool>) {
            let C = channels
            for i in 0..<valid.count {
                let k = first + i
                precondition(k == count, "Timeline buckets: point \(k) after \(count) points")
                count += 1
                if valid[i] {
                    if let g = gapStart { gapIndices.append(g..<k); gapStart = nil }
                } else {
                    if gapStart == nil { gapStart = k }
                    continue
                }
                while k / size >= maxBuckets { mergePairs() }
                let base = (k / size) * C
                if lo.count < base + C {
                    lo.append(contentsOf: repeatElement(.nan, count: base + C - lo.count))
                    hi.append(contentsOf: repeatElement(.nan, count: base + C - hi.count))
                }
                for c in 0..<C {
                    let v = rows[i * C + c]
                    guard v.isFinite else { continue }
                    if !(lo[base + c] <= v) { lo[base + c] = v }
                    if !(hi[base + c] >= v) { hi[base + c] = v }
                }
            }
        }

        /// Doubles the bucket size: buckets 2j and 2j+1 become bucket j (the earlier value kept on
        /// ties, as one pass over their points would keep it).
        private mutating func mergePairs() {
            let C = channels
            let n = lo.count / C
            let m = (n + 1) / 2
            var l = [Float](repeating: .nan, count: m * C), h = [Float](repeating: .nan, count: m * C)
            for b in 0..<n {
                for c in 0..<C {
                    let v = lo[b * C + c], w = hi[b * C + c], j = (b / 2) * C + c
                    if !v.isNaN && !(l[j] <= v) { l[j] = v }
                    if !w.isNaN && !(h[j] >= w) { h[j] = w }
                }
            }
            lo = l
            hi = h
            size *= 2
        }

        /// The buckets, bucket size and gaps of a grid of `t.count` points starting at `t.t0`.
        package mutating func finish(into t: inout Timeline) {
            while count > size * maxBuckets { mergePairs() }
            let buckets = (count + size - 1) / size
            let C = channels
            if lo.count < buckets * C {
                lo.append(contentsOf: repeatElement(.nan, count: buckets * C - lo.count))
                hi.append(contentsOf: repeatElement(.nan, count: buckets * C - hi.count))
            }
            if let g = gapStart { gapIndices.append(g..<count); gapStart = nil }
            t.bucketSize = size
            t.minimum = lo
            t.maximum = hi
            t.gapIndices = gapIndices
            t.gaps = gapIndices.map { r in
                Timeline.Span(start: t.t0 + Double(r.lowerBound) / t.rateHz,
                              end: r.upperBound < t.count ? t.t0 + Double(r.upperBound) / t.rateHz : t.end)
            }
        }
    }
}
