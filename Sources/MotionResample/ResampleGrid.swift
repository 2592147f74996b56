/// The common time grid of a recording (docs/signal.md, "Resampling and gaps"): t_k = t0 + k / rateHz for k in 0..<count.
public struct ResampleGrid: Sendable, Equatable {
    /// T0: the latest first-sample time over the kept streams, seconds.
    public var t0: Double
    /// Grid rate in Hz.
    public var rateHz: Double
    /// Number of grid points.
    public var count: Int

    public init(t0: Double, rateHz: Double, count: Int) {
        self.t0 = t0
        self.rateHz = rateHz
        self.count = count
    }

    /// Time of grid point `k`, computed from k each time (never by accumulation).
    @inline(__always)
    public func time(_ k: Int) -> Double { t0 + Double(k) / rateHz }

    /// The grid for streams whose first and last sample times are given: from T0 = max(firsts)
    /// to T1 = min(lasts), every k with t_k ≤ T1 + tolerance. Empty when T0 > T1.
    ///
    /// The original contract wrote the tolerance as 1e-9 × max(1, |T1|), meant to absorb the rounding of
    /// T0 + k / rate. On an epoch clock (ISO 8601 or nanosecond times, |T1| ≈ 1.7e9 s) that is
    /// 1.7 s, which would put grid points far past the last sample and extrapolate them. The
    /// rounding error of t_k is a few ulps of |T1|, so the tolerance used is
    /// max(1e-9 × max(1, |T1 − T0|), 4 ulp(T1)): practically the original one for recordings whose
    /// clock starts near zero (MotionCollector's `When`), and a few hundred nanoseconds on
    /// epoch clocks.
    ///
    /// - Parameters:
    ///   - firstTimes: each stream's first sample time.
    ///   - lastTimes: each stream's last sample time.
    ///   - rateHz: the grid rate (> 0).
    public static func spanning(firstTimes: [Double], lastTimes: [Double], rateHz: Double) -> ResampleGrid {
        precondition(!firstTimes.isEmpty && firstTimes.count == lastTimes.count, "ResampleGrid: one first and last time per stream")
        precondition(rateHz > 0, "ResampleGrid: rate must be positive")
        let t0 = firstTimes.max()!
        let t1 = lastTimes.min()!
        let limit = ResamplePoint.gridLimit(t0: t0, t1: t1)
        var grid = ResampleGrid(t0: t0, rateHz: rateHz, count: 0)
        guard t0 <= limit else { return grid }
        let span = (limit - t0) * rateHz
        guard span.isFinite, span < Double(Int32.max) * 64 else { return grid }
        // Estimate, then correct so that exactly the points satisfying t_k ≤ limit are kept.
        var last = Int(span.rounded(.down))
        while last >= 0 && grid.time(last) > limit { last -= 1 }
        while grid.time(last + 1) <= limit { last += 1 }
        grid.count = last + 1
        return grid
    }
}
