// Unsafe inner loops of the HDF5 chunk encoder: HDF5's byte shuffle, its Fletcher-32, and the
// byte copies into chunk buffers. Every pointer in the chunk path is touched here; callers check
// counts (preconditions below) before calling in. Safe reference versions live in the tests
// (`Tests/MotionHDF5FastTests/ChunkKernelTests.swift`), compared at every size 0…64.
import MotionDeflate

enum _ChunkKernels {
    /// HDF5's shuffle filter (`H5Z_filter_shuffle`, forward direction): byte `b` of element `i`
    /// goes to `destination[b * count + i]`, so all first bytes come first, then all second
    /// bytes, and so on. `source` and `destination` hold exactly `count × elementSize` bytes.
    ///
    /// HDF5 copies bytes past the last whole element unchanged; callers here always pass whole
    /// elements, so there are none.
    ///
    /// - Complexity: O(count × elementSize).
    static func shuffle(_ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer,
                        elementSize: Int) {
        precondition(elementSize >= 1, "element size must be positive, got \(elementSize)")
        precondition(source.count % elementSize == 0 && destination.count == source.count,
                     "shuffle needs whole elements and equal buffers: \(source.count) → \(destination.count) bytes, element size \(elementSize)")
        let count = source.count / elementSize
        guard count > 0 else { return }
        let input = source.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let output = destination.baseAddress!.assumingMemoryBound(to: UInt8.self)
        switch elementSize {
        case 4:
            let (o0, o1, o2, o3) = (output, output + count, output + 2 * count, output + 3 * count)
            for i in 0..<count {
                let word = UnsafeRawPointer(input + 4 * i).loadUnaligned(as: UInt32.self).littleEndian
                o0[i] = UInt8(truncatingIfNeeded: word)
                o1[i] = UInt8(truncatingIfNeeded: word >> 8)
                o2[i] = UInt8(truncatingIfNeeded: word >> 16)
                o3[i] = UInt8(truncatingIfNeeded: word >> 24)
            }
        case 8:
            for i in 0..<count {
                let word = UnsafeRawPointer(input + 8 * i).loadUnaligned(as: UInt64.self).littleEndian
                var lane = output + i
                for b in 0..<8 {
                    lane.pointee = UInt8(truncatingIfNeeded: word >> (8 * UInt64(b)))
                    lane += count
                }
            }
        default:
            for b in 0..<elementSize {
                let lane = output + b * count
                for i in 0..<count { lane[i] = input[i * elementSize + b] }
            }
        }
    }

    /// HDF5's shuffle filter in the read direction (`H5Z_filter_shuffle` with
    /// `H5Z_FLAG_REVERSE`): `destination[i * elementSize + b] = source[b * count + i]`, the
    /// inverse of ``shuffle(_:into:elementSize:)``. `source` and `destination` hold exactly
    /// `count × elementSize` bytes.
    ///
    /// - Complexity: O(count × elementSize).
    static func unshuffle(_ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer,
                          elementSize: Int) {
        precondition(elementSize >= 1, "element size must be positive, got \(elementSize)")
        precondition(source.count % elementSize == 0 && destination.count == source.count,
                     "unshuffle needs whole elements and equal buffers: \(source.count) → \(destination.count) bytes, element size \(elementSize)")
        let count = source.count / elementSize
        guard count > 0 else { return }
        let input = source.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let output = destination.baseAddress!
        switch elementSize {
        case 4:
            let (i0, i1, i2, i3) = (input, input + count, input + 2 * count, input + 3 * count)
            for i in 0..<count {
                let word = UInt32(i0[i]) | UInt32(i1[i]) << 8 | UInt32(i2[i]) << 16 | UInt32(i3[i]) << 24
                output.storeBytes(of: word.littleEndian, toByteOffset: 4 * i, as: UInt32.self)
            }
        case 8:
            for i in 0..<count {
                var word: UInt64 = 0
                var lane = input + i
                for b in 0..<8 {
                    word |= UInt64(lane.pointee) << (8 * UInt64(b))
                    lane += count
                }
                output.storeBytes(of: word.littleEndian, toByteOffset: 8 * i, as: UInt64.self)
            }
        default:
            let bytes = output.assumingMemoryBound(to: UInt8.self)
            for b in 0..<elementSize {
                let lane = input + b * count
                for i in 0..<count { bytes[i * elementSize + b] = lane[i] }
            }
        }
    }

    /// HDF5's Fletcher-32 (`H5_checksum_fletcher32` in `H5checksum.c`), as its fletcher32 filter
    /// computes it over a filtered chunk: 16-bit words taken big-endian (`data[0] << 8 |
    /// data[1]`), both sums starting at 0, folded to 16 bits every 360 words, an odd last byte
    /// taken as the high byte of a final word, result `sum2 << 16 | sum1`.
    ///
    /// - Complexity: O(bytes.count).
    static func fletcher32(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
        var data = base
        var words = bytes.count / 2
        var sum1: UInt32 = 0, sum2: UInt32 = 0
        while words > 0 {
            let block = min(words, 360)
            words -= block
            for _ in 0..<block {
                sum1 &+= UInt32(data[0]) << 8 | UInt32(data[1])
                data += 2
                sum2 &+= sum1
            }
            sum1 = (sum1 & 0xFFFF) &+ (sum1 >> 16)
            sum2 = (sum2 & 0xFFFF) &+ (sum2 >> 16)
        }
        if bytes.count % 2 == 1 {
            sum1 &+= UInt32(data[0]) << 8
            sum2 &+= sum1
            sum1 = (sum1 & 0xFFFF) &+ (sum1 >> 16)
            sum2 = (sum2 & 0xFFFF) &+ (sum2 >> 16)
        }
        sum1 = (sum1 & 0xFFFF) &+ (sum1 >> 16)
        sum2 = (sum2 & 0xFFFF) &+ (sum2 >> 16)
        return sum2 << 16 | sum1
    }

    /// Shuffles `chunk` (whole elements of `elementSize` bytes) into `scratch`, compresses that
    /// into one zlib stream and appends its Fletcher-32, little-endian: the bytes HDF5's
    /// shuffle → deflate → fletcher32 pipeline stores for the chunk (with libdeflate's rather
    /// than zlib's deflate stream).
    ///
    /// - Parameter scratch: resized to `chunk.count`; reused across calls.
    /// - Complexity: O(chunk.count).
    static func encode(_ chunk: [UInt8], elementSize: Int, compressor: ZlibCompressor,
                       scratch: inout [UInt8]) -> [UInt8] {
        precondition(!chunk.isEmpty, "an HDF5 chunk cannot be empty")
        if scratch.count != chunk.count { scratch = [UInt8](repeating: 0, count: chunk.count) }
        chunk.withUnsafeBytes { source in
            scratch.withUnsafeMutableBytes { shuffle(source, into: $0, elementSize: elementSize) }
        }
        let bound = compressor.maxCompressedSize(inputBytes: chunk.count)
        return scratch.withUnsafeBytes { shuffled in
            [UInt8](unsafeUninitializedCapacity: bound + 4) { buffer, initialized in
                let stream = UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[0..<bound])
                let length = compressor.compress(shuffled, into: stream)
                let checksum = fletcher32(UnsafeRawBufferPointer(rebasing: stream[0..<length]))
                for b in 0..<4 { buffer[length + b] = UInt8(truncatingIfNeeded: checksum >> (8 * UInt32(b))) }
                initialized = length + 4
            }
        }
    }

    /// Copies the bytes of `values[first ..< first + count]` into `buffer` at byte offset
    /// `offset`.
    static func copy<Element: BitwiseCopyable>(_ values: UnsafeBufferPointer<Element>, first: Int, count: Int,
                                               into buffer: inout [UInt8], offset: Int) {
        let stride = MemoryLayout<Element>.stride
        precondition(first >= 0 && count >= 0 && first + count <= values.count,
                     "copying elements \(first)..<\(first + count) of \(values.count)")
        precondition(offset >= 0 && offset + count * stride <= buffer.count,
                     "copying \(count * stride) bytes at offset \(offset) into a buffer of \(buffer.count)")
        guard count > 0 else { return }
        let source = UnsafeRawBufferPointer(values)
        buffer.withUnsafeMutableBytes { destination in
            (destination.baseAddress! + offset).copyMemory(from: source.baseAddress! + first * stride,
                                                           byteCount: count * stride)
        }
    }
}
