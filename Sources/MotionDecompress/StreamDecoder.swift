/// A streaming decoder of one compressed file (`CompressionFormat`), fed its bytes in order
/// from the first: each call decodes what it can of `input` into `output`, so memory is the
/// library's state (at most `memoryLimitBytes`) plus the caller's two buffers, whatever the
/// file's size. Concatenated streams (gzip members, zstd frames, xz and bzip2 streams) are read
/// one after the other, as the command-line tools read them.
///
/// A stream is complete only when its end marker and checksum were read: `finish()` at the end
/// of the file throws `.truncated` otherwise, so a cut file is never taken for a short one.
public final class StreamDecoder {
    /// The most memory a decoder may take (an xz dictionary, a zstd window): 256 MiB, above
    /// what `xz -9` (65 MiB) and `zstd --ultra -22` (128 MiB window) need.
    public static let memoryLimitBytes = 256 << 20

    public let format: CompressionFormat
    private let codec: any _Codec
    /// Compressed bytes consumed so far (the position in the file).
    public private(set) var bytesIn = 0
    /// Decompressed bytes produced so far.
    public private(set) var bytesOut = 0

    /// A decoder for `format`.
    ///
    /// - Throws: `DecompressionError` `.outOfMemory` when the library cannot set up its state.
    public init(_ format: CompressionFormat) throws {
        self.format = format
        switch format {
        case .gzip: codec = try _GzipCodec()
        case .zstd: codec = try _ZstdCodec()
        case .xz: codec = try _XzCodec()
        case .bzip2: codec = try _Bzip2Codec()
        }
    }

    /// Decodes from `input` into `output`: the bytes of `input` consumed and of `output`
    /// written. Both may be less than the buffers; a call with an empty `input` flushes what the
    /// decoder still holds. `atEnd` says that no byte follows `input` in the file.
    ///
    /// - Throws: `DecompressionError` (`.corrupt`, `.trailingData`, `.memoryLimit`,
    ///   `.outOfMemory`) at the position in the file where decoding stopped.
    public func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
                       atEnd: Bool) throws -> (consumed: Int, produced: Int) {
        let r = try codec.decode(input, into: output, atEnd: atEnd, offset: bytesIn)
        bytesIn += r.consumed
        bytesOut += r.produced
        return r
    }

    /// At the end of the file, after `decode` has produced everything: checks that the last
    /// stream ended.
    ///
    /// - Throws: `DecompressionError` `.truncated` (at the file's size) when it did not.
    public func finish() throws {
        if let start = codec.openStreamStart {
            throw DecompressionError(format, .truncated(streamStart: start), at: bytesIn)
        }
    }

    /// Decompresses a whole buffer fed `chunkBytes` at a time into an output buffer of
    /// `outputBytes`, for tests and small files.
    public static func decompress(_ bytes: [UInt8], format: CompressionFormat, chunkBytes: Int = 1 << 16,
                                  outputBytes: Int = 1 << 16) throws -> [UInt8] {
        let decoder = try StreamDecoder(format)
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: Swift.max(1, outputBytes))
        var start = 0
        try bytes.withUnsafeBytes { all in
            while true {
                let end = Swift.min(all.count, start + Swift.max(1, chunkBytes))
                let piece = UnsafeRawBufferPointer(rebasing: all[start..<end])
                let (c, p) = try buffer.withUnsafeMutableBytes { try decoder.decode(piece, into: $0, atEnd: end == all.count) }
                start += c
                out.append(contentsOf: buffer[0..<p])
                // Nothing left to decode (or, on input that remains, no progress: `finish` says why).
                if c == 0 && p == 0 { break }
            }
        }
        try decoder.finish()
        return out
    }
}

/// One library's decoder behind `StreamDecoder`.
protocol _Codec: AnyObject {
    /// As `StreamDecoder.decode`; `offset` is the position of `input` in the file.
    func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
                atEnd: Bool, offset: Int) throws -> (consumed: Int, produced: Int)
    /// Where the stream begun and not yet ended starts, or nil between streams.
    var openStreamStart: Int? { get }
}
