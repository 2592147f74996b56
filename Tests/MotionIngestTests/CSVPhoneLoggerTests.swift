import MotionCore
import Testing
@testable import MotionIngest

/// Odd but real csv files (issue 17 point 6): a `skip_lines` preamble, Excel's `sep=` first line, header names with
/// blanks around them, and wall-clock `time.format` values; every case through the chunk-boundary verifier.
@Suite struct CSVPhoneLoggerTests {
    /// AndroSensor-like: `sep=;`, a trailing space in the time column's name, wall-clock times with `:millis`.
    static let andro = "\u{FEFF}sep=;\r\n"
        + "ACCELEROMETER X (m/s²);ACCELEROMETER Y (m/s²);ACCELEROMETER Z (m/s²);Time since start in ms ;YYYY-MO-DD HH-MI-SS_SSS\r\n"
        + "0.1;0.2;9.8;0;2022-10-22 18:36:24:895\r\n"
        + "0.3;\"0.4\";9.7;20;2022-10-22 18:36:24:915\r\n"
        + "0.5;0.6;NA;40;2022-10-22 18:36:24:935\r\n"

    static func format(delimiter: UInt8 = UInt8(ascii: ","), given: Bool = false, skip: Int = 0,
                       time: String = "Time since start in ms", unit: CSVFormat.TimeUnit = .ms, pattern: String? = nil) -> CSVFormat {
        CSVFormat(delimiter: delimiter, timeColumn: time, timeUnit: unit,
                  channels: [.init(name: "acc_x", column: "ACCELEROMETER X (m/s²)"), .init(name: "acc_y", column: "ACCELEROMETER Y (m/s²)")],
                  delimiterGiven: given, skipLines: skip, timeFormat: pattern.map { try! CSVTimeFormat(pattern: $0) })
    }

    @Test func sepLineSetsTheDelimiterAndTrimmedHeaderMatches() throws {
        let file = try CSVChunkBoundaryTests.verify(Array(Self.andro.utf8), format: Self.format()).get()
        #expect(file.streams[0].times == [0, 0.02, 0.04])
        #expect(file.streams[0].channels[1] == [0.2, 0.4, 0.6])
        #expect(file.streams[0].lines == [3, 4, 5])
    }

    @Test func wallClockFormat() throws {
        let file = try CSVChunkBoundaryTests.verify(Array(Self.andro.utf8),
                                                    format: Self.format(time: "YYYY-MO-DD HH-MI-SS_SSS", pattern: "%Y-%m-%d %H:%M:%S:%f")).get()
        // 2022-10-22T18:36:24Z is 1666463784 s since the epoch.
        #expect(file.streams[0].times == [1_666_463_784.895, 1_666_463_784.915, 1_666_463_784.935])
    }

    @Test func formatDirectives() {
        let f = try! CSVTimeFormat(pattern: "%d/%m/%Y %H.%M.%S.%f%z")
        #expect(f.parse("01/01/1970 00.00.01.5+01:00") == .value(1.5 - 3600))
        #expect(f.parse("01/01/1970 00.00.01.5Z") == .value(1.5))
        #expect(f.parse("  ") == .missing)
        #expect(f.parse("NA") == .missing)
        #expect(f.parse("31/04/2022 00.00.00.0Z") == .invalid)  // 31 April
        #expect(f.parse("01/01/1970 00.00.01.5") == .invalid)  // the zone is required by the pattern
        #expect(f.parse("01/01/1970 00.00.01.1234567891Z") == .invalid)  // more than 9 fraction digits
        let plain = try! CSVTimeFormat(pattern: "%Y%m%d%H%M%S")
        #expect(plain.parse("20240229235959") == .value(1_709_251_199))
        #expect(plain.parse("2024022923595") == .invalid)
        for (bad, reason) in [("%Y-%m-%d", "lacks `%H`"), ("%Y %Y-%m-%d %H:%M:%S", "has `%Y` 2 times"), ("%Y-%m-%d %H:%M:%S %q", "uses `%q`, which is not a supported directive"),
                              ("%Y-%m-%d %H:%M:%S%", "ends with a lone `%` (write `%%` for a percent sign)")] {
            #expect(throws: CSVTimeFormat.Invalid(reason: reason)) { try CSVTimeFormat(pattern: bad) }
        }
    }

    @Test func skipLinesPreamble() throws {
        // The preamble has an open quote and a delimiter: it is read as plain lines.
        let text = "Recorded with \"Phyphox\n;;;\n\nACCELEROMETER X (m/s²),ACCELEROMETER Y (m/s²),Time since start in ms\n1,2,1000\n3,4,2000"
        let file = try CSVChunkBoundaryTests.verify(Array(text.utf8), format: Self.format(skip: 3)).get()
        #expect(file.streams[0].times == [1, 2])
        #expect(file.streams[0].lines == [5, 6])
        // sep= on line 1 is not counted in skip_lines.
        let withSep = "sep=;\nversion 2\nACCELEROMETER X (m/s²);ACCELEROMETER Y (m/s²);Time since start in ms\n1;2;1000\n"
        let f2 = try CSVChunkBoundaryTests.verify(Array(withSep.utf8), format: Self.format(skip: 1)).get()
        #expect(f2.streams[0].times == [1])
    }

    @Test func errorsAnyChunking() {
        func message(_ text: String, _ format: CSVFormat) -> String? {
            if case .failure(let e) = CSVChunkBoundaryTests.verify(Array(text.utf8), format: format) { return e.message }
            return nil
        }
        #expect(message("sep=|\na|b\n", Self.format()) == "rec.csv:1:1: `sep=|` is not a delimiter line (expected `sep=,`, `sep=;` or `sep=` and a tab, Excel's first-line convention, alone on line 1)")
        #expect(message(Self.andro, Self.format(delimiter: 0x09, given: true)) == "rec.csv:1:5: the file's first line says the delimiter is `;` but the input's `delimiter:` is `\\t` (remove `delimiter:` or make them agree)")
        #expect(message("one\ntwo\n", Self.format(skip: 2)) == "rec.csv: no data rows")
        #expect(message("one\ntwo", Self.format(skip: 3)) == "rec.csv: the file has 2 lines but `skip_lines` is 3 (expected the skipped lines, then a header and data rows)")
        let twice = "ACCELEROMETER X (m/s²),ACCELEROMETER Y (m/s²),Time since start in ms , Time since start in ms\n1,2,3,4\n"
        #expect(message(twice, Self.format()) == "rec.csv:1: column `Time since start in ms` (named by `time.column`) matches header columns 3 (`Time since start in ms `) and 4 (` Time since start in ms`), which are equal after trimming spaces and tabs (expected each column the input reads to be named once)")
        #expect(message(Self.andro.replacingOccurrences(of: "18:36:24:915", with: "18:36:24.915"),
                        Self.format(time: "YYYY-MO-DD HH-MI-SS_SSS", pattern: "%Y-%m-%d %H:%M:%S:%f"))
                == "rec.csv:4:18: `2022-10-22 18:36:24.915` is not a time (expected a time in the format `%Y-%m-%d %H:%M:%S:%f` of `time.format`; empty or NA mark a missing value)")
    }

    /// Phone-logger presets (issue 17 point 2): a file without a column the preset reads is not the app's file, and
    /// the message names the header the app writes; a decimal-comma number gets the app's note, also in the time column.
    @Test func appExportErrorsAnyChunking() {
        func message(_ text: String, _ format: CSVFormat) -> String? {
            if case .failure(let e) = CSVChunkBoundaryTests.verify(Array(text.utf8), format: format) { return e.message }
            return nil
        }
        var sensorLogger = CSVFormat(timeColumn: "time", timeUnit: .ns, channels: [.init(name: "gyro_x", column: "x")])
        sensorLogger.app = CSVFormat.AppExport(file: "Sensor Logger's `Gyroscope.csv`", header: "time,seconds_elapsed,z,y,x")
        #expect(message("time,seconds_elapsed,z,y,x\n1700000000000000000,0.0,1,2,3\n", sensorLogger) == nil)
        #expect(message("time,seconds_elapsed,gz,gy,gx\n1700000000000000000,0.0,1,2,3\n", sensorLogger)
                == "rec.csv:1:1: not Sensor Logger's `Gyroscope.csv`: its header `time,seconds_elapsed,gz,gy,gx` has no column `x` (expected the header `time,seconds_elapsed,z,y,x`)")
        #expect(message("\n\n", sensorLogger) == "rec.csv: no data rows")

        var phyphox = CSVFormat(delimiter: 0x09, timeColumn: "Time (s)", channels: [.init(name: "gyro_x", column: "Gyroscope x (rad/s)")], delimiterGiven: true)
        phyphox.app = CSVFormat.AppExport(file: "phyphox's `Gyroscope.csv`", header: #""Time (s)"\t"Gyroscope x (rad/s)""#, headerNote: " (note)",
                                          decimalCommaNote: "export with a decimal point")
        let good = "\"Time (s)\"\t\"Gyroscope x (rad/s)\"\n1.000000000E-2\t-2.500000000E-1\n"
        #expect(message(good, phyphox) == nil)
        #expect(message(good.replacingOccurrences(of: "-2.5", with: "-2,5"), phyphox)
                == "rec.csv:2:16: `-2,500000000E-1` is not a number (expected a decimal such as `-0.25` or `1e-05`; export with a decimal point)")
        #expect(message(good.replacingOccurrences(of: "1.0", with: "1,0"), phyphox)
                == "rec.csv:2:1: `1,000000000E-2` is not a number (expected a decimal such as `-0.25` or `1e-05`; export with a decimal point)")
        // Without a comma in the value the usual message stands.
        #expect(message(good.replacingOccurrences(of: "-2.5", with: "x2.5"), phyphox)
                == "rec.csv:2:16: `x2.500000000E-1` is not a number (expected a decimal such as `-0.25` or `1e-05`; empty, NA, nan or inf mark a missing value)")
        #expect(message(good.replacingOccurrences(of: "\t", with: ","), phyphox)?.hasPrefix("rec.csv:1:1: not phyphox's `Gyroscope.csv`: its header ") == true)
    }
}
