// Unsafe inner loops of FeatureExtractor. Every pointer in this module is touched here or in
// FeatureExtractor's scratch allocation; callers check counts before calling in (`precondition`
// in `FeatureExtractor.extract`). Release builds are checked `-O`: per-element index arithmetic
// here uses wrapping operators where the counts bound it, so no overflow check is left in a loop.
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One channel's time-domain summary, from `_FeatureKernels.summarize`.
struct _ChannelSummary {
    var mean = 0.0
    var minimum = 0.0
    var maximum = 0.0
    /// Σ x², for `energy` and `rms`.
    var sumOfSquares = 0.0
    /// Σ (x − mean)², Σ (x − mean)³, Σ (x − mean)⁴ (all exactly 0 for a constant channel).
    var m2 = 0.0
    var m3 = 0.0
    var m4 = 0.0
    var zeroCrossings = 0
    /// max == min: `std`, `skew`, `kurtosis`, spectral features and `corr` are 0.
    var isConstant: Bool { maximum == minimum }
}

enum _FeatureKernels {
    /// Copies the time-major window (`window[t*channels + c]`) into `values` channel by channel
    /// (`values[c*length + t]`), widening to Double.
    ///
    /// - Complexity: O(T·C).
    @inline(__always)
    static func deinterleave(_ window: UnsafePointer<Float>, length: Int, channels: Int,
                             into values: UnsafeMutablePointer<Double>) {
        var source = window
        for t in 0..<length {
            var destination = values + t
            for _ in 0..<channels {
                destination.pointee = Double(source.pointee)
                source += 1
                destination += length
            }
        }
    }

    /// Two-pass summary of `n ≥ 1` values: the mean first, then the central moments and zero
    /// crossings from the deviations d = x − mean (no Σx² − n·mean² cancellation).
    ///
    /// When `spectrumInput` is non-nil it receives d scaled by a power of two (exact) so that
    /// max |d| lies in [1, 2): the spectral features are scale-invariant, and this keeps the
    /// single-precision FFT clear of float32 overflow and subnormals.
    ///
    /// - Complexity: O(n), two passes.
    @inline(__always)
    static func summarize(_ v: UnsafePointer<Double>, count n: Int,
                          spectrumInput: UnsafeMutablePointer<Float>?) -> _ChannelSummary {
        var summary = _ChannelSummary()
        var sum = 0.0, sumOfSquares = 0.0
        var minimum = v[0], maximum = v[0]
        for i in 0..<n {
            let x = v[i]
            sum += x
            sumOfSquares += x * x
            minimum = x < minimum ? x : minimum
            maximum = x > maximum ? x : maximum
        }
        let mean = sum / Double(n)
        summary.mean = mean
        summary.minimum = minimum
        summary.maximum = maximum
        summary.sumOfSquares = sumOfSquares
        guard maximum != minimum else {
            // Constant: deviations are exactly 0; mean is exactly the value when the sum is exact,
            // but pin it anyway so that no rounding can leak into the moments.
            summary.mean = minimum
            if let spectrumInput { spectrumInput.update(repeating: 0, count: n) }
            return summary
        }
        var m2 = 0.0, m3 = 0.0, m4 = 0.0
        var crossings = 0
        // Signs as 0/1 integers, so counting changes is arithmetic rather than a branch that
        // mispredicts on noisy data. An exact 0 (or −0) counts as non-negative.
        var previousNegative = unsafeBitCast(v[0] - mean < 0, to: UInt8.self)
        for i in 0..<n {
            let d = v[i] - mean
            let d2 = d * d
            m2 += d2
            m3 += d2 * d
            m4 += d2 * d2
            let negative = unsafeBitCast(d < 0, to: UInt8.self)
            crossings &+= Int(negative ^ previousNegative)
            previousNegative = negative
        }
        summary.m2 = m2
        summary.m3 = m3
        summary.m4 = m4
        summary.zeroCrossings = crossings
        if let spectrumInput {
            let largest = Swift.max(maximum - mean, mean - minimum)
            // 2^-(exponent of largest): an exact scaling.
            let scale = Double(sign: .plus, exponent: -largest.exponent, significand: 1)
            for i in 0..<n { spectrumInput[i] = Float((v[i] - mean) * scale) }
        }
        return summary
    }

    // MARK: Order statistics

    /// Sorts `n` values ascending in place, using `scratch` (room for `n` values).
    ///
    /// Bottom-up merge sort built to avoid branch mispredictions, which dominate sorting short
    /// windows: blocks of 8 go through a 19-comparator sorting network (`min`/`max`), then runs
    /// are merged pairwise; equal-length pairs with a branchless bidirectional merge (the smallest
    /// from the front and the largest from the back at each step, as in quadsort's parity
    /// merge, which never reads past either run), the shorter trailing run with a plain merge.
    /// A short trailing block is insertion-sorted. Allocates nothing.
    ///
    /// - Complexity: O(n log n) comparisons, worst case and always.
    static func sort(_ a: UnsafeMutablePointer<Double>, count n: Int, scratch: UnsafeMutablePointer<Double>) {
        guard n > 1 else { return }
        let fullBlocks = n / 8
        for block in 0..<fullBlocks { sortNetwork8(a + 8 * block) }
        insertionSort(a + 8 * fullBlocks, count: n - 8 * fullBlocks)
        var source = a, destination = scratch
        var width = 8
        while width < n {
            var start = 0
            while start < n {
                let middle = Swift.min(start + width, n)
                let end = Swift.min(start + 2 * width, n)
                if middle == end {
                    (destination + start).update(from: source + start, count: end - start)
                } else if end - middle == width {
                    mergeEqualRuns(source + start, source + middle, count: width, into: destination + start)
                } else {
                    merge(source + start, count: middle - start, source + middle, count: end - middle,
                          into: destination + start)
                }
                start = end
            }
            swap(&source, &destination)
            width *= 2
        }
        if source != a { a.update(from: source, count: n) }
    }

    @inline(__always)
    private static func compareExchange(_ x: inout Double, _ y: inout Double) {
        let low = Swift.min(x, y)
        y = Swift.max(x, y)
        x = low
    }

    /// Sorts 8 values with the optimal 19-comparator network.
    @inline(__always)
    private static func sortNetwork8(_ p: UnsafeMutablePointer<Double>) {
        var v0 = p[0], v1 = p[1], v2 = p[2], v3 = p[3], v4 = p[4], v5 = p[5], v6 = p[6], v7 = p[7]
        compareExchange(&v0, &v2); compareExchange(&v1, &v3); compareExchange(&v4, &v6); compareExchange(&v5, &v7)
        compareExchange(&v0, &v4); compareExchange(&v1, &v5); compareExchange(&v2, &v6); compareExchange(&v3, &v7)
        compareExchange(&v0, &v1); compareExchange(&v2, &v3); compareExchange(&v4, &v5); compareExchange(&v6, &v7)
        compareExchange(&v2, &v4); compareExchange(&v3, &v5)
        compareExchange(&v1, &v4); compareExchange(&v3, &v6)
        compareExchange(&v1, &v2); compareExchange(&v3, &v4); compareExchange(&v5, &v6)
        p[0] = v0; p[1] = v1; p[2] = v2; p[3] = v3; p[4] = v4; p[5] = v5; p[6] = v6; p[7] = v7
    }

    /// Merges two sorted runs of `count` values each. Front and back advance together, each step
    /// taking the smaller front (left on ties) and the larger back (right on ties); after t < count
    /// steps each side has taken t values, so no index leaves its run.
    @inline(__always)
    private static func mergeEqualRuns(_ left: UnsafePointer<Double>, _ right: UnsafePointer<Double>, count: Int,
                                       into out: UnsafeMutablePointer<Double>) {
        var i = 0, j = 0
        var iBack = count - 1, jBack = count - 1
        var back = 2 * count - 1
        for front in 0..<count {
            let l = left[i], r = right[j]
            let takeRight = r < l
            out[front] = Swift.min(l, r)
            j &+= takeRight ? 1 : 0
            i &+= takeRight ? 0 : 1
            let lb = left[iBack], rb = right[jBack]
            let takeLeft = lb > rb
            out[back] = Swift.max(lb, rb)
            iBack &-= takeLeft ? 1 : 0
            jBack &-= takeLeft ? 0 : 1
            back &-= 1
        }
    }

    /// Merges two sorted runs of any lengths ≥ 1 (the trailing, shorter run of a pass).
    private static func merge(_ left: UnsafePointer<Double>, count leftCount: Int,
                              _ right: UnsafePointer<Double>, count rightCount: Int,
                              into out: UnsafeMutablePointer<Double>) {
        var i = 0, j = 0, k = 0
        while i < leftCount && j < rightCount {
            if right[j] < left[i] { out[k] = right[j]; j &+= 1 } else { out[k] = left[i]; i &+= 1 }
            k &+= 1  // i, j, k stay below leftCount + rightCount: wrapping cannot happen
        }
        if i < leftCount { (out + k).update(from: left + i, count: leftCount - i) }
        if j < rightCount { (out + k).update(from: right + j, count: rightCount - j) }
    }

    private static func insertionSort(_ a: UnsafeMutablePointer<Double>, count n: Int) {
        guard n > 1 else { return }
        for i in 1..<n {
            let x = a[i]
            var j = i &- 1  // −1 ≤ j < i: the wrapping operators cannot wrap
            while j >= 0 && a[j] > x {
                a[j &+ 1] = a[j]
                j &-= 1
            }
            a[j &+ 1] = x
        }
    }

    /// numpy's linear interpolation between two neighbouring order statistics
    /// (`numpy.lib._function_base_impl._lerp`: a + (b−a)·γ, or b − (b−a)·(1−γ) when γ ≥ 0.5).
    @inline(__always)
    static func lerp(_ a: Double, _ b: Double, _ gamma: Double) -> Double {
        let difference = b - a
        return gamma >= 0.5 ? b - difference * (1 - gamma) : a + difference * gamma
    }

    /// The `fraction` quantile (0…1) of `n ≥ 1` sorted values, numpy's default `linear` method:
    /// virtual index (n − 1)·fraction, interpolated between its neighbours.
    @inline(__always)
    static func quantile(sorted s: UnsafePointer<Double>, count n: Int, fraction: Double) -> Double {
        let virtualIndex = Double(n - 1) * fraction
        let below = virtualIndex.rounded(.down)
        let i = Int(below)
        let next = Swift.min(i + 1, n - 1)
        return lerp(s[i], s[next], virtualIndex - below)
    }

    /// median(|x − median|) of `n ≥ 1` sorted values, without a second sort: the deviations
    /// below and above the median are two sorted runs, merged (branch-free) up to the middle rank.
    ///
    /// - Complexity: O(n).
    @inline(__always)
    static func medianAbsoluteDeviation(sorted s: UnsafePointer<Double>, count n: Int, median: Double) -> Double {
        // Lower bound: the first index whose value is ≥ median.
        var split = 0, remaining = n
        while remaining > 0 {
            let step = remaining / 2
            if s[split + step] < median {
                split += step + 1
                remaining -= step + 1
            } else {
                remaining = step
            }
        }
        var below = split - 1, above = split
        @inline(__always) func nextDeviation() -> Double {
            // An exhausted side reads a clamped, in-range index and offers +infinity instead.
            let fromBelow = below >= 0 ? median - s[Swift.max(below, 0)] : .infinity
            let fromAbove = above < n ? s[Swift.min(above, n - 1)] - median : .infinity
            let takeBelow = fromBelow <= fromAbove
            below &-= takeBelow ? 1 : 0
            above &+= takeBelow ? 0 : 1
            return Swift.min(fromBelow, fromAbove)
        }
        let virtualIndex = Double(n - 1) * 0.5
        let rank = Int(virtualIndex.rounded(.down))
        var lower = 0.0
        for _ in 0...rank { lower = nextDeviation() }
        let upper = rank + 1 < n ? nextDeviation() : lower
        return lerp(lower, upper, virtualIndex - Double(rank))
    }

    // MARK: Spectrum

    /// Spectral features of a power spectrum `power[0...n/2]` of n samples, DC (bin 0) left out.
    ///
    /// - Returns: the dominant frequency (lowest bin on ties), the normalised Shannon entropy in
    ///   bits (0 with fewer than 2 bins) and the power-weighted mean frequency; all 0 when the
    ///   total power is 0.
    /// - Complexity: O(n), one log₂ per non-zero bin.
    @inline(__always)
    static func spectralFeatures(power: UnsafePointer<Double>, length n: Int, rateHz: Double)
        -> (dominantHz: Double, entropy: Double, centroidHz: Double)
    {
        let bins = n / 2
        guard bins >= 1 else { return (0, 0, 0) }
        var total = 0.0, weighted = 0.0
        var best = 1, bestPower = power[1]
        for k in 1...bins {
            let p = power[k]
            total += p
            weighted += Double(k) * p
            if p > bestPower { best = k; bestPower = p }
        }
        guard total > 0 else { return (0, 0, 0) }
        let binWidthHz = rateHz / Double(n)
        var entropy = 0.0
        if bins >= 2 {
            let inverseTotal = 1 / total
            var sum = 0.0
            for k in 1...bins {
                let p = power[k] * inverseTotal
                if p > 0 { sum -= p * log2(p) }
            }
            entropy = sum / log2(Double(bins))
        }
        return (Double(best) * binWidthHz, entropy, weighted / total * binWidthHz)
    }

    // MARK: Correlation

    /// Pearson correlation of two channels of `n` values with known means and Σ(x − mean)²;
    /// 0 when either channel is constant (either Σ(x − mean)² is 0); clamped to [−1, 1].
    @inline(__always)
    static func correlation(_ a: UnsafePointer<Double>, mean meanA: Double, m2 m2A: Double,
                            _ b: UnsafePointer<Double>, mean meanB: Double, m2 m2B: Double,
                            count n: Int) -> Double {
        guard m2A > 0 && m2B > 0 else { return 0 }
        var cross = 0.0
        for i in 0..<n { cross += (a[i] - meanA) * (b[i] - meanB) }
        let r = cross / (m2A.squareRoot() * m2B.squareRoot())
        return Swift.min(1, Swift.max(-1, r))
    }

    /// `value` as float32, saturated to ±`Float.greatestFiniteMagnitude` so that no finite
    /// float64 feature becomes an infinity when stored.
    @inline(__always)
    static func storable(_ value: Double) -> Float {
        let limit = Double(Float.greatestFiniteMagnitude)
        return Float(value > limit ? limit : (value < -limit ? -limit : value))
    }
}
