/// The per-point rules of docs/signal.md, "Resampling and gaps", shared by the whole-recording kernel (`_ResampleKernels`,
/// `Resampler`, `ResampleGrid`) and the streamed one (MotionEngine's `StreamingRecording`), so
/// that both compute every grid value with the same operations in the same order.
public enum ResamplePoint {
    /// The grid's end: grid points t_k ≤ this are kept (see `ResampleGrid.spanning` for why the
    /// tolerance is not the original contract's literal one).
    @inlinable
    public static func gridLimit(t0: Double, t1: Double) -> Double {
        t1 + Swift.max(1e-9 * Swift.max(1, Swift.abs(t1 - t0)), 4 * t1.ulp)
    }

    /// The left bracketing sample i for a grid time with `atOrBefore` samples at or before it,
    /// of `count` samples: `searchsorted(times, t, side="right") - 1` clamped to [0, count − 2].
    @inlinable
    public static func bracket(atOrBefore: Int, count: Int) -> Int {
        Swift.min(Swift.max(atOrBefore - 1, 0), count - 2)
    }

    /// Linear interpolation: exactly the contract's (docs/signal.md, "Resampling and gaps") expression, in this order of operations.
    @inlinable
    public static func linear(_ vi: Double, _ vj: Double, sinceLeft: Double, interval: Double) -> Float {
        Float(vi + (vj - vi) * sinceLeft / interval)
    }

    /// `nearest`: the closer of samples i (at `ti`) and i + 1 (at `tj`) to `t`, the earlier on a tie.
    @inlinable
    public static func nearest(_ i: Int, t: Double, ti: Double, tj: Double) -> Int {
        (t - ti) <= (tj - t) ? i : i + 1
    }

    /// `previous`: the last sample at or before the grid time (the first one before any).
    @inlinable
    public static func previous(atOrBefore: Int) -> Int {
        Swift.max(atOrBefore - 1, 0)
    }

    /// A magnitude channel: the Euclidean norm of the float32 axis values, in float64.
    @inlinable
    public static func magnitude(_ axes: [Int], of value: (Int) -> Float) -> Float {
        var s = 0.0
        for a in axes {
            let v = Double(value(a))
            s += v * v
        }
        return Float(s.squareRoot())
    }
}
