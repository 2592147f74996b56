import MotionSinks

/// `storage: "shards"` (docs/dataset-format.md, "Shards"): `{split}/{split}-NNNNN.tar.zst` (or
/// `.tar`), each a ustar archive of one WebDataset sample per window (`{key}.x.npy`,
/// `{key}.y.cls`, `{key}.features.npy`, `{key}.json`).
///
/// A shard is read whole (MotionSinks' `ShardReader`, which checks the zstd frame's checksum,
/// the tar headers, the samples' members and npy headers) and its windows gathered into the
/// arrays of docs/dataset-format.md, "HDF5 files", in archive order, so memory is one shard at
/// a time — bounded by `windows_per_shard`, not by the dataset.
public struct ShardStorage: DatasetStorage {
    public var name: String { "shards" }

    public init() {}

    public func open(path: String, displayPath: String) throws -> any DatasetFileReader {
        ShardFileReader(contents: try ShardReader.read(path: path), displayPath: displayPath, expected: nil)
    }

    /// Opens a shard no larger than its manifest entry allows
    /// (``ShardReader/maximumArchiveBytes(windows:arrayRowElements:classes:)``): a zstd bomb
    /// is refused from its file size or frame header, before it is decompressed.
    public func open(path: String, displayPath: String, expected: ExpectedFileContents) throws -> any DatasetFileReader {
        let bound = ShardReader.maximumArchiveBytes(windows: expected.windows, arrayRowElements: expected.arrayRowElements,
                                                    classes: expected.classes)
        do {
            return ShardFileReader(contents: try ShardReader.read(path: path, maxArchiveBytes: bound), displayPath: displayPath,
                                   expected: expected)
        } catch let e as ShardSizeError {
            throw ContainerError(message: e.message + " (\(expected.windows) windows)")
        }
    }
}

/// One decoded shard; arrays are converted on first use and kept for the shard's lifetime.
final class ShardFileReader: DatasetFileReader {
    private let contents: ShardContents
    private let displayPath: String
    private let expected: ExpectedFileContents?
    private var floats: [String: [Float]] = [:]
    private var doubles: [String: [Double]] = [:]
    private var integers: [String: [Int64]] = [:]

    init(contents: ShardContents, displayPath: String, expected: ExpectedFileContents?) {
        self.contents = contents
        self.displayPath = displayPath
        self.expected = expected
    }

    static func dtype(_ descr: String) -> String? {
        switch descr {
        case "<f4": "float32"
        case "<f8": "float64"
        case "<i4": "int32"
        case "<i8": "int64"
        default: nil
        }
    }

    /// The dtype each array of a shard has (a shard with no window has no member to say).
    private static let dtypes = DatasetSchema.dtypes

    func arrays() throws -> [String: StoredArray] {
        var out: [String: StoredArray] = [:]
        let n = contents.numWindows
        if n == 0, let expected {
            for (name, row) in expected.arrayRowShapes { out[name] = StoredArray(dtype: Self.dtypes[name], shape: [0] + row) }
            return out
        }
        for a in contents.arrays { out[a.name] = StoredArray(dtype: Self.dtype(a.dtype), shape: a.shape) }
        if n > 0 {
            out["subject_index"] = StoredArray(dtype: "int32", shape: [n])
            out["recording_index"] = StoredArray(dtype: "int32", shape: [n])
        }
        return out
    }

    private func array(_ name: String) throws -> ShardArray {
        guard let a = contents.array(name) else { throw ShardReadError(message: "the shard has no array `\(name)`") }
        return a
    }

    private func rowSlice<T>(_ values: [T], perRow: Int, _ rows: Range<Int>) -> [T] {
        Array(values[(rows.lowerBound * perRow)..<(rows.upperBound * perRow)])
    }

    func readFloats(_ name: String, rows: Range<Int>) throws -> [Float] {
        let a = try array(name)
        if floats[name] == nil {
            floats[name] = a.dtype == "<f8" ? try a.float64Values().map { Float($0) } : try a.float32Values()
        }
        return rowSlice(floats[name]!, perRow: a.shape.dropFirst().reduce(1, *), rows)
    }

    func readDoubles(_ name: String, rows: Range<Int>) throws -> [Double] {
        let a = try array(name)
        if doubles[name] == nil {
            doubles[name] = a.dtype == "<f4" ? try a.float32Values().map { Double($0) } : try a.float64Values()
        }
        return rowSlice(doubles[name]!, perRow: a.shape.dropFirst().reduce(1, *), rows)
    }

    func readInt64s(_ name: String, rows: Range<Int>) throws -> [Int64] {
        // `y_seq` has T values a row; the other integer arrays one.
        let perRow = name == "y_seq" ? try array(name).shape.dropFirst().reduce(1, *) : 1
        if integers[name] == nil {
            switch name {
            case "subject_index", "recording_index":
                let names = (name == "subject_index" ? expected?.subjectNames : expected?.recordingNames) ?? []
                integers[name] = contents.indices(into: names, recording: name == "recording_index").map { Int64($0) }
            default:
                let a = try array(name)
                integers[name] = a.dtype == "<i4" ? try a.int32Values().map { Int64($0) } : try a.int64Values()
            }
        }
        return rowSlice(integers[name]!, perRow: perRow, rows)
    }

    func metadataProblems(expected e: ExpectedFileMetadata) throws -> [String] {
        var problems: [String] = []
        // `{split}/{split}-NNNNN.tar.zst` or `.tar`
        let fileName = displayPath.split(separator: "/").last.map(String.init) ?? displayPath
        let stem = fileName.hasSuffix(".tar.zst") ? String(fileName.dropLast(8)) : fileName.hasSuffix(".tar") ? String(fileName.dropLast(4)) : fileName
        // A partitioned dataset's shard: `{split}/part-IIIII-of-NNNNN-SSSSS.tar.zst`, keys
        // `{split}-pIIIII-NNNNNNNNN` (docs/dataset-format.md, "Partitioned datasets").
        let partition = DatasetPartition.of(path: displayPath)
        let stemPrefix = partition.map { $0.name + "-" } ?? e.split + "-"
        let digits = stem.hasPrefix(stemPrefix) ? stem.dropFirst(stemPrefix.count) : ""
        if !displayPath.hasPrefix("\(e.split)/\(stemPrefix)") || !(displayPath.hasSuffix(".tar.zst") || displayPath.hasSuffix(".tar"))
            || digits.count != 5 || !digits.allSatisfy({ $0.isASCII && $0.isNumber }) {
            problems.append("is not named `\(e.split)/\(stemPrefix)NNNNN.tar.zst` or `.tar` (docs/dataset-format.md, \"Shards\")")
        }
        // Keys `{split}-NNNNNNNNN`, each window once; the label names the class of `y`.
        let keyPrefix = e.split + "-" + (partition?.keyInfix ?? "")
        var seen = Set<Int>()
        var badKeys: [String] = [], repeated: [String] = [], badLabels: [String] = []
        for s in contents.samples {
            let d = s.key.dropFirst(keyPrefix.count)
            if !s.key.hasPrefix(keyPrefix) || d.count != 9 || !d.allSatisfy({ $0.isASCII && $0.isNumber }) {
                badKeys.append(s.key)
            }
            if !seen.insert(s.windowNumber).inserted { repeated.append(s.key) }
            let name: String? = s.classID >= 0 && s.classID < Int64(e.dataset.classNames.count) ? e.dataset.classNames[Int(s.classID)] : nil
            if (s.classID == -1 || name != nil) && s.label != name {
                badLabels.append("`\(s.key).json` has label \(s.label.map { "\"\($0)\"" } ?? "null") but `\(s.key).y.cls` is \(s.classID) (\(name.map { "\"\($0)\"" } ?? "null"))")
            }
        }
        if let first = badKeys.first {
            problems.append("\(badKeys.count) sample key(s) are not `\(keyPrefix)NNNNNNNNN` (nine digits); first: `\(first)`")
        }
        if let first = repeated.first { problems.append("\(repeated.count) sample key(s) occur more than once; first: `\(first)`") }
        if let first = badLabels.first { problems.append("\(badLabels.count) window(s) disagree on their class; first: \(first)") }
        return problems
    }

    func windowNumbers() throws -> [Int]? { contents.samples.map(\.windowNumber) }

    /// A shard declares no counts of its own: every sample carries its class.
    func declaredCounts() throws -> (numWindows: Int, classCounts: [Int])? { nil }

    func close() {
        floats = [:]
        doubles = [:]
        integers = [:]
    }
}

struct ShardReadError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
