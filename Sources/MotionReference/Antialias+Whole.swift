import MotionCore
import MotionResample

// The test oracle's anti-aliasing (docs/streaming.md, "One path"): a whole stream filtered run by
// run. The engine filters with `StreamingRunFilter` as samples come.

extension Antialias {
    /// Low-passes `stream` when it needs it (docs/signal.md, "Resampling and gaps"): a 4th-order Butterworth at 0.4 × rateHz
    /// designed for the stream's median rate, run forward and backward (as `sosfiltfilt` with its
    /// default padding) over each run of samples between gaps (intervals above `maxGapS`).
    /// With `leading` (`antialias_from: leading`), the rate is the median of the stream's first
    /// 256 intervals (`leadingMedianInterval`), else of all of them.
    /// - Returns: the (possibly) filtered stream and the number of runs left unfiltered because
    ///   they had 15 samples or fewer (scipy's pad length for this filter).
    /// - Complexity: O(samples × channels).
    public static func apply(_ stream: SensorStream, rateHz: Double, maxGapS: Double,
                             leading: Bool = false) throws -> (stream: SensorStream, unfilteredRuns: Int) {
        let median = leading ? leadingMedianInterval(stream.times) : medianInterval(stream.times)
        guard let filter = lowPass(medianInterval: median, rateHz: rateHz) else { return (stream, 0) }
        var out = stream
        var unfiltered = 0
        let t = stream.times
        var start = 0
        while start < t.count {
            var end = start + 1
            while end < t.count && t[end] - t[end - 1] <= maxGapS { end += 1 }
            if end - start > filter.padLength {
                for c in 0..<out.channels.count {
                    let y = filter.filtfilt(Array(stream.channels[c][start..<end]))
                    out.channels[c].replaceSubrange(start..<end, with: y)
                }
            } else {
                unfiltered += 1
            }
            start = end
        }
        return (out, unfiltered)
    }
}
