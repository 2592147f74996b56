#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import MotionCore

/// A line the fast paths decline, parsed field by field (`processLine`): the current and legacy
/// rows, their fields (label, numbers, trailing empties) and the errors that name a position.
extension _MotionCollectorParser {
    // MARK: - Rows

    /// `Source, Label, When, values…`
    @inline(__always)
    mutating func currentRow(_ lineStart: Pointer, _ e: Pointer, _ readable: Pointer) throws {
        var p = lineStart
        while p < e && _NumberKernels.isBlank(p.pointee) { p += 1 }
        var sensor = -1
        if p < e {
            switch p.pointee {
            case UInt8(ascii: "A"): sensor = 0
            case UInt8(ascii: "G"): sensor = 1
            case UInt8(ascii: "M"): sensor = 2
            case UInt8(ascii: "D"): sensor = 3
            default: break
            }
            p += 1
            while p < e && _NumberKernels.isBlank(p.pointee) { p += 1 }
            if p < e && p.pointee != UInt8(ascii: ",") { sensor = -1 }
        }
        if sensor < 0 { throw sourceError(lineStart, e, variant: .current) }
        let channelCount = sensor == 3 ? 9 : 3
        let row = Row(lineStart: lineStart, end: e, readable: readable, sensor: sensor, variant: .current, expectedFields: channelCount + 3)
        if p == e { throw fieldCountError(row) }
        p += 1
        let labelStart = p
        while p < e && p.pointee != UInt8(ascii: ",") { p += 1 }
        if p == e { throw fieldCountError(row) }
        let label = try labelID(labelStart, p, row)
        p += 1
        let when = try number(p, e, row)
        p = when.stop
        if when.ok && label >= 0 {
            rowLabels.set(0, when.value)
            rowLabels.commit(label)
        }
        try values(sensor: sensor, channelCount: channelCount, time: when, from: p, row)
    }

    /// `Type, When, values…`, or a marker `4, When` / `5, When`.
    @inline(__always)
    mutating func legacyRow(_ lineStart: Pointer, _ e: Pointer, _ readable: Pointer) throws {
        var p = lineStart
        while p < e && _NumberKernels.isBlank(p.pointee) { p += 1 }
        var type = -1
        if p < e {
            let d = Int(p.pointee) - 48
            if d >= 0 && d <= 5 { type = d }
            p += 1
            while p < e && _NumberKernels.isBlank(p.pointee) { p += 1 }
            if p < e && p.pointee != UInt8(ascii: ",") { type = -1 }
        }
        if type < 0 { throw sourceError(lineStart, e, variant: .legacy) }
        if type >= 4 {
            let row = Row(lineStart: lineStart, end: e, readable: readable, sensor: type, variant: .legacy, expectedFields: 2)
            if p == e { throw fieldCountError(row) }
            let when = try number(p + 1, e, row)
            if when.stop != e { try trailingFieldsMustBeEmpty(when.stop, e, row) }
            if when.ok {
                let name = type == 4 ? "W" : "T"
                var id = markerNames.firstIndex(of: name) ?? -1
                if id < 0 {
                    id = markerNames.count
                    markerNames.append(name)
                }
                markerTimes.append(when.value)
                markerIDs.append(Int32(id))
            } else {
                missingRows += 1
            }
            return
        }
        let sensor = MotionCollectorSensor.indexOfLegacyType[type]
        let channelCount = sensor == 3 ? 9 : 3
        let row = Row(lineStart: lineStart, end: e, readable: readable, sensor: sensor, variant: .legacy, expectedFields: channelCount + 2)
        if p == e { throw fieldCountError(row) }
        let when = try number(p + 1, e, row)
        try values(sensor: sensor, channelCount: channelCount, time: when, from: when.stop, row)
    }

    /// The channel fields after When; `p` is at the `,` ending When (or at the line end).
    @inline(__always)
    private mutating func values(sensor: Int, channelCount: Int, time: Number, from start: Pointer, _ row: Row) throws {
        var p = start
        let e = row.end
        sensors[sensor].present = true
        guard keep[sensor] else {
            // Not kept: only check the field count.
            var commas = 0
            while p < e {
                if p.pointee == UInt8(ascii: ",") {
                    commas += 1
                    if commas == channelCount + 1 { return try trailingFieldsMustBeEmpty(p, e, row) }
                }
                p += 1
            }
            if commas < channelCount { throw fieldCountError(row) }
            return
        }
        // Values are written into spare room and committed only when the whole row is valid.
        let acc = sensors + sensor
        var ok = time.ok
        acc.pointee.columns.set(0, time.value)
        for c in 0..<channelCount {
            if p == e { throw fieldCountError(row) }
            let v = try number(p + 1, e, row)
            p = v.stop
            ok = ok && v.ok
            acc.pointee.columns.set(c + 1, v.value * acc.pointee.factor(c))
        }
        if p != e { try trailingFieldsMustBeEmpty(p, e, row) }
        if ok {
            acc.pointee.columns.commit(Int32(truncatingIfNeeded: lineNumber))
        } else {
            missingRows += 1
        }
    }

    // MARK: - Fields

    /// Where a row is and what it should look like, for error messages.
    struct Row {
        var lineStart: Pointer
        var end: Pointer
        /// End of the buffer holding the line (see `scanDecimal`'s `readableEnd`).
        var readable: Pointer
        var sensor: Int
        var variant: MotionCollectorFile.Variant
        var expectedFields: Int

        /// Number of fields on the line, and whether any beyond `expectedFields` is non-blank.
        func fieldShape() -> (count: Int, extraNonBlank: Bool) {
            var count = 1
            var extra = false
            var p = lineStart
            while p < end {
                let c = p.pointee
                if c == UInt8(ascii: ",") { count += 1 } else if count > expectedFields && !_NumberKernels.isBlank(c) { extra = true }
                p += 1
            }
            return (count, extra)
        }

        var sourceText: String {
            switch variant {
            case .current: return MotionCollectorSensor.all[sensor].code
            case .legacy: return sensor >= 4 ? String(sensor) : String(MotionCollectorSensor.all[sensor].legacyType)
            }
        }

        func fieldCountError(_ parser: _MotionCollectorParser) -> IngestError {
            let shape = fieldShape()
            return IngestError(.wrongFieldCount(source: sourceText, expected: expectedFields, found: shape.count),
                               at: SourceLocation(file: parser.displayPath, line: parser.lineNumber))
        }

        /// The field-count error if the line's shape is wrong, else nil.
        func fieldCountProblem(_ parser: _MotionCollectorParser) -> IngestError? {
            let shape = fieldShape()
            if shape.count < expectedFields || shape.extraNonBlank { return fieldCountError(parser) }
            return nil
        }
    }

    struct Number {
        var value: Double
        /// False for a missing value.
        var ok: Bool
        /// The `,` after the field, or the line end.
        var stop: Pointer
    }

    /// Parses the numeric field starting at `p`.
    ///
    /// A static fast path (a method call on `self` would copy the whole parser struct for every
    /// field) with the error path behind it.
    @inline(__always)
    private mutating func number(_ p: Pointer, _ e: Pointer, _ row: Row) throws -> Number {
        let scan = _NumberKernels.scanDecimal(p, e, readableEnd: row.readable)
        if scan.status != .notANumber && (scan.stop == e || scan.stop.pointee == UInt8(ascii: ",")) {
            return Number(value: scan.value, ok: scan.status == .value, stop: scan.stop)
        }
        return try slowNumber(p, e, row)
    }

    /// A field that is not a plain decimal: a missing-value word, or an error.
    @inline(never)
    private func slowNumber(_ p: Pointer, _ e: Pointer, _ row: Row) throws -> Number {
        var fieldEnd = p
        while fieldEnd < e && fieldEnd.pointee != UInt8(ascii: ",") { fieldEnd += 1 }
        let scan = _NumberKernels.scanDecimal(p, fieldEnd)
        if scan.status == .overflow && scan.stop == fieldEnd { return Number(value: 0, ok: false, stop: fieldEnd) }
        if _NumberKernels.isMissingWord(p, fieldEnd) { return Number(value: 0, ok: false, stop: fieldEnd) }
        if let problem = row.fieldCountProblem(self) { throw problem }
        try checkText(p, fieldEnd, row)
        throw IngestError(.notANumber(value: _FieldText.display(p, fieldEnd)), at: location(p, row))
    }

    /// Returns the label's id (-1 for an empty label), interning new names.
    @inline(__always)
    private mutating func labelID(_ start: Pointer, _ end: Pointer, _ row: Row) throws -> Int32 {
        var s = start, e = end
        while s < e && _NumberKernels.isBlank(s.pointee) { s += 1 }
        while e > s && _NumberKernels.isBlank((e - 1).pointee) { e -= 1 }
        if s == e { return -1 }
        if labels.isLast(s, e) { return labels.lastID }
        try checkText(start, e, row)
        return labels.intern(s, e)
    }

    /// From the `,` at `p` to the line end, only blanks and commas are allowed.
    @inline(__always)
    private mutating func trailingFieldsMustBeEmpty(_ p: Pointer, _ e: Pointer, _ row: Row) throws {
        var q = p
        while q < e {
            let c = q.pointee
            if c != UInt8(ascii: ",") && !_NumberKernels.isBlank(c) { throw fieldCountError(row) }
            q += 1
        }
    }

    @inline(never)
    private func fieldCountError(_ row: Row) -> IngestError {
        row.fieldCountError(self)
    }

    // MARK: - Errors

    /// A NUL byte or invalid UTF-8 in `[start, end)` is an error at the field's column.
    private func checkText(_ start: Pointer, _ end: Pointer, _ row: Row) throws {
        let bytes = UnsafeBufferPointer(start: start, count: end - start)
        if bytes.contains(0) { throw IngestError(.nulByte, at: location(start, row)) }
        if String(validating: bytes, as: UTF8.self) == nil { throw IngestError(.invalidUTF8, at: location(start, row)) }
    }

    private func sourceError(_ lineStart: Pointer, _ e: Pointer, variant: MotionCollectorFile.Variant) -> IngestError {
        var fieldEnd = lineStart
        while fieldEnd < e && fieldEnd.pointee != UInt8(ascii: ",") { fieldEnd += 1 }
        let row = Row(lineStart: lineStart, end: e, readable: e, sensor: 0, variant: variant, expectedFields: 0)
        do { try checkText(lineStart, fieldEnd, row) } catch let error as IngestError { return error } catch {}
        return IngestError(.unknownSource(value: _FieldText.display(lineStart, fieldEnd), variant: variant),
                           at: location(lineStart, row))
    }

    /// Line `line` is too long. On line 1 that means no header (typically a binary file): the
    /// header error quotes the line's start (`carry` if it holds the start, else `preview`).
    func overlongLine(_ line: Int, preview: Pointer, _ previewEnd: Pointer) -> IngestError {
        if variant == nil {
            let shown: String
            if carry.isEmpty {
                shown = _FieldText.display(Self.skippingBOM(preview, previewEnd), min(previewEnd, preview + 200))
            } else {
                shown = carry.withUnsafeBufferPointer {
                    let s = $0.baseAddress!
                    return _FieldText.display(Self.skippingBOM(s, s + $0.count), s + min($0.count, 200))
                }
            }
            return IngestError(.notAHeader(text: shown), at: SourceLocation(file: displayPath, line: 1))
        }
        return IngestError(.lineTooLong(limitBytes: Self.maxLineBytes), at: SourceLocation(file: displayPath, line: line))
    }

    static func skippingBOM(_ s: Pointer, _ e: Pointer) -> Pointer {
        e - s >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF ? s + 3 : s
    }

    /// `file:line:column` of the field starting at `field`; the column counts characters.
    private func location(_ field: Pointer, _ row: Row) -> SourceLocation {
        SourceLocation(file: displayPath, line: lineNumber, column: _FieldText.column(of: field, lineStart: row.lineStart))
    }
}
