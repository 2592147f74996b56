import CZlib

/// gzip through zlib's `inflate` (`inflateInit2` with windowBits 15 + 16: the gzip wrapper
/// only, so its CRC-32 and length are checked), member after member: after `Z_STREAM_END`,
/// input that follows is another member (`inflateReset`), as `gzip -d` reads `cat a.gz b.gz`.
final class _GzipCodec: _Codec {
    private let stream: UnsafeMutablePointer<z_stream>
    private var memberStart: Int? = 0
    private var members = 0

    init() throws {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // `inflateInit2` is a macro over `inflateInit2_`.
        let status = inflateInit2_(stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deallocate()
            throw DecompressionError(.gzip, .outOfMemory, at: 0)
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    var openStreamStart: Int? { memberStart }

    func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
                atEnd: Bool, offset: Int) throws -> (consumed: Int, produced: Int) {
        if memberStart == nil {
            guard !input.isEmpty else { return (0, 0) }
            // Another member follows, or bytes that are not one.
            if input[0] != 0x1F || (input.count > 1 && input[1] != 0x8B) {
                throw DecompressionError(.gzip, .trailingData(afterStreams: members), at: offset)
            }
            guard inflateReset(stream) == Z_OK else { throw DecompressionError(.gzip, .corrupt(reason: "inflateReset failed"), at: offset) }
            memberStart = offset
        }
        let inCount = Swift.min(input.count, Int(UInt32.max)), outCount = Swift.min(output.count, Int(UInt32.max))
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: UInt8.self))
        stream.pointee.avail_in = UInt32(inCount)
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        stream.pointee.avail_out = UInt32(outCount)
        let status = inflate(stream, Z_NO_FLUSH)
        let consumed = inCount - Int(stream.pointee.avail_in), produced = outCount - Int(stream.pointee.avail_out)
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        switch status {
        case Z_OK, Z_BUF_ERROR:
            // Z_BUF_ERROR: no progress was possible (more input is needed); not an error.
            return (consumed, produced)
        case Z_STREAM_END:
            memberStart = nil
            members += 1
            return (consumed, produced)
        case Z_MEM_ERROR:
            throw DecompressionError(.gzip, .outOfMemory, at: offset + consumed)
        default:
            let reason = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"
            if members > 0, let start = memberStart, reason == "incorrect header check" || reason == "unknown compression method" {
                throw DecompressionError(.gzip, .trailingData(afterStreams: members), at: start)
            }
            throw DecompressionError(.gzip, .corrupt(reason: reason), at: offset + consumed)
        }
    }
}
