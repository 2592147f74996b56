import MotionCore
import MotionZstd
import Testing

/// Checks the frames MotionZstd writes against the zstd format (RFC 8878 §3.1.1), parsed here
/// independently of libzstd.
@Suite struct ZstdFrameTests {
    struct ParsedFrame {
        var contentSizeFlag: Bool
        var checksumFlag: Bool
        var contentSize: UInt64?
        /// Bytes from the start to the end of the checksum.
        var frameLength: Int
    }

    /// Walks one frame: header, every block header up to the last block, then the checksum.
    func parseFrame(_ b: [UInt8]) throws -> ParsedFrame {
        try #require(b.count >= 6)
        let magic = UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
        #expect(magic == 0xFD2F_B528)
        let fhd = b[4]
        let fcsFlag = Int(fhd >> 6), singleSegment = fhd & 0x20 != 0, checksum = fhd & 0x04 != 0
        #expect(fhd & 0x08 == 0, "reserved bit set")
        let fcsBytes = [singleSegment ? 1 : 0, 2, 4, 8][fcsFlag]
        var i = 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][Int(fhd & 3)]
        var size: UInt64?
        if fcsBytes > 0 {
            var v: UInt64 = 0
            for k in 0..<fcsBytes { v |= UInt64(b[i + k]) << (8 * UInt64(k)) }
            size = fcsBytes == 2 ? v + 256 : v
            i += fcsBytes
        }
        while true {
            try #require(i + 3 <= b.count, "frame cut short in a block header")
            let bh = Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16
            let last = bh & 1 != 0, type = (bh >> 1) & 3, blockSize = bh >> 3
            #expect(type != 3, "reserved block type")
            i += 3 + (type == 1 ? 1 : blockSize)
            if last { break }
        }
        if checksum { i += 4 }
        return ParsedFrame(contentSizeFlag: fcsBytes > 0, checksumFlag: checksum, contentSize: size, frameLength: i)
    }

    static let contents: [[UInt8]] = [
        [],
        Array("hello".utf8),
        (0..<300_000).map { UInt8(truncatingIfNeeded: $0 / 7) },                         // compressible, several blocks
        { var g = SplitMix(seed: 1); return (0..<200_000).map { _ in UInt8(truncatingIfNeeded: g.next()) } }(),  // random
    ]

    @Test(arguments: 0..<contents.count)
    func oneShotFrameHasContentSizeAndChecksumAndNothingAfter(index: Int) throws {
        let content = Self.contents[index]
        for level in [1, 3, 19] {
            let frame = try content.withUnsafeBytes { try Zstd.compressFrame($0, level: level) }
            let parsed = try parseFrame(frame)
            #expect(parsed.contentSizeFlag && parsed.checksumFlag)
            #expect(parsed.contentSize == UInt64(content.count))
            #expect(parsed.frameLength == frame.count, "bytes follow the frame")
            #expect(try Zstd.decompressFrame(frame) == content)
            #expect(try ZstdFrameHeader(parsing: frame) == ZstdFrameHeader(contentSize: UInt64(content.count), hasChecksum: true))
        }
    }

    @Test(arguments: 0..<contents.count)
    func streamedFrameMatchesTheSameRules(index: Int) throws {
        let content = Self.contents[index]
        let out = ByteCollector()
        let writer = try ZstdFrameWriter(level: 3, contentSize: content.count) { out.append($0) }
        var i = 0
        while i < content.count {
            let j = min(content.count, i + 1 + (i * 7919) % 65_536)
            try writer.write(Array(content[i..<j]))
            i = j
        }
        try writer.finish()
        let parsed = try parseFrame(out.bytes)
        #expect(parsed.contentSizeFlag && parsed.checksumFlag)
        #expect(parsed.contentSize == UInt64(content.count))
        #expect(parsed.frameLength == out.bytes.count)
        #expect(try Zstd.decompressFrame(out.bytes) == content)
    }

    @Test func writerRejectsAWrongByteCount() throws {
        let short = try ZstdFrameWriter(level: 3, contentSize: 10) { _ in }
        try short.write([1, 2, 3])
        #expect(throws: MotionError.self) { try short.finish() }
        let long = try ZstdFrameWriter(level: 3, contentSize: 2) { _ in }
        #expect(throws: MotionError.self) { try long.write([1, 2, 3]) }
    }

    @Test func decompressRejectsDamage() throws {
        let content = Self.contents[2]
        let frame = try content.withUnsafeBytes { try Zstd.compressFrame($0, level: 3) }
        // Trailing bytes, a second frame, a wrong magic, truncation, a flipped checksum byte.
        #expect(throws: MotionError.self) { try Zstd.decompressFrame(frame + [0]) }
        #expect(throws: MotionError.self) { try Zstd.decompressFrame(frame + frame) }
        var badMagic = frame; badMagic[0] ^= 0xFF
        #expect(throws: MotionError.self) { try Zstd.decompressFrame(badMagic) }
        #expect(throws: MotionError.self) { try Zstd.decompressFrame(Array(frame.dropLast(5))) }
        var badSum = frame; badSum[badSum.count - 1] ^= 0x55
        #expect(throws: MotionError.self) { try Zstd.decompressFrame(badSum) }
    }
}

/// SplitMix64, for seeded test bytes.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
