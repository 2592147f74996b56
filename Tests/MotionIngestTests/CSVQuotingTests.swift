import MotionCore
import Testing
@testable import MotionIngest

/// RFC 4180 quoting, line ends, BOM and delimiters.
@Suite struct CSVQuotingTests {
    static let format = CSVFormat(timeColumn: "time", channels: [.init(name: "v", column: "x")], labelColumn: "label")

    static let quoted = #"""
        "time","x",label
        1,"2",walk
        2,3,"walk, fast"
        3,4,"say ""hi"""
        4,5,"two
        lines"
        5,6, "spaced" ,
        6,"7" ,"a""b"
        7,8,q

        """#

    @Test func quotedFieldsDelimitersNewlinesAndEscapes() throws {
        let file = try readCSV(Self.quoted, format: Self.format)
        let s = file.streams[0]
        #expect(s.times == [1, 2, 3, 4, 5, 6, 7])
        #expect(s.channels == [[2, 3, 4, 5, 6, 7, 8]])
        // The quoted line end makes line 5–6 one row: the next row is on line 7.
        #expect(s.lines == [2, 3, 4, 5, 7, 8, 9])
        #expect(file.rowsRead == 7)
        #expect(file.rowLabels.names == ["walk", "walk, fast", "say \"hi\"", "two\nlines", "spaced", "a\"b", "q"])
    }

    @Test func textAfterAClosingQuoteIsKeptAsPythonsCSVDoes() throws {
        // `"7"e` is the field `7e`: not a number, reported where the field starts.
        let text = "time,x,label\n6,\"7\"e,a\n"
        #expect(ingestErrorMessage { _ = try readCSV(text, format: Self.format) }?.message
            == "rec.csv:2:3: `7e` is not a number (expected a decimal such as `-0.25` or `1e-05`; empty, NA, nan or inf mark a missing value)")
    }

    @Test func aQuoteInsideAnUnquotedFieldIsAnOrdinaryByte() throws {
        let file = try readCSV("time,x,label\n1,2,5\" tall\n2,3,ok\n", format: Self.format)
        #expect(file.rowLabels.names == ["5\" tall", "ok"])
        #expect(file.streams[0].lines == [2, 3])
    }

    @Test func quotedEmptyFieldIsMissing() throws {
        let file = try readCSV("time,x,label\n1,\"\",a\n2,\" \",b\n3,4,\"\"\n", format: Self.format)
        #expect(file.streams[0].times == [3])
        #expect(file.rowsDropped == ["missing_value": 2])
        #expect(file.rowLabels.names == ["a", "b"])
    }

    @Test func crlfBomAndTrailingBlankLinesChangeNothing() throws {
        let plain = try readCSV(Self.quoted, format: Self.format)
        let windows = "\u{FEFF}" + Self.quoted.replacingOccurrences(of: "\n", with: "\r\n") + "\r\n\r\n  \r\n"
        let crlf = try readCSV(windows, format: Self.format)
        // Same rows and values; the quoted line end keeps its CR (it is data).
        #expect(crlf.streams == plain.streams)
        #expect(crlf.rowsRead == plain.rowsRead)
        #expect(crlf.rowLabels.names.map { $0.replacingOccurrences(of: "\r\n", with: "\n") } == plain.rowLabels.names)
        #expect(try readCSV(String(Self.quoted.dropLast()), format: Self.format) == plain)
    }

    @Test func bomBeforeAQuotedHeaderName() throws {
        let file = try readCSV("\u{FEFF}\"time\",\"x\"\n1,2\n", format: CSVFormat(timeColumn: "time", channels: [.init(name: "v", column: "x")]))
        #expect(file.streams[0].channels == [[2]])
    }

    @Test(arguments: [(UInt8(ascii: ";"), ";"), (UInt8(ascii: "\t"), "\t")])
    func otherDelimiters(delimiter: UInt8, separator: String) throws {
        var format = Self.format
        format.delimiter = delimiter
        let rows = [["time", "x", "label"], ["1", "2.5", "walk, fast"], ["2", " 3 ", "\"a\(separator)b\""], ["3", "4", "x\"y"]]
        let text = rows.map { $0.joined(separator: separator) }.joined(separator: "\n") + "\n"
        let file = try readCSV(text, format: format)
        #expect(file.streams[0].times == [1, 2, 3])
        #expect(file.streams[0].channels == [[2.5, 3, 4]])
        #expect(file.rowLabels.names == ["walk, fast", "a\(separator)b", "x\"y"])
        // With another delimiter, a comma is an ordinary byte, so `2,5` is not a number.
        #expect(ingestErrorMessage { _ = try readCSV("time\(separator)x\(separator)label\n1\(separator)2,5\(separator)a\n", format: format) }?.message
            == "rec.csv:2:3: `2,5` is not a number (expected a decimal such as `-0.25` or `1e-05`; empty, NA, nan or inf mark a missing value)")
    }

    @Test func blankLinesBeforeTheHeaderAreSkipped() throws {
        let file = try readCSV("\n  \ntime,x,label\n1,2,a\n", format: Self.format)
        #expect(file.streams[0].lines == [4])
    }
}
