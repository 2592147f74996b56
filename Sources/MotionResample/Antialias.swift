import MotionCore

/// The anti-aliasing low-pass of docs/signal.md, "Resampling and gaps" (`antialias: true`).
public enum Antialias {
    /// Median sampling interval of a stream, seconds (0 for fewer than 2 samples).
    public static func medianInterval(_ times: [Double]) -> Double {
        guard times.count >= 2 else { return 0 }
        var d = [Double](repeating: 0, count: times.count - 1)
        for i in 1..<times.count { d[i - 1] = times[i] - times[i - 1] }
        d.sort()
        let n = d.count
        return n % 2 == 1 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2
    }

    /// Whether `stream` is sampled fast enough, relative to `rateHz`, to need filtering:
    /// its median interval is below 0.9 / rateHz.
    public static func needsFilter(_ stream: SensorStream, rateHz: Double) -> Bool {
        let m = medianInterval(stream.times)
        return m > 0 && m < 0.9 / rateHz
    }

    /// Low-passes `stream` when it needs it (docs/signal.md, "Resampling and gaps"): a 4th-order Butterworth at 0.4 × rateHz
    /// designed for the stream's median rate, run forward and backward (as `sosfiltfilt` with its
    /// default padding) over each run of samples between gaps (intervals above `maxGapS`).
    /// - Returns: the (possibly) filtered stream and the number of runs left unfiltered because
    ///   they had 15 samples or fewer (scipy's pad length for this filter).
    /// - Complexity: O(samples × channels).
    public static func apply(_ stream: SensorStream, rateHz: Double, maxGapS: Double) throws -> (stream: SensorStream, unfilteredRuns: Int) {
        guard let filter = lowPass(medianInterval: medianInterval(stream.times), rateHz: rateHz) else { return (stream, 0) }
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
