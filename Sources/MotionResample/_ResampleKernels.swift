import MotionCore

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
