import MotionDeflate
import Testing

@testable import MotionSinks

/// The unsafe kernels against straightforward safe versions, at every size 0…64 (every unsafe kernel has a safe reference version to be compared with).
@Suite struct ChunkKernelTests {
    /// HDF5's shuffle, written the obvious way.
    static func referenceShuffle(_ bytes: [UInt8], elementSize: Int) -> [UInt8] {
        let count = bytes.count / elementSize
        var out = [UInt8](repeating: 0, count: bytes.count)
        for i in 0..<count {
            for b in 0..<elementSize { out[b * count + i] = bytes[i * elementSize + b] }
        }
        return out
    }

    static func unshuffle(_ bytes: [UInt8], elementSize: Int) -> [UInt8] {
        let count = bytes.count / elementSize
        var out = [UInt8](repeating: 0, count: bytes.count)
        for i in 0..<count {
            for b in 0..<elementSize { out[i * elementSize + b] = bytes[b * count + i] }
        }
        return out
    }

    /// `H5_checksum_fletcher32` transcribed with array indices and no pointers.
    static func referenceFletcher32(_ data: [UInt8]) -> UInt32 {
        var sum1: UInt32 = 0, sum2: UInt32 = 0
        var index = 0
        var words = data.count / 2
        while words > 0 {
            let block = min(words, 360)
            words -= block
            for _ in 0..<block {
                sum1 += UInt32(data[index]) << 8 | UInt32(data[index + 1])
                index += 2
                sum2 += sum1
            }
            sum1 = (sum1 & 0xFFFF) + (sum1 >> 16)
            sum2 = (sum2 & 0xFFFF) + (sum2 >> 16)
        }
        if data.count % 2 == 1 {
            sum1 += UInt32(data[index]) << 8
            sum2 += sum1
            sum1 = (sum1 & 0xFFFF) + (sum1 >> 16)
            sum2 = (sum2 & 0xFFFF) + (sum2 >> 16)
        }
        sum1 = (sum1 & 0xFFFF) + (sum1 >> 16)
        sum2 = (sum2 & 0xFFFF) + (sum2 >> 16)
        return sum2 << 16 | sum1
    }

    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededGenerator(seed: seed)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    static func kernelShuffle(_ input: [UInt8], elementSize: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0xAA, count: input.count)
        input.withUnsafeBytes { source in
            out.withUnsafeMutableBytes { _ChunkKernels.shuffle(source, into: $0, elementSize: elementSize) }
        }
        return out
    }

    @Test(arguments: [1, 2, 3, 4, 8])
    func shuffleMatchesReferenceAtEverySize(elementSize: Int) {
        for count in 0...64 {
            let input = Self.bytes(count * elementSize, seed: UInt64(count * 10 + elementSize))
            let got = Self.kernelShuffle(input, elementSize: elementSize)
            #expect(got == Self.referenceShuffle(input, elementSize: elementSize),
                    "element size \(elementSize), \(count) elements")
            #expect(Self.unshuffle(got, elementSize: elementSize) == input)
        }
    }

    @Test func fletcher32MatchesReferenceAtEverySize() {
        // 0…64 bytes, then sizes around the 360-word folding block and a worst case of 0xFF bytes.
        let sizes = Array(0...64) + [719, 720, 721, 722, 1441, 65_536, 65_539]
        for size in sizes {
            for input in [Self.bytes(size, seed: UInt64(size)), [UInt8](repeating: 0xFF, count: size)] {
                let got = input.withUnsafeBytes { _ChunkKernels.fletcher32($0) }
                #expect(got == Self.referenceFletcher32(input), "\(size) bytes")
                // Independent check: Fletcher's sums modulo 65535 (HDF5 may leave 0xFFFF for 0).
                var a: UInt64 = 0, b: UInt64 = 0
                var words = stride(from: 0, to: size - 1, by: 2).map { UInt64(input[$0]) << 8 | UInt64(input[$0 + 1]) }
                if size % 2 == 1 { words.append(UInt64(input[size - 1]) << 8) }
                for w in words { a = (a + w) % 65535; b = (b + a) % 65535 }
                #expect(UInt64(got & 0xFFFF) % 65535 == a && UInt64(got >> 16) % 65535 == b, "\(size) bytes")
            }
        }
    }

    /// Worked by hand: "abcde" is the words 0x6162, 0x6364 and an odd 0x65 taken as 0x6500.
    /// sum1 = 0x6162 + 0x6364 = 0xC4C6, sum2 = 0x6162 + 0xC4C6 = 0x12628 → folded 0x2629;
    /// the odd byte: sum1 = 0x129C6 → 0x29C7, sum2 = 0x2629 + 0x129C6 = 0x14FEF → 0x4FF0.
    @Test func fletcher32OfAKnownString() {
        let input = Array("abcde".utf8)
        #expect(input.withUnsafeBytes { _ChunkKernels.fletcher32($0) } == 0x4FF0_29C7)
        #expect(Self.referenceFletcher32(input) == 0x4FF0_29C7)
    }

    @Test(arguments: [4, 8])
    func encodedChunkInflatesToTheShuffledChunk(elementSize: Int) throws {
        let encoder = HDF5ChunkEncoder()
        let inflater = ZlibDecompressor()
        for count in [1, 2, 63, 64, 1000, 16_384] {
            let chunk = Self.bytes(count * elementSize, seed: UInt64(count))
            let stored = encoder.encode(chunk, elementSize: elementSize)
            let stream = Array(stored.dropLast(4))
            let trailer = stored.suffix(4).enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
            #expect(trailer == Self.referenceFletcher32(stream), "little-endian Fletcher-32 after the stream")
            #expect(stream.first == 0x78, "a zlib header (CM 8, 32 KiB window)")
            let shuffled = try inflater.decompress(stream, decompressedBytes: chunk.count)
            #expect(Self.unshuffle(shuffled, elementSize: elementSize) == chunk, "\(count) elements")
            // Same bytes in, same bytes out.
            #expect(encoder.encode(chunk, elementSize: elementSize) == stored)
        }
    }

    @Test func corruptStreamIsRejected() {
        let compressor = ZlibCompressor(level: 4)
        var stream = compressor.compress(Self.bytes(4096, seed: 9))
        stream[stream.count / 2] ^= 0x10
        #expect(throws: DeflateError.self) { try ZlibDecompressor().decompress(stream, decompressedBytes: 4096) }
    }
}
