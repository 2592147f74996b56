/// Which features to compute for windows of a given shape, and the names of the output columns.
///
/// Output layout (docs/signal.md, "Features"): per channel, in channel order, the channel's features in the order
/// of `features` (named `{channel}_{feature}`); then, when `corr` is requested, the correlation
/// features `{sensor}_corr_xy`, `_xz`, `_yz` of each sensor, sensors in channel order. A sensor is
/// a group of channels named `{sensor}_x`, `{sensor}_y`, `{sensor}_z` (non-empty `{sensor}`) with at
/// least two of the three present; only pairs whose two axes are present get a feature.
/// `corr` may sit anywhere in `features`: its columns always come last.
public struct FeaturePlan: Sendable, Equatable {
    /// The requested feature names, in the user's order.
    public let features: [String]
    /// The channels of `x`, in order (magnitude channels included).
    public let channelNames: [String]
    /// The sample rate, in Hz (for the spectral features' frequencies).
    public let rateHz: Double
    /// Samples per window (T).
    public let windowLength: Int
    /// The output column names, in output order.
    public let featureNames: [String]
    /// The number of output columns per window (F).
    public var count: Int { featureNames.count }

    /// The per-channel kinds, in the user's order (no `corr`).
    let channelKinds: [FeatureKind]
    /// The channel index pairs for `corr`, in output order.
    let correlationPairs: [ChannelPair]

    /// Plans feature extraction.
    ///
    /// - Parameters:
    ///   - features: names from ``FeatureCatalogue/names`` in the user's order, without
    ///     duplicates. Validate user input against the catalogue first: an unknown or repeated
    ///     name is a programmer error and traps.
    ///   - channelNames: the channels of `x`, in order (magnitude channels included), unique.
    ///   - rateHz: the sample rate in Hz; finite and > 0.
    ///   - windowLength: samples per window (T), at least 1.
    /// - Complexity: O(F + C).
    public init(features: [String], channelNames: [String], rateHz: Double, windowLength: Int) {
        precondition(rateHz.isFinite && rateHz > 0, "FeaturePlan: rateHz must be finite and > 0, got \(rateHz)")
        precondition(windowLength >= 1, "FeaturePlan: windowLength must be at least 1, got \(windowLength)")
        precondition(Set(channelNames).count == channelNames.count, "FeaturePlan: duplicate channel names in \(channelNames)")
        var kinds: [FeatureKind] = []
        var wantsCorrelation = false
        for name in features {
            guard let kind = FeatureKind(name: name) else {
                preconditionFailure("FeaturePlan: unknown feature '\(name)'; expected one of \(FeatureCatalogue.names)")
            }
            precondition(kind == .corr ? !wantsCorrelation : !kinds.contains(kind),
                         "FeaturePlan: feature '\(name)' is listed twice")
            if kind == .corr { wantsCorrelation = true } else { kinds.append(kind) }
        }
        self.features = features
        self.channelNames = channelNames
        self.rateHz = rateHz
        self.windowLength = windowLength
        self.channelKinds = kinds
        let sensors = wantsCorrelation ? SensorAxes.sensors(in: channelNames) : []
        var pairs: [ChannelPair] = []
        var names: [String] = []
        names.reserveCapacity(channelNames.count * kinds.count + 3 * sensors.count)
        for channel in channelNames {
            for kind in kinds { names.append("\(channel)_\(kind.name)") }
        }
        for sensor in sensors {
            for (first, second, suffix) in [(0, 1, "xy"), (0, 2, "xz"), (1, 2, "yz")] {
                if let a = sensor.axes[first], let b = sensor.axes[second] {
                    pairs.append(ChannelPair(first: a, second: b))
                    names.append("\(sensor.name)_corr_\(suffix)")
                }
            }
        }
        self.correlationPairs = pairs
        self.featureNames = names
    }
}

/// Two channel indices whose Pearson correlation is one `corr` feature.
struct ChannelPair: Sendable, Equatable {
    var first: Int
    var second: Int
}

/// A sensor for `corr`: the channel indices of its x, y and z axes (nil when absent).
struct SensorAxes {
    var name: String
    var axes: [Int?]

    /// The sensors among `channelNames` with at least two axes, in order of each sensor's
    /// first channel.
    static func sensors(in channelNames: [String]) -> [SensorAxes] {
        var sensors: [SensorAxes] = []
        for (index, channel) in channelNames.enumerated() {
            let axis: Int
            if channel.hasSuffix("_x") { axis = 0 } else if channel.hasSuffix("_y") { axis = 1 } else if channel.hasSuffix("_z") { axis = 2 } else { continue }
            let sensor = String(channel.dropLast(2))
            guard !sensor.isEmpty else { continue }
            if let existing = sensors.firstIndex(where: { $0.name == sensor }) {
                sensors[existing].axes[axis] = index
            } else {
                var axes: [Int?] = [nil, nil, nil]
                axes[axis] = index
                sensors.append(SensorAxes(name: sensor, axes: axes))
            }
        }
        return sensors.filter { $0.axes.compactMap { $0 }.count >= 2 }
    }
}
