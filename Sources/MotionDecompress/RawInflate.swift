import CZlib

/// A raw deflate stream (RFC 1951, no wrapper) through zlib's `inflate` (`inflateInit2` with
/// windowBits −15), fed its bytes in order: the compressed members of a ZIP archive (an ActiGraph
/// `.gt3x` file's `log.bin`, docs/inputs.md, "ActiGraph GT3X (gt3x)"). The caller checks the
/// member's CRC-32 (`RawInflater.crc32`), which the ZIP directory holds, not the stream.
public final class RawInflater {
    /// A stream zlib refused (`reason` is zlib's message), at `offset` bytes into the stream.
    public struct Failure: Error, Sendable {
        public var reason: String
        public var offset: Int
    }

    private let stream: UnsafeMutablePointer<z_stream>
    /// Compressed bytes consumed so far.
    public private(set) var bytesIn = 0
    /// True once the stream's final block was read.
    public private(set) var ended = false

    public init() throws {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = inflateInit2_(stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deallocate()
            throw Failure(reason: "zlib could not set up a decoder (out of memory)", offset: 0)
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    /// Decodes from `input` into `output`: the bytes consumed and produced. After the end of the
    /// stream, nothing more is consumed.
    public func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws -> (consumed: Int, produced: Int) {
        guard !ended else { return (0, 0) }
        let inCount = Swift.min(input.count, Int(UInt32.max)), outCount = Swift.min(output.count, Int(UInt32.max))
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: UInt8.self))
        stream.pointee.avail_in = UInt32(inCount)
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        stream.pointee.avail_out = UInt32(outCount)
        let status = inflate(stream, Z_NO_FLUSH)
        let consumed = inCount - Int(stream.pointee.avail_in), produced = outCount - Int(stream.pointee.avail_out)
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        bytesIn += consumed
        switch status {
        case Z_OK, Z_BUF_ERROR:
            return (consumed, produced)
        case Z_STREAM_END:
            ended = true
            return (consumed, produced)
        case Z_MEM_ERROR:
            throw Failure(reason: "zlib ran out of memory", offset: bytesIn)
        default:
            let reason = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"
            throw Failure(reason: reason, offset: bytesIn)
        }
    }

    /// The CRC-32 (ZIP's, zlib's `crc32`) of `bytes` continued from `crc` (0 to start).
    public static func crc32(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return crc }
        var c = UInt(crc)
        var at = 0
        while at < bytes.count {
            let n = Swift.min(bytes.count - at, Int(UInt32.max))
            c = CZlib.crc32(c, (base + at).assumingMemoryBound(to: UInt8.self), UInt32(n))
            at += n
        }
        return UInt32(truncatingIfNeeded: c)
    }
}
