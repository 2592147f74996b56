import MotionCore
import Testing
@testable import MotionIngest

/// `CSVRecords`: a small file split by the csv input's rules (docs/inputs.md, "Delimited text (csv)"),
/// as the intervals labels file is read.
@Suite struct CSVRecordsTests {
    func split(_ text: String) throws -> [CSVRecord] {
        try CSVRecords.split(Array(text.utf8), displayPath: "l.csv")
    }

    @Test func quotedFieldsDoubledQuotesCommasAndLineEndsInsideQuotes() throws {
        let r = try split("\u{FEFF}a,b\r\n\"x, y\",\"say \"\"hi\"\"\"\r\n\r\n  \"two\nlines\" , plain \n")
        #expect(r.map(\.fields) == [["a", "b"], ["x, y", "say \"hi\""], ["two\nlines", "plain"]])
        #expect(r.map(\.line) == [1, 2, 4])
        #expect(r[2].locations.map(\.description) == ["l.csv:4:1", "l.csv:5:9"])
        #expect(r[1].locations.map(\.description) == ["l.csv:2:1", "l.csv:2:8"])
    }

    @Test func noFinalLineEndAndBlankLinesAreFine() throws {
        #expect(try split("a,b\n\n \t\n1,2").map(\.fields) == [["a", "b"], ["1", "2"]])
        #expect(try split("").isEmpty)
    }

    @Test func anUnclosedQuoteNamesWhereItOpens() throws {
        let e = #expect(throws: IngestError.self) { try split("a,b\n1,\"open\n2,3\n") }
        #expect(e?.message.hasPrefix("l.csv:2:3: a quoted field is not closed before the end of the file") == true)
    }

    @Test func invalidUTF8IsNamedWhereTheFieldStarts() throws {
        let e = #expect(throws: IngestError.self) { try CSVRecords.split(Array("a,b\n1,".utf8) + [0xFF, 0x0A], displayPath: "l.csv") }
        #expect(e?.message.hasPrefix("l.csv:2:3: a field is not valid UTF-8") == true)
    }

    @Test func aNULByteIsNotText() throws {
        let e = #expect(throws: IngestError.self) { try split("a,b\n1,\u{0}\n") }
        #expect(e?.message.hasPrefix("l.csv:2: a field contains a NUL byte") == true)
    }
}
