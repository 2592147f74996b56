import MotionDataset

/// Dataset-specific rules from an expectations file (`motionprep validate DIR --expect FILE`).
///
/// Every rule is optional; an absent rule is not checked. Load one with ``ExpectationsLoader``;
/// `docs/validate.md` documents the file.
public struct Expectations: Sendable, Equatable {
    /// A limit that applies to some splits, with where it was written (`walk.yaml:7:10`).
    public struct PerSplit<Value: Sendable & Equatable>: Sendable, Equatable {
        public var values: [SplitName: Value]
        public var source: String

        public init(values: [SplitName: Value], source: String) {
            self.values = values
            self.source = source
        }
    }

    /// The allowed range of one channel, or of every channel a `*`/`?` pattern matches.
    public struct ValueRange: Sendable, Equatable {
        /// A channel name, or a pattern such as `acc_*`.
        public var channels: String
        /// Inclusive bounds; nil means unbounded on that side.
        public var min: Double?
        public var max: Double?
        /// Where the rule was written.
        public var source: String

        public init(channels: String, min: Double?, max: Double?, source: String) {
            self.channels = channels
            self.min = min
            self.max = max
            self.source = source
        }

        /// Whether `value` lies inside the range (NaN never does).
        @inline(__always)
        func contains(_ value: Float) -> Bool {
            let v = Double(value)
            return v >= (min ?? -.infinity) && v <= (max ?? .infinity)
        }

        /// `[-156.9, 156.9]`, `≥ 0`, `≤ 5`.
        var text: String {
            switch (min, max) {
            case let (lo?, hi?): return "[\(lo), \(hi)]"
            case let (lo?, nil): return "≥ \(lo)"
            case let (nil, hi?): return "≤ \(hi)"
            case (nil, nil): return "any value"
            }
        }
    }

    /// The file the rules came from, as the user named it.
    public var file: String
    /// Minimum windows per split (`min_windows`).
    public var minWindows: PerSplit<Int>?
    /// Minimum windows of every class in each split (`min_windows_per_class`).
    public var minWindowsPerClass: PerSplit<Int>?
    /// Maximum ratio of the largest to the smallest class count in each split (`max_imbalance_ratio`).
    public var maxImbalanceRatio: PerSplit<Double>?
    /// Channels the dataset must have (`required_channels`).
    public var requiredChannels: [String]
    /// Classes the dataset must have (`required_classes`).
    public var requiredClasses: [String]
    /// Allowed value ranges (`value_ranges`), in file order.
    public var valueRanges: [ValueRange]
    /// Maximum fraction of windows dropped during the run: dropped / (dropped + kept)
    /// (`max_dropped_fraction`), with where it was written.
    public var maxDroppedFraction: (value: Double, source: String)?

    public init(file: String, minWindows: PerSplit<Int>? = nil, minWindowsPerClass: PerSplit<Int>? = nil,
                maxImbalanceRatio: PerSplit<Double>? = nil, requiredChannels: [String] = [],
                requiredClasses: [String] = [], valueRanges: [ValueRange] = [],
                maxDroppedFraction: (value: Double, source: String)? = nil) {
        self.file = file
        self.minWindows = minWindows
        self.minWindowsPerClass = minWindowsPerClass
        self.maxImbalanceRatio = maxImbalanceRatio
        self.requiredChannels = requiredChannels
        self.requiredClasses = requiredClasses
        self.valueRanges = valueRanges
        self.maxDroppedFraction = maxDroppedFraction
    }

    public static func == (a: Expectations, b: Expectations) -> Bool {
        a.file == b.file && a.minWindows == b.minWindows && a.minWindowsPerClass == b.minWindowsPerClass
            && a.maxImbalanceRatio == b.maxImbalanceRatio && a.requiredChannels == b.requiredChannels
            && a.requiredClasses == b.requiredClasses && a.valueRanges == b.valueRanges
            && a.maxDroppedFraction?.value == b.maxDroppedFraction?.value
            && a.maxDroppedFraction?.source == b.maxDroppedFraction?.source
    }
}

/// Whether `name` matches `pattern`, where `*` matches any run of characters and `?` one.
func channelPatternMatches(_ pattern: String, _ name: String) -> Bool {
    let p = Array(pattern), n = Array(name)
    var pi = 0, ni = 0, star = -1, mark = 0
    while ni < n.count {
        if pi < p.count, p[pi] == "?" || p[pi] == n[ni] {
            pi += 1; ni += 1
        } else if pi < p.count, p[pi] == "*" {
            star = pi; mark = ni; pi += 1
        } else if star >= 0 {
            pi = star + 1; mark += 1; ni = mark
        } else {
            return false
        }
    }
    while pi < p.count, p[pi] == "*" { pi += 1 }
    return pi == p.count
}
