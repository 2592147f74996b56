import Foundation

/// A linear axis with "nice" tick values (1, 2, 2.5 or 5 × 10ⁿ), after Heckbert, "Nice numbers
/// for graph labels" (Graphics Gems, 1990): the domain is widened to whole ticks.
public struct NiceScale: Sendable, Equatable {
    /// The axis range, widened to the first and last tick.
    public var lower: Double
    public var upper: Double
    /// Distance between ticks.
    public var step: Double

    /// A scale covering `min ... max` with about `ticks` ticks (at least 2).
    ///
    /// - Parameters:
    ///   - integer: counts: the step is a whole number (1, 2, 5, 10, 20, 25, 50…), never 0.25 or 2.5.
    ///   - widen: `true` widens the range to the first and last tick; `false` keeps `min ... max`
    ///     (a time axis that ends where the data ends) and ticks only the multiples inside it.
    ///
    /// Edge cases: an empty or single-valued range is widened around the value (±1, or ±10 % of
    /// it); non-finite bounds give `0 ... 1`.
    public init(min: Double, max: Double, ticks: Int = 5, integer: Bool = false, widen: Bool = true) {
        var lo = min, hi = max
        if !lo.isFinite || !hi.isFinite { lo = 0; hi = 1 }
        if lo > hi { swap(&lo, &hi) }
        if hi - lo < 1e-12 * Swift.max(1, abs(lo)) {
            let pad = lo == 0 ? 1 : abs(lo) * 0.1
            lo -= pad; hi += pad
        }
        step = NiceScale.niceNumber((hi - lo) / Double(Swift.max(1, ticks - 1)), round: true)
        if integer { step = step < 1 ? 1 : step == 2.5 ? 2 : step }
        guard widen else { lower = lo; upper = hi; return }
        lower = (lo / step).rounded(.down) * step
        upper = (hi / step).rounded(.up) * step
        // Floating-point: keep exact multiples (e.g. 0.30000000000000004 → 0.3).
        lower = NiceScale.clean(lower, step: step)
        upper = NiceScale.clean(upper, step: step)
    }

    /// The tick values from `lower` to `upper`.
    public var ticks: [Double] {
        let first = (lower / step - 1e-9).rounded(.up)
        let last = (upper / step + 1e-9).rounded(.down)
        guard last >= first else { return [] }
        return (0...Int(last - first)).map { NiceScale.clean((first + Double($0)) * step, step: step) }
    }

    /// `value` mapped linearly from `lower ... upper` to `a ... b` (pixels).
    public func map(_ value: Double, to a: Double, _ b: Double) -> Double {
        a + (value - lower) / (upper - lower) * (b - a)
    }

    /// A tick label with as many decimals as the step needs ("0.25", "1000", "-2.5").
    public func label(_ value: Double) -> String {
        NiceScale.format(value, step: step)
    }

    /// `v` formatted with the decimals that `step` needs, and no "-0".
    static func format(_ v: Double, step: Double) -> String {
        let decimals = Swift.max(0, Swift.min(8, Int((-log10(step)).rounded(.up) + (NiceScale.isHalfStep(step) ? 1 : 0))))
        var s = String(format: "%.\(decimals)f", v)
        if s.hasPrefix("-"), Double(s) == 0 { s.removeFirst() }
        if abs(v) >= 1e6 || (abs(v) > 0 && abs(v) < 1e-4 && decimals > 6) { s = String(format: "%.3g", v) }
        return s
    }

    /// Whether `step` is 2.5 × 10ⁿ (needs one decimal more than its magnitude suggests).
    private static func isHalfStep(_ step: Double) -> Bool {
        let m = step / pow(10, log10(step).rounded(.down))
        return abs(m - 2.5) < 1e-9
    }

    /// The nice number near `x`: rounded (for steps) or ceiling (for ranges).
    static func niceNumber(_ x: Double, round: Bool) -> Double {
        guard x > 0, x.isFinite else { return 1 }
        let e = log10(x).rounded(.down)
        let f = x / pow(10, e)
        let nice: Double
        if round { nice = f < 1.5 ? 1 : f < 2.25 ? 2 : f < 3.5 ? 2.5 : f < 7.5 ? 5 : 10 }
        else { nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10 }
        return nice * pow(10, e)
    }

    private static func clean(_ v: Double, step: Double) -> Double {
        let digits = Swift.max(0, Int((-log10(step)).rounded(.up)) + 2)
        let p = pow(10, Double(Swift.min(digits, 12)))
        return (v * p).rounded() / p
    }
}
