import MotionConfig
import MotionCore
import MotionIngest
import MotionRecords

/// Per-recording memory limits of `run` (issue 10, docs/scale.md "bounded memory"): a recording whose
/// time grid or windows would need more values than these is refused with an error (65) naming
/// the file and the samples that stretch it, *before* anything that size is allocated.
///
/// Real recordings are far below them: a day at 400 Hz with 12 channels is 4.1 × 10⁸ grid
/// values. What reaches them is nearly always a bad timestamp (a year 9999, a time in ns read
/// as seconds) stretching the grid over centuries.
public enum ResourceLimits {
    /// Most grid points × channels of one recording: 2³⁰ float32 values, 4 GiB.
    public static let maxGridValues = 1 << 30
    /// Most window values (windows × length × channels) one recording may produce: 2³⁰, 4 GiB.
    public static let maxWindowValues = 1 << 30

    /// Where a stream's earliest and latest samples are, for the message.
    package struct Extent {
        package var first: Double
        package var firstAt: String
        package var last: Double
        package var lastAt: String
        /// Samples read (duplicates included), for the clock-resolution check.
        package var count: Int

        package init(first: Double, firstAt: String, last: Double, lastAt: String, count: Int) {
            self.first = first
            self.firstAt = firstAt
            self.last = last
            self.lastAt = lastAt
            self.count = count
        }

        /// The extent of `raw` as read from `path` (rows: `path:line`; IIO: `path` scan k).
        package init?(_ raw: RawStream, path: String, isIIO: Bool) {
            guard !raw.times.isEmpty else { return nil }
            var lo = 0, hi = 0
            for i in raw.times.indices {
                if raw.times[i] < raw.times[lo] { lo = i }
                if raw.times[i] >= raw.times[hi] { hi = i }
            }
            func at(_ i: Int) -> String { isIIO ? "\(path) scan \(raw.lines[i])" : "\(path):\(raw.lines[i])" }
            first = raw.times[lo]; firstAt = at(lo)
            last = raw.times[hi]; lastAt = at(hi)
            count = raw.times.count
        }
    }

    /// Refuses a recording whose common grid (latest first sample to earliest last sample,
    /// docs/signal.md, "Resampling and gaps") at `rateHz` would hold more than `maxGridValues` values over `channels` channels.
    ///
    /// - Throws: `MotionError(.dataError)` naming the file and line (or IIO scan) of the samples
    ///   that bound the grid.
    package static func checkGrid(recording: String, extents: [Extent], rateHz: Double, channels: Int,
                          limit: Int = maxGridValues) throws {
        guard let start = extents.max(by: { $0.first < $1.first }),
              let end = extents.min(by: { $0.last < $1.last }), end.last > start.first else { return }
        let points = (end.last - start.first) * rateHz + 1
        let values = points * Double(max(channels, 1))
        guard !(values <= Double(limit)) else { return }
        throw MotionError(.dataError, "\(end.lastAt): recording `\(recording)` runs from \(start.first) s (\(start.firstAt)) to \(end.last) s here, a grid of \(format(points)) points × \(channels) channel(s) at \(format(rateHz)) Hz, more than the \(limit) values motionprep accepts for one recording (a resource limit); check these timestamps and the time unit")
    }

    /// How much finer than the grid period, and than a stream's mean sampling interval, the
    /// clock's resolution must be (docs/hardening.md, "Data safety: absurd numbers and messages").
    public static let timeResolutionFactor = 16.0

    /// Refuses a recording whose times are so large that float64 cannot resolve them finely
    /// enough: per stream, with u the spacing of float64 values (`ulp`) at its largest |time|,
    /// it fails when 16 u exceeds the grid period 1 / `rateHz`, or when 16 u exceeds the stream's
    /// mean interval (span / (samples − 1), duplicates counted, when the span is not 0). Past
    /// either, consecutive samples or grid points collapse onto the same float64 time and
    /// would be dropped as `duplicate_time` or resampled at the wrong instants.
    ///
    /// - Throws: `MotionError(.dataError)` at the file and line (or IIO scan) of the largest time.
    package static func checkResolution(recording: String, extents: [Extent], rateHz: Double) throws {
        let k = timeResolutionFactor
        let period = 1 / rateHz
        for e in extents {
            let (t, at) = Swift.abs(e.last) >= Swift.abs(e.first) ? (e.last, e.lastAt) : (e.first, e.firstAt)
            let ulp = Swift.abs(t).ulp
            guard ulp.isFinite else { continue }
            let span = e.last - e.first
            var coarser: String?
            if ulp * k > period {
                coarser = "coarser than 1/\(Int(k)) of the \(period) s grid period (\(format(rateHz)) Hz)"
            } else if span > 0 && e.count > 1 && ulp * k > span / Double(e.count - 1) {
                coarser = "coarser than 1/\(Int(k)) of the stream's mean sampling interval of \(span / Double(e.count - 1)) s (\(e.count) samples over \(span) s)"
            }
            guard let coarser else { continue }
            throw MotionError(.dataError, "\(at): recording `\(recording)` has times near \(t) s, where float64 has a resolution of \(ulp) s, \(coarser), so samples would collapse onto the same time; store times relative to the recording's start, or check the time unit (an input's `time.unit`)")
        }
    }

    /// The run-wide memory budget (`MemoryBudget`), in values: what all recordings in flight
    /// may hold at once, whatever `--jobs`. The same 2³⁰ values (4 GiB) one recording may use.
    public static let defaultRunBudgetValues = 1 << 30

    /// What a streamed recording holds at most, in values: a few input blocks (the block read,
    /// its parsed columns, the streams' buffers), the grid rows kept for windows in progress
    /// (at least a window, trimmed by 2¹⁶ rows or half) and one output batch of
    /// `RecordStore.blockWindows` windows.
    package static func streamedEstimate(blockBytes: Int, channels: Int, length: Int, features: Int) -> Int {
        let c = Double(Swift.max(1, channels))
        let total = 8 * Double(blockBytes) / 4 + 2 * (Double(length) + 65_536) * c
            + Double(RecordStore.blockWindows) * (Double(length) * c + Double(features) + 4)
        return total < Double(Int.max / 2) ? Int(total) : Int.max / 2
    }

    /// Refuses a recording whose windows would hold more than `maxWindowValues` values.
    package static func checkWindows(recording: String, files: String, windows: Int, length: Int, channels: Int,
                             limit: Int = maxWindowValues) throws {
        let values = Double(windows) * Double(length) * Double(max(channels, 1))
        guard values > Double(limit) else { return }
        throw MotionError(.dataError, "\(files): recording `\(recording)` would give \(windows) windows × \(length) samples × \(channels) channel(s), more than the \(limit) values motionprep accepts for one recording (a resource limit); use a longer `window.stride_s` or a shorter window")
    }

    private static func format(_ x: Double) -> String {
        x < 1e15 && x == x.rounded() ? String(Int64(x)) : "\(x)"
    }
}
