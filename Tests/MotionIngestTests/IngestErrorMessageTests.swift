import Foundation
import MotionCore
import Testing
@testable import MotionIngest

/// One bad input and the exact sentence it must produce.
struct ErrorCase: Sendable, CustomTestStringConvertible {
    var name: String
    var bytes: [UInt8]
    var message: String
    var status: MotionCore.ExitStatus = .dataError
    var testDescription: String { name }

    init(_ name: String, _ text: String, _ message: String) {
        self.name = name
        self.bytes = Array(text.utf8)
        self.message = message
    }

    init(_ name: String, bytes: [UInt8], _ message: String) {
        self.name = name
        self.bytes = bytes
        self.message = message
    }
}

let header = "Source, Label, When, X, Y, Z, UA_X, UA_Y, UA_Z, Pitch, Roll, Yaw\n"
let notANumberTail = "is not a number (expected a decimal such as `-0.25` or `1e-05`; empty, NA, nan or inf mark a missing value)"

let errorCases: [ErrorCase] = [
    ErrorCase("bad number", header + "A, W, 0.5, 0, 0, 0\nA, W, 0.5, 1.2.3, 0, 0\n",
              "rec.csv:3:11: `1.2.3` \(notANumberTail)"),
    ErrorCase("bad time", header + "A,W,0x10,0,0,0\n", "rec.csv:2:5: `0x10` \(notANumberTail)"),
    ErrorCase("bad last value", header + "D,W,1,1,2,3,4,5,6,7,8,abc\n", "rec.csv:2:23: `abc` \(notANumberTail)"),
    ErrorCase("column counts characters", header + "A,é€,1,1e,0,0\n", "rec.csv:2:8: `1e` \(notANumberTail)"),
    ErrorCase("unknown source", header + "A,W,1,0,0,0\n\nX,W,1,2,3,4\n", "rec.csv:4:1: unknown source `X` (expected A, G, M or D)"),
    ErrorCase("lowercase source", header + " a ,W,1,2,3,4\n", "rec.csv:2:1: unknown source `a` (expected A, G, M or D)"),
    ErrorCase("missing source", header + ",W,1,2,3,4\n", "rec.csv:2:1: missing source (expected A, G, M or D)"),
    ErrorCase("legacy unknown type", "Type,When,X,Y,Z\n7, 1.0, 1, 2, 3\n",
              "rec.csv:2:1: unknown type `7` (expected 0, 1, 2 or 3, or the marker 4 or 5)"),
    ErrorCase("too few fields", header + "A,W,1,2\n", "rec.csv:2: an `A` row needs 6 fields, found 4"),
    ErrorCase("too few fields, bad value", header + "A,W,1,x\n", "rec.csv:2: an `A` row needs 6 fields, found 4"),
    ErrorCase("D row too short", header + "D,W,1,2,3,4\n", "rec.csv:2: a `D` row needs 12 fields, found 6"),
    ErrorCase("source only", header + "G\n", "rec.csv:2: a `G` row needs 6 fields, found 1"),
    ErrorCase("extra field", header + "M,W,1,2,3,4,5\n", "rec.csv:2: an `M` row needs 6 fields, found 7"),
    ErrorCase("legacy row too short", "Type,When,X,Y,Z\n1,0.5,1,2,3\n", "rec.csv:2: a `1` row needs 11 fields, found 5"),
    ErrorCase("marker with a value", "Type,When,X,Y,Z\n4, 1.0, 3\n", "rec.csv:2: a `4` row needs 2 fields, found 3"),
    ErrorCase("bad header", "foo,bar\nA,W,1,2,3,4\n",
              "rec.csv:1: not a MotionCollector header: `foo,bar` (expected `Source, Label, When, X, Y, Z, …` or `Type, When, X, …`)"),
    ErrorCase("wide csv header", "time,acc_x,acc_y\n0,1,2\n",
              "rec.csv:1: not a MotionCollector header: `time,acc_x,acc_y` (expected `Source, Label, When, X, Y, Z, …` or `Type, When, X, …`)"),
    ErrorCase("empty file", "", "rec.csv: the file is empty (expected a header such as `Source, Label, When, X, Y, Z, …`)"),
    ErrorCase("BOM only", "\u{FEFF}", "rec.csv: the file is empty (expected a header such as `Source, Label, When, X, Y, Z, …`)"),
    ErrorCase("header only", header, "rec.csv: no data rows"),
    ErrorCase("header and blank lines", header + "\r\n\n  \n", "rec.csv: no data rows"),
    ErrorCase("NUL in a label", header + "A,W\u{0},1,2,3,4\n",
              "rec.csv:2:3: a field contains a NUL byte (expected text; is this a binary file?)"),
    ErrorCase("NUL in a number", header + "A,W,1,2\u{0},3,4\n",
              "rec.csv:2:7: a field contains a NUL byte (expected text; is this a binary file?)"),
    ErrorCase("invalid UTF-8 in a label", bytes: Array((header + "A,").utf8) + [0xFF, 0x57] + Array(",1,2,3,4\n".utf8),
              "rec.csv:2:3: a field is not valid UTF-8 (expected UTF-8 text)"),
    ErrorCase("invalid UTF-8 in a number", bytes: Array((header + "A,W,1,2,").utf8) + [0xC3, 0x28] + Array(",4\n".utf8),
              "rec.csv:2:9: a field is not valid UTF-8 (expected UTF-8 text)"),
    ErrorCase("overlong line", header + "A,W,1,2,3,4\n" + String(repeating: "7", count: (1 << 20) + 1) + "\nA,W,1,2,3,4\n",
              "rec.csv:3: line is longer than 1048576 bytes (is this a MotionCollector file?)"),
    ErrorCase("overlong last line", header + "A,W,1,2,3,4\n" + String(repeating: " ", count: (1 << 20) + 1),
              "rec.csv:3: line is longer than 1048576 bytes (is this a MotionCollector file?)"),
    ErrorCase("binary file", bytes: [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x00, 0xFF, 0x0A, 0x00],
              "rec.csv:1: not a MotionCollector header: `\\u{7f}ELF\\u{2}\\u{1}\\0�` (expected `Source, Label, When, X, Y, Z, …` or `Type, When, X, …`)"),
    ErrorCase("binary without newlines", bytes: [UInt8](repeating: 0x41, count: 3 << 20),
              "rec.csv:1: not a MotionCollector header: `\(String(repeating: "A", count: 60))…` (expected `Source, Label, When, X, Y, Z, …` or `Type, When, X, …`)"),
]

@Suite struct IngestErrorMessageTests {
    @Test(arguments: errorCases)
    func exactMessage(_ c: ErrorCase) {
        let got = ingestErrorMessage {
            _ = try MotionCollectorReader.read(chunks: [c.bytes], displayPath: "rec.csv", units: .si, keep: nil)
        }
        #expect(got?.message == c.message)
        #expect(got?.status == c.status)
    }

    /// The same error whatever the chunking (the carry path must report the same line and column).
    @Test(arguments: errorCases.filter { $0.bytes.count < 4096 })
    func sameMessageForEveryChunking(_ c: ErrorCase) {
        for size in [1, 2, 3, 7, 64] {
            let chunks = stride(from: 0, to: c.bytes.count, by: size).map { Array(c.bytes[$0..<min($0 + size, c.bytes.count)]) }
            let got = ingestErrorMessage {
                _ = try MotionCollectorReader.read(chunks: chunks, displayPath: "rec.csv", units: .si, keep: nil)
            }
            #expect(got?.message == c.message, "chunk size \(size)")
        }
    }

    @Test func missingFileIsNoInput() {
        let got = ingestErrorMessage {
            _ = try MotionCollectorReader.read(path: "/nonexistent-motionprep/rec.csv", displayPath: "data/rec.csv",
                                               units: .si, keep: nil)
        }
        #expect(got?.message == "data/rec.csv: cannot open the file: No such file or directory")
        #expect(got?.status == .noInput)
    }

    @Test func directoryIsNoInput() {
        let got = ingestErrorMessage {
            _ = try MotionCollectorReader.read(path: "/tmp", displayPath: "tmp", units: .si, keep: nil)
        }
        #expect(got?.message == "tmp: cannot open the file: Is a directory")
        #expect(got?.status == .noInput)
    }

    @Test func fileErrorsMatchChunkErrors() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("motioningest-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for c in errorCases {
            let url = dir.appendingPathComponent("case.csv")
            try Data(c.bytes).write(to: url)
            let got = ingestErrorMessage {
                _ = try MotionCollectorReader.read(path: url.path, displayPath: "rec.csv", units: .si, keep: nil)
            }
            // A file that starts as an executable is refused as binary before it is parsed
            // (docs/inputs.md, "Compressed files"); only the chunk reader sees its bytes as a header.
            let expected = c.name == "binary file"
                ? "rec.csv: binary, not text: its first bytes are 7f 45 4c 46 02 01 00 ff 0a 00: an ELF executable" : c.message
            #expect(got?.message == expected, "\(c.name)")
        }
    }
}
