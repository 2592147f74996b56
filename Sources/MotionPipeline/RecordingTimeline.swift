import MotionConfig
import MotionCore
import MotionResample

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
    /// Grid points per bucket (1: no decimation).
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
/// --recordings`: never windows, never writes.
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
    /// - Throws: `MotionError` when the inputs match nothing or the layout or labels file is unusable.
    public static func load(spec: PipelineSpec, maxRecordings: Int, maxPoints: Int = 1200) throws -> Loaded {
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
                try fill(&t, source: source, spec: spec, layout: layout, intervals: intervals, maxPoints: maxPoints)
            } catch let e as any UserFacingError {
                t.problem = e.message
            }
            out.append(t)
        }
        return Loaded(timelines: out, totalRecordings: sources.count)
    }

    private static func fill(_ t: inout Timeline, source: RecordingSource, spec: PipelineSpec, layout: ChannelLayout,
                             intervals: IntervalLabels?, maxPoints: Int) throws {
        // The same chain as RecordingProcessor.process, up to the resampled signal.
        let recording = try RecordingLoader.load(source, spec: spec, layout: layout, intervals: intervals)
        t.warnings = recording.warnings
        let rate = spec.resample.rateHz
        var inputs = spec.resampleInputs(recording.streams)
        _ = try spec.antialias(&inputs, recording: source.name)
        guard let resampled = Resampler.resample(inputs, rateHz: rate, magnitudes: layout.magnitudes.map(\.axes)),
              resampled.grid.count > 0 else {
            t.problem = "a stream has fewer than 2 samples or the streams do not overlap in time: no grid (too_few_samples)"
            return
        }
        let signal = layout.transformed(resampled, rateHz: rate).signal
        let grid = signal.grid
        t.t0 = grid.t0
        t.count = grid.count
        decimate(signal, into: &t, buckets: max(1, maxPoints / 2))

        // Gaps: runs of invalid points.
        var k = 0
        while k < grid.count {
            if signal.valid[k] { k += 1; continue }
            let start = k
            while k < grid.count && !signal.valid[k] { k += 1 }
            t.gapIndices.append(start..<k)
            t.gaps.append(Timeline.Span(start: grid.time(start), end: k < grid.count ? grid.time(k) : t.end))
        }

        // Label segments after `map`, clipped to the grid's range; equal neighbours merged.
        guard let labelSpec = spec.labels, let track = recording.labels else { return }
        var rename: [String: String] = [:]
        for kv in labelSpec.map where rename[kv.key] == nil { rename[kv.key] = kv.value }
        let lo = grid.t0, hi = t.end
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

    /// Min/max of the valid values per bucket of `ceil(count / buckets)` grid points.
    private static func decimate(_ signal: ResampledSignal, into t: inout Timeline, buckets: Int) {
        let n = signal.grid.count, C = signal.channelCount
        let size = max(1, (n + buckets - 1) / buckets)
        let b = (n + size - 1) / size
        var lo = [Float](repeating: .nan, count: b * C)
        var hi = [Float](repeating: .nan, count: b * C)
        for k in 0..<n where signal.valid[k] {
            let base = (k / size) * C
            for c in 0..<C {
                let v = signal.values[k * C + c]
                guard v.isFinite else { continue }
                if !(lo[base + c] <= v) { lo[base + c] = v }
                if !(hi[base + c] >= v) { hi[base + c] = v }
            }
        }
        t.bucketSize = size
        t.minimum = lo
        t.maximum = hi
    }
}
