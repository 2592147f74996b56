import MotionConfig
import MotionCore
import MotionIngest

/// Per-recording memory limits of `run` (issue 10, SPEC §10 "bounded memory"): a recording whose
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
    struct Extent {
        var first: Double
        var firstAt: String
        var last: Double
        var lastAt: String

        init(first: Double, firstAt: String, last: Double, lastAt: String) {
            self.first = first
            self.firstAt = firstAt
            self.last = last
            self.lastAt = lastAt
        }

        /// The extent of `raw` as read from `path` (rows: `path:line`; IIO: `path` scan k).
        init?(_ raw: RawStream, path: String, isIIO: Bool) {
            guard !raw.times.isEmpty else { return nil }
            var lo = 0, hi = 0
            for i in raw.times.indices {
                if raw.times[i] < raw.times[lo] { lo = i }
                if raw.times[i] >= raw.times[hi] { hi = i }
            }
            func at(_ i: Int) -> String { isIIO ? "\(path) scan \(raw.lines[i])" : "\(path):\(raw.lines[i])" }
            first = raw.times[lo]; firstAt = at(lo)
            last = raw.times[hi]; lastAt = at(hi)
        }
    }

    /// Refuses a recording whose common grid (latest first sample to earliest last sample,
    /// SPEC §4) at `rateHz` would hold more than `maxGridValues` values over `channels` channels.
    ///
    /// - Throws: `MotionError(.dataError)` naming the file and line (or IIO scan) of the samples
    ///   that bound the grid.
    static func checkGrid(recording: String, extents: [Extent], rateHz: Double, channels: Int) throws {
        guard let start = extents.max(by: { $0.first < $1.first }),
              let end = extents.min(by: { $0.last < $1.last }), end.last > start.first else { return }
        let points = (end.last - start.first) * rateHz + 1
        let values = points * Double(max(channels, 1))
        guard !(values <= Double(maxGridValues)) else { return }
        throw MotionError(.dataError, "\(end.lastAt): recording `\(recording)` runs from \(start.first) s (\(start.firstAt)) to \(end.last) s here, a grid of \(format(points)) points × \(channels) channel(s) at \(format(rateHz)) Hz, more than the \(maxGridValues) values motionprep accepts for one recording (a resource limit); check these timestamps and the time unit")
    }

    /// Refuses a recording whose windows would hold more than `maxWindowValues` values.
    static func checkWindows(recording: String, files: String, windows: Int, length: Int, channels: Int) throws {
        let values = Double(windows) * Double(length) * Double(max(channels, 1))
        guard values > Double(maxWindowValues) else { return }
        throw MotionError(.dataError, "\(files): recording `\(recording)` would give \(windows) windows × \(length) samples × \(channels) channel(s), more than the \(maxWindowValues) values motionprep accepts for one recording (a resource limit); use a longer `window.stride_s` or a shorter window")
    }

    private static func format(_ x: Double) -> String {
        x < 1e15 && x == x.rounded() ? String(Int64(x)) : "\(x)"
    }
}
