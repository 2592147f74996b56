import MotionCore
import Testing
@testable import MotionIngest

/// The chunk-boundary verifier (swift-nio's `ByteToMessageDecoderVerifier` idea): the same
/// bytes cut into chunks of every size from 1 to 64 give exactly what they give all at once,
/// results and errors alike.
@Suite struct CSVChunkBoundaryTests {
    static let wide = "\u{FEFF}\"time\",x,y,z,activity\r\n"
        + "0.01,1,-0.5,0.25,walk\r\n"
        + "0.02,\"2\",\"1e-05\",-1,\"walk, fast\"\r\n"
        + "0.03,NA,1,1,\"two\r\nlines \"\"quoted\"\"\"\r\n"
        + "\r\n"
        + "0.04,3,4,5,Gehen–ä\r\n"
        + ",1,2,3,walk\n"
        + "0.05, 6 , 7 ,8,\"\"\n"
        + "0.06,9,10,11,\"x\ny\nz\",,\n"
        + "0.07,12,13,14,ok"

    static let long = "sensor;time;x;y;z;label\n"
        + "A;1700000000010;1;2;3;W\n"
        + "G;1700000000011;0,1;0;0;W\n"  // G is not kept: its `0,1` is never parsed
        + "\"A\";1700000000020;4;5;6;\"T;x\"\n"
        + "B;1700000000021;9;9;9;T\n"
        + "A;1700000000030;7;\"\";9;\n"

    static func verify(_ bytes: [UInt8], format: CSVFormat, keep: Set<String>? = nil) -> Result<CSVFile, IngestError> {
        func read(_ chunks: [[UInt8]]) -> Result<CSVFile, IngestError> {
            Result {
                try CSVReader.read(chunks: chunks, displayPath: "rec.csv", format: format, units: ["acc_x": "g"],
                                   unitSystem: .si, wideSensorName: "S", keep: keep)
            }.mapError { $0 as! IngestError }
        }
        let whole = read([bytes])
        for size in 1...64 {
            let chunks = stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
            let cut = read(chunks)
            if cut != whole {
                Issue.record("chunk size \(size): \(cut) != \(whole)")
                break
            }
        }
        // Empty chunks in between change nothing either.
        let withEmpty = read(bytes.map { [$0] }.flatMap { [$0, []] })
        #expect(withEmpty == whole)
        return whole
    }

    @Test func wideFileAnyChunking() throws {
        let file = try Self.verify(Array(Self.wide.utf8), format: wideFormat).get()
        #expect(file.streams[0].times == [0.01, 0.02, 0.04, 0.05, 0.06, 0.07])
        #expect(file.streams[0].lines == [2, 3, 7, 9, 10, 13])
        #expect(file.rowsRead == 8)
        #expect(file.rowsDropped == ["missing_value": 2])
        #expect(file.rowLabels.names == ["walk", "walk, fast", "two\r\nlines \"quoted\"", "Gehen–ä", "x\ny\nz", "ok"])
    }

    @Test func longFileAnyChunking() throws {
        var format = CSVQuotingTests.format
        format = CSVFormat(delimiter: UInt8(ascii: ";"), timeColumn: "time", timeUnit: .ms, labelColumn: "label",
                           sensorColumn: "sensor",
                           sensorGroups: [.init(sensor: "A", channels: xyz("acc")), .init(sensor: "G", channels: xyz("gyro"))])
        let file = try Self.verify(Array(Self.long.utf8), format: format, keep: ["A"]).get()
        #expect(file.streams.map(\.name) == ["A"])
        #expect(file.streams[0].times == [1_700_000_000.01, 1_700_000_000.02])
        #expect(file.streams[0].channels == [[9.80665, 4 * 9.80665], [2, 5], [3, 6]])
        #expect(file.rowsDropped == ["missing_value": 1])
        #expect(file.rowLabels.names == ["W", "T;x", "T"])
    }

    @Test(arguments: [
        "time,x,y,z,activity\n1,2,3,4,a\n2,\"3\n,4,5,b\n",  // unterminated quote
        "time,x,y,z,activity\n1,2,3,4,a\n2,\"3\"\"\n\",4,5,b\n",  // `3"\n` is not a number, on line 3
        "time,x,y,z\n1,2,3,4\n",  // no `activity` column
        "\u{FEFF}",  // only a BOM
        "\u{FEFF}time,x,y,z,activity\n",  // no data rows
        "time,x,y,z,activity\n1,2,3,4,\"a\u{0}\"\n",  // NUL in a label
    ])
    func errorsAnyChunking(text: String) {
        let result = Self.verify(Array(text.utf8), format: wideFormat)
        if case .success = result { Issue.record("expected an error for \(text.debugDescription)") }
    }

    @Test func randomFilesAnyChunking() throws {
        // Seeded random wide files mixing every feature, cut at every size.
        var generator = SeededGenerator(seed: 2024)
        let pieces = ["1", "-2.5", "NA", "", "\"3\"", "\" 4 \"", "1e-3", "nan"]
        let labels = ["walk", "\"a,b\"", "\"x\ny\"", "", "\"q\"\"r\"", "ä"]
        for _ in 0..<20 {
            var text = Bool.random(using: &generator) ? "\u{FEFF}" : ""
            text += "time,x,y,z,activity\n"
            let newline = Bool.random(using: &generator) ? "\r\n" : "\n"
            for i in 0..<Int.random(in: 1...12, using: &generator) {
                let fields = (0..<3).map { _ in pieces.randomElement(using: &generator)! }
                text += "\(i),\(fields.joined(separator: ",")),\(labels.randomElement(using: &generator)!)\(newline)"
                if Int.random(in: 0..<5, using: &generator) == 0 { text += newline }
            }
            _ = try Self.verify(Array(text.utf8), format: wideFormat).get()
        }
    }
}
