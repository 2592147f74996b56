import CZstd
import MotionCore

/// One-shot zstd compression and checked decompression of single frames (the `.tar.zst` shards
/// of docs/dataset-format.md, "Shards"). Every frame this module writes carries its content size in the frame header
/// and an XXH64-based content checksum, so that readers can allocate once and detect corruption.
public enum Zstd {
    /// The zstd frame magic number, stored little-endian in a frame's first four bytes.
    public static let frameMagic: UInt32 = 0xFD2F_B528

    /// Compresses `bytes` as exactly one zstd frame with the content size and a checksum.
    ///
    /// Wraps `ZSTD_compress2` with `ZSTD_c_compressionLevel`, `ZSTD_c_checksumFlag` and
    /// `ZSTD_c_contentSizeFlag` set. Single-threaded, so the same input and level always give the
    /// same bytes.
    /// - Parameters:
    ///   - bytes: the whole content (may be empty: the frame then records size 0).
    ///   - level: zstd compression level (1–19 in pipeline files; any level libzstd accepts).
    /// - Returns: the compressed frame.
    /// - Throws: `MotionError(.ioError)` naming libzstd's error when compression fails.
    public static func compressFrame(_ bytes: UnsafeRawBufferPointer, level: Int) throws -> [UInt8] {
        let cctx = try _ZstdCompressor(level: level)
        let bound = ZSTD_compressBound(bytes.count)
        return try [UInt8](unsafeUninitializedCapacity: bound) { buffer, initialized in
            let n = ZSTD_compress2(cctx.pointer, buffer.baseAddress, buffer.count, bytes.baseAddress, bytes.count)
            initialized = ZSTD_isError(n) != 0 ? 0 : n
            try _ZstdCompressor.check(n, "ZSTD_compress2", "compressing \(bytes.count) bytes")
        }
    }

    /// Decompresses a buffer that must hold exactly one zstd frame, checking everything a reader
    /// of a shard relies on.
    ///
    /// Checks, in order: the magic number; that the frame header records the content size
    /// (`ZSTD_getFrameContentSize`) and has the checksum flag; that the frame ends exactly at
    /// the end of `bytes` (`ZSTD_findFrameCompressedSize`, so nothing follows it); then
    /// decompresses with `ZSTD_decompressDCtx`, which verifies the content checksum, and checks
    /// that the decompressed size equals the recorded content size.
    /// - Parameter bytes: the compressed file contents.
    /// - Returns: the decompressed content.
    /// - Throws: `MotionError(.dataError)` saying which check failed.
    public static func decompressFrame(_ bytes: [UInt8]) throws -> [UInt8] {
        let header = try ZstdFrameHeader(parsing: bytes)
        guard let size = header.contentSize else {
            throw MotionError(.dataError, "the zstd frame does not record its content size; expected a frame written with the content-size flag")
        }
        guard header.hasChecksum else {
            throw MotionError(.dataError, "the zstd frame has no content checksum; expected a frame written with the checksum flag")
        }
        let frameSize = bytes.withUnsafeBytes { ZSTD_findFrameCompressedSize($0.baseAddress, $0.count) }
        if ZSTD_isError(frameSize) != 0 {
            throw MotionError(.dataError, "the zstd frame is damaged or truncated (\(errorName(frameSize)))")
        }
        guard frameSize == bytes.count else {
            throw MotionError(.dataError, "\(bytes.count - frameSize) byte(s) follow the zstd frame at byte offset \(frameSize); expected exactly one frame")
        }
        guard size <= UInt64(Int.max / 2) else {
            throw MotionError(.dataError, "the zstd frame records an implausible content size \(size)")
        }
        guard let dctx = ZSTD_createDCtx() else { throw MotionError(.ioError, "libzstd could not allocate a decompression context") }
        defer { ZSTD_freeDCtx(dctx) }
        var produced = 0
        let out = try [UInt8](unsafeUninitializedCapacity: Int(size)) { buffer, initialized in
            let n = bytes.withUnsafeBytes { ZSTD_decompressDCtx(dctx, buffer.baseAddress, buffer.count, $0.baseAddress, $0.count) }
            if ZSTD_isError(n) != 0 {
                initialized = 0
                throw MotionError(.dataError, "the zstd frame cannot be decompressed (\(errorName(n))); the file is damaged")
            }
            initialized = n
            produced = n
        }
        guard UInt64(produced) == size else {
            throw MotionError(.dataError, "the zstd frame decompressed to \(produced) bytes but its header records \(size)")
        }
        return out
    }

    /// libzstd's name for an error code (`ZSTD_getErrorName`).
    static func errorName(_ code: Int) -> String {
        String(cString: ZSTD_getErrorName(code))
    }
}

/// The fields of a zstd frame header (RFC 8878 §3.1.1.1) that shard readers check. Parsed in
/// Swift: `ZSTD_getFrameHeader` is only in libzstd's static-linking API.
public struct ZstdFrameHeader: Sendable, Equatable {
    /// The content size recorded in the header; nil when the frame leaves it out.
    public var contentSize: UInt64?
    /// Whether a 32-bit content checksum follows the last block.
    public var hasChecksum: Bool

    /// Creates a header description (for comparisons).
    public init(contentSize: UInt64?, hasChecksum: Bool) {
        self.contentSize = contentSize
        self.hasChecksum = hasChecksum
    }

    /// Parses the header at the start of `bytes`.
    /// - Throws: `MotionError(.dataError)` when the magic number is wrong or the header is cut short.
    public init(parsing bytes: [UInt8]) throws {
        guard bytes.count >= 6 else {
            throw MotionError(.dataError, "the file is \(bytes.count) bytes long, too short for a zstd frame header")
        }
        let magic = UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
        guard magic == Zstd.frameMagic else {
            let hex = String(magic, radix: 16)
            throw MotionError(.dataError, "the file starts with magic 0x\(hex), not the zstd frame magic 0xfd2fb528")
        }
        let descriptor = bytes[4]
        let fcsFlag = Int(descriptor >> 6)
        let singleSegment = descriptor & 0x20 != 0
        hasChecksum = descriptor & 0x04 != 0
        let dictIDBytes = [0, 1, 2, 4][Int(descriptor & 0x03)]
        let fcsBytes = [singleSegment ? 1 : 0, 2, 4, 8][fcsFlag]
        var offset = 5 + (singleSegment ? 0 : 1) + dictIDBytes
        guard bytes.count >= offset + fcsBytes else {
            throw MotionError(.dataError, "the zstd frame header is cut short at byte \(bytes.count)")
        }
        if fcsBytes == 0 {
            contentSize = nil
        } else {
            var v: UInt64 = 0
            for i in 0..<fcsBytes { v |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
            offset += fcsBytes
            contentSize = fcsBytes == 2 ? v + 256 : v
        }
    }
}
