import CDeflate

/// Decompresses whole zlib streams whose decompressed size is known (as HDF5 chunks' are),
/// checking the Adler-32 trailer.
///
/// Like ``ZlibCompressor``, keep one per thread. The corresponding C functions are
/// `libdeflate_alloc_decompressor`, `libdeflate_zlib_decompress` and
/// `libdeflate_free_decompressor`.
public final class ZlibDecompressor {
    private let decompressor: OpaquePointer

    public init() {
        guard let decompressor = libdeflate_alloc_decompressor() else {
            fatalError("libdeflate_alloc_decompressor() failed: out of memory")
        }
        self.decompressor = decompressor
    }

    deinit { libdeflate_free_decompressor(decompressor) }

    /// Decompresses one zlib stream that inflates to exactly `decompressedBytes` bytes.
    ///
    /// - Parameters:
    ///   - stream: one complete zlib stream; trailing bytes after it are ignored.
    ///   - decompressedBytes: the exact decompressed size, at least 0.
    /// - Returns: the decompressed bytes.
    /// - Throws: ``DeflateError`` when the stream is corrupt (bad header, bad Huffman data, Adler-32
    ///   mismatch) or does not inflate to exactly `decompressedBytes` bytes.
    public func decompress(_ stream: [UInt8], decompressedBytes: Int) throws -> [UInt8] {
        precondition(decompressedBytes >= 0, "decompressedBytes must not be negative, got \(decompressedBytes)")
        var result = LIBDEFLATE_SUCCESS
        let output = stream.withUnsafeBytes { source in
            [UInt8](unsafeUninitializedCapacity: decompressedBytes) { buffer, count in
                var actual = 0
                result = libdeflate_zlib_decompress(decompressor, source.baseAddress, source.count,
                                                    buffer.baseAddress, buffer.count, &actual)
                count = result == LIBDEFLATE_SUCCESS ? actual : 0
            }
        }
        let action = "cannot decompress a zlib stream of \(stream.count) bytes into \(decompressedBytes) bytes"
        switch result {
        case LIBDEFLATE_SUCCESS:
            guard output.count == decompressedBytes else {
                throw DeflateError(action, reason: "it inflates to only \(output.count) bytes")
            }
            return output
        case LIBDEFLATE_BAD_DATA:
            throw DeflateError(action, reason: "the data is not a valid zlib stream or its Adler-32 does not match (LIBDEFLATE_BAD_DATA)")
        case LIBDEFLATE_INSUFFICIENT_SPACE:
            throw DeflateError(action, reason: "it inflates to more bytes (LIBDEFLATE_INSUFFICIENT_SPACE)")
        default:
            throw DeflateError(action, reason: "libdeflate returned \(result.rawValue)")
        }
    }

    /// Decompresses one zlib stream into `output`, which it must fill exactly: the allocation-free
    /// form of ``decompress(_:decompressedBytes:)`` for callers that reuse their buffers (the
    /// HDF5 chunk decoder, one chunk after another).
    ///
    /// - Parameters:
    ///   - stream: one complete zlib stream; trailing bytes after it are ignored.
    ///   - output: exactly the decompressed size.
    /// - Throws: ``DeflateError`` as ``decompress(_:decompressedBytes:)`` (same messages); `output`
    ///   then holds unspecified bytes.
    /// - Complexity: O(stream.count + output.count).
    public func decompress(_ stream: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(DeflateError) {
        var actual = 0
        let result = libdeflate_zlib_decompress(decompressor, stream.baseAddress, stream.count,
                                                output.baseAddress, output.count, &actual)
        let action = "cannot decompress a zlib stream of \(stream.count) bytes into \(output.count) bytes"
        switch result {
        case LIBDEFLATE_SUCCESS:
            guard actual == output.count else {
                throw DeflateError(action, reason: "it inflates to only \(actual) bytes")
            }
        case LIBDEFLATE_BAD_DATA:
            throw DeflateError(action, reason: "the data is not a valid zlib stream or its Adler-32 does not match (LIBDEFLATE_BAD_DATA)")
        case LIBDEFLATE_INSUFFICIENT_SPACE:
            throw DeflateError(action, reason: "it inflates to more bytes (LIBDEFLATE_INSUFFICIENT_SPACE)")
        default:
            throw DeflateError(action, reason: "libdeflate returned \(result.rawValue)")
        }
    }
}
