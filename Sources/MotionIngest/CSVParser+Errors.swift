#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import MotionCore

/// The error path of `_CSVParser`: where a field is (physical line and character column) and
/// the `IngestError`s that name it.
extension _CSVParser {
    /// A NUL byte or invalid UTF-8 in field `i` is an error at the field's column.
    func checkText(_ i: Int, _ row: Row) throws {
        let bytes = UnsafeBufferPointer(start: fields.starts[i], count: fields.ends[i] - fields.starts[i])
        if bytes.contains(0) { throw IngestError(.nulByte, at: location(i, row)) }
        if String(validating: bytes, as: UTF8.self) == nil { throw IngestError(.invalidUTF8, at: location(i, row)) }
    }

    func fieldCountError(_ row: Row) -> IngestError {
        IngestError(.fieldCount(expected: headerCount, found: fields.count),
                    at: SourceLocation(file: displayPath, line: row.firstLine))
    }

    func tooLong(_ line: Int) -> IngestError {
        IngestError(.recordTooLong(limitBytes: Self.maxLineBytes), at: SourceLocation(file: displayPath, line: line))
    }

    /// The quoted field still open at the end of the input: where it starts in `carry`.
    func unterminatedQuote() -> IngestError {
        carry.withUnsafeBufferPointer { b in
            let start = b.baseAddress!
            let end = b.baseAddress! + b.count
            var state = ScanState.fieldStart
            var source = start
            var open = start
            var p = start
            while p < end {
                let c = p.pointee
                switch state {
                case .fieldStart, .unquoted, .quoteInQuoted:
                    if c == delimiter {
                        source = p + 1
                        state = .fieldStart
                    } else if c == Self.quote && state == .fieldStart {
                        open = source
                        state = .quoted
                    } else if c == Self.quote && state == .quoteInQuoted {
                        state = .quoted
                    } else if state != .fieldStart || !_NumberKernels.isBlank(c) {
                        state = .unquoted
                    }
                case .quoted:
                    if c == Self.quote { state = .quoteInQuoted }
                }
                p += 1
            }
            let row = Row(start: start, end: end, firstLine: lineNumber + 1)
            return IngestError(.unterminatedQuote, at: Self.location(displayPath, row, open))
        }
    }

    /// `file:line:column` of field `i`.
    func location(_ i: Int, _ row: Row) -> SourceLocation {
        Self.location(displayPath, row, fields.hasSources ? fields.sources[i] : fields.starts[i])
    }

    /// `file:line:column` of the byte `field` of `row`'s raw bytes: the physical line it is on and
    /// the 1-based character position in that line.
    static func location(_ displayPath: String, _ row: Row, _ field: Pointer) -> SourceLocation {
        var line = row.firstLine
        var lineStart = row.start
        var p = row.start
        while p < field {
            if p.pointee == newline {
                line += 1
                lineStart = p + 1
            }
            p += 1
        }
        return SourceLocation(file: displayPath, line: line, column: _FieldText.column(of: field, lineStart: lineStart))
    }

}
