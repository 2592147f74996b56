import MotionResample

// The test oracle's transforms (docs/streaming.md, "One path"): a whole resampled signal, segment
// by segment. The engine feeds `SegmentTransformer` as grid rows settle.

extension TransformPlan {
    /// The signal with every step applied within each gap-free segment, `x` widened to
    /// ``channelCount`` channels. Segments shorter than ``minimumSegment`` (too short for a
    /// zero-phase filter's padding) are marked invalid, so no window is cut from them, and
    /// returned; their derived channels are 0.
    public func apply(_ signal: ResampledSignal, rateHz: Double) -> (signal: ResampledSignal, dropped: [Range<Int>]) {
        let C0 = signal.channelCount, C = channelCount, K = signal.grid.count
        precondition(C0 == inputChannels, "TransformPlan: the signal has \(C0) channels, the plan expects \(inputChannels)")
        var out = [Float](repeating: 0, count: K * C)
        signal.values.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for k in 0..<K {
                    for c in 0..<C0 { dst[k * C + c] = src[k * C0 + c] }
                }
            }
        }
        var valid = signal.valid
        var dropped: [Range<Int>] = []
        let minimum = minimumSegment
        for segment in signal.segments {
            if segment.count < minimum {
                for k in segment { valid[k] = false }
                dropped.append(segment)
                continue
            }
            signal.values.withUnsafeBufferPointer { src in
                out.withUnsafeMutableBufferPointer { dst in
                    let first = segment.lowerBound
                    let rows = applySegment(UnsafeBufferPointer(rebasing: src[(first * C0)..<(segment.upperBound * C0)]),
                                            count: segment.count, rateHz: rateHz)
                    for (i, v) in rows.enumerated() { dst[first * C + i] = v }
                }
            }
        }
        return (ResampledSignal(grid: signal.grid, channelCount: C, values: out, valid: valid), dropped)
    }
}
