#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import MotionCore

/// One record of a small delimited-text file, split by the csv input's rules.
public struct CSVRecord: Sendable, Equatable {
    /// The fields, unquoted (`""` → `"`) and trimmed of spaces and tabs.
    public var fields: [String]
    /// Where each field starts: `file:line:column` (physical line, 1-based character column).
    public var locations: [SourceLocation]
    /// The record's first physical line.
    public var line: Int
}

/// Splits a whole small file (an intervals labels file) into records by the csv input's rules
/// (docs/inputs.md, "Delimited text (csv)"): RFC 4180 quoting — a field that starts with `"`
/// (after optional blanks) runs to the next lone `"`, `""` inside is one quote, the delimiter and
/// line ends inside quotes are data —, LF or CRLF line ends, a UTF-8 byte-order mark skipped,
/// blank lines skipped, fields trimmed of spaces and tabs, records over 1 MiB refused.
///
/// Record ends are found by `_CSVParser.scanRecord`, the scanner the csv reader runs, and
/// fields are unquoted by the same four-state rules as the csv reader's quoted-record splitter.
public enum CSVRecords {
    /// - Parameters:
    ///   - bytes: the whole file.
    ///   - displayPath: the path named in messages and locations.
    /// - Throws: `IngestError` for a NUL byte, invalid UTF-8, an unclosed quote or a record over 1 MiB.
    public static func split(_ bytes: [UInt8], displayPath: String, delimiter: UInt8 = UInt8(ascii: ",")) throws -> [CSVRecord] {
        try bytes.withUnsafeBufferPointer { b -> [CSVRecord] in
            guard var p = b.baseAddress else { return [] }
            let end = p + b.count
            if b.count >= 3, p[0] == 0xEF, p[1] == 0xBB, p[2] == 0xBF { p += 3 }
            var out: [CSVRecord] = []
            var line = 1
            while p < end {
                var state = _CSVParser.ScanState.fieldStart
                let stop = _CSVParser.scanRecord(p, end, delimiter: delimiter, state: &state) ?? end
                if stop == end && state == .quoted {
                    throw IngestError(.unterminatedQuote, at: location(displayPath, p, line, quoteStart(p, end, delimiter)))
                }
                if stop - p > _CSVParser.maxLineBytes {
                    throw IngestError(.recordTooLong(limitBytes: _CSVParser.maxLineBytes), at: SourceLocation(file: displayPath, line: line))
                }
                var e = stop
                if e > p && (e - 1).pointee == 0x0D { e -= 1 }
                if memchr(p, 0, e - p) != nil {
                    throw IngestError(.nulByte, at: SourceLocation(file: displayPath, line: line))
                }
                var lines = 0
                for q in UnsafeBufferPointer(start: p, count: stop - p) where q == _CSVParser.newline { lines += 1 }
                if UnsafeBufferPointer(start: p, count: e - p).contains(where: { !_NumberKernels.isBlank($0) }) {
                    out.append(try record(p, e, line: line, displayPath: displayPath, delimiter: delimiter))
                }
                line += lines + 1
                p = stop < end ? stop + 1 : end
            }
            return out
        }
    }

    /// Where the quote left open in `[p, end)` starts.
    private static func quoteStart(_ p: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>, _ d: UInt8) -> UnsafePointer<UInt8> {
        var state = _CSVParser.ScanState.fieldStart
        var q = p, open = p
        while q < end {
            let c = q.pointee
            switch state {
            case .fieldStart:
                if c == _CSVParser.quote { state = .quoted; open = q } else if c != d && !_NumberKernels.isBlank(c) { state = .unquoted }
            case .unquoted: if c == d { state = .fieldStart }
            case .quoted: if c == _CSVParser.quote { state = .quoteInQuoted }
            case .quoteInQuoted: state = c == _CSVParser.quote ? .quoted : (c == d ? .fieldStart : .unquoted)
            }
            q += 1
        }
        return open
    }

    private static func location(_ displayPath: String, _ start: UnsafePointer<UInt8>, _ firstLine: Int,
                                 _ field: UnsafePointer<UInt8>) -> SourceLocation {
        var cursor = _LocationCursor(start: start, line: firstLine)
        return cursor.location(displayPath, field)
    }

    /// Line and column of fields met in order, each found by scanning on from the previous one:
    /// linear in the record, where a scan from the record's start per field was quadratic in a
    /// wide header (docs/hardening.md, "Data safety: bounded work on odd input").
    private struct _LocationCursor {
        var p: UnsafePointer<UInt8>
        var line: Int
        var column = 1

        init(start: UnsafePointer<UInt8>, line: Int) {
            p = start
            self.line = line
        }

        mutating func location(_ displayPath: String, _ field: UnsafePointer<UInt8>) -> SourceLocation {
            while p < field {
                if p.pointee == _CSVParser.newline {
                    line += 1
                    column = 1
                } else if p.pointee & 0xC0 != 0x80 {
                    column += 1
                }
                p += 1
            }
            return SourceLocation(file: displayPath, line: line, column: column)
        }
    }

    /// Splits and unquotes `[s, e)` as the csv reader's `splitQuoted` does.
    private static func record(_ s: UnsafePointer<UInt8>, _ e: UnsafePointer<UInt8>, line: Int, displayPath: String,
                               delimiter d: UInt8) throws -> CSVRecord {
        var fields: [String] = [], locations: [SourceLocation] = []
        var field: [UInt8] = []
        var source = s
        var state = _CSVParser.ScanState.fieldStart
        var cursor = _LocationCursor(start: s, line: line)
        func close() throws {
            var a = 0, b = field.count
            while a < b && _NumberKernels.isBlank(field[a]) { a += 1 }
            while b > a && _NumberKernels.isBlank(field[b - 1]) { b -= 1 }
            guard let text = String(validating: field[a..<b], as: UTF8.self) else {
                throw IngestError(.invalidUTF8, at: location(displayPath, s, line, source))
            }
            fields.append(text)
            locations.append(cursor.location(displayPath, source))
            field.removeAll(keepingCapacity: true)
        }
        var p = s
        while p < e {
            let c = p.pointee
            switch state {
            case .fieldStart, .unquoted, .quoteInQuoted:
                if c == d {
                    try close()
                    source = p + 1
                    state = .fieldStart
                } else if c == _CSVParser.quote && state == .fieldStart {
                    field.removeAll(keepingCapacity: true)  // blanks before the opening quote are not part of the field
                    state = .quoted
                } else if c == _CSVParser.quote && state == .quoteInQuoted {
                    field.append(c)
                    state = .quoted
                } else {
                    field.append(c)
                    if state != .fieldStart || !_NumberKernels.isBlank(c) { state = .unquoted }
                }
            case .quoted:
                if c == _CSVParser.quote { state = .quoteInQuoted } else { field.append(c) }
            }
            p += 1
        }
        try close()
        return CSVRecord(fields: fields, locations: locations, line: line)
    }
}
