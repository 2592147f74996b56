import MotionCore

/// The optional `qa` section (docs/pipeline.md, "qa"): device quality per window — non-wear and
/// clipping fractions written beside the windows, the accelerometer's calibration error reported
/// per recording, and a policy that flags or drops windows. Absent from the resolved pipeline
/// unless set, so pipelines without it keep their hash and their datasets' bytes.
public struct QASpec: Sendable, Equatable {
    public enum Policy: String, Sendable, CaseIterable {
        /// Write the `qa` columns, keep every window.
        case flag
        /// Write the `qa` columns and drop windows above a threshold (`windows_dropped.qa_*`).
        case drop
    }

    /// The accelerometer: channels `{channels}_x`, `_y`, `_z` of `x`, in g or m/s².
    public var channels = "acc"
    /// Epoch length in seconds (rounded to whole grid points): the unit of the statistics.
    public var epochS = 10.0
    /// Non-wear: an epoch is stationary when every axis' standard deviation is below this (mg).
    public var nonwearStdMg = 15.0
    /// Non-wear: a run of stationary epochs at least this long (minutes) is non-wear.
    public var nonwearPatienceMin = 90.0
    /// Calibration: stationary epochs (every axis' std below this, mg) enter the sphere fit.
    public var calibrationStdMg = 13.0
    /// Clipping: the device's range in g; a point is clipped when an axis is within
    /// `clipToleranceG` of ±`rangeG`.
    public var rangeG = 8.0
    public var clipToleranceG = 0.01
    public var policy = Policy.flag
    /// `drop` only: drop a window whose non-wear (clipped) fraction is above this.
    public var dropNonwearAbove = 0.5
    public var dropClippedAbove = 0.5
    /// Where `qa` starts in the pipeline file (for messages).
    public var location: SourceLocation?

    public init() {}

    public static func == (a: QASpec, b: QASpec) -> Bool {
        a.channels == b.channels && a.epochS == b.epochS && a.nonwearStdMg == b.nonwearStdMg
            && a.nonwearPatienceMin == b.nonwearPatienceMin && a.calibrationStdMg == b.calibrationStdMg
            && a.rangeG == b.rangeG && a.clipToleranceG == b.clipToleranceG && a.policy == b.policy
            && a.dropNonwearAbove == b.dropNonwearAbove && a.dropClippedAbove == b.dropClippedAbove
    }

    /// The `qa` columns, in order (`qa` [N, 3] float32 in HDF5, keys of the shards' json).
    public static let columns = WindowBatch.qaColumns

    /// The canonical form (`pipeline.resolved.qa`): every key with its default filled in.
    public func canonicalValue() -> JSONValue {
        var o: [String: JSONValue] = [
            "channels": .string(channels), "epoch_s": .double(epochS), "nonwear_std_mg": .double(nonwearStdMg),
            "nonwear_patience_min": .double(nonwearPatienceMin), "calibration_std_mg": .double(calibrationStdMg),
            "range_g": .double(rangeG), "clip_tolerance_g": .double(clipToleranceG), "policy": .string(policy.rawValue),
        ]
        if policy == .drop {
            o["drop_nonwear_above"] = .double(dropNonwearAbove)
            o["drop_clipped_above"] = .double(dropClippedAbove)
        }
        return .object(o)
    }
}
