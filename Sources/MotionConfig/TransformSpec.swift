import MotionCore
import MotionResample

/// One step of `transforms` (docs/pipeline.md, "Transforms"; semantics in docs/signal.md,
/// "Transforms"). Steps run in the order written, on the resampled grid, within each gap-free
/// segment, before windows are cut.
public struct TransformSpec: Sendable, Equatable {
    /// The step types, by their key in the pipeline file.
    public enum Kind: String, Sendable, CaseIterable {
        case median, butterworth, gravity, derivative, magnitude, calibrate
    }

    /// `butterworth.type`.
    /// The filter designer's own type (MotionResample): `lowpass`, `highpass`, `bandpass`.
    public typealias BandType = SignalFilters.BandType

    /// What a step does, with every default filled in.
    public enum Operation: Sendable, Equatable {
        /// Centred median of `samples` points (odd), edges extended by repetition.
        case median(samples: Int)
        /// `cutoffHz`: one frequency for low- and high-pass, (low, high) for band-pass.
        case butterworth(type: BandType, order: Int, cutoffHz: [Double], zeroPhase: Bool)
        /// Low-pass at `cutoffHz` → `{prefix}_gravity_{axis}`, the rest → `{prefix}_body_{axis}`.
        case gravity(order: Int, cutoffHz: Double, zeroPhase: Bool)
        /// First difference × rate → `{prefix}_jerk_{axis}`.
        case derivative
        /// Euclidean norm of each `{prefix}_x/_y/_z` group → `{prefix}_mag`; with `name`, of all
        /// the channels listed together → `name`.
        case magnitude(name: String?)
        /// `scale × x + offset`, per channel.
        case calibrate(scale: PerSensor<Double>, offset: PerSensor<Double>)

        public var kind: Kind {
            switch self {
            case .median: return .median
            case .butterworth: return .butterworth
            case .gravity: return .gravity
            case .derivative: return .derivative
            case .magnitude: return .magnitude
            case .calibrate: return .calibrate
            }
        }
    }

    /// How many future samples a step needs to give one output sample (docs/signal.md,
    /// "Transforms"): what a live (sample by sample) implementation must wait for.
    public enum Lookahead: Sendable, Equatable, CustomStringConvertible {
        /// That many samples.
        case samples(Int)
        /// The whole gap-free segment (zero-phase filters run backwards from its end).
        case segment

        /// The lookahead of steps run one after the other.
        public static func + (a: Lookahead, b: Lookahead) -> Lookahead {
            switch (a, b) {
            case (.samples(let x), .samples(let y)): return .samples(x + y)
            default: return .segment
            }
        }

        public var description: String {
            switch self {
            case .samples(let n): return "\(n) sample\(n == 1 ? "" : "s")"
            case .segment: return "the whole segment"
            }
        }
    }

    public var operation: Operation
    /// `channels`: references as written — a channel name, a sensor name (its channels) or a
    /// prefix `P` (the channels `P_x`, `P_y`, `P_z` that exist).
    public var channels: [String]
    /// Where each reference of `channels` is in the pipeline file (empty for specs built in code).
    public var channelLocations: [SourceLocation] = []
    /// Where the step starts in the pipeline file.
    public var location: SourceLocation?

    public init(_ operation: Operation, channels: [String], channelLocations: [SourceLocation] = [],
                location: SourceLocation? = nil) {
        self.operation = operation
        self.channels = channels
        self.channelLocations = channelLocations
        self.location = location
    }

    public var kind: Kind { operation.kind }

    /// The step's lookahead: a centred median of n samples needs (n − 1) / 2; a zero-phase filter
    /// the whole segment; a causal filter, a magnitude and a calibration none; a derivative 1
    /// (only at a segment's first sample, which takes the second's value).
    public var lookahead: Lookahead {
        switch operation {
        case .median(let n): return .samples((n - 1) / 2)
        case .butterworth(_, _, _, let zeroPhase), .gravity(_, _, let zeroPhase): return zeroPhase ? .segment : .samples(0)
        case .derivative: return .samples(1)
        case .magnitude, .calibrate: return .samples(0)
        }
    }

    /// The default `order` of `butterworth` and `gravity`.
    public static let defaultOrder = 3
    /// The default `cutoff_hz` of `gravity` (the UCI HAR dataset's 0.3 Hz).
    public static let defaultGravityCutoffHz = 0.3
    /// The highest filter order accepted.
    public static let maxOrder = 16
    /// The longest median accepted, in samples.
    public static let maxMedianSamples = 10_001
}

extension PipelineSpec {
    /// The lookahead of the whole `transforms` chain (`.samples(0)` without transforms).
    public var transformsLookahead: TransformSpec.Lookahead {
        transforms.reduce(.samples(0)) { $0 + $1.lookahead }
    }
}
