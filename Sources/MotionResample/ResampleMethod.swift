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
