import CLzma

/// xz through liblzma's `lzma_stream_decoder` with `LZMA_CONCATENATED` (streams one after the
/// other, as `xz -d` reads them) and a memory limit of `StreamDecoder.memoryLimitBytes`; the
/// last call, at the end of the file, is `LZMA_FINISH`, which returns `LZMA_STREAM_END` only at
/// the end of a whole stream.
final class _XzCodec: _Codec {
    private let stream: UnsafeMutablePointer<lzma_stream>
    private var ended = false
    private var streamStart = 0

    /// `LZMA_CONCATENATED` (lzma/container.h; a `UINT32_C` macro Swift does not import).
    private static let concatenated: UInt32 = 0x08

    init() throws {
        stream = .allocate(capacity: 1)
        // Zero is `LZMA_STREAM_INIT`.
        stream.initialize(to: lzma_stream())
        let status = lzma_stream_decoder(stream, UInt64(StreamDecoder.memoryLimitBytes), Self.concatenated)
        guard status == LZMA_OK else {
            stream.deallocate()
            throw DecompressionError(.xz, .outOfMemory, at: 0)
        }
    }

    deinit {
        lzma_end(stream)
        stream.deallocate()
    }

    var openStreamStart: Int? { ended ? nil : streamStart }

    func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
                atEnd: Bool, offset: Int) throws -> (consumed: Int, produced: Int) {
        guard !ended else {
            if input.isEmpty { return (0, 0) }
            throw DecompressionError(.xz, .trailingData(afterStreams: 1), at: offset)
        }
        stream.pointee.next_in = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
        stream.pointee.avail_in = input.count
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        stream.pointee.avail_out = output.count
        let status = lzma_code(stream, atEnd ? LZMA_FINISH : LZMA_RUN)
        let consumed = input.count - stream.pointee.avail_in, produced = output.count - stream.pointee.avail_out
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        let at = offset + consumed
        switch status {
        case LZMA_OK:
            return (consumed, produced)
        case LZMA_STREAM_END:
            ended = true
            return (consumed, produced)
        case LZMA_BUF_ERROR:
            // No progress possible: at the end of the file, a stream that did not end.
            return (consumed, produced)
        case LZMA_MEMLIMIT_ERROR:
            throw DecompressionError(.xz, .memoryLimit(limitBytes: StreamDecoder.memoryLimitBytes), at: at)
        case LZMA_MEM_ERROR:
            throw DecompressionError(.xz, .outOfMemory, at: at)
        case LZMA_FORMAT_ERROR:
            throw DecompressionError(.xz, .corrupt(reason: "not the .xz format (LZMA_FORMAT_ERROR)"), at: at)
        case LZMA_OPTIONS_ERROR:
            throw DecompressionError(.xz, .corrupt(reason: "unsupported compression options (LZMA_OPTIONS_ERROR)"), at: at)
        case LZMA_DATA_ERROR:
            throw DecompressionError(.xz, .corrupt(reason: "compressed data is corrupt (LZMA_DATA_ERROR)"), at: at)
        default:
            throw DecompressionError(.xz, .corrupt(reason: "liblzma error \(status.rawValue)"), at: at)
        }
    }
}
