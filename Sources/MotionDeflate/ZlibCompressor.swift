import CDeflate

/// Compresses whole buffers into zlib streams (RFC 1950: 2-byte header, raw deflate, Adler-32),
/// the format HDF5's deflate filter (`H5Z_FILTER_DEFLATE`) stores and reads.
///
/// One compressor holds libdeflate's match-finder state (a few hundred KiB), so keep one per
/// thread and reuse it; a compressor must not be used from two threads at once. Output depends
/// only on the input bytes and the level: the same bytes compress to the same stream on every
/// run and every thread. libdeflate's streams differ from zlib's at the same level (both are
/// valid; any inflater reads either).
///
/// The corresponding C functions are `libdeflate_alloc_compressor`, `libdeflate_zlib_compress`,
/// `libdeflate_zlib_compress_bound` and `libdeflate_free_compressor`.
public final class ZlibCompressor {
    /// The compression level, 0 (stored) … 12 (slowest); HDF5's `gzip` level maps 1:1 onto it.
    public let level: Int
    private let compressor: OpaquePointer

    /// Creates a compressor for `level`.
    ///
    /// - Parameter level: 0…12; outside that range is a programmer error and traps.
    public init(level: Int) {
        precondition((0...12).contains(level), "libdeflate levels are 0…12, got \(level)")
        guard let compressor = libdeflate_alloc_compressor(Int32(level)) else {
            fatalError("libdeflate_alloc_compressor(\(level)) failed: out of memory")
        }
        self.level = level
        self.compressor = compressor
    }

    deinit { libdeflate_free_compressor(compressor) }

    /// The most bytes ``compress(_:into:)`` can write for `inputBytes` bytes of input
    /// (incompressible data is stored in raw blocks, so it is a little more than `inputBytes`).
    public func maxCompressedSize(inputBytes: Int) -> Int {
        precondition(inputBytes >= 0, "inputBytes must not be negative, got \(inputBytes)")
        return libdeflate_zlib_compress_bound(compressor, inputBytes)
    }

    /// Compresses `input` into the start of `output` as one zlib stream.
    ///
    /// - Parameters:
    ///   - input: the bytes to compress; may be empty.
    ///   - output: room for the stream; at least ``maxCompressedSize(inputBytes:)`` bytes, or
    ///     the call traps (a smaller buffer could make libdeflate fail on incompressible data).
    /// - Returns: the stream's length in bytes.
    /// - Complexity: O(input.count).
    public func compress(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int {
        let bound = maxCompressedSize(inputBytes: input.count)
        precondition(output.count >= bound,
                     "zlib output buffer of \(output.count) bytes is below the bound \(bound) for \(input.count) input bytes")
        let written = libdeflate_zlib_compress(compressor, input.baseAddress, input.count,
                                               output.baseAddress, output.count)
        precondition(written > 0, "libdeflate_zlib_compress failed with \(output.count) bytes of room for \(input.count) bytes")
        return written
    }

    /// Compresses `input` into a new array holding exactly one zlib stream.
    public func compress(_ input: [UInt8]) -> [UInt8] {
        let bound = maxCompressedSize(inputBytes: input.count)
        return input.withUnsafeBytes { source in
            [UInt8](unsafeUninitializedCapacity: bound) { buffer, count in
                count = compress(source, into: UnsafeMutableRawBufferPointer(buffer))
            }
        }
    }
}
