import MotionCore
import MotionZstd

#if _endian(big)
#error("ShardSplitSink writes arrays as little-endian npy straight from memory; big-endian hosts are not supported")
#endif

/// Writes one split as `{split}/{split}-NNNNN.tar.zst` shards (docs/dataset-format.md, "Shards").
///
/// Windows arrive per recording in canonical order and are buffered until a shard holds exactly
/// `windowsPerShard` of them, cutting across recording boundaries, so every shard but the last
/// is full. At most one shard's windows are held. An empty split still gets one shard with
/// N = 0.
///
/// Each shard is a ustar archive (see `TarWriter`) whose members share the stem
/// `{split}-NNNNN`, so that WebDataset reads the shard as one sample: `{stem}.json`, then one
/// npy v1.0 file per array in the order of docs/dataset-format.md, "HDF5 files" (`x`, `y`, `features` when there are
/// features, `subject_index`, `recording_index`, `start_time_s`, `fold_index` when folds are
/// on). The archive is compressed while it is produced, as exactly one zstd frame with the
/// content size and a checksum, into a temporary file renamed into place when complete. The
/// same windows always give the same bytes.
public final class ShardSplitSink: SplitSink {
    private let directory: String
    private let split: String
    private let description: DatasetDescription
    private let windowsPerShard: Int
    private let compressionLevel: Int
    private var buffer: _ShardBuffer
    private var files: [WrittenFile] = []

    /// Prepares `{directory}/{split}/`; nothing is written before the first full shard.
    /// - Parameters:
    ///   - directory: the dataset folder being built.
    ///   - split: `train`, `validation` or `test`.
    ///   - windowsPerShard: windows in every shard but the last (at least 1).
    ///   - compressionLevel: zstd level (pipeline files allow 1–19; default 3).
    /// - Throws: `MotionError(.config)` when `windowsPerShard < 1`; `.cannotCreate` when the
    ///   folder cannot be made.
    public init(directory: String, split: String, description: DatasetDescription,
                windowsPerShard: Int, compressionLevel: Int = 3) throws {
        guard windowsPerShard >= 1 else {
            throw MotionError(.config, "`output.windows_per_shard` is \(windowsPerShard); expected a whole number of at least 1")
        }
        self.directory = directory
        self.split = split
        self.description = description
        self.windowsPerShard = windowsPerShard
        self.compressionLevel = compressionLevel
        buffer = _ShardBuffer(description: description)
        try _ShardFile.makeDirectory(directory + "/" + split)
    }

    public func append(_ batch: WindowBatch, subjectIndex: Int32, recordingIndex: Int32, foldIndex: Int32?) throws {
        let n = batch.count
        let rowX = description.windowLength * description.channelNames.count
        let rowF = description.featureNames.count
        precondition(batch.x.count == n * rowX && batch.startTimes.count == n && batch.features.count == n * rowF,
                     "ShardSplitSink: a batch of \(n) windows has \(batch.x.count) x values, \(batch.features.count) feature values and \(batch.startTimes.count) start times; expected \(rowX), \(rowF) and 1 per window")
        var from = 0
        while from < n {
            let take = Swift.min(n - from, windowsPerShard - buffer.count)
            buffer.append(batch, rows: from..<(from + take), subjectIndex: subjectIndex,
                          recordingIndex: recordingIndex, foldIndex: foldIndex ?? 0)
            from += take
            if buffer.count == windowsPerShard { try writeShard() }
        }
    }

    public func finish() throws -> [WrittenFile] {
        if buffer.count > 0 || files.isEmpty { try writeShard() }
        return files
    }

    /// `{split}-NNNNN` (at least five digits).
    static func stem(split: String, index: Int) -> String {
        let digits = String(index)
        return split + "-" + String(repeating: "0", count: Swift.max(0, 5 - digits.count)) + digits
    }

    private func writeShard() throws {
        let index = files.count
        let stem = Self.stem(split: split, index: index)
        let relativePath = split + "/" + stem + ".tar.zst"
        let counts = classCounts(buffer.y, classes: description.classNames.count)
        let header: JSONValue = .object([
            "format": .string("motionprep.shard"),
            "format_version": .int(1),
            "split": .string(split),
            "shard_index": .int(index),
            "num_windows": .int(buffer.count),
            "class_counts": .array(counts.map { .int($0) }),
        ])
        let json = Array((header.compact() + "\n").utf8)
        try Self.writeArchive(path: directory + "/" + relativePath, stem: stem, json: json,
                              arrays: buffer.arrays(description: description), level: compressionLevel)
        files.append(WrittenFile(path: relativePath, numWindows: buffer.count, classCounts: counts))
        buffer.removeAll()
    }
}

extension ShardSplitSink {
    /// Writes one shard: the tar archive is produced member by member straight into one zstd
    /// frame (its size is known up front, so the frame records it) and into a temporary file,
    /// renamed to `path` when complete. The arrays are only borrowed, so the caller's buffer
    /// keeps its capacity once they are released.
    static func writeArchive(path: String, stem: String, json: [UInt8], arrays: [_ShardArrayRef], level: Int) throws {
        let npyHeaders = arrays.map { $0.header.encoded() }
        var sizes = [json.count]
        for (a, h) in zip(arrays, npyHeaders) { sizes.append(h.count + a.byteCount) }

        let file = try _ShardFile(path: path)
        let zstd = try ZstdFrameWriter(level: level, contentSize: TarWriter.archiveSize(memberSizes: sizes)) {
            try file.write($0)
        }
        var tar = TarWriter { try zstd.write($0) }
        try tar.beginMember(name: stem + ".json", size: json.count)
        try tar.writeContent(json)
        for (i, a) in arrays.enumerated() {
            try tar.beginMember(name: "\(stem).\(a.name).npy", size: sizes[i + 1])
            try tar.writeContent(npyHeaders[i])
            try a.withBytes { try tar.writeContent($0) }
        }
        try tar.finish()
        try zstd.finish()
        try file.commit()
    }
}

/// The windows of the shard being filled, one array per npy member.
struct _ShardBuffer {
    private(set) var x: [Float] = []
    private(set) var y: [Int64] = []
    private(set) var features: [Float] = []
    private(set) var subjectIndex: [Int32] = []
    private(set) var recordingIndex: [Int32] = []
    private(set) var startTime: [Double] = []
    private(set) var foldIndex: [Int32] = []
    private let hasFeatures: Bool
    private let hasFolds: Bool

    init(description: DatasetDescription) {
        hasFeatures = !description.featureNames.isEmpty
        hasFolds = description.hasFolds
    }

    var count: Int { y.count }

    mutating func append(_ batch: WindowBatch, rows: Range<Int>, subjectIndex s: Int32, recordingIndex r: Int32, foldIndex f: Int32) {
        let rowX = batch.length * batch.channelCount
        x.append(contentsOf: batch.x[(rows.lowerBound * rowX)..<(rows.upperBound * rowX)])
        y.append(contentsOf: batch.y[rows])
        if hasFeatures {
            features.append(contentsOf: batch.features[(rows.lowerBound * batch.featureCount)..<(rows.upperBound * batch.featureCount)])
        }
        subjectIndex.append(contentsOf: repeatElement(s, count: rows.count))
        recordingIndex.append(contentsOf: repeatElement(r, count: rows.count))
        startTime.append(contentsOf: batch.startTimes[rows])
        if hasFolds { foldIndex.append(contentsOf: repeatElement(f, count: rows.count)) }
    }

    /// Empties every array, keeping capacity for the next shard.
    mutating func removeAll() {
        x.removeAll(keepingCapacity: true)
        y.removeAll(keepingCapacity: true)
        features.removeAll(keepingCapacity: true)
        subjectIndex.removeAll(keepingCapacity: true)
        recordingIndex.removeAll(keepingCapacity: true)
        startTime.removeAll(keepingCapacity: true)
        foldIndex.removeAll(keepingCapacity: true)
    }

    /// The npy members in docs/dataset-format.md, "HDF5 files" table order.
    func arrays(description d: DatasetDescription) -> [_ShardArrayRef] {
        let n = count
        var out: [_ShardArrayRef] = [
            .float32("x", x, shape: [n, d.windowLength, d.channelNames.count]),
            .int64("y", y, shape: [n]),
        ]
        if hasFeatures { out.append(.float32("features", features, shape: [n, d.featureNames.count])) }
        out.append(.int32("subject_index", subjectIndex, shape: [n]))
        out.append(.int32("recording_index", recordingIndex, shape: [n]))
        out.append(.float64("start_time_s", startTime, shape: [n]))
        if hasFolds { out.append(.int32("fold_index", foldIndex, shape: [n])) }
        return out
    }
}

/// One array to write as npy, borrowed from the buffer.
enum _ShardArrayRef {
    case float32(String, [Float], shape: [Int])
    case float64(String, [Double], shape: [Int])
    case int64(String, [Int64], shape: [Int])
    case int32(String, [Int32], shape: [Int])

    var name: String {
        switch self {
        case .float32(let n, _, _), .float64(let n, _, _), .int64(let n, _, _), .int32(let n, _, _): return n
        }
    }

    var header: NPYHeader {
        switch self {
        case .float32(_, _, let s): return NPYHeader(descr: "<f4", shape: s)
        case .float64(_, _, let s): return NPYHeader(descr: "<f8", shape: s)
        case .int64(_, _, let s): return NPYHeader(descr: "<i8", shape: s)
        case .int32(_, _, let s): return NPYHeader(descr: "<i4", shape: s)
        }
    }

    var byteCount: Int {
        switch self {
        case .float32(_, let v, _): return v.count * 4
        case .float64(_, let v, _): return v.count * 8
        case .int64(_, let v, _): return v.count * 8
        case .int32(_, let v, _): return v.count * 4
        }
    }

    /// The values' bytes in memory order (little-endian on every supported host).
    func withBytes(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        switch self {
        case .float32(_, let v, _): try v.withUnsafeBytes(body)
        case .float64(_, let v, _): try v.withUnsafeBytes(body)
        case .int64(_, let v, _): try v.withUnsafeBytes(body)
        case .int32(_, let v, _): try v.withUnsafeBytes(body)
        }
    }
}
