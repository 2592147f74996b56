/// The van Hees et al. (2014) auto-calibration as actipy 3.8.3's `calibrate_gravity` does it
/// (without temperature): the stationary epochs' mean accelerations should lie on the unit
/// sphere; an iteratively reweighted per-axis linear fit (intercept + slope × value) towards
/// their projections on the sphere, weights 1 − error / (99.5th percentile of the errors),
/// clipped at 0; at most 1000 iterations, stopping when the relative improvement is below 1e-4.
/// The calibration error is the mean of |‖a‖ − 1| (g) over the stationary epochs.
public struct Calibration: Sendable, Equatable {
    /// Stationary epochs used.
    public var epochs: Int
    /// Mean |‖a‖ − 1| before and after, in mg; nil when there are too few epochs.
    public var errorBeforeMg: Double?
    public var errorAfterMg: Double?
    public var intercept: SIMD3<Double> = .zero
    public var slope: SIMD3<Double> = .one
    public var iterations = 0
    /// actipy's `CalibOK`: the fit ran and ended below 10 mg.
    public var ok = false
    /// Why no fit was made, or it is not ok (a sentence's clause), nil when ok.
    public var note: String?

    public init(epochs: Int) { self.epochs = epochs }

    public static let minimumEpochs = 50
    public static let cube = 0.3

    public static func fit(_ xyz: [SIMD3<Double>]) -> Calibration {
        var c = Calibration(epochs: xyz.count)
        guard xyz.count >= minimumEpochs else {
            c.note = "too few stationary epochs (\(xyz.count), at least \(minimumEpochs) needed)"
            return c
        }
        func errors(_ curr: [SIMD3<Double>]) -> [Double] {
            curr.map { v in
                let n = (v * v).sum().squareRoot()
                let d = v - v / n
                return (d * d).sum().squareRoot()
            }
        }
        func mean(_ a: [Double]) -> Double { a.reduce(0, +) / Double(a.count) }
        var curr = xyz
        var errs = errors(curr)
        let initial = mean(errs)
        c.errorBeforeMg = initial * 1000
        var lo = SIMD3<Double>(repeating: .infinity), hi = SIMD3<Double>(repeating: -.infinity)
        for v in xyz {
            lo = pointwiseMin(lo, v)
            hi = pointwiseMax(hi, v)
        }
        if (0..<3).contains(where: { hi[$0] < cube || lo[$0] > -cube }) {
            c.errorAfterMg = initial * 1000
            c.note = "the stationary epochs do not reach beyond ±\(cube) g on every axis (the device was not turned enough)"
            return c
        }
        if initial < 0.01 {
            c.errorAfterMg = initial * 1000
            c.ok = true
            return c
        }
        var intercept = SIMD3<Double>.zero, slope = SIMD3<Double>.one
        var best = (err: 1e16, intercept: intercept, slope: slope)
        var iteration = 0
        while iteration < 1000 {
            let target = curr.map { $0 / ($0 * $0).sum().squareRoot() }
            let maxErr = quantile(errs, 0.995)
            let w = errs.map { Swift.max(1 - $0 / maxErr, 0) }
            for k in 0..<3 {
                // Weighted least squares of target[k] on (1, curr[k]).
                var sw = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0
                for i in curr.indices {
                    let x = curr[i][k], y = target[i][k], wi = w[i]
                    sw += wi; sx += wi * x; sy += wi * y; sxx += wi * x * x; sxy += wi * x * y
                }
                let mx = sx / sw, my = sy / sw
                let b = (sxy - sw * mx * my) / (sxx - sw * mx * mx)
                let a = my - b * mx
                intercept[k] = a + intercept[k] * b
                slope[k] = b * slope[k]
            }
            curr = xyz.map { intercept + $0 * slope }
            errs = errors(curr)
            let err = mean(errs)
            let improvement = (best.err - err) / best.err
            if err < best.err { best = (err, intercept, slope) }
            iteration += 1
            if improvement < 0.0001 { break }
        }
        c.errorAfterMg = best.err * 1000
        c.iterations = iteration
        c.intercept = best.intercept
        c.slope = best.slope
        c.ok = best.err < 0.01 && iteration < 1000
        if !c.ok { c.note = "the fit ended at \(Int((best.err * 1000).rounded())) mg, not below 10 mg" }
        return c
    }

    /// numpy's default (linear) quantile.
    static func quantile(_ a: [Double], _ q: Double) -> Double {
        let s = a.sorted()
        let pos = q * Double(s.count - 1)
        let i = Int(pos.rounded(.down)), f = pos - Double(i)
        return i + 1 < s.count ? s[i] + (s[i + 1] - s[i]) * f : s[i]
    }
}
