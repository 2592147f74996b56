import CBzip2

/// bzip2 through libbz2's `BZ2_bzDecompress`, stream after stream: after `BZ_STREAM_END`,
/// input that follows is another stream (a fresh `BZ2_bzDecompressInit`), as `bzip2 -d` reads
/// `cat a.bz2 b.bz2` and `pbzip2`'s output.
final class _Bzip2Codec: _Codec {
    private let stream: UnsafeMutablePointer<bz_stream>
    private var streamStart: Int? = 0
    private var streams = 0
    private var initialised = false

    init() throws {
        stream = .allocate(capacity: 1)
        stream.initialize(to: bz_stream())
        try start(at: 0)
    }

    deinit {
        if initialised { BZ2_bzDecompressEnd(stream) }
        stream.deallocate()
    }

    private func start(at offset: Int) throws {
        if initialised { BZ2_bzDecompressEnd(stream) }
        stream.pointee = bz_stream()
        initialised = BZ2_bzDecompressInit(stream, 0, 0) == BZ_OK
        guard initialised else { throw DecompressionError(.bzip2, .outOfMemory, at: offset) }
    }

    var openStreamStart: Int? { streamStart }

    func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
                atEnd: Bool, offset: Int) throws -> (consumed: Int, produced: Int) {
        if streamStart == nil {
            guard !input.isEmpty else { return (0, 0) }
            // Another stream follows (`BZh`), or bytes that are not one.
            let magic: [UInt8] = [0x42, 0x5A, 0x68]
            for i in 0..<Swift.min(3, input.count) where input[i] != magic[i] {
                throw DecompressionError(.bzip2, .trailingData(afterStreams: streams), at: offset)
            }
            try start(at: offset)
            streamStart = offset
        }
        let inCount = Swift.min(input.count, Int(UInt32.max)), outCount = Swift.min(output.count, Int(UInt32.max))
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: CChar.self))
        stream.pointee.avail_in = UInt32(inCount)
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: CChar.self)
        stream.pointee.avail_out = UInt32(outCount)
        let status = BZ2_bzDecompress(stream)
        let consumed = inCount - Int(stream.pointee.avail_in), produced = outCount - Int(stream.pointee.avail_out)
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        let at = offset + consumed
        switch status {
        case BZ_OK:
            return (consumed, produced)
        case BZ_STREAM_END:
            streamStart = nil
            streams += 1
            return (consumed, produced)
        case BZ_MEM_ERROR:
            throw DecompressionError(.bzip2, .outOfMemory, at: at)
        case BZ_DATA_ERROR_MAGIC:
            if streams > 0 { throw DecompressionError(.bzip2, .trailingData(afterStreams: streams), at: streamStart ?? at) }
            throw DecompressionError(.bzip2, .corrupt(reason: "not a bzip2 stream (BZ_DATA_ERROR_MAGIC)"), at: at)
        case BZ_DATA_ERROR:
            throw DecompressionError(.bzip2, .corrupt(reason: "compressed data is corrupt or its CRC does not match (BZ_DATA_ERROR)"), at: at)
        default:
            throw DecompressionError(.bzip2, .corrupt(reason: "libbz2 error \(status)"), at: at)
        }
    }
}
