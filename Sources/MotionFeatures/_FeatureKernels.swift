// Unsafe inner loops of FeatureExtractor. Every pointer in this module is touched here or in
// FeatureExtractor's scratch allocation; callers check counts before calling in.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
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
        var previousNegative = v[0] - mean < 0
        for i in 0..<n {
            let d = v[i] - mean
            let d2 = d * d
            m2 += d2
            m3 += d2 * d
            m4 += d2 * d2
            let negative = d < 0
            crossings &+= negative != previousNegative ? 1 : 0
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

    /// Sorts `n` values ascending in place: introsort (median-of-three quicksort, heapsort past
    /// 2·log₂ n levels, insertion sort for the short runs left over). Allocates nothing.
    ///
    /// - Complexity: O(n log n) worst case.
    /// - Parameter depthLimit: quicksort levels before heapsort takes over; the default is
    ///   2·⌊log₂ n⌋ + 2. Tests pass 0 to exercise the heapsort path.
    static func sort(_ a: UnsafeMutablePointer<Double>, count n: Int, depthLimit: Int? = nil) {
        guard n > 1 else { return }
        quicksort(a, low: 0, high: n - 1, depthLimit: depthLimit ?? 2 * (Int.bitWidth - n.leadingZeroBitCount))
        insertionSort(a, count: n)
    }

    private static let insertionThreshold = 16

    @inline(__always)
    private static func swap(_ a: UnsafeMutablePointer<Double>, _ i: Int, _ j: Int) {
        let t = a[i]
        a[i] = a[j]
        a[j] = t
    }

    private static func quicksort(_ a: UnsafeMutablePointer<Double>, low: Int, high: Int, depthLimit: Int) {
        var low = low, high = high, depth = depthLimit
        while high - low > insertionThreshold {
            if depth == 0 {
                heapsort(a + low, count: high - low + 1)
                return
            }
            depth -= 1
            let middle = low + (high - low) / 2
            if a[middle] < a[low] { swap(a, middle, low) }
            if a[high] < a[low] { swap(a, high, low) }
            if a[high] < a[middle] { swap(a, high, middle) }
            let pivot = a[middle]
            var i = low - 1, j = high + 1
            while true {
                repeat { i += 1 } while a[i] < pivot
                repeat { j -= 1 } while a[j] > pivot
                if i >= j { break }
                swap(a, i, j)
            }
            // Recurse into the smaller side, loop on the larger: O(log n) stack.
            if j - low < high - j {
                quicksort(a, low: low, high: j, depthLimit: depth)
                low = j + 1
            } else {
                quicksort(a, low: j + 1, high: high, depthLimit: depth)
                high = j
            }
        }
    }

    private static func insertionSort(_ a: UnsafeMutablePointer<Double>, count n: Int) {
        for i in 1..<n {
            let x = a[i]
            var j = i - 1
            while j >= 0 && a[j] > x {
                a[j + 1] = a[j]
                j -= 1
            }
            a[j + 1] = x
        }
    }

    private static func heapsort(_ a: UnsafeMutablePointer<Double>, count n: Int) {
        func siftDown(_ start: Int, _ end: Int) {
            var root = start
            while 2 * root + 1 < end {
                var child = 2 * root + 1
                if child + 1 < end && a[child] < a[child + 1] { child += 1 }
                guard a[root] < a[child] else { return }
                swap(a, root, child)
                root = child
            }
        }
        var start = n / 2
        while start > 0 { start -= 1; siftDown(start, n) }
        var end = n
        while end > 1 {
            end -= 1
            swap(a, 0, end)
            siftDown(0, end)
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
    /// below and above the median are two sorted runs, merged until the middle rank.
    ///
    /// - Complexity: O(n).
    @inline(__always)
    static func medianAbsoluteDeviation(sorted s: UnsafePointer<Double>, count n: Int, median: Double) -> Double {
        // First index whose value is ≥ median.
        var split = 0
        while split < n && s[split] < median { split += 1 }
        var below = split - 1, above = split
        @inline(__always) func nextDeviation() -> Double {
            if below >= 0 && (above >= n || median - s[below] <= s[above] - median) {
                defer { below -= 1 }
                return median - s[below]
            }
            defer { above += 1 }
            return s[above] - median
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
