import CBzip2
import CLzma
import CZlib
import CZstd

/// The compressed-input fixtures' compressors: one-shot calls of the Debian libraries, so the
/// decoders are checked against the libraries' own encoders (the Python tests check them
/// against Python's `gzip`, `zstandard`, `lzma` and `bz2`).
public enum Compressors {
    /// `bytes` compressed as `format`: `gzip`, `zstd`, `xz` or `bzip2`.
    public static func compress(_ bytes: [UInt8], _ format: String) -> [UInt8] {
        switch format {
        case "gzip": return gzip(bytes)
        case "zstd": return zstd(bytes)
        case "xz": return xz(bytes)
        case "bzip2": return bzip2(bytes)
        default: preconditionFailure("no compressor \(format)")
        }
    }

    public static func gzip(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8] {
        var stream = z_stream()
        precondition(deflateInit2_(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                                   Int32(MemoryLayout<z_stream>.size)) == Z_OK)
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(bytes.count))) + 64)
        var input = bytes
        let produced = input.withUnsafeMutableBufferPointer { inp in
            out.withUnsafeMutableBufferPointer { o in
                stream.next_in = inp.baseAddress
                stream.avail_in = UInt32(inp.count)
                stream.next_out = o.baseAddress
                stream.avail_out = UInt32(o.count)
                precondition(deflate(&stream, Z_FINISH) == Z_STREAM_END)
                return o.count - Int(stream.avail_out)
            }
        }
        return Array(out[0..<produced])
    }

    /// With the content checksum, as the `zstd` tool writes by default.
    public static func zstd(_ bytes: [UInt8], level: Int32 = 3) -> [UInt8] {
        let cctx = ZSTD_createCCtx()
        defer { ZSTD_freeCCtx(cctx) }
        _ = ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level)
        _ = ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1)
        var out = [UInt8](repeating: 0, count: ZSTD_compressBound(bytes.count))
        let n = bytes.withUnsafeBytes { i in out.withUnsafeMutableBytes { ZSTD_compress2(cctx, $0.baseAddress, $0.count, i.baseAddress, i.count) } }
        precondition(ZSTD_isError(n) == 0)
        return Array(out[0..<n])
    }

    public static func xz(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: lzma_stream_buffer_bound(bytes.count))
        var pos = 0
        let status = bytes.withUnsafeBufferPointer { i in
            out.withUnsafeMutableBufferPointer { o in
                lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, nil, i.baseAddress, i.count, o.baseAddress, &pos, o.count)
            }
        }
        precondition(status == LZMA_OK)
        return Array(out[0..<pos])
    }

    public static func bzip2(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: bytes.count + bytes.count / 100 + 700)
        var length = UInt32(out.count)
        var input = bytes
        let status = input.withUnsafeMutableBytes { i in
            out.withUnsafeMutableBytes { o in
                BZ2_bzBuffToBuffCompress(o.baseAddress?.assumingMemoryBound(to: CChar.self), &length,
                                         i.baseAddress?.assumingMemoryBound(to: CChar.self), UInt32(i.count), 9, 0, 0)
            }
        }
        precondition(status == BZ_OK)
        return Array(out[0..<Int(length)])
    }
}

/// Seeded text fixtures (SplitMix64), reproducible across runs.
public struct SeededText {
    private var generator: SeededGenerator
    public init(seed: UInt64) { generator = SeededGenerator(seed: seed) }
    public mutating func next() -> UInt64 { generator.next() }
    /// CSV-like rows, `bytes` long at least.
    public mutating func csv(bytes: Int) -> [UInt8] {
        var out = Array("time,x,y,z\n".utf8)
        var t = 0
        while out.count < bytes {
            t += 1
            let v = (0..<3).map { _ in String(Double(Int64(bitPattern: next() % 2_000_001) - 1_000_000) / 1000) }
            out += Array("\(t),\(v.joined(separator: ","))\n".utf8)
        }
        return out
    }
}
