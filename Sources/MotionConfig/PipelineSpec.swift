import MotionCore
import MotionIngest
import MotionLabels
import MotionResample

/// A parsed, validated pipeline file (docs/pipeline.md) with every default filled in.
///
/// Produced by `PipelineLoader`; consumed by the engine and the job (MotionInputs … MotionJob). Paths are kept as written
/// (relative to `baseDirectory`, the folder holding the pipeline file) so that nothing absolute
/// leaks into output.
public struct PipelineSpec: Sendable, Equatable {
    /// The pipeline file as the user named it (for messages).
    public var file: String
    /// The folder holding the pipeline file; relative paths resolve against it.
    public var baseDirectory: String
    /// `version` (must be 1).
    public var version: Int
    /// `name`; default: the pipeline file's stem.
    public var name: String
    public var inputs: [InputSpec]
    /// `units`: si (default) | native.
    public var units: UnitSystem
    public var resample: ResampleSpec
    public var window: WindowSpec
    public var labels: LabelsSpec?
    /// `features`: feature names in the order given (docs/signal.md, "Features"); empty when absent.
    public var features: [String]
    /// `magnitude`: sensor prefixes (`acc`) whose `_x,_y,_z` get a `{prefix}_mag` channel.
    public var magnitude: [String]
    /// `transforms`: signal steps run in order on the resampled grid, after `magnitude`
    /// (docs/signal.md, "Transforms"); empty when absent.
    public var transforms: [TransformSpec] = []
    /// `qa` (docs/pipeline.md, "qa"): device quality per window; nil when absent.
    public var qa: QASpec?
    public var split: SplitSpec
    public var onError: OnError
    public var output: OutputSpec
    /// `ignore_warnings`: warnings the user expects and does not want to see (docs/pipeline.md).
    /// They change no output byte, so the resolved pipeline does not record them.
    public var ignoreWarnings: [WarningName] = []

    /// The warnings `ignore_warnings` can silence: situations that are sometimes intended.
    public enum WarningName: String, Sendable, CaseIterable {
        /// A split is empty, or more than 10 points off its fraction (few subjects).
        case splitShare = "split_share"
        /// A class in `labels.classes` got no window.
        case emptyClass = "empty_class"
        /// Labels in the data reach no class (their windows are dropped).
        case unclassifiedLabels = "unclassified_labels"
        /// Every recording is its own subject while splitting by subject.
        case subjectPerRecording = "subject_per_recording"
        /// `window.length_s` or `stride_s` is not a whole number of samples at the rate.
        case windowRounding = "window_rounding"
        /// A split that has windows lacks a class another split has.
        case splitMissingClass = "split_missing_class"

        /// The hint printed under such a warning.
        public var silenceHint: String {
            "if this is intended, add `\(rawValue)` to `ignore_warnings` in the pipeline to silence it"
        }
    }

    public init(file: String, baseDirectory: String, version: Int = 1, name: String, inputs: [InputSpec],
                units: UnitSystem = .si, resample: ResampleSpec, window: WindowSpec, labels: LabelsSpec? = nil,
                features: [String] = [], magnitude: [String] = [], split: SplitSpec = SplitSpec(),
                onError: OnError = .fail, output: OutputSpec) {
        self.file = file
        self.baseDirectory = baseDirectory
        self.version = version
        self.name = name
        self.inputs = inputs
        self.units = units
        self.resample = resample
        self.window = window
        self.labels = labels
        self.features = features
        self.magnitude = magnitude
        self.split = split
        self.onError = onError
        self.output = output
    }
}

/// `on_error`.
public enum OnError: String, Sendable, CaseIterable {
    case fail, skip
}

/// An ordered key/value pair from a YAML mapping (mapping order matters for channels).
public struct KeyValue<Value: Sendable & Equatable>: Sendable, Equatable {
    public var key: String
    public var value: Value
    public init(_ key: String, _ value: Value) {
        self.key = key
        self.value = value
    }
}

/// A per-sensor setting: a default plus overrides by stream name.
public struct PerSensor<Value: Sendable & Equatable>: Sendable, Equatable {
    public var defaultValue: Value
    public var overrides: [KeyValue<Value>]
    public init(_ defaultValue: Value, overrides: [KeyValue<Value>] = []) {
        self.defaultValue = defaultValue
        self.overrides = overrides
    }
    /// The value for the stream named `sensor`.
    public func value(for sensor: String) -> Value {
        overrides.first { $0.key == sensor }?.value ?? defaultValue
    }
}

/// `resample` (docs/signal.md, "Resampling and gaps").
public struct ResampleSpec: Sendable, Equatable {
    /// The resampler's own type (MotionResample): `linear`, `nearest`, `previous`.
    public typealias Method = ResampleMethod
    /// `rate_hz` (> 0).
    public var rateHz: Double
    /// `method`; default linear.
    public var method: PerSensor<Method>
    /// `max_gap_s`; default 0.25.
    public var maxGapS: PerSensor<Double>
    /// `antialias`; default true.
    public var antialias: Bool
    /// `antialias_from`: what each stream's anti-aliasing filter is designed from.
    public var antialiasFrom: AntialiasFrom

    /// `resample.antialias_from` (docs/signal.md, "Anti-aliasing").
    public enum AntialiasFrom: String, Sendable, Equatable, CaseIterable {
        /// The median of the stream's first 256 intervals, which live processing knows before
        /// it emits (the default of a pipeline file).
        case leading
        /// The median of all the stream's intervals (motionprep before 2026-12-07; a resolved
        /// pipeline without the key).
        case recording
    }

    public init(rateHz: Double, method: PerSensor<Method> = PerSensor(.linear),
                maxGapS: PerSensor<Double> = PerSensor(0.25), antialias: Bool = true,
                antialiasFrom: AntialiasFrom = .leading) {
        self.rateHz = rateHz
        self.method = method
        self.maxGapS = maxGapS
        self.antialias = antialias
        self.antialiasFrom = antialiasFrom
    }

    /// Whether each stream's filter is designed from its leading intervals: `antialias` with
    /// `antialias_from: leading`.
    public var antialiasFromLeading: Bool { antialias && antialiasFrom == .leading }
}

/// `window` (docs/signal.md, "Windows and labels"): one of each pair is given.
public struct WindowSpec: Sendable, Equatable {
    public enum Amount: Sendable, Equatable {
        case seconds(Double)
        case samples(Int)
        /// In samples at `rateHz`; seconds round to the nearest sample, halves up.
        public func samples(atRateHz rateHz: Double) -> Int {
            switch self {
            case .samples(let n): return n
            case .seconds(let s): return Int((s * rateHz + 0.5).rounded(.down))
            }
        }
    }
    public var length: Amount
    /// Default: equal to `length` (no overlap).
    public var stride: Amount
    /// Where the `window` key is in the pipeline file (for messages; nil for specs built in
    /// code). Not part of equality.
    public var location: SourceLocation?

    public init(length: Amount, stride: Amount, location: SourceLocation? = nil) {
        self.length = length
        self.stride = stride
        self.location = location
    }

    public static func == (a: WindowSpec, b: WindowSpec) -> Bool {
        a.length == b.length && a.stride == b.stride
    }
}

/// `labels` (docs/signal.md, "Windows and labels").
public struct LabelsSpec: Sendable, Equatable {
    public enum Source: String, Sendable, CaseIterable {
        case rows, markers, intervals, path
    }
    /// `clock` (intervals only): what an intervals file's times count from.
    public enum Clock: String, Sendable, CaseIterable {
        /// The input's own clock, the clock of `start_time_s` (the default).
        case input
        /// Seconds from the recording's grid start T0 (docs/signal.md, "The grid").
        case recording
    }
    /// The label aligner's own type (MotionLabels): `majority`, `center`, `pure`.
    public typealias Policy = LabelPolicy
    public var from: Source
    public var policy: Policy
    /// `min_fraction` (majority only), in [0, 1]; default 0.5.
    public var minFraction: Double
    /// `path` (intervals only), as written.
    public var path: String?
    /// `clock` (intervals only); `.input` otherwise.
    public var clock: Clock
    /// `template` (`from: path` only): the path template whose rendering is a recording's label.
    public var template: String?
    /// `map`: label renames, in mapping order.
    public var map: [KeyValue<String>]
    /// `map` as a lookup: a label's new name (a later entry for the same label wins).
    public var renames: [String: String] {
        var out: [String: String] = [:]
        for e in map { out[e.key] = e.value }
        return out
    }
    /// `classes`, or the sorted unique values of `map` when absent.
    public var classes: [String]
    /// Where `labels` starts in the pipeline file (for messages).
    public var location: SourceLocation?
    /// `per_sample`: also write `y_seq` [N, T], each grid point's class id (−1: none), beside `y`
    /// (docs/pipeline.md, "labels"). In the resolved pipeline only when true, so that pipelines
    /// without it keep their hash.
    public var perSample = false

    public init(from: Source = .rows, policy: Policy = .majority, minFraction: Double = 0.5, path: String? = nil,
                clock: Clock = .input, template: String? = nil, map: [KeyValue<String>] = [], classes: [String]) {
        self.from = from
        self.policy = policy
        self.minFraction = minFraction
        self.path = path
        self.clock = clock
        self.template = template
        self.map = map
        self.classes = classes
    }

    /// Equal values, wherever they are written.
    public static func == (a: LabelsSpec, b: LabelsSpec) -> Bool {
        a.from == b.from && a.policy == b.policy && a.minFraction == b.minFraction && a.path == b.path
            && a.clock == b.clock && a.template == b.template && a.map == b.map && a.classes == b.classes
            && a.perSample == b.perSample
    }
}

/// `split` (docs/dataset-format.md, "Splits and normalisation").
public struct SplitSpec: Sendable, Equatable {
    public enum By: String, Sendable, CaseIterable {
        case subject, recording
    }
    public var by: By
    public var seed: UInt64
    /// train, validation, test.
    public var train: Double
    public var validation: Double
    public var test: Double
    /// `assign`: split name → subjects pinned to it, in mapping order.
    public var assign: [KeyValue<[String]>]
    /// `folds`: nil or ≥ 2.
    public var folds: Int?
    /// How subjects are shared out (docs/pipeline.md, "Splits and folds").
    public enum Allocation: String, Sendable, CaseIterable {
        /// Each subject by its own hash against the cumulative fractions.
        case hash
        /// Each split gets its share of the subjects by largest remainder.
        case exact
    }
    /// `allocation`; default `hash`.
    public var allocation: Allocation = .hash
    /// `leave_one_out`: one fold per train subject (instead of `folds`).
    public var leaveOneOut = false
    /// `stratify`: what the exact allocation is balanced by (docs/pipeline.md, "Splits and folds").
    public enum Stratify: String, Sendable, CaseIterable {
        /// Each class's subjects (or recordings) are shared out by count on their own.
        case label
    }
    /// `stratify`; nil when not set (then absent from the resolved pipeline, so the hash of a
    /// pipeline without it is as before).
    public var stratify: Stratify?

    public init(by: By = .subject, seed: UInt64 = 42, train: Double = 0.7, validation: Double = 0.15,
                test: Double = 0.15, assign: [KeyValue<[String]>] = [], folds: Int? = nil) {
        self.by = by
        self.seed = seed
        self.train = train
        self.validation = validation
        self.test = test
        self.assign = assign
        self.folds = folds
    }
}

/// `output` (docs/dataset-format.md).
public struct OutputSpec: Sendable, Equatable {
    public enum OutputType: String, Sendable, CaseIterable {
        /// One `.h5` per split; WebDataset tar shards; a Create ML activity-classifier folder of
        /// labelled row stretches per split (docs/dataset-format.md, "Create ML folders").
        case hdf5, shards, createml
    }
    public var type: OutputType
    /// `path` as written (relative to the pipeline file).
    public var path: String
    /// `windows_per_shard`; default 8192.
    public var windowsPerShard: Int
    /// `compression_level` (shards; zstd level 1–19, default 3).
    public var compressionLevel: Int
    /// `deflate_level` (hdf5; deflate level 1–9), nil when the pipeline does not set it (level 4,
    /// and the key stays out of the resolved pipeline, so its hash is the one it always was).
    public var deflateLevelSetting: Int?
    /// The HDF5 deflate level: `deflate_level`, or 4.
    public var deflateLevel: Int { deflateLevelSetting ?? 4 }
    /// `compression` (shards): `zstd` (`.tar.zst`, the default) or `none` (plain `.tar`).
    public enum Compression: String, Sendable, CaseIterable {
        case zstd, none
    }
    public var compression: Compression
    /// `partitioned` (docs/scale.md, "The partitioned layout"): each partition of the run (a
    /// `--worker I/N`, or `run --partitions N` on one machine) writes data files of its own,
    /// which `merge` moves into the dataset instead of rewriting them. False by default, and
    /// the key stays out of the resolved pipeline unless true, so earlier hashes are unchanged.
    public var partitioned: Bool

    public init(type: OutputType = .hdf5, path: String, windowsPerShard: Int = 8192, compressionLevel: Int = 3,
                compression: Compression = .zstd, deflateLevel: Int? = nil, partitioned: Bool = false) {
        self.deflateLevelSetting = deflateLevel
        self.partitioned = partitioned
        self.type = type
        self.path = path
        self.windowsPerShard = windowsPerShard
        self.compressionLevel = compressionLevel
        self.compression = compression
    }
}
