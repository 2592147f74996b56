import MotionCore
import Testing

@testable import MotionSinks

@Suite struct TarWriterTests {
    private func archive(_ members: [(String, [UInt8])], mtime: Int = 0) throws -> [UInt8] {
        let out = ByteCollector()
        var tar = TarWriter(modificationTime: mtime) { out.append($0) }
        for (name, content) in members {
            try tar.beginMember(name: name, size: content.count)
            // In uneven pieces, as the shard writer does.
            var i = 0
            while i < content.count {
                let j = min(content.count, i + 1 + i % 7)
                try tar.writeContent(Array(content[i..<j]))
                i = j
            }
        }
        try tar.finish()
        #expect(tar.bytesWritten == out.bytes.count)
        return out.bytes
    }

    private func octalField(_ h: [UInt8], _ range: Range<Int>) -> Int? {
        let text = String(decoding: h[range].prefix { $0 != 0 && $0 != 32 }, as: UTF8.self)
        return Int(text, radix: 8)
    }

    @Test func headerFieldsAndChecksum() throws {
        let h = try TarWriter.header(name: "train-00000.x.npy", size: 123_456)
        #expect(h.count == 512)
        #expect(String(decoding: h[0..<17], as: UTF8.self) == "train-00000.x.npy" && h[17] == 0)
        #expect(String(decoding: h[100..<108], as: UTF8.self) == "0000644\0")
        #expect(String(decoding: h[108..<116], as: UTF8.self) == "0000000\0")
        #expect(String(decoding: h[116..<124], as: UTF8.self) == "0000000\0")
        #expect(String(decoding: h[124..<136], as: UTF8.self) == "00000361100\0")  // 123456 in octal
        #expect(String(decoding: h[136..<148], as: UTF8.self) == "00000000000\0")
        #expect(h[156] == UInt8(ascii: "0"))
        #expect(String(decoding: h[257..<265], as: UTF8.self) == "ustar\000")
        #expect(String(decoding: h[265..<269], as: UTF8.self) == "root" && h[269] == 0)
        // Checksum: unsigned sum of the header with the checksum field counted as 8 spaces,
        // written as six octal digits, NUL, space.
        var blanked = h
        for i in 148..<156 { blanked[i] = 32 }
        let sum = blanked.reduce(0) { $0 + Int($1) }
        #expect(octalField(h, 148..<154) == sum)
        #expect(h[154] == 0 && h[155] == 32)
    }

    @Test(arguments: [0, 1, 511, 512, 513, 1000, 1024])
    func membersStartOnBlockBoundaries(size: Int) throws {
        let content = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let bytes = try archive([("a.json", Array("{}".utf8)), ("a.x.npy", content), ("a.y.npy", [1, 2, 3])])
        #expect(bytes.count % 512 == 0)
        #expect(bytes.count == TarWriter.archiveSize(memberSizes: [2, size, 3]))
        // Two zero blocks at the end.
        #expect(bytes.suffix(1024).allSatisfy { $0 == 0 })
        let members = try TarReader.members(bytes)
        #expect(members.map(\.name) == ["a.json", "a.x.npy", "a.y.npy"])
        for m in members {
            #expect(m.headerOffset % 512 == 0)
            #expect(m.data.lowerBound == m.headerOffset + 512)
        }
        #expect(Array(bytes[members[1].data]) == content)
        // Padding after a member is zeros.
        let end = members[1].data.upperBound
        #expect(bytes[end..<(members[2].headerOffset)].allSatisfy { $0 == 0 })
    }

    @Test func sameInputSameBytes() throws {
        let members = [("s.json", Array("{\"a\":1}".utf8)), ("s.x.npy", [UInt8](repeating: 9, count: 700))]
        #expect(try archive(members) == archive(members))
    }

    @Test func modificationTimeIsWrittenWhenGiven() throws {
        let h = try TarWriter.header(name: "a", size: 0, modificationTime: 1_700_000_000)
        #expect(octalField(h, 136..<148) == 1_700_000_000)
    }

    @Test func rejectsNamesThatDoNotFit() throws {
        #expect(throws: MotionError.self) { try TarWriter.header(name: String(repeating: "n", count: 101), size: 0) }
        #expect(throws: MotionError.self) { try TarWriter.header(name: "", size: 0) }
        #expect(throws: MotionError.self) { try TarWriter.header(name: "big", size: TarWriter.maxMemberSize + 1) }
        _ = try TarWriter.header(name: String(repeating: "n", count: 100), size: TarWriter.maxMemberSize)
    }

    @Test func readerRejectsABadChecksum() throws {
        var bytes = try archive([("a.json", Array("{}".utf8))])
        bytes[0] ^= 1
        #expect(throws: MotionError.self) { try TarReader.members(bytes) }
    }

    @Test func readerRejectsAMissingEndBlock() throws {
        let bytes = try archive([("a.json", Array("{}".utf8))])
        #expect(throws: MotionError.self) { try TarReader.members(Array(bytes.dropLast(512))) }
        #expect(throws: MotionError.self) { try TarReader.members(Array(bytes.dropLast(1024))) }
    }
}
