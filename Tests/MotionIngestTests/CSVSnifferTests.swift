import MotionCore
import Testing
@testable import MotionIngest

/// `CSVSniffer`: the guesses `inspect FILE.csv` and `init` start from (docs/commands.md, "inspect").
@Suite struct CSVSnifferTests {
    func sniff(_ text: String) -> CSVSniffer.Guess? {
        CSVSniffer.sniff(Array(text.utf8), isWholeFile: true).guess
    }

    @Test func plainCommaFileWithDecimalSeconds() throws {
        let g = try #require(sniff("time,x,y,activity\n0.00,1,2,walk\n0.01,1,2,walk\n0.02,1,2,run\n"))
        #expect(g.delimiter == UInt8(ascii: ","))
        #expect(g.headerLine == 1 && g.skipLines == 0 && !g.sepLine)
        #expect(g.columns.map(\.name) == ["time", "x", "y", "activity"])
        #expect(g.columns.map(\.kind) == [.number, .number, .number, .text])
        #expect(g.columns[3].examples == ["walk", "run"])
        #expect(g.timeColumn == "time" && g.timeUnit == .s)
        #expect(g.timeReason == "decimals 0.01 apart: 100 Hz in seconds")
        #expect(g.labelColumn == "activity")
        #expect(g.valueColumns == ["x", "y"])
    }

    @Test func androSensorSepLineSemicolonsAndTrailingSpaceInHeader() throws {
        let text = "sep=;\nACCELEROMETER X (m/s²);ACCELEROMETER Y (m/s²);Time since start in ms \n0.1;9.8;0\n0.2;9.7;20\n0.3;9.9;40\n"
        let g = try #require(sniff(text))
        #expect(g.sepLine && g.delimiter == UInt8(ascii: ";") && g.delimiterReason == "a `sep=` first line")
        #expect(g.headerLine == 2 && g.skipLines == 0)
        #expect(g.timeColumn == "Time since start in ms" && g.timeUnit == .ms)
        #expect(g.timeReason == "the header says `ms`")
    }

    @Test func phyphoxQuotedHeaderTabs() throws {
        let g = try #require(sniff("\"Time (s)\"\t\"Acceleration x (m/s^2)\"\n1.0E-2\t0.5\n2.0E-2\t0.6\n"))
        #expect(g.delimiter == 9)
        #expect(g.columns.map(\.name) == ["Time (s)", "Acceleration x (m/s^2)"])
        #expect(g.timeUnit == .s)
    }

    @Test func epochIntegersTellTheirUnitBySize() throws {
        #expect(sniff("time,seconds_elapsed,z\n1700000000000000000,0,1\n1700000000010000000,0.01,1\n")?.timeUnit == .ns)
        #expect(sniff("timestamp,x\n1700000000000000,1\n1700000000010000,1\n")?.timeUnit == .us)
        #expect(sniff("timestamp,x\n1700000000000,1\n1700000000010,1\n")?.timeUnit == .ms)
    }

    @Test func relativeIntegersPickTheUnitWithAUsualRate() throws {
        let g = try #require(sniff("t,x\n0,1\n20,1\n40,1\n60,1\n"))
        #expect(g.timeUnit == .ms && g.timeReason == "integers 20 apart: 50 Hz in ms")
    }

    @Test func preambleLinesBeforeTheHeaderAreSkipped() throws {
        let g = try #require(sniff("exported by app\ndevice: phone\ntime,ax\n0.0,1\n0.1,2\n"))
        #expect(g.skipLines == 2 && g.headerLine == 3)
    }

    @Test func isoTimesAndMissingTime() throws {
        let iso = try #require(sniff("timestamp,x\n2024-05-01T12:30:00Z,1\n2024-05-01T12:30:01Z,2\n"))
        #expect(iso.timeUnit == .iso8601)
        let none = try #require(sniff("a,b\n1,x\n2,y\n"))
        #expect(none.timeColumn == nil && none.timeReason.contains("no column is named like a time"))
    }

    @Test func whatIsNotDelimitedTextSaysWhy() {
        #expect(CSVSniffer.sniff([0, 1, 2, 10], isWholeFile: true).problem == "it holds NUL bytes, so it is not text")
        #expect(CSVSniffer.sniff(Array("just words\nmore words\n".utf8), isWholeFile: true).problem.contains("no line splits"))
        #expect(CSVSniffer.sniff(Array("a,b\nc,d\n".utf8), isWholeFile: true).problem.contains("no header line"))
        #expect(CSVSniffer.sniff([0xC3, 0x28, 10], isWholeFile: true).problem == "it is not UTF-8 text")
        #expect(CSVSniffer.sniff([], isWholeFile: true).problem == "the file is empty")
        #expect(CSVSniffer.sniff(Array("\n  \n".utf8), isWholeFile: true).problem == "it holds only blank lines")
        #expect(CSVSniffer.sniff(Array("time,x\n".utf8), isWholeFile: true).problem == "it has a single line (a header without rows?)")
    }

    @Test func anIncompleteLastLineOfAHeadIsIgnored() throws {
        let head = Array("time,x\n0.0,1\n0.1,2\n0.2,ab".utf8)
        let g = try #require(CSVSniffer.sniff(head, isWholeFile: false).guess)
        #expect(g.columns[1].kind == .number && g.rowsLooked == 2)
    }
}
