import Foundation
import MotionCore
import MotionZstd

/// The `{stem}.json` member of a shard (docs/dataset-format.md, "Shards").
public struct ShardHeader: Sendable, Equatable, Decodable {
    /// `motionprep.shard`.
    public var format: String
    /// 1.
    public var formatVersion: Int
    public var split: String
    public var shardIndex: Int
    public var numWindows: Int
    /// Windows per class id.
    public var classCounts: [Int]

    enum CodingKeys: String, CodingKey {
        case format, split
        case formatVersion = "format_version"
        case shardIndex = "shard_index"
        case numWindows = "num_windows"
        case classCounts = "class_counts"
    }
}

/// A shard larger than its manifest entry allows (``ShardReader/read(path:maxArchiveBytes:)``).
public struct ShardSizeError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var description: String { message }
}

/// One npy member of a shard.
public struct ShardArray: Sendable, Equatable {
    /// The array's name: the member name without the stem and `.npy` (`x`, `y`, `features`,
    /// `subject_index`, `recording_index`, `start_time_s`, `fold_index`).
    public var name: String
    /// numpy's dtype string: `<f4`, `<f8`, `<i4` or `<i8`.
    public var dtype: String
    public var shape: [Int]
    /// The raw little-endian element bytes, C order.
    public var data: [UInt8]
    /// Offset of the data from the start of the npy member (a multiple of 64 when written by
    /// motionprep).
    public var dataOffset: Int

    /// Number of elements.
    public var elementCount: Int { shape.reduce(1, *) }

    /// The elements as `Float` (`<f4` only).
    /// - Throws: `MotionError(.dataError)` for another dtype.
    public func float32Values() throws -> [Float] { try values(Float.self, "<f4") }
    /// The elements as `Double` (`<f8` only).
    public func float64Values() throws -> [Double] { try values(Double.self, "<f8") }
    /// The elements as `Int64` (`<i8` only).
    public func int64Values() throws -> [Int64] { try values(Int64.self, "<i8") }
    /// The elements as `Int32` (`<i4` only).
    public func int32Values() throws -> [Int32] { try values(Int32.self, "<i4") }

    private func values<T: BitwiseCopyable>(_ type: T.Type, _ expected: String) throws -> [T] {
        guard dtype == expected else {
            throw MotionError(.dataError, "array `\(name)` has dtype \(dtype), not \(expected)")
        }
        return _ShardBytes.load(T.self, from: data)
    }
}

/// Everything in one shard: its header and its arrays, in member order.
public struct ShardContents: Sendable, Equatable {
    /// The stem shared by every member (`train-00000`).
    public var stem: String
    /// Member names in archive order.
    public var memberNames: [String]
    /// The parsed `{stem}.json`.
    public var header: ShardHeader
    /// The `{stem}.json` member as written.
    public var headerJSON: String
    /// The npy members in archive order.
    public var arrays: [ShardArray]

    /// The array called `name`, if present.
    public func array(_ name: String) -> ShardArray? { arrays.first { $0.name == name } }
}

/// Reads a `.tar.zst` shard back (docs/dataset-format.md, "Shards"), for `motionprep validate`, `inspect` and tests.
///
/// Checks the structure, not the dataset's rules: one zstd frame with content size and checksum
/// and nothing after it; ustar headers with correct checksums; only regular-file members sharing
/// one stem, the first being `{stem}.json`; every other member an npy v1.0 file in C order
/// whose data length matches its shape and dtype. Counts, class ids and member order against
/// the manifest are left to the caller.
public enum ShardReader {
    /// Reads and checks one shard file.
    /// - Parameter path: the `.tar.zst` file.
    /// - Throws: `MotionError` naming the file: `.noInput` when missing, `.ioError` when
    ///   unreadable, `.dataError` for anything malformed.
    public static func read(path: String) throws -> ShardContents {
        try read(path: path, maxArchiveBytes: nil)
    }

    /// Reads and checks one shard file whose archive may hold at most `maxArchiveBytes` bytes
    /// (``maximumArchiveBytes(windows:arrayRowElements:classes:)`` of its manifest entry), so a
    /// zstd "bomb" costs a refusal, not the memory it declares: a file longer than the most
    /// such an archive can compress to is not read, a frame whose header declares more content
    /// is not decompressed, and decompression writes into a buffer of the declared size, which
    /// libzstd never overruns (a frame that expands past its declared size fails).
    /// - Throws: ``ShardSizeError`` when a bound is exceeded; otherwise as ``read(path:)``.
    public static func read(path: String, maxArchiveBytes: Int?) throws -> ShardContents {
        // Above ZSTD_compressBound: the most a frame of that much content takes (incompressible
        // blocks), plus its header.
        let maxFileBytes = maxArchiveBytes.map { $0 > Int.max / 2 ? Int.max : $0 + $0 >> 7 + (128 << 10) }
        let bytes = try _ShardFile.readAll(path, maxBytes: maxFileBytes)
        if let maxArchiveBytes, let declared = try? ZstdFrameHeader(parsing: bytes).contentSize,
           declared > UInt64(maxArchiveBytes) {
            throw ShardSizeError(message: "shard \(path) declares \(declared) bytes of content in its zstd frame header, more than the \(maxArchiveBytes) its manifest entry allows; it is not decompressed")
        }
        do {
            return try read(compressed: bytes)
        } catch let e as MotionError {
            throw MotionError(e.exitStatus, "shard \(path) is malformed: \(e.message)")
        }
    }

    /// The most bytes the tar archive of a shard can legitimately hold: every array at 8 bytes
    /// an element (the widest dtype a shard may store), each member with its tar header, its
    /// largest npy header (version 1.0: 10 + 65 535 bytes) and its tar padding, the JSON header
    /// member (at most 64 KiB plus 32 bytes a class), the end blocks and a tar record, and
    /// 1 MiB of slack. Saturates at `Int.max` rather than overflow.
    ///
    /// The one place that knows how large a shard may be: change it with the shard format.
    /// - Parameters:
    ///   - windows: the windows the manifest lists for the shard.
    ///   - arrayRowElements: elements in one row (window) of each array.
    ///   - classes: the dataset's classes (the header's `class_counts`).
    public static func maximumArchiveBytes(windows: Int, arrayRowElements: [Int], classes: Int) -> Int {
        let block = TarWriter.blockSize
        let npyHeader = 10 + 65_535
        var total = (64 << 10) + 32 * classes + 2 * block   // JSON member with its header and padding
        total += 20 * block + (1 << 20)                       // end blocks, a tar record, slack
        for elements in arrayRowElements {
            let (bytes, o1) = max(0, elements).multipliedReportingOverflow(by: 8)
            let (data, o2) = bytes.multipliedReportingOverflow(by: max(0, windows))
            let (sum, o3) = total.addingReportingOverflow(data)
            guard !o1, !o2, !o3, sum <= Int.max - 2 * block - npyHeader else { return Int.max }
            total = sum + 2 * block + npyHeader
        }
        return total
    }

    /// Reads a shard from its compressed bytes.
    /// - Throws: `MotionError(.dataError)` for anything malformed.
    public static func read(compressed bytes: [UInt8]) throws -> ShardContents {
        try read(archive: Zstd.decompressFrame(bytes))
    }

    /// Reads a shard from its uncompressed tar bytes.
    /// - Throws: `MotionError(.dataError)` for anything malformed.
    public static func read(archive: [UInt8]) throws -> ShardContents {
        let members = try TarReader.members(archive)
        guard let first = members.first else {
            throw MotionError(.dataError, "the archive has no member; expected {stem}.json first")
        }
        guard first.name.hasSuffix(".json"), let stem = first.name.split(separator: ".", maxSplits: 1).first.map(String.init),
              first.name == stem + ".json" else {
            throw MotionError(.dataError, "the first member is `\(first.name)`; expected `{stem}.json`")
        }
        let jsonBytes = archive[first.data]
        let header: ShardHeader
        do {
            header = try JSONDecoder().decode(ShardHeader.self, from: Data(jsonBytes))
        } catch {
            throw MotionError(.dataError, "`\(first.name)` is not a shard header with format, format_version, split, shard_index, num_windows and class_counts (\(error))")
        }
        var arrays: [ShardArray] = []
        for m in members.dropFirst() {
            guard m.name.hasPrefix(stem + "."), m.name.hasSuffix(".npy"), m.name.count > stem.count + 5 else {
                throw MotionError(.dataError, "member `\(m.name)` is not named `\(stem).{array}.npy`")
            }
            let name = String(m.name.dropFirst(stem.count + 1).dropLast(4))
            let (npy, offset): (NPYHeader, Int)
            do {
                (npy, offset) = try NPYHeader.parse(archive[m.data])
            } catch let e as MotionError {
                throw MotionError(.dataError, "member `\(m.name)`: \(e.message)")
            }
            guard !npy.fortranOrder else {
                throw MotionError(.dataError, "member `\(m.name)` is in Fortran order; expected C order")
            }
            guard ["<f4", "<f8", "<i4", "<i8"].contains(npy.descr), let itemSize = npy.itemSize else {
                throw MotionError(.dataError, "member `\(m.name)` has dtype \(npy.descr); expected <f4, <f8, <i4 or <i8")
            }
            let expected = npy.elementCount * itemSize
            let actual = m.data.count - offset
            guard actual == expected else {
                throw MotionError(.dataError, "member `\(m.name)` holds \(actual) data bytes; shape \(npy.shapeLiteral) of \(npy.descr) needs \(expected)")
            }
            arrays.append(ShardArray(name: name, dtype: npy.descr, shape: npy.shape,
                                     data: Array(archive[(m.data.lowerBound + offset)..<m.data.upperBound]), dataOffset: offset))
        }
        return ShardContents(stem: stem, memberNames: members.map(\.name), header: header,
                             headerJSON: String(decoding: jsonBytes, as: UTF8.self), arrays: arrays)
    }
}
