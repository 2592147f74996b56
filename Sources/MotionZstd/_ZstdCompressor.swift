import CZstd
import MotionCore

/// Owns one `ZSTD_CCtx` set up for shard frames: the level, a content checksum and the content
/// size in the header. Single-threaded (no `ZSTD_c_nbWorkers`), so output bytes depend only on
/// the input, the level and how input is fed.
final class _ZstdCompressor {
    let pointer: OpaquePointer

    init(level: Int) throws {
        guard let cctx = ZSTD_createCCtx() else {
            throw MotionError(.ioError, "libzstd could not allocate a compression context")
        }
        pointer = cctx
        do {
            try Self.check(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, Int32(clamping: level)),
                           "ZSTD_CCtx_setParameter", "setting compression level \(level)")
            try Self.check(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1), "ZSTD_CCtx_setParameter", "turning on the checksum")
            try Self.check(ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1), "ZSTD_CCtx_setParameter", "turning on the content size")
        } catch {
            ZSTD_freeCCtx(cctx)
            throw error
        }
    }

    deinit { ZSTD_freeCCtx(pointer) }

    /// Throws when `code` is a libzstd error code.
    static func check(_ code: Int, _ function: String, _ doing: String) throws {
        if ZSTD_isError(code) != 0 {
            throw MotionError(.ioError, "libzstd failed while \(doing): \(function) returned \(Zstd.errorName(code))")
        }
    }
}
