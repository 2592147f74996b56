import MotionDeflate

/// Why a stored HDF5 chunk does not decode, in two parts so the caller can name the chunk in
/// between: "`summary` in the chunk at rows 54..<72 (`detail`)". The summary is libhdf5's own
/// wording where it has one (e.g. "data error detected by Fletcher32 checksum").
public struct HDF5ChunkDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong, e.g. "data error detected by Fletcher32 checksum".
    public var summary: String
    /// The numbers, e.g. "stored 0x21d48db0, computed 0xbb1b8df0 over 31126 bytes".
    public var detail: String

    public init(_ summary: String, detail: String) {
        self.summary = summary
        self.detail = detail
    }

    public var description: String { "\(summary) (\(detail))" }
}

/// Decodes one stored HDF5 chunk of a dataset whose filter pipeline is shuffle → deflate →
/// Fletcher-32 (what ``HDF5ChunkEncoder`` and h5py's `shuffle=True, compression="gzip",
/// fletcher32=True` store): the mirror image of the encoder, doing in Swift and libdeflate what
/// libhdf5's filter pipeline does inside `H5Dread`, so chunks read with `H5Dread_chunk`
/// (``HDF5Dataset/readStoredChunk(offsetRow:into:)``) can be decoded on several threads.
///
/// Stages are undone last first, each only when its bit in the chunk's filter mask is clear
/// (bit 0 shuffle, bit 1 deflate, bit 2 fletcher32; HDF5 stores a chunk without an optional
/// filter that failed on it, e.g. deflate on incompressible bytes):
/// 1. Fletcher-32: the last 4 bytes, little-endian, must equal `H5_checksum_fletcher32` of the
///    bytes before them, or that value with the bytes of each 16-bit half swapped (the checksum
///    HDF5 before 1.6.3 wrote on little-endian machines, which `H5Z_filter_fletcher32` accepts
///    too);
/// 2. deflate: one zlib stream (Adler-32 checked) inflating to exactly the chunk's size;
/// 3. shuffle: bytes regrouped by element (`H5Z_filter_shuffle`, reverse direction).
///
/// Not thread-safe: keep one per thread (it holds libdeflate state and a scratch buffer).
public final class HDF5ChunkDecoder {
    private let decompressor = ZlibDecompressor()
    private var scratch: [UInt8] = []

    public init() {}

    /// The filter-mask bits of the three stages.
    public static let shuffleBit: UInt32 = 1, deflateBit: UInt32 = 2, fletcher32Bit: UInt32 = 4

    /// Decodes `stored` into `output`, which must come out exactly full.
    ///
    /// - Parameters:
    ///   - stored: the chunk as `H5Dread_chunk` returns it.
    ///   - filterMask: the filters skipped for this chunk (`H5Dread_chunk`'s mask).
    ///   - elementSize: bytes per element (the shuffle filter's parameter).
    ///   - output: the chunk's decoded size, `chunkRows × elements per row × elementSize`.
    /// - Throws: ``HDF5ChunkDecodingError`` when the checksum does not match, the stream does
    ///   not inflate, or the result has another size; `output` then holds unspecified bytes.
    /// - Complexity: O(stored.count + output.count).
    public func decode(_ stored: UnsafeRawBufferPointer, filterMask: UInt32, elementSize: Int,
                       into output: UnsafeMutableRawBufferPointer) throws(HDF5ChunkDecodingError) {
        precondition(elementSize >= 1 && output.count % elementSize == 0,
                     "a chunk of \(output.count) bytes is not whole elements of \(elementSize) bytes")
        var data = stored
        if filterMask & Self.fletcher32Bit == 0 {
            guard data.count >= 4 else {
                throw HDF5ChunkDecodingError("data error detected by Fletcher32 checksum",
                                             detail: "the stored chunk has \(data.count) bytes, fewer than its 4-byte checksum")
            }
            let body = UnsafeRawBufferPointer(rebasing: data[0..<(data.count - 4)])
            var expected: UInt32 = 0
            for b in 0..<4 { expected |= UInt32(data[data.count - 4 + b]) << (8 * UInt32(b)) }
            let computed = _ChunkKernels.fletcher32(body)
            let reversed = (computed & 0x00FF_00FF) << 8 | (computed & 0xFF00_FF00) >> 8
            guard expected == computed || expected == reversed else {
                throw HDF5ChunkDecodingError("data error detected by Fletcher32 checksum",
                                             detail: "stored 0x\(Self.hex(expected)), computed 0x\(Self.hex(computed)) over \(body.count) bytes")
            }
            data = body
        }
        func unshuffle(_ shuffled: UnsafeRawBufferPointer) {
            if filterMask & Self.shuffleBit == 0 && elementSize > 1 {
                _ChunkKernels.unshuffle(shuffled, into: output, elementSize: elementSize)
            } else if output.count > 0 {
                output.baseAddress!.copyMemory(from: shuffled.baseAddress!, byteCount: output.count)
            }
        }
        if filterMask & Self.deflateBit == 0 {
            if scratch.count != output.count { scratch = [UInt8](repeating: 0, count: output.count) }
            let failure: DeflateError? = scratch.withUnsafeMutableBytes { target in
                do throws(DeflateError) {
                    try decompressor.decompress(data, into: target)
                    return nil
                } catch {
                    return error
                }
            }
            if let failure { throw HDF5ChunkDecodingError("data error in the deflate filter", detail: failure.message) }
            scratch.withUnsafeBytes { unshuffle($0) }
        } else {
            guard data.count == output.count else {
                throw HDF5ChunkDecodingError("wrong chunk size",
                                             detail: "stored uncompressed with \(data.count) bytes, but a chunk holds \(output.count)")
            }
            unshuffle(data)
        }
    }

    private static func hex(_ v: UInt32) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 8 - s.count) + s
    }
}
