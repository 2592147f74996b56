/// The per-window features motionprep can compute (docs/signal.md, "Features"), by name.
public enum FeatureCatalogue {
    /// Every feature name, in docs/signal.md, "Features" order. All but `corr` are computed per channel;
    /// `corr` is computed per sensor (a `{sensor}_x/_y/_z` channel group).
    public static let names: [String] = FeatureKind.allCases.map(\.name)

    /// Whether `name` is a feature of the catalogue.
    ///
    /// - Parameter name: a feature name as written in a pipeline's `features` list.
    /// - Returns: `true` when `name` is in ``names``.
    public static func contains(_ name: String) -> Bool {
        FeatureKind(name: name) != nil
    }
}

/// One catalogue feature. The raw value indexes the per-channel results scratch.
enum FeatureKind: Int, CaseIterable, Sendable {
    case mean, std, variance, min, max, range, median, iqr, rms, mad, skew, kurtosis
    case zeroCrossings, energy, dominantFrequencyHz, spectralEntropy, spectralCentroidHz
    case corr

    /// The feature's name in pipelines and output column names.
    var name: String {
        switch self {
        case .mean: "mean"
        case .std: "std"
        case .variance: "var"
        case .min: "min"
        case .max: "max"
        case .range: "range"
        case .median: "median"
        case .iqr: "iqr"
        case .rms: "rms"
        case .mad: "mad"
        case .skew: "skew"
        case .kurtosis: "kurtosis"
        case .zeroCrossings: "zero_crossings"
        case .energy: "energy"
        case .dominantFrequencyHz: "dominant_freq_hz"
        case .spectralEntropy: "spectral_entropy"
        case .spectralCentroidHz: "spectral_centroid_hz"
        case .corr: "corr"
        }
    }

    init?(name: String) {
        guard let kind = FeatureKind.allCases.first(where: { $0.name == name }) else { return nil }
        self = kind
    }

    /// Whether the feature needs the window's sorted values.
    var needsSortedValues: Bool { self == .median || self == .iqr || self == .mad }

    /// Whether the feature needs the power spectrum.
    var needsSpectrum: Bool {
        self == .dominantFrequencyHz || self == .spectralEntropy || self == .spectralCentroidHz
    }

    /// The number of per-channel kinds (everything but `corr`).
    static let perChannelCount = FeatureKind.corr.rawValue
}
