/// The fast path of the MotionCollector parser: plain rows, parsed in one pass over the bytes.
///
/// A plain row is `S,label,when,v1,…,vn` ending in `\n` or `\r\n`, with S a sensor code of the
/// file's variant (`A`/`G`/`M`/`D`, or legacy `0`…`3`; no label column in legacy files), the label
/// empty or the previous row's label, every number a decimal `scanPlainDecimal` accepts (blanks
/// around it allowed), exactly the sensor's field count, and the line no longer than
/// `maxLineBytes`. Such a row gives the same result through here as through `processLine`.
/// Anything else (a new label, a missing value, a marker, a blank line, a line cut by the end
/// of the chunk, an error) is left untouched for `processLine`, which handles every case.
///
/// No `memchr` for the line end: the number scans stop at `,` or `\n`, and the line end is where
/// the last value stops.
extension _MotionCollectorParser {
    /// Parses the plain row starting at `lineStart` (bytes before `end` hold complete or partial
    /// lines; `end` is also the end of the readable buffer).
    ///
    /// - Returns: the start of the next line, or nil — with nothing changed — when the line must
    ///   go through `processLine`.
    @inline(__always)
    mutating func plainRow(_ lineStart: Pointer, _ end: Pointer, current: Bool) -> Pointer? {
        var p = lineStart
        guard end - p >= 2 && p[1] == UInt8(ascii: ",") else { return nil }
        let sensor: Int
        if current {
            switch p.pointee {
            case UInt8(ascii: "A"): sensor = 0
            case UInt8(ascii: "G"): sensor = 1
            case UInt8(ascii: "M"): sensor = 2
            case UInt8(ascii: "D"): sensor = 3
            default: return nil
            }
        } else {
            switch p.pointee {
            case UInt8(ascii: "0"): sensor = 0
            case UInt8(ascii: "1"): sensor = 3
            case UInt8(ascii: "2"): sensor = 1
            case UInt8(ascii: "3"): sensor = 2
            default: return nil
            }
        }
        p += 2
        var label: Int32 = -1
        if current {
            var s = p
            while true {
                if p == end { return nil }
                let c = p.pointee
                if c == UInt8(ascii: ",") { break }
                if c == 0x0A { return nil }
                p += 1
            }
            var e = p
            while s < e && _NumberKernels.isBlank(s.pointee) { s += 1 }
            while e > s && _NumberKernels.isBlank((e - 1).pointee) { e -= 1 }
            if s < e {
                guard sameAsLastLabel(s, e) else { return nil }
                label = lastLabelID
            }
            p += 1
        }
        let acc = sensors + sensor
        // Column 0 is When, then the channels; each ends at `,` but the last at the line end.
        let lastColumn = sensor == 3 ? 9 : 3
        var when = 0.0
        var column = 0
        while true {
            guard let v = Self.plainField(p, end), v.stop < end else { return nil }
            let terminator = v.stop.pointee
            if column == 0 {
                when = v.value
                acc.pointee.columns.set(0, v.value)
            } else {
                acc.pointee.columns.set(column, v.value * acc.pointee.factor(column &- 1))
            }
            if column == lastColumn {
                if terminator == 0x0A {
                    p = v.stop + 1
                } else if terminator == 0x0D && end - v.stop >= 2 && v.stop[1] == 0x0A {
                    p = v.stop + 2
                } else {
                    return nil
                }
                break
            }
            guard terminator == UInt8(ascii: ",") else { return nil }
            p = v.stop + 1
            column &+= 1
        }
        if p - lineStart > Self.maxLineBytes + 1 { return nil }
        // The row is good: count it.
        lineNumber &+= 1
        rowsRead &+= 1
        if label >= 0 {
            rowLabels.set(0, when)
            rowLabels.commit(label)
        }
        acc.pointee.present = true
        if keepMask & (1 << sensor) != 0 {
            acc.pointee.columns.commit(Int32(truncatingIfNeeded: lineNumber))
        }
        return p
    }

    /// A numeric field at `start`: blanks, a plain decimal, blanks. The stop is the byte after
    /// them. Blanks cost nothing when there are none.
    @inline(always)
    static func plainField(_ start: Pointer, _ end: Pointer) -> (value: Double, stop: Pointer)? {
        var scan = _NumberKernels.scanPlainDecimal(start, end)
        if scan == nil {
            guard start < end && _NumberKernels.isBlank(start.pointee) else { return nil }
            var p = start
            while p < end && _NumberKernels.isBlank(p.pointee) { p += 1 }
            scan = _NumberKernels.scanPlainDecimal(p, end)
        }
        guard var scan else { return nil }
        if scan.stop < end && _NumberKernels.isBlank(scan.stop.pointee) {
            while scan.stop < end && _NumberKernels.isBlank(scan.stop.pointee) { scan.stop += 1 }
        }
        return scan
    }

    /// Whether `[s, e)` are the bytes of the last non-empty label.
    @inline(__always)
    func sameAsLastLabel(_ s: Pointer, _ e: Pointer) -> Bool {
        let n = e - s
        guard n == lastLabel.count else { return false }
        return lastLabel.withUnsafeBufferPointer { last in
            var i = 0
            while i < n && last[i] == s[i] { i += 1 }
            return i == n
        }
    }
}
