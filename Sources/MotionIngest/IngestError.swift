import MotionCore

/// A problem reading an input file: what went wrong (`kind`), where (`location`) and the one
/// sentence shown to the user.
///
/// Messages follow docs/commands.md: `file:line:column: what is wrong (what is accepted)`. Lines are
/// physical and 1-based (the header is line 1); columns are the 1-based character position
/// where the offending field starts (just after the preceding comma, so leading spaces count).
///
/// Exit statuses: `.noInput` (66) when the file cannot be opened because it is missing or
/// unreadable, `.ioError` (74) when reading fails midway, `.dataError` (65) for everything else.
public struct IngestError: UserFacingError, Equatable {
    /// What went wrong, with the values the message quotes.
    public enum Kind: Sendable, Equatable {
        /// A numeric field is neither a decimal nor a missing-value marker (`1.2.3`, `0x10`).
        case notANumber(value: String)
        /// The Source (or legacy Type) field names no known sensor.
        case unknownSource(value: String, variant: MotionCollectorFile.Variant)
        /// A row has fewer fields than its sensor needs, or extra non-empty fields.
        case wrongFieldCount(source: String, expected: Int, found: Int)
        /// Line 1 is not a MotionCollector header (also what a binary file gets).
        case notAHeader(text: String)
        /// The file has no bytes at all.
        case emptyFile
        /// A text input whose first bytes are binary (`description`: the bytes in hex and what
        /// they look like); `compression` names the format it was decompressed from, if any.
        case binaryNotText(description: String, compression: String?)
        /// A compressed input that cannot be read to its end (truncated, corrupt, trailing
        /// bytes); `problem` names the format and the byte offset in the compressed file, which
        /// the location holds too.
        case decompression(problem: String)
        /// The file has a header but no data row.
        case noDataRows
        /// A field holds a NUL byte.
        case nulByte
        /// A field is not valid UTF-8.
        case invalidUTF8
        /// A line is longer than `limitBytes`.
        case lineTooLong(limitBytes: Int)
        /// A sample's time is below its predecessor's in the same stream (docs/inputs.md, "Bad rows and time order").
        case timeDecreases(stream: String, time: Double, previousTime: Double, previousLine: Int?)
        /// The file cannot be opened; `reason` is `strerror`'s text.
        case cannotOpen(reason: String, errno: Int32)
        /// Reading the file failed; `reason` is `strerror`'s text.
        case readFailed(reason: String, errno: Int32)
        /// csv: a column the input reads (`role` names the pipeline key that asks for it) is not
        /// in the header, whose trimmed column names are `header`.
        case missingColumn(column: String, role: String, header: [String])
        /// csv of a phone-logger preset: the header lacks `column`, so the file is not the app's
        /// (`app` says which file and header the app writes).
        case notAppHeader(column: String, header: [String], app: CSVFormat.AppExport)
        /// csv of a phone-logger preset: a numeric field that is not a number, with the app's note
        /// on decimal-comma exports.
        case notANumberInApp(value: String, note: String)
        /// csv: a column the input reads occurs more than once in the header.
        case duplicateColumn(column: String, role: String)
        /// csv: a first line `sep=…` that names no accepted delimiter (`value` is the line).
        case badSepLine(value: String)
        /// csv: the first line `sep=X` names another delimiter than the input's `delimiter:`.
        case sepConflict(sep: String, given: String)
        /// csv: the file ends within the `skip_lines` preamble (`lines` physical lines in all).
        case preambleTooShort(lines: Int, skip: Int)
        /// csv: two header names that are equal after trimming name a column the input reads
        /// (`first` and `second` are their 1-based positions, `raw` their names as written).
        case ambiguousColumn(column: String, role: String, first: Int, second: Int, firstRaw: String, secondRaw: String)
        /// csv: a time field is neither a time in `unit` (`s`, `ms`, `us`, `ns`, `iso8601`) nor a
        /// missing value.
        case notATime(value: String, unit: String)
        /// A time written with its own zone in an input whose `time.zone` is set.
        case zonedTimeWithTimeZone(value: String, zone: String)
        /// csv: a quoted field is still open at the end of the file.
        case unterminatedQuote
        /// csv: a row lacks a field the input reads, or has non-empty fields beyond the header's.
        case fieldCount(expected: Int, found: Int)
        /// csv: a record (a line, or lines joined by quoted newlines) is longer than `limitBytes`.
        case recordTooLong(limitBytes: Int)
        /// An IIO `_type` string is invalid (docs/iio-format.md §2.2); `code` is its `E_*` name.
        case iioScanType(code: String, channel: String, text: String, problem: String)
        /// An IIO channel layout cannot be used; `code` is `E_NO_CHANNELS`, `E_DUP_INDEX`,
        /// `E_MISSING_ATTR`, `E_BAD_NUMBER`, `E_LIMIT` or `E_NO_TIME`.
        case iioLayout(code: String, problem: String)
        /// An IIO dump ends with a partial scan and the input is `strict: true`; the location's
        /// byte offset is where the partial scan starts.
        case iioPartialScan(scanBytes: Int, leftoverBytes: Int)
        /// An IIO dump holds no whole scan.
        case iioNoScans(fileBytes: Int, scanBytes: Int)
        /// An IIO scan's timestamp is below the previous scan's (docs/inputs.md, "Bad rows and time order"); the location's byte
        /// offset is where scan `scan` (0-based) starts.
        case iioTimeDecreases(stream: String, scan: Int, time: Double, previousTime: Double)
        /// An Axivity CWA file that cannot be read (not CWA, cut inside its header, no usable
        /// block, a block without the kept gyroscope); the location holds the byte offset.
        case cwa(problem: String)
        /// An ActiGraph GT3X file that cannot be read (not a ZIP archive, cut short, no
        /// `log.bin` or `info.txt`, a sample rate or acceleration scale missing or impossible, no
        /// usable record); the location holds the byte offset (of the file, or of `log.bin` or
        /// the line of `info.txt`, as the message says).
        case gt3x(problem: String)
    }

    /// What went wrong.
    public var kind: Kind
    /// The file (as displayed), and the line and column where there is one.
    public var location: SourceLocation

    /// Creates an error of `kind` at `location`.
    public init(_ kind: Kind, at location: SourceLocation) {
        self.kind = kind
        self.location = location
    }

    public var exitStatus: ExitStatus {
        switch kind {
        case .cannotOpen: return .noInput
        case .readFailed: return .ioError
        default: return .dataError
        }
    }

    /// At ``location``; the sentence is ``message`` without its leading location.
    public var diagnostics: [Diagnostic] {
        [Diagnostic.from(sentence: message, severity: .error, known: location)]
    }

    /// A header's names joined by commas, cut after 200 characters.
    static func shortHeader(_ names: [String]) -> String {
        let text = names.joined(separator: ",")
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }

    public var message: String {
        let at = location.description
        switch kind {
        case .notANumber(let value):
            return "\(at): `\(value)` is not a number (expected a decimal such as `-0.25` or `1e-05`; "
                + "empty, NA, nan or inf mark a missing value)"
        case .unknownSource(let value, .current):
            return value.isEmpty
                ? "\(at): missing source (expected A, G, M or D)"
                : "\(at): unknown source `\(value)` (expected A, G, M or D)"
        case .unknownSource(let value, .legacy):
            return value.isEmpty
                ? "\(at): missing type (expected 0, 1, 2 or 3, or the marker 4 or 5)"
                : "\(at): unknown type `\(value)` (expected 0, 1, 2 or 3, or the marker 4 or 5)"
        case .wrongFieldCount(let source, let expected, let found):
            let article = source.first.map { "AEFHILMNORSX8".contains($0) } == true ? "an" : "a"
            return "\(at): \(article) `\(source)` row needs \(expected) fields, found \(found)"
        case .notAHeader(let text):
            return "\(at): not a MotionCollector header: `\(text)` "
                + "(expected `Source, Label, When, X, Y, Z, …` or `Type, When, X, …`)"
        case .emptyFile:
            return "\(at): the file is empty (expected a header such as `Source, Label, When, X, Y, Z, …`)"
        case .noDataRows:
            return "\(at): no data rows"
        case .binaryNotText(let description, let compression):
            let what = compression.map { "binary, not text, once \($0)-decompressed" } ?? "binary, not text"
            return "\(location.file): \(what): \(description)"
        case .decompression(let problem):
            // `FILE at byte N: …` (the offset is in the compressed file; `problem` names it too).
            return "\(at): \(problem)"
        case .nulByte:
            return "\(at): a field contains a NUL byte (expected text; is this a binary file?)"
        case .invalidUTF8:
            return "\(at): a field is not valid UTF-8 (expected UTF-8 text)"
        case .lineTooLong(let limit):
            return "\(at): line is longer than \(limit) bytes (is this a MotionCollector file?)"
        case .timeDecreases(let stream, let time, let previousTime, let previousLine):
            let prev = previousLine.map { " at line \($0)" } ?? ""
            return "\(at): `\(stream)` time \(time) is earlier than the previous `\(stream)` sample's "
                + "\(previousTime)\(prev) (times in a stream must not decrease; `sort: true` on the input sorts them)"
        case .cannotOpen(let reason, _):
            return "\(at): cannot open the file: \(reason)"
        case .readFailed(let reason, _):
            return "\(at): cannot read the file: \(reason)"
        case .iioScanType(let code, let channel, let text, let problem):
            let shown = text.isEmpty ? "an empty type" : "type `\(text)`"
            return "\(at): `\(channel)` has \(shown): \(problem) (\(code); \(IIOScanType.expectedForm))"
        case .iioLayout(let code, let problem):
            return "\(at): \(problem) (\(code))"
        case .iioPartialScan(let scanBytes, let leftoverBytes):
            return "\(at): the dump ends with a partial scan of \(leftoverBytes) bytes (scans are \(scanBytes) bytes; "
                + "the capture was cut short; without `strict: true` the whole scans are decoded and the tail is dropped)"
        case .iioNoScans(let fileBytes, let scanBytes):
            let what = fileBytes == 0 ? "the dump is empty" : "the dump's \(fileBytes) bytes are less than one \(scanBytes)-byte scan"
            return "\(at): no data rows: \(what) (a file without data is an error unless `on_error: skip`)"
        case .iioTimeDecreases(let stream, let scan, let time, let previousTime):
            let offset = location.byteOffset.map { " at byte offset \($0)" } ?? ""
            return "\(location.file): scan \(scan)\(offset): `\(stream)` timestamp \(time) s is earlier than the previous scan's "
                + "\(previousTime) s (times in a stream must not decrease; `sort: true` on the input sorts them)"
        case .cwa(let problem):
            return "\(at): \(problem)"
        case .gt3x(let problem):
            return "\(at): \(problem)"
        case .missingColumn(let column, let role, let header):
            let hint = Text.suggestion(for: column, among: header).map { "; did you mean `\($0)`?" } ?? ""
            let columns = Text.bounded(header.lazy.map { "`\($0)`" }, shown: 20, lastSeparator: ", ")
            return "\(at): no column `\(column)` (named by `\(role)`) in the header\(hint) (the columns are \(columns))"
        case .notAppHeader(let column, let header, let app):
            let found = header.isEmpty ? "an empty header" : "`\(Self.shortHeader(header))`"
            return "\(at): not \(app.file): its header \(found) has no column `\(column)` "
                + "(expected the header `\(app.header)`\(app.headerNote))"
        case .notANumberInApp(let value, let note):
            return "\(at): `\(value)` is not a number (expected a decimal such as `-0.25` or `1e-05`; \(note))"
        case .duplicateColumn(let column, let role):
            return "\(at): column `\(column)` (named by `\(role)`) occurs more than once in the header "
                + "(expected each column the input reads to be named once)"
        case .badSepLine(let value):
            return "\(at): `\(value)` is not a delimiter line (expected `sep=,`, `sep=;` or `sep=` and a tab, "
                + "Excel's first-line convention, alone on line 1)"
        case .sepConflict(let sep, let given):
            return "\(at): the file's first line says the delimiter is `\(sep)` but the input's `delimiter:` is `\(given)` "
                + "(remove `delimiter:` or make them agree)"
        case .preambleTooShort(let lines, let skip):
            return "\(at): the file has \(lines) line\(lines == 1 ? "" : "s") but `skip_lines` is \(skip) "
                + "(expected the skipped lines, then a header and data rows)"
        case .ambiguousColumn(let column, let role, let first, let second, let firstRaw, let secondRaw):
            return "\(at): column `\(column)` (named by `\(role)`) matches header columns \(first) (`\(firstRaw)`) and \(second) "
                + "(`\(secondRaw)`), which are equal after trimming spaces and tabs (expected each column the input reads to be named once)"
        case .notATime(let value, let unit):
            return "\(at): `\(value)` is not a time (expected \(Self.timeForm(unit)); empty or NA mark a missing value)"
        case .zonedTimeWithTimeZone(let value, let zone):
            return "\(at): `\(value)` gives its own zone, but the input's `time.zone` is `\(zone)` (expected local wall times "
                + "without a zone, such as `2024-05-01 14:30:00`; remove `time.zone` to read times that carry their zone)"
        case .unterminatedQuote:
            return "\(at): a quoted field is not closed before the end of the file (expected a closing `\"`; "
                + "write a `\"` inside a quoted field as `\"\"`)"
        case .fieldCount(let expected, let found):
            return "\(at): the row has \(found) fields but the header has \(expected) "
                + "(a field that contains the delimiter must be quoted)"
        case .recordTooLong(let limit):
            return "\(at): line is longer than \(limit) bytes (is a quote left open, or is this not a delimited text file?)"
        }
    }

    /// The accepted form of a csv time in `unit`, for `notATime`.
    static func timeForm(_ unit: String) -> String {
        switch unit {
        case "s": return "seconds as a decimal such as `12.5` or `1700000000.25`"
        case "ms": return "milliseconds as a decimal such as `1700000000250`"
        case "us": return "microseconds as a decimal such as `1700000000250000`"
        case "ns": return "nanoseconds as a decimal such as `1700000000250000000`"
        case "iso8601":
            return "an ISO 8601 time such as `2024-05-01T12:30:00.25Z`, `2024-05-01 14:30:00+02:00` "
                + "or `2024-05-01T12:30:00` (UTC)"
        default:
            return "a time in the format `\(unit)` of `time.format`"
        }
    }
}
