import MotionDeflate
import MotionHDF5

/// Encodes one HDF5 chunk exactly as the filter pipeline of the datasets `HDF5File` creates
/// (shuffle, deflate level 4, Fletcher-32) would store it, ready for
/// `HDF5Dataset.writeRawChunk(offsetRow:filterMask: 0, bytes:)`.
///
/// The stored chunk is: the chunk's bytes byte-shuffled (`H5Z_filter_shuffle`), compressed as one
/// zlib stream (libdeflate level 4; HDF5's deflate filter inflates any zlib stream), followed by
/// the stream's Fletcher-32 (`H5_checksum_fletcher32`) as 4 little-endian bytes (`UINT32ENCODE`
/// in `H5Zfletcher32.c`). Every filter ran, so the filter mask is 0.
///
/// Not thread-safe: keep one per thread (it reuses a scratch buffer and libdeflate state).
public final class HDF5ChunkEncoder {
    /// HDF5's deflate level for motionprep's datasets by default (docs/dataset-format.md, "HDF5
    /// files"; `output.deflate_level` sets another, docs/pipeline.md).
    public static let deflateLevel = HDF5File.defaultDeflateLevel
    private let compressor: ZlibCompressor
    private var scratch: [UInt8] = []

    /// - Parameter level: the deflate level, 1–9: the level the dataset's filter declares.
    public init(level: Int = HDF5ChunkEncoder.deflateLevel) {
        compressor = ZlibCompressor(level: level)
    }

    /// The stored bytes for one whole chunk.
    ///
    /// - Parameters:
    ///   - chunk: `chunkRows × product(rowShape)` elements, native (little-endian) byte order, the
    ///     rows past the dataset's extent zero (HDF5's fill value); must not be empty.
    ///   - elementSize: bytes per element (4 or 8 here; any positive size works).
    /// - Returns: the shuffled, compressed, checksummed chunk.
    /// - Complexity: O(chunk.count).
    public func encode(_ chunk: [UInt8], elementSize: Int) -> [UInt8] {
        precondition(elementSize > 0 && chunk.count % elementSize == 0,
                     "a chunk of \(chunk.count) bytes is not whole elements of \(elementSize) bytes")
        return _ChunkKernels.encode(chunk, elementSize: elementSize, compressor: compressor, scratch: &scratch)
    }
}
