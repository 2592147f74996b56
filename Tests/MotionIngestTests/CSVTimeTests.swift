import MotionCore
import Testing
@testable import MotionIngest

/// Time units and ISO 8601 (docs/inputs.md, "Delimited text (csv)"), checked against hand-computed epoch seconds.
@Suite struct CSVTimeTests {
    // 2024-05-01T00:00:00Z is 19844 days after 1970-01-01: 19844 × 86400 = 1714521600 s.
    static let may1 = 1_714_521_600.0

    @Test(arguments: [
        ("12.5", CSVFormat.TimeUnit.s, 12.5),
        ("1700000000.25", .s, 1_700_000_000.25),
        ("1e-05", .s, 1e-05),
        ("-3", .s, -3),
        ("1700000000123", .ms, 1_700_000_000.123),
        ("250.5", .ms, 0.2505),
        ("1.5e3", .ms, 1.5),
        (" 1700000000123456 ", .us, 1_700_000_000.123456),
        ("1700000000123456789", .ns, 1_700_000_000.123456789),
        ("1700000000999999999", .ns, 1_700_000_000.999999999),
        ("-1500000000", .ns, -1.5),
        ("1700000000123456789.5", .ns, 1_700_000_000.1234567895),
        ("17000000001234567890", .ns, 17_000_000_001.23456789),  // 20 digits: parsed as a double
        ("1970-01-01T00:00:00Z", .iso8601, 0),
        ("2024-05-01T12:30:00.25Z", .iso8601, may1 + 45_000.25),
        ("2024-05-01 12:30:00.25z", .iso8601, may1 + 45_000.25),
        ("2024-05-01T14:30:00.25+02:00", .iso8601, may1 + 45_000.25),
        ("2024-05-01 14:30:00.250+0200", .iso8601, may1 + 45_000.25),
        ("2024-05-01T07:00:00.25-0530", .iso8601, may1 + 45_000.25),
        ("2024-05-01T07:00:00.25-05:30", .iso8601, may1 + 45_000.25),
        (" 2024-05-01T12:30:00 ", .iso8601, may1 + 45_000),
        ("2024-05-01t12:30:00", .iso8601, may1 + 45_000),
        ("2000-02-29T00:00:00Z", .iso8601, 951_782_400),
        ("2024-02-29T23:59:59.999999999Z", .iso8601, 1_709_251_199.999999999),
        ("1969-12-31T23:59:59.5Z", .iso8601, -0.5),
        ("1900-01-01T00:00:00Z", .iso8601, -2_208_988_800),
        ("9999-12-31T23:59:59Z", .iso8601, 253_402_300_799),
        ("2024-05-01T00:30:00+01:00", .iso8601, may1 - 1800),
    ])
    func parsesTimes(text: String, unit: CSVFormat.TimeUnit, seconds: Double) {
        #expect(CSVTime.parse(text, unit: unit) == .value(seconds), "\(text) \(unit)")
    }

    @Test func nanosecondEpochIsTheNearestDouble() {
        // 1736115422575581347 ns rounded to a double first and then divided gives
        // 1736115422.5755816; the exact split gives the double nearest to the true value.
        let naive = Double(1_736_115_422_575_581_347 as Int64) / 1e9
        #expect(naive == 1_736_115_422.5755816)
        #expect(CSVTime.parse("1736115422575581347", unit: .ns) == .value(1_736_115_422.5755813))
        #expect(CSVTime.parse("1618189305743064004", unit: .ns) == .value(1_618_189_305.743064))
        #expect(CSVTime.parse("1618189305743064", unit: .us) == .value(1_618_189_305.743064))
    }

    @Test(arguments: ["", "  ", "NA", "nan", "null", "-inf", "1e999"])
    func missingTimes(text: String) {
        for unit in CSVFormat.TimeUnit.allCases where !(unit == .iso8601 && text == "1e999") {
            #expect(CSVTime.parse(text, unit: unit) == .missing, "\(text) \(unit)")
        }
    }

    @Test(arguments: [
        ("1.2.3", CSVFormat.TimeUnit.s), ("0x10", .ms), ("12:30", .s), ("1e", .ns), ("--1", .us),
        ("2024-13-01T00:00:00", .iso8601), ("2023-02-29T00:00:00", .iso8601), ("2024-04-31T00:00:00", .iso8601),
        ("2024-05-01T24:00:00", .iso8601), ("2024-05-01T12:60:00", .iso8601), ("2024-05-01T12:30:60", .iso8601),
        ("2024-05-01", .iso8601), ("2024-05-01T12:30", .iso8601), ("2024-05-01T12:30:00+2", .iso8601),
        ("2024-05-01T12:30:00.Z", .iso8601), ("2024-05-01T12:30:00+24:00", .iso8601), ("2024-5-01T12:30:00", .iso8601),
        ("2024-05-01X12:30:00", .iso8601), ("2024-05-01T12:30:00 Z", .iso8601), ("1714566600", .iso8601),
        ("2024-05-01T12:30:00Zjunk", .iso8601), ("2024-05-00T12:30:00", .iso8601),
    ])
    func invalidTimes(text: String, unit: CSVFormat.TimeUnit) {
        #expect(CSVTime.parse(text, unit: unit) == .invalid, "\(text) \(unit)")
    }

    @Test func daysFromCivilMatchesDayCounting() {
        // Walk day by day from 1600-01-01 to 2400-12-31 and check the count never skips.
        var days = CSVTime.daysFromCivil(year: 1600, month: 1, day: 1)
        #expect(days == -135_140)
        for year in 1600...2400 {
            for month in 1...12 {
                for day in 1...CSVTime.daysInMonth(year: year, month: month) {
                    if CSVTime.daysFromCivil(year: year, month: month, day: day) != days {
                        Issue.record("\(year)-\(month)-\(day)")
                        return
                    }
                    days += 1
                }
            }
        }
    }

    @Test func timeUnitsInAFile() throws {
        let text = "timestamp,x,y,z,activity\n2024-05-01T12:30:00.25Z,1,2,3,a\n2024-05-01 14:30:00.5+02:00,1,2,3,b\n,1,2,3,c\n"
        var format = wideFormat
        format.timeColumn = "timestamp"
        format.timeUnit = .iso8601
        let file = try readCSV(text, format: format)
        #expect(file.streams[0].times == [Self.may1 + 45_000.25, Self.may1 + 45_000.5])
        #expect(file.rowsDropped == ["missing_value": 1])
        #expect(file.rowLabels.times == [Self.may1 + 45_000.25, Self.may1 + 45_000.5])
    }
}
