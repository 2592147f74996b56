import MotionCore

/// How a stream is sampled at a grid time (docs/signal.md, "Resampling and gaps").
public enum ResampleMethod: String, Sendable, CaseIterable {
    /// Linear interpolation between the bracketing samples.
    case linear
    /// The closer bracketing sample; the earlier one on a tie.
    case nearest
    /// The last sample at or before the grid time.
    case previous
}

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
