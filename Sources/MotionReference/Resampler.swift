import MotionCore
import MotionResample

// The test oracle's resampler (docs/streaming.md, "One path"): every stream of a recording put on
// the grid at once, from whole streams. motionprep's first engine did this; the engine now
// resamples with `StreamingGrid`, and this module serves only the tests, which compare the two.
// Both use the per-point rules of `ResamplePoint`.

/// One kept stream with its resampling settings.
public struct ResampleInput: Sendable {
    public var stream: SensorStream
    public var method: ResampleMethod
    /// Largest allowed interval between the bracketing samples, seconds.
    public var maxGapS: Double

    public init(stream: SensorStream, method: ResampleMethod, maxGapS: Double) {
        self.stream = stream
        self.method = method
        self.maxGapS = maxGapS
    }
}

/// All streams of a recording on one grid.
public struct ResampledSignal: Sendable {
    public var grid: ResampleGrid
    /// Number of channels (all streams' channels, in stream order, then magnitude channels).
    public var channelCount: Int
    /// Values, time-major: `values[k * channelCount + c]`. A window of T points starting at k is
    /// the contiguous slice `[k*C ..< (k+T)*C]`, i.e. one row of the dataset's x[N, T, C].
    public var values: [Float]
    /// `valid[k]` is false where some stream's bracketing samples are more than its `max_gap_s`
    /// apart (docs/signal.md, "Resampling and gaps"); no window may contain such a point.
    public var valid: [Bool]

    public init(grid: ResampleGrid, channelCount: Int, values: [Float], valid: [Bool]) {
        self.grid = grid
        self.channelCount = channelCount
        self.values = values
        self.valid = valid
    }

    /// Runs of valid grid points, as half-open index ranges in ascending order.
    public var segments: [Range<Int>] {
        var out: [Range<Int>] = []
        var k = 0
        let n = valid.count
        while k < n {
            while k < n && !valid[k] { k += 1 }
            let start = k
            while k < n && valid[k] { k += 1 }
            if k > start { out.append(start..<k) }
        }
        return out
    }

    /// Runs of invalid grid points (the `gaps` count of docs/dataset-format.md, "Manifest, checksums and commit") and the number of invalid points.
    public var gapStatistics: (gaps: Int, invalidPoints: Int) {
        var gaps = 0, invalid = 0
        var previousValid = true
        for v in valid {
            if !v {
                invalid += 1
                if previousValid { gaps += 1 }
            }
            previousValid = v
        }
        return (gaps, invalid)
    }
}

/// Puts the streams of one recording on a common grid (docs/signal.md, "Resampling and gaps").
public enum Resampler {
    /// Resamples `inputs` onto the grid from the latest first sample to the earliest last sample.
    ///
    /// - Parameters:
    ///   - inputs: the kept streams, each strictly increasing in time with at least 2 samples.
    ///   - rateHz: grid rate.
    ///   - magnitudes: for each entry, the channel indices (into the concatenated stream channels)
    ///     of the axes whose Euclidean norm is appended as an extra channel.
    /// - Returns: the signal; nil when some stream has fewer than 2 samples (`too_few_samples`).
    /// - Complexity: O(grid points × channels + samples).
    public static func resample(_ inputs: [ResampleInput], rateHz: Double, magnitudes: [[Int]] = []) -> ResampledSignal? {
        guard !inputs.isEmpty, inputs.allSatisfy({ $0.stream.count >= 2 }) else { return nil }
        let grid = ResampleGrid.spanning(firstTimes: inputs.map { $0.stream.times.first! },
                                         lastTimes: inputs.map { $0.stream.times.last! }, rateHz: rateHz)
        let baseChannels = inputs.reduce(0) { $0 + $1.stream.channels.count }
        let channelCount = baseChannels + magnitudes.count
        var values = [Float](repeating: 0, count: grid.count * channelCount)
        var valid = [Bool](repeating: true, count: grid.count)
        var offset = 0
        for input in inputs {
            _ResampleKernels.resample(input.stream, method: input.method, maxGapS: input.maxGapS, grid: grid,
                                      into: &values, channelOffset: offset, channelCount: channelCount, valid: &valid)
            offset += input.stream.channels.count
        }
        for (m, axes) in magnitudes.enumerated() {
            let dst = baseChannels + m
            for k in 0..<grid.count {
                values[k * channelCount + dst] = ResamplePoint.magnitude(axes) { values[k * channelCount + $0] }
            }
        }
        return ResampledSignal(grid: grid, channelCount: channelCount, values: values, valid: valid)
    }
}


/// The inner loops of resampling. Release builds are checked
/// `-O` (Package.swift): the counts are checked once with `precondition` at the top of each
/// kernel, and the loops then read and write through buffer pointers, so no bounds check is left
/// inside them. The loop structure (one pass over the grid per stream, the bracketing index
/// advanced monotonically) keeps resampling O(grid + samples).
enum _ResampleKernels {
    static func resample(_ stream: SensorStream, method: ResampleMethod, maxGapS: Double, grid: ResampleGrid,
                         into values: inout [Float], channelOffset: Int, channelCount: Int, valid: inout [Bool]) {
        let n = stream.times.count
        let nch = stream.channels.count
        let gridCount = grid.count
        guard gridCount > 0 else { return }
        // Every index below is derived from these: bracketing samples in [0, n − 1] (needs n ≥ 2,
        // which `Resampler.resample` checks), grid points in [0, gridCount), output values at
        // k × channelCount + channelOffset + c < gridCount × channelCount.
        precondition(n >= 2 && stream.channels.allSatisfy { $0.count == n }, "resample: a stream needs 2+ samples in every channel")
        precondition(valid.count >= gridCount, "resample: valid flags shorter than the grid")
        precondition(channelOffset >= 0 && channelOffset + nch <= channelCount
                         && values.count >= gridCount * channelCount, "resample: output smaller than grid × channels")
        // Bracketing index per grid point (i = #samples ≤ t − 1, clamped to [0, n−2]) and the
        // interpolation weight, computed once and shared by all channels of the stream.
        var bracket = [Int32](repeating: 0, count: gridCount)
        var sinceLeft = [Double](repeating: 0, count: gridCount) // t − t_i
        var interval = [Double](repeating: 1, count: gridCount)  // t_{i+1} − t_i
        stream.times.withUnsafeBufferPointer { times in
        valid.withUnsafeMutableBufferPointer { valid in
        bracket.withUnsafeMutableBufferPointer { bracket in
        sinceLeft.withUnsafeMutableBufferPointer { sinceLeft in
        interval.withUnsafeMutableBufferPointer { interval in
            var atOrBefore = 0 // number of samples with time ≤ t
            for k in 0..<gridCount {
                let t = grid.time(k)
                while atOrBefore < n && times[atOrBefore] <= t { atOrBefore &+= 1 }
                let i = ResamplePoint.bracket(atOrBefore: atOrBefore, count: n)
                let ti = times[i], tj = times[i &+ 1]
                if tj - ti > maxGapS { valid[k] = false }
                switch method {
                case .linear:
                    bracket[k] = Int32(truncatingIfNeeded: i)
                    sinceLeft[k] = t - ti
                    interval[k] = tj - ti
                case .nearest:
                    bracket[k] = Int32(truncatingIfNeeded: ResamplePoint.nearest(i, t: t, ti: ti, tj: tj))
                case .previous:
                    bracket[k] = Int32(truncatingIfNeeded: ResamplePoint.previous(atOrBefore: atOrBefore))
                }
            }
        }}}}}
        values.withUnsafeMutableBufferPointer { out in
        bracket.withUnsafeBufferPointer { bracket in
        sinceLeft.withUnsafeBufferPointer { sinceLeft in
        interval.withUnsafeBufferPointer { interval in
            for c in 0..<nch {
                stream.channels[c].withUnsafeBufferPointer { v in
                    var dst = channelOffset &+ c
                    switch method {
                    case .linear:
                        for k in 0..<gridCount {
                            let i = Int(bracket[k])
                            out[dst] = ResamplePoint.linear(v[i], v[i &+ 1], sinceLeft: sinceLeft[k], interval: interval[k])
                            dst &+= channelCount
                        }
                    case .nearest, .previous:
                        for k in 0..<gridCount {
                            out[dst] = Float(v[Int(bracket[k])])
                            dst &+= channelCount
                        }
                    }
                }
            }
        }}}}
    }
}
