import CZstd

/// Zstandard through `ZSTD_decompressStream`, which reads concatenated and skippable frames
/// itself; a frame is complete when the call that ends it returns 0. The window is limited to
/// `StreamDecoder.memoryLimitBytes` (`ZSTD_d_windowLogMax`).
final class _ZstdCodec: _Codec {
    private let context: OpaquePointer
    private var frameStart: Int? = 0
    private var frames = 0

    init() throws {
        guard let dctx = ZSTD_createDCtx() else { throw DecompressionError(.zstd, .outOfMemory, at: 0) }
        context = dctx
        // 2^28 = 256 MiB.
        _ = ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, 28)
    }

    deinit { ZSTD_freeDCtx(context) }

    /// The input given to one `ZSTD_decompressStream` call: the precision of an error's offset.
    static let sliceBytes = 4096

    var openStreamStart: Int? { frameStart }

    func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
                atEnd: Bool, offset: Int) throws -> (consumed: Int, produced: Int) {
        if frameStart == nil {
            guard !input.isEmpty else { return (0, 0) }
            frameStart = offset
        }
        // At most `sliceBytes` of input a call: libzstd does not say where in its input an error
        // is, so the offset named is the start of the slice it failed on.
        var inBuffer = ZSTD_inBuffer(src: input.baseAddress, size: Swift.min(input.count, Self.sliceBytes), pos: 0)
        var outBuffer = ZSTD_outBuffer(dst: output.baseAddress, size: output.count, pos: 0)
        let hint = ZSTD_decompressStream(context, &outBuffer, &inBuffer)
        if ZSTD_isError(hint) != 0 {
            let at = offset
            switch ZSTD_getErrorCode(hint) {
            case ZSTD_error_frameParameter_windowTooLarge:
                throw DecompressionError(.zstd, .memoryLimit(limitBytes: StreamDecoder.memoryLimitBytes), at: at)
            case ZSTD_error_memory_allocation:
                throw DecompressionError(.zstd, .outOfMemory, at: at)
            case ZSTD_error_prefix_unknown where frames > 0:
                throw DecompressionError(.zstd, .trailingData(afterStreams: frames), at: frameStart ?? at)
            default:
                throw DecompressionError(.zstd, .corrupt(reason: String(cString: ZSTD_getErrorName(hint))), at: at)
            }
        }
        if hint == 0 {
            // A frame ended and everything it holds was flushed.
            frameStart = nil
            frames += 1
        }
        return (inBuffer.pos, outBuffer.pos)
    }
}
