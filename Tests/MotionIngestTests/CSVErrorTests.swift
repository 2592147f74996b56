import MotionCore
import Testing
@testable import MotionIngest

/// Every csv data error, as the exact sentence the user sees (docs/commands.md; docs/inputs.md, "Bad rows and time order").
@Suite struct CSVErrorTests {
    static let number = "is not a number (expected a decimal such as `-0.25` or `1e-05`; empty, NA, nan or inf mark a missing value)"
    static let seconds = "is not a time (expected seconds as a decimal such as `12.5` or `1700000000.25`; empty or NA mark a missing value)"

    static let cases: [(String, String, String)] = [
        ("bad number", "time,x,y,z\n1,1.2.3,0,0\n",
         "rec.csv:2:3: `1.2.3` \(number)"),
        ("hex number", "time,x,y,z\n1,0, 0x10 ,0\n",
         "rec.csv:2:5: `0x10` \(number)"),
        ("column counts characters", "activity,time,x,y,z\nGehen–ä,1,abc,0,0\n",
         "rec.csv:2:11: `abc` \(number)"),
        ("bad number after a quoted line end", "time,activity,x,y,z\n1,\"two\nlines\", 1x,0,0\n",
         "rec.csv:3:8: `1x` \(number)"),
        ("bad time", "time,x,y,z\nabc,1,2,3\n",
         "rec.csv:2:1: `abc` \(seconds)"),
        ("bad ms time", "x,y,z,time\n1,2,3,12:30\n",
         "rec.csv:2:7: `12:30` is not a time (expected milliseconds as a decimal such as `1700000000250`; empty or NA mark a missing value)"),
        ("bad iso time", "x,y,z,time\n1,2,3,2024-05-01T25:00:00Z\n",
         "rec.csv:2:7: `2024-05-01T25:00:00Z` is not a time (expected an ISO 8601 time such as `2024-05-01T12:30:00.25Z`, `2024-05-01 14:30:00+02:00` or `2024-05-01T12:30:00` (UTC); empty or NA mark a missing value)"),
        ("missing column with suggestion", "times,x,y,z\n1,2,3,4\n",
         "rec.csv:1: no column `time` (named by `time.column`) in the header; did you mean `times`? (the columns are `times`, `x`, `y`, `z`)"),
        ("missing channel column", "time,x,y,Z\n1,2,3,4\n",
         "rec.csv:1: no column `z` (named by `channels.acc_z`) in the header; did you mean `Z`? (the columns are `time`, `x`, `y`, `Z`)"),
        ("missing column without suggestion", "time,x,y,z\n1,2,3,4\n",
         "rec.csv:1: no column `activity` (named by `label_column`) in the header (the columns are `time`, `x`, `y`, `z`)"),
        ("duplicate column", "time,x,y,z,x\n1,2,3,4,5\n",
         "rec.csv:1: column `x` (named by `channels.acc_x`) occurs more than once in the header (expected each column the input reads to be named once)"),
        ("unterminated quote at end of file", "time,x,y,z\n1,2,3,4\n2,3, \"4,5\n3,4,5,6\n",
         "rec.csv:3:5: a quoted field is not closed before the end of the file (expected a closing `\"`; write a `\"` inside a quoted field as `\"\"`)"),
        ("too few fields", "time,x,y,z\n1,2,3\n",
         "rec.csv:2: the row has 3 fields but the header has 4 (a field that contains the delimiter must be quoted)"),
        ("extra non-empty field", "time,x,y,z\n1,2,3,4,\n1,2,3,4,5\n",
         "rec.csv:3: the row has 5 fields but the header has 4 (a field that contains the delimiter must be quoted)"),
        ("NUL byte in a number", "time,x,y,z\n1,2,\u{0}3,4\n",
         "rec.csv:2:5: a field contains a NUL byte (expected text; is this a binary file?)"),
        ("empty file", "",
         "rec.csv: no data rows"),
        ("header only", "time,x,y,z\n",
         "rec.csv: no data rows"),
        ("header and blank lines", "\u{FEFF}time,x,y,z\r\n\r\n   \n",
         "rec.csv: no data rows"),
        ("blank file", "\n\n",
         "rec.csv: no data rows"),
    ]

    @Test(arguments: cases)
    func wideErrors(name: String, text: String, expected: String) {
        let format = CSVFormat(timeColumn: "time", timeUnit: name.contains("ms") ? .ms : name.contains("iso") ? .iso8601 : .s,
                               channels: xyz("acc"), labelColumn: name.contains("without suggestion") ? "activity" : nil)
        let result = ingestErrorMessage { _ = try readCSV(text, format: format) }
        #expect(result?.message == expected, "\(name)")
        #expect(result?.status == .dataError, "\(name)")
    }

    static let bytesCases: [(String, [UInt8], String)] = [
        ("NUL byte in a label", Array("time,x,label\n1,2,wa".utf8) + [0] + Array("lk\n".utf8),
         "rec.csv:2:5: a field contains a NUL byte (expected text; is this a binary file?)"),
        ("invalid UTF-8 in a label", Array("time,x,label\n1,2,\"ok\"\n2,3, w".utf8) + [0xFF, 0xFE] + Array("\n".utf8),
         "rec.csv:3:5: a field is not valid UTF-8 (expected UTF-8 text)"),
        ("NUL byte in a quoted label after a quoted line end", Array("time,x,note,label\n1,2,\"a\nb\",\"c".utf8) + [0] + Array("\"\n".utf8),
         "rec.csv:3:4: a field contains a NUL byte (expected text; is this a binary file?)"),
        ("NUL in the header", Array("time,x,la".utf8) + [0] + Array("bel\n1,2,a\n".utf8),
         "rec.csv:1:8: a field contains a NUL byte (expected text; is this a binary file?)"),
    ]

    @Test(arguments: bytesCases)
    func textErrors(name: String, bytes: [UInt8], expected: String) {
        let format = CSVFormat(timeColumn: "time", channels: [.init(name: "v", column: "x")], labelColumn: "label")
        let result = ingestErrorMessage {
            _ = try CSVReader.read(chunks: [bytes], displayPath: "rec.csv", format: format, wideSensorName: "S")
        }
        #expect(result?.message == expected, "\(name)")
    }

    @Test func sensorFieldMustBeText() {
        let format = CSVFormat(timeColumn: "time", sensorColumn: "sensor",
                               sensorGroups: [.init(sensor: "A", channels: [.init(name: "v", column: "x")])])
        let bytes = Array("time,sensor,x\n1,A,2\n2,".utf8) + [0xC3] + Array(",3\n".utf8)
        let result = ingestErrorMessage {
            _ = try CSVReader.read(chunks: [bytes], displayPath: "rec.csv", format: format, wideSensorName: "S")
        }
        #expect(result?.message == "rec.csv:3:3: a field is not valid UTF-8 (expected UTF-8 text)")
        let missing = ingestErrorMessage {
            _ = try CSVReader.read(chunks: [Array("time,kind,x\n1,A,2\n".utf8)], displayPath: "rec.csv", format: format, wideSensorName: "S")
        }
        #expect(missing?.message == "rec.csv:1: no column `sensor` (named by `sensor_column`) in the header (the columns are `time`, `kind`, `x`)")
    }

    @Test func overlongLines() {
        let format = CSVFormat(timeColumn: "time", channels: [.init(name: "v", column: "x")])
        let long = String(repeating: "1", count: 1 << 20)
        let expected = "line is longer than 1048576 bytes (is a quote left open, or is this not a delimited text file?)"
        for chunk in [1 << 20, 4096, 1000] {
            let bytes = Array("time,x\n1,2\n2,\(long)\n3,4\n".utf8)
            let chunks = stride(from: 0, to: bytes.count, by: chunk).map { Array(bytes[$0..<min($0 + chunk, bytes.count)]) }
            let result = ingestErrorMessage {
                _ = try CSVReader.read(chunks: chunks, displayPath: "rec.csv", format: format, wideSensorName: "S")
            }
            #expect(result?.message == "rec.csv:3: \(expected)", "chunk \(chunk)")
            // An open quote swallows the rest of the file: that, too, stops at 1 MiB.
            let open = Array("time,x\n1,\"2\n".utf8) + Array(repeating: UInt8(ascii: "\n"), count: (1 << 20) + 10)
            let chunked = stride(from: 0, to: open.count, by: chunk).map { Array(open[$0..<min($0 + chunk, open.count)]) }
            let quoted = ingestErrorMessage {
                _ = try CSVReader.read(chunks: chunked, displayPath: "rec.csv", format: format, wideSensorName: "S")
            }
            #expect(quoted?.message == "rec.csv:2: \(expected)", "chunk \(chunk)")
        }
    }
}
