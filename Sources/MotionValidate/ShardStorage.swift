import MotionSinks

/// `storage: "shards"` (docs/dataset-format.md, "Shards"): `{split}/{split}-NNNNN.tar.zst`, each one zstd frame holding
/// a ustar archive of `{stem}.json` and one npy file per array.
///
/// A shard is decompressed whole (MotionSinks' `ShardReader`, which checks the zstd frame's
/// checksum, the tar headers and the npy headers), so memory is one shard at a time — bounded
/// by `windows_per_shard`, not by the dataset.
public struct ShardStorage: DatasetStorage {
    public var name: String { "shards" }

    public init() {}

    public func open(path: String, displayPath: String) throws -> any DatasetFileReader {
        ShardFileReader(contents: try ShardReader.read(path: path), displayPath: displayPath)
    }

    /// Opens a shard no larger than its manifest entry allows
    /// (``ShardReader/maximumArchiveBytes(windows:arrayRowElements:classes:)``): a zstd bomb
    /// is refused from its file size or frame header, before it is decompressed.
    public func open(path: String, displayPath: String, expected: ExpectedFileContents) throws -> any DatasetFileReader {
        let bound = ShardReader.maximumArchiveBytes(windows: expected.windows, arrayRowElements: expected.arrayRowElements,
                                                    classes: expected.classes)
        do {
            return ShardFileReader(contents: try ShardReader.read(path: path, maxArchiveBytes: bound), displayPath: displayPath)
        } catch let e as ShardSizeError {
            throw ContainerError(message: e.message + " (\(expected.windows) windows)")
        }
    }
}

/// One decoded shard; arrays are converted on first use and kept for the shard's lifetime.
final class ShardFileReader: DatasetFileReader {
    private let contents: ShardContents
    private let displayPath: String
    private var floats: [String: [Float]] = [:]
    private var doubles: [String: [Double]] = [:]
    private var integers: [String: [Int64]] = [:]

    init(contents: ShardContents, displayPath: String) {
        self.contents = contents
        self.displayPath = displayPath
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

    func arrays() throws -> [String: StoredArray] {
        var out: [String: StoredArray] = [:]
        for a in contents.arrays { out[a.name] = StoredArray(dtype: Self.dtype(a.dtype), shape: a.shape) }
        return out
    }

    private func array(_ name: String) throws -> ShardArray {
        guard let a = contents.array(name) else { throw ShardReadError(message: "the shard has no array `\(name)`") }
        return a
    }

    private func rowSlice<T>(_ values: [T], _ a: ShardArray, _ rows: Range<Int>) -> [T] {
        let perRow = a.shape.dropFirst().reduce(1, *)
        return Array(values[(rows.lowerBound * perRow)..<(rows.upperBound * perRow)])
    }

    func readFloats(_ name: String, rows: Range<Int>) throws -> [Float] {
        let a = try array(name)
        if floats[name] == nil {
            floats[name] = a.dtype == "<f8" ? try a.float64Values().map { Float($0) } : try a.float32Values()
        }
        return rowSlice(floats[name]!, a, rows)
    }

    func readDoubles(_ name: String, rows: Range<Int>) throws -> [Double] {
        let a = try array(name)
        if doubles[name] == nil {
            doubles[name] = a.dtype == "<f4" ? try a.float32Values().map { Double($0) } : try a.float64Values()
        }
        return rowSlice(doubles[name]!, a, rows)
    }

    func readInt64s(_ name: String, rows: Range<Int>) throws -> [Int64] {
        let a = try array(name)
        if integers[name] == nil {
            integers[name] = a.dtype == "<i4" ? try a.int32Values().map { Int64($0) } : try a.int64Values()
        }
        return rowSlice(integers[name]!, a, rows)
    }

    func metadataProblems(expected e: ExpectedFileMetadata) throws -> [String] {
        var problems: [String] = []
        let h = contents.header
        // `{split}/{split}-NNNNN.tar.zst`
        let fileName = displayPath.split(separator: "/").last.map(String.init) ?? displayPath
        let stem = fileName.hasSuffix(".tar.zst") ? String(fileName.dropLast(8)) : fileName
        let prefix = "\(e.split)/\(e.split)-"
        let digits = stem.dropFirst(e.split.count + 1)
        if !displayPath.hasPrefix(prefix) || !displayPath.hasSuffix(".tar.zst") || digits.count != 5
            || !digits.allSatisfy(\.isASCII) || Int(digits) == nil {
            problems.append("is not named `\(e.split)/\(e.split)-NNNNN.tar.zst` (docs/dataset-format.md, \"Shards\")")
        } else if let index = Int(digits), index != h.shardIndex {
            problems.append("header `shard_index` is \(h.shardIndex), but the file name says \(index)")
        }
        if contents.stem != stem { problems.append("its members are named `\(contents.stem).*`, not `\(stem).*`") }
        if h.format != "motionprep.shard" { problems.append("header `format` is \"\(h.format)\", not \"motionprep.shard\"") }
        if h.formatVersion != 1 { problems.append("header `format_version` is \(h.formatVersion), not 1") }
        if h.split != e.split { problems.append("header `split` is \"\(h.split)\", but the manifest lists the shard under \"\(e.split)\"") }
        // Members: the header, then the arrays in the contract's (docs/dataset-format.md, "HDF5 files") table order.
        let names = contents.arrays.map(\.name)
        let ordered = DatasetManifest.arrayOrder(names)
        if names != ordered {
            problems.append("its arrays are in the order \(names.joined(separator: ", ")); expected \(ordered.joined(separator: ", "))")
        }
        return problems
    }

    func declaredCounts() throws -> (numWindows: Int, classCounts: [Int])? {
        (contents.header.numWindows, contents.header.classCounts)
    }

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
