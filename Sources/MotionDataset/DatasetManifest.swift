import MotionChain
import MotionCore

/// `manifest.json` (docs/dataset-format.md, "Manifest, checksums and commit"): every field, typed.
///
/// One model for both kinds of output: a dataset (`run`, `merge`: three splits and a split
/// policy) and an applied output (`apply`: ``applied`` set, one split, `windows`, the source
/// dataset's statistics, no split policy; docs/dataset-format.md, "Applied windows").
///
/// One type for writing and reading: `run`, `merge` and `apply` build one and write ``text``;
/// `validate`, `report` and `inspect` read one with ``load(path:)`` or ``ManifestDecoder``.
/// ``json`` gives exactly the bytes motionprep has always written (keys sorted by UTF-8 bytes,
/// shortest round-trip doubles, optional keys only when set), so `decode → encode` of a written
/// manifest gives back the same bytes.
///
/// Not Swift `Codable` on purpose: Foundation's `JSONEncoder` neither sorts keys by UTF-8 bytes
/// nor prints doubles as motionprep always has (`50.0`), and a synthesized decoder stops at the
/// first problem with a coding path, where `validate` lists every problem with the key path, what
/// it must be and what it is. ``json`` / ``text`` and ``ManifestDecoder`` (``load(directory:)``,
/// ``decode(bytes:file:)``) are the two halves of the one serialisation.
public struct DatasetManifest: Sendable, Equatable {
    /// `pipeline`: the name, the canonical pipeline's SHA-256 and the fully resolved pipeline
    /// (every default filled in; `PipelineSpec.canonicalValue()` of MotionConfig).
    public struct Pipeline: Sendable, Equatable {
        public var name: String
        public var sha256: String
        /// The resolved pipeline as a JSON object (`.null` only in a version-1 manifest). Kept as
        /// written, not typed here: its one typed model is MotionConfig's `PipelineSpec`, which
        /// `apply` decodes it into (`SourceDataset`, with the pipeline files' own decoder and their
        /// `file:line:column` messages), and whose canonical form `pipeline.sha256` hashes; a
        /// second copy of that model in the dataset format would drift from it.
        public var resolved: JSONValue

        public init(name: String, sha256: String, resolved: JSONValue) {
            self.name = name
            self.sha256 = sha256
            self.resolved = resolved
        }
    }

    /// One channel of `x`.
    public struct Channel: Sendable, Equatable {
        public var name: String
        public var unit: String

        public init(name: String, unit: String) {
            self.name = name
            self.unit = unit
        }
    }

    /// One file the run read (`inputs`).
    public struct Input: Sendable, Equatable {
        public var path: String
        public var bytes: Int
        public var sha256: String
        /// `recording`, `labels` or `iio_layout`; nil in manifests written before it existed.
        public var role: String?

        public init(path: String, bytes: Int, sha256: String, role: String?) {
            self.path = path
            self.bytes = bytes
            self.sha256 = sha256
            self.role = role
        }
    }

    /// `source_dataset` of an applied output: the dataset whose pipeline and statistics made it.
    public struct Applied: Sendable, Equatable {
        /// The source dataset's pipeline name.
        public var name: String
        /// The SHA-256 of the source dataset's `manifest.json` bytes.
        public var manifestSHA256: String
        /// The source dataset's `pipeline.sha256` (the applied output's `pipeline.sha256` too).
        public var pipelineSHA256: String

        public init(name: String, manifestSHA256: String, pipelineSHA256: String) {
            self.name = name
            self.manifestSHA256 = manifestSHA256
            self.pipelineSHA256 = pipelineSHA256
        }
    }

    /// `split_policy`.
    public struct SplitPolicy: Sendable, Equatable {
        /// `subject` or `recording`.
        public var by: String
        /// The pipeline's `split.seed` (a UInt64) as its bit pattern.
        public var seed: Int64
        public var train: Double
        public var validation: Double
        public var test: Double
        /// The number of folds (with `leaveOneOut`, the number of train subjects); nil without folds.
        public var folds: Int?
        /// `exact`; nil for the default, `hash`, which is not written.
        public var allocation: String?
        /// Written only when true.
        public var leaveOneOut: Bool
        /// Split name → pinned subjects; nil when the pipeline pins none (not written).
        public var assign: [String: [String]]?

        public init(by: String, seed: Int64, train: Double, validation: Double, test: Double, folds: Int? = nil,
                    allocation: String? = nil, leaveOneOut: Bool = false, assign: [String: [String]]? = nil) {
            self.by = by
            self.seed = seed
            self.train = train
            self.validation = validation
            self.test = test
            self.folds = folds
            self.allocation = allocation
            self.leaveOneOut = leaveOneOut
            self.assign = assign
        }

        /// The fraction of `split`.
        public func fraction(_ split: SplitName) -> Double {
            switch split {
            case .train: train
            case .validation: validation
            case .test: test
            case .windows: 0
            }
        }
    }

    /// Mean and standard deviation per column, over the train split.
    public struct Moments: Sendable, Equatable {
        public var mean: [Double]
        public var std: [Double]

        public init(mean: [Double], std: [Double]) {
            self.mean = mean
            self.std = std
        }
    }

    /// `normalization`: nil where the train split is empty (or, for `features`, there are none).
    public struct Normalization: Sendable, Equatable {
        public var x: Moments?
        public var features: Moments?

        public init(x: Moments?, features: Moments?) {
            self.x = x
            self.features = features
        }
    }

    /// `counts.skipped_recordings[i]`.
    public struct SkippedRecording: Sendable, Equatable {
        public var recording: String
        public var error: String

        public init(recording: String, error: String) {
            self.recording = recording
            self.error = error
        }
    }

    /// `counts` (docs/dataset-format.md, "counts").
    public struct Counts: Sendable, Equatable {
        public var recordings: Int
        public var rowsRead: Int
        public var rowsDropped: [String: Int]
        /// `windows_dropped`; in an applied output `windows_unlabelled`: the windows kept with
        /// `y = −1` that the dataset's label policy would have dropped, by reason.
        public var windowsDropped: [String: Int]
        /// nil in manifests written before it existed (then not written).
        public var recordingsDropped: [String: Int]?
        public var skippedRecordings: [SkippedRecording]?
        /// `from: intervals` only.
        public var labelRowsIgnored: [String: Int]?
        public var gaps: Int
        public var gapSeconds: Double

        public init(recordings: Int, rowsRead: Int, rowsDropped: [String: Int], windowsDropped: [String: Int],
                    recordingsDropped: [String: Int]?, skippedRecordings: [SkippedRecording]?, labelRowsIgnored: [String: Int]?,
                    gaps: Int, gapSeconds: Double) {
            self.recordings = recordings
            self.rowsRead = rowsRead
            self.rowsDropped = rowsDropped
            self.windowsDropped = windowsDropped
            self.recordingsDropped = recordingsDropped
            self.skippedRecordings = skippedRecordings
            self.labelRowsIgnored = labelRowsIgnored
            self.gaps = gaps
            self.gapSeconds = gapSeconds
        }
    }

    /// One data file of a split (`splits.{split}.files[i]`).
    public struct DataFile: Sendable, Equatable {
        /// The split that lists it (not written: it is where the file is listed).
        public var split: SplitName
        /// Relative to the dataset folder.
        public var path: String
        public var bytes: Int
        public var sha256: String
        public var numWindows: Int
        public var classCounts: [Int]
        /// `partition`: the partition the file holds, in a partitioned dataset (``DatasetManifest/partitions``); nil otherwise.
        public var partition: Int?

        public init(split: SplitName, path: String, bytes: Int, sha256: String, numWindows: Int, classCounts: [Int],
                    partition: Int? = nil) {
            self.partition = partition
            self.split = split
            self.path = path
            self.bytes = bytes
            self.sha256 = sha256
            self.numWindows = numWindows
            self.classCounts = classCounts
        }
    }

    /// One split (`splits.{split}`).
    public struct Split: Sendable, Equatable {
        public var numWindows: Int
        public var classCounts: [Int]
        public var files: [DataFile]

        public init(numWindows: Int, classCounts: [Int], files: [DataFile]) {
            self.numWindows = numWindows
            self.classCounts = classCounts
            self.files = files
        }
    }

    public var formatVersion: Int
    public var createdBy: String
    /// `hdf5` or `shards`.
    public var storage: String
    public var pipeline: Pipeline
    public var sampleRateHz: Double
    /// In samples.
    public var windowLength: Int
    public var windowStride: Int
    public var channels: [Channel]
    public var classes: [String]
    public var featureNames: [String]
    public var inputs: [Input]
    public var subjects: [String]
    public var recordings: [String]
    /// Array name → schema.
    public var arrays: [String: ArraySchema]
    /// nil for an applied output, which has no split assignment.
    public var splitPolicy: SplitPolicy?
    public var normalization: Normalization
    public var counts: Counts
    /// Every split, each present: ``splitNames``.
    public var splits: [SplitName: Split]
    /// Set for the output of `motionprep apply` (`format` `motionprep.applied`): its source dataset.
    public var applied: Applied?
    /// The processing chain (docs/dataset-format.md, "The processing chain"); nil in manifests
    /// written before it existed (and, for `validate`, in one whose `chain` did not decode).
    public var chain: ProcessingChain?
    /// `storage: "createml"`: the Create ML layout, its files and counts (docs/dataset-format.md,
    /// "Create ML folders"), as written; nil for the other storages.
    public var createml: JSONValue?
    /// `partitions`: the number of partitions of a partitioned dataset (`output.partitioned`,
    /// docs/scale.md, "The partitioned layout"), whose split files are listed partition by
    /// partition, each with its `partition`; nil (absent) for the default layout.
    public var partitions: Int?
    /// The pipeline's `qa` (docs/dataset-format.md, "Device quality"): the `qa` columns and each
    /// recording's report (calibration, non-wear), as written; nil without `qa`.
    public var qa: JSONValue?

    public init(formatVersion: Int = DatasetSchema.formatVersion, createdBy: String, storage: String, pipeline: Pipeline,
                sampleRateHz: Double, windowLength: Int, windowStride: Int, channels: [Channel], classes: [String],
                featureNames: [String], inputs: [Input], subjects: [String], recordings: [String],
                arrays: [String: ArraySchema], splitPolicy: SplitPolicy?, normalization: Normalization, counts: Counts,
                splits: [SplitName: Split], chain: ProcessingChain? = nil, createml: JSONValue? = nil, applied: Applied? = nil,
                partitions: Int? = nil) {
        self.chain = chain
        self.createml = createml
        self.partitions = partitions
        self.applied = applied
        self.formatVersion = formatVersion
        self.createdBy = createdBy
        self.storage = storage
        self.pipeline = pipeline
        self.sampleRateHz = sampleRateHz
        self.windowLength = windowLength
        self.windowStride = windowStride
        self.channels = channels
        self.classes = classes
        self.featureNames = featureNames
        self.inputs = inputs
        self.subjects = subjects
        self.recordings = recordings
        self.arrays = arrays
        self.splitPolicy = splitPolicy
        self.normalization = normalization
        self.counts = counts
        self.splits = splits
    }

    // MARK: - Views

    public var channelNames: [String] { channels.map(\.name) }
    public var channelUnits: [String] { channels.map(\.unit) }
    /// `split_policy.folds`.
    public var folds: Int? { splitPolicy?.folds }
    /// True for the output of `motionprep apply`.
    public var isApplied: Bool { applied != nil }
    /// The splits this manifest lists: a dataset's three, or an applied output's `windows`.
    public var splitNames: [SplitName] { isApplied ? [.windows] : SplitName.datasetSplits }
    /// Every listed file, split by split in manifest order.
    public var files: [DataFile] { splitNames.flatMap { splits[$0]?.files ?? [] } }

    /// The arrays docs/dataset-format.md, "HDF5 files" (or "Applied windows") prescribes for
    /// this manifest's channels, features and folds.
    public var expectedArrays: [String: ArraySchema] {
        if isApplied {
            return DatasetSchema.appliedArrays(windowLength: windowLength, channels: channels.count, features: featureNames.count,
                                               hasYSeq: hasYSeq, qaColumns: qaColumns.count)
        }
        return DatasetSchema.arrays(windowLength: windowLength, channels: channels.count, features: featureNames.count,
                                    hasFolds: splitPolicy?.folds != nil, hasYSeq: hasYSeq, qaColumns: qaColumns.count)
    }

    /// Whether the dataset has `y_seq` (`pipeline.resolved.labels.per_sample: true`).
    public var hasYSeq: Bool { DatasetSchema.hasYSeq(resolved: pipeline.resolved) }

    /// The `qa` columns (`pipeline.resolved.qa` present), empty otherwise.
    public var qaColumns: [String] { DatasetSchema.qaColumns(resolved: pipeline.resolved) }
}
