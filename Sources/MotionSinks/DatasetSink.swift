import MotionCore

/// Everything a sink needs to know about the dataset besides the windows.
public struct DatasetDescription: Sendable {
    public var sampleRateHz: Double
    public var windowLength: Int
    public var windowStride: Int
    public var channelNames: [String]
    public var channelUnits: [String]
    public var classNames: [String]
    public var featureNames: [String]
    public var subjectNames: [String]
    public var recordingNames: [String]
    /// Whether `fold_index` is written.
    public var hasFolds: Bool
    /// Whether `y_seq` [N, T] is written (`labels.per_sample`): every batch then carries
    /// `WindowBatch.ySeq`.
    public var hasYSeq: Bool
    /// The `qa` columns (the pipeline's `qa`, docs/pipeline.md): every batch then carries
    /// `WindowBatch.qa`, this many values a window; empty without `qa`.
    public var qaColumns: [String] = []

    public init(sampleRateHz: Double, windowLength: Int, windowStride: Int, channelNames: [String], channelUnits: [String],
                classNames: [String], featureNames: [String], subjectNames: [String], recordingNames: [String], hasFolds: Bool,
                hasYSeq: Bool = false) {
        self.hasYSeq = hasYSeq
        self.sampleRateHz = sampleRateHz
        self.windowLength = windowLength
        self.windowStride = windowStride
        self.channelNames = channelNames
        self.channelUnits = channelUnits
        self.classNames = classNames
        self.featureNames = featureNames
        self.subjectNames = subjectNames
        self.recordingNames = recordingNames
        self.hasFolds = hasFolds
    }
}

/// The train statistics `motionprep apply` standardises with: sinks given one also write
/// `x_normalized` (and `features_normalized` when features are computed) beside `x` and
/// `features` (docs/dataset-format.md, "Applied windows").
public struct SinkNormalization: Sendable {
    public var x: Standardization
    public var features: Standardization?
    public init(x: Standardization, features: Standardization?) {
        self.x = x
        self.features = features
    }
}

/// One written data file, as listed in the manifest and SHA256SUMS.
public struct WrittenFile: Sendable, Equatable {
    /// Path relative to the dataset folder (`train.h5`, `train/train-00000.tar.zst`).
    public var path: String
    public var numWindows: Int
    public var classCounts: [Int]
    /// The file's SHA-256 (64 hex digits) and size, when the sink hashed it as it wrote it (shards,
    /// written in order); nil when the file must be read once more to hash it (HDF5: libhdf5
    /// seeks back into the file until it closes it).
    public var sha256: String? = nil
    public var bytes: Int? = nil

    public init(path: String, numWindows: Int, classCounts: [Int], sha256: String? = nil, bytes: Int? = nil) {
        self.path = path
        self.numWindows = numWindows
        self.classCounts = classCounts
        self.sha256 = sha256
        self.bytes = bytes
    }
}

/// Partition `index` of `count` of a partitioned dataset (`output.partitioned`, docs/scale.md,
/// "The partitioned layout"): its files are named `part-IIIII-of-NNNNN…` inside the split's folder.
public struct DatasetPartition: Sendable, Equatable, Hashable {
    public var index: Int
    public var count: Int

    public init(index: Int, count: Int) {
        precondition(count >= 1 && (0..<count).contains(index), "DatasetPartition: \(index) of \(count)")
        self.index = index
        self.count = count
    }

    /// `part-IIIII-of-NNNNN` (at least five digits each).
    public var name: String { "part-" + Self.digits(index, 5) + "-of-" + Self.digits(count, 5) }

    /// `pIIIII-`: what a partition's shard sample keys carry after `{split}-`.
    public var keyInfix: String { "p" + Self.digits(index, 5) + "-" }

    /// `n` in decimal, zero-padded to at least `width` digits.
    public static func digits(_ n: Int, _ width: Int) -> String {
        let d = String(n)
        return String(repeating: "0", count: Swift.max(0, width - d.count)) + d
    }

    /// The partition a file path names (`train/part-00003-of-00016.h5`,
    /// `train/part-00003-of-00016-00000.tar.zst`), nil for any other name.
    public static func of(path: String) -> DatasetPartition? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard name.hasPrefix("part-") else { return nil }
        let fields = name.dropFirst(5).split(separator: "-", maxSplits: 3, omittingEmptySubsequences: false)
        guard fields.count >= 3, fields[1] == "of" else { return nil }
        let countText = fields[2].prefix { $0.isASCII && $0.isNumber }
        guard let i = Int(fields[0]), let n = Int(countText), fields[0].count >= 5, countText.count >= 5,
              fields[0].allSatisfy({ $0.isASCII && $0.isNumber }), n >= 1, i < n else { return nil }
        return DatasetPartition(index: i, count: n)
    }
}

/// Receives one split's windows in canonical order and writes them.
public protocol SplitSink: AnyObject {
    /// Appends one recording's windows, with their subject, recording and fold indices.
    func append(_ batch: WindowBatch, subjectIndex: Int32, recordingIndex: Int32, foldIndex: Int32?) throws
    /// Finishes every file; returns them in order.
    func finish() throws -> [WrittenFile]
    /// Gives up after a failure (the folder is about to be removed): closes whatever is open
    /// without writing more, and never fails, whatever state an earlier error left.
    func abandon()
}

extension SplitSink {
    /// Sinks that keep nothing open between calls have nothing to give up.
    public func abandon() {}
}

/// Per-class window counts of a list of class ids (ids < 0 are not counted).
func classCounts(_ y: [Int64], classes: Int) -> [Int] {
    var c = [Int](repeating: 0, count: classes)
    for v in y where v >= 0 && Int(v) < classes { c[Int(v)] += 1 }
    return c
}
