import Foundation
import Testing
@testable import MotionIngest

/// swift-nio's ByteToMessageDecoderVerifier idea: however the bytes are cut, the result is the same.
@Suite struct ChunkBoundaryTests {
    /// A file exercising everything that can straddle a cut: BOM, CRLF and LF, labels changing,
    /// long and short numbers, missing values, blank lines, every sensor, no final newline.
    static let current: [UInt8] = Array(("\u{FEFF}Source, Label, When, X, Y, Z, UA_X, UA_Y, UA_Z, Pitch, Roll, Yaw\r\n"
        + "A, W, 0.0102, 0.012345678901234567, -1.00083923339844, 0.0224456787109375\r\n"
        + "G, W, 0.0103, 1e-05, -2.5E+2, .5\n"
        + "\r\n"
        + "D,W,0.0104,1,2,3,4,5,6,7,8,9\n"
        + "M,,0.0105,10,20,30\n"
        + "A,stairs,0.0106,NA,0,0\n"
        + "A,Gehen–ä,0.0107,1,2,3,,,\n"
        + "A,stairs,0.0107,123456789012345678901234567890,5.,-0\n"
        + "G,T,0.0108,  7  ,\t8\t,9\n"
        + "A,T,12.5,1e999,0,0\n"
        + "A,T,12.6,4,5,6").utf8)

    static let legacy: [UInt8] = Array(("Type, When, X, Y, Z, UA_X, UA_Y, UA_Z, Pitch, Roll, Yaw\r\n"
        + "0, 0.5, 1, 2, 3\r\n4, 0.75\r\n1, 0.8, 1, 2, 3, 4, 5, 6, 7, 8, 9\r\n5, 1.5,,,\r\n3, 1.6, 10, 20, 30\r\n\r\n").utf8)

    static func read(_ chunks: [[UInt8]], keep: Set<String>? = nil) throws -> MotionCollectorFile {
        try MotionCollectorReader.read(chunks: chunks, displayPath: "rec.csv", units: .si, keep: keep)
    }

    static func cut(_ bytes: [UInt8], every size: Int) -> [[UInt8]] {
        stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
    }

    @Test(arguments: [("current", current), ("legacy", legacy)])
    func everyChunkSizeGivesTheSameResult(_ name: String, _ bytes: [UInt8]) throws {
        let whole = try Self.read([bytes])
        #expect(whole.rowsRead > 0)
        for size in 1...64 {
            #expect(try Self.read(Self.cut(bytes, every: size)) == whole, "\(name): chunk size \(size)")
        }
        // Empty chunks in between change nothing either.
        #expect(try Self.read(Self.cut(bytes, every: 5).flatMap { [$0, []] }) == whole)
    }

    @Test func randomCutsGiveTheSameResult() throws {
        var rng = SeededGenerator(seed: 42)
        let whole = try Self.read([Self.current])
        for _ in 0..<200 {
            var chunks: [[UInt8]] = []
            var i = 0
            while i < Self.current.count {
                let n = Int.random(in: 0...40, using: &rng)
                chunks.append(Array(Self.current[i..<min(i + n, Self.current.count)]))
                i += n
            }
            #expect(try Self.read(chunks) == whole)
        }
    }

    @Test func theFixtureCoversWhatItShould() throws {
        let file = try Self.read([Self.current])
        #expect(file.rowsRead == 10)
        #expect(file.rowsDropped == ["missing_value": 2])
        #expect(file.stream("A")?.times == [0.0102, 0.0107, 0.0107, 12.6])
        #expect(file.stream("A")?.lines == [2, 8, 9, 12])
        let big = try #require(Double("123456789012345678901234567890"))
        #expect(file.stream("A")?.channels[0][2] == big * 9.80665)
        #expect(file.stream("A")?.channels[2][2].sign == .minus)
        #expect(file.stream("G")?.channels[1] == [-250, 8])
        #expect(file.rowLabels.names == ["W", "stairs", "Gehen–ä", "T"])
        #expect(file.rowLabels.labels == [0, 0, 0, 1, 2, 1, 3, 3, 3])
    }

    /// `read(path:)` reads 1 MiB at a time: a multi-MiB file crosses real chunk boundaries.
    @Test func fileReadMatchesChunkRead() throws {
        var text = "Source, Label, When, X, Y, Z, UA_X, UA_Y, UA_Z, Pitch, Roll, Yaw\n"
        var rng = SeededGenerator(seed: 7)
        var t = 0.0
        while text.utf8.count < 3 << 20 {
            t += 0.01
            let label = Int.random(in: 0..<100, using: &rng) < 50 ? "W" : "T"
            text += "A,\(label),\(t),\(Double.random(in: -2...2, using: &rng)),\(Double.random(in: -2...2, using: &rng)),0.5\n"
            if Int.random(in: 0..<4, using: &rng) == 0 {
                text += "D,\(label),\(t),1,2,3,4,5,6,7,8,\(Double.random(in: -3...3, using: &rng))\r\n"
            }
        }
        let bytes = Array(text.utf8)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("motioningest-\(UInt32.random(in: 0...UInt32.max)).csv")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let fromFile = try MotionCollectorReader.read(path: url.path, displayPath: "big.csv", units: .si, keep: nil)
        #expect(fromFile == (try Self.read([bytes])))
        #expect(fromFile == (try Self.read(Self.cut(bytes, every: 65_537))))
        #expect(fromFile.rowsRead == bytes.split(separator: 0x0A).count - 1)
    }
}
