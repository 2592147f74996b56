import MotionCore

/// The anti-aliasing low-pass of docs/signal.md, "Resampling and gaps" (`antialias: true`).
public enum Antialias {
    /// Median sampling interval of a stream, seconds (0 for fewer than 2 samples).
    public static func medianInterval(_ times: [Double]) -> Double {
        guard times.count >= 2 else { return 0 }
        var d = [Double](repeating: 0, count: times.count - 1)
        for i in 1..<times.count { d[i - 1] = times[i] - times[i - 1] }
        return median(of: &d)
    }

    /// The intervals the filter of `antialias_from: leading` is designed from: a stream's
    /// first 256 (docs/signal.md, "Anti-aliasing"), all of them when it has fewer.
    public static let leadingIntervals = 256

    /// The median of a stream's first `leadingIntervals` intervals (of its first 257 times), the
    /// interval `antialias_from: leading` designs the filter from; 0 for fewer than 2 samples.
    public static func leadingMedianInterval(_ times: [Double]) -> Double {
        medianInterval(Array(times.prefix(leadingIntervals + 1)))
    }

    /// The median of `d` (the mean of the two middle values for an even count; 0 when empty),
    /// rearranging `d`. The values must not be NaN.
    public static func median(of d: inout [Double]) -> Double {
        let n = d.count
        guard n > 0 else { return 0 }
        // The middle order statistics, found by selection rather than a full sort (a sort was
        // 6 % of a run): the values are the sorted array's, whatever the algorithm.
        return d.withUnsafeMutableBufferPointer { v in
            let upper = select(v, n / 2)
            guard n % 2 == 0 else { return upper }
            // Below the n/2-th value lie the n/2 smallest: their maximum is the (n/2 − 1)-th.
            var lower = v[0]
            for i in 1..<(n / 2) { lower = Swift.max(lower, v[i]) }
            return (lower + upper) / 2
        }
    }

    /// The k-th smallest value of `v` (0-based), rearranging `v` so that the k smallest come
    /// first (quickselect with a median-of-three pivot; a sort past 64 rounds, so the worst
    /// case stays O(n log n)). The values must not be NaN.
    static func select(_ v: UnsafeMutableBufferPointer<Double>, _ k: Int) -> Double {
        var lo = 0, hi = v.count - 1, rounds = 0
        while lo < hi {
            rounds += 1
            if rounds > 64 {
                var rest = UnsafeMutableBufferPointer(rebasing: v[lo...hi])
                rest.sort()
                return v[k]
            }
            let mid = lo + (hi - lo) / 2
            // Median of three as the pivot.
            if v[mid] < v[lo] { v.swapAt(mid, lo) }
            if v[hi] < v[lo] { v.swapAt(hi, lo) }
            if v[hi] < v[mid] { v.swapAt(hi, mid) }
            let pivot = v[mid]
            var i = lo, j = hi
            while i <= j {
                while v[i] < pivot { i += 1 }
                while pivot < v[j] { j -= 1 }
                if i <= j {
                    v.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if k <= j { hi = j } else if k >= i { lo = i } else { return v[k] }
        }
        return v[k]
    }

    /// Whether `stream` is sampled fast enough, relative to `rateHz`, to need filtering:
    /// its median interval is below 0.9 / rateHz.
    public static func needsFilter(_ stream: SensorStream, rateHz: Double) -> Bool {
        let m = medianInterval(stream.times)
        return m > 0 && m < 0.9 / rateHz
    }
}
