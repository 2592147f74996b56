#if arch(x86_64) && canImport(_Builtin_intrinsics.intel)
import _Builtin_intrinsics.intel
#endif

/// The byte classes of 64 bytes as bit masks, bit i for byte i: commas, points, minus signs,
/// and the bytes that are none of these nor a digit (`other`: a newline, a CR, a blank, a letter…).
///
/// Four 16-byte SIMD compares per class (SSE2 on x86-64: `pcmpeqb`, then `pmovmskb` through the
/// compiler's intrinsics module; elsewhere a multiply gathers the byte masks).
struct _RowWindow {
    var commas: UInt64 = 0
    var points: UInt64 = 0
    var minus: UInt64 = 0
    /// Bytes that are not a digit, `,`, `.` or `-`.
    var other: UInt64 = 0

    /// Classifies the 64 bytes at `p` (all readable).
    @inline(__always)
    init(_ p: UnsafePointer<UInt8>) {
        let raw = UnsafeRawPointer(p)
        // The vector types are spelled out: with `SIMD16(repeating:)` inferred, `.==` resolves
        // to the generic lane-by-lane `Equatable` version instead of one vector compare.
        typealias Bytes = SIMD16<UInt8>
        @inline(__always)
        func classify(_ offset: Int) -> (commas: UInt64, points: UInt64, minus: UInt64, known: UInt64) {
            let v = raw.loadUnaligned(fromByteOffset: offset, as: Bytes.self)
            let comma = v .== Bytes(repeating: UInt8(ascii: ","))
            let point = v .== Bytes(repeating: UInt8(ascii: "."))
            let minusSign = v .== Bytes(repeating: UInt8(ascii: "-"))
            let digit = (v &- Bytes(repeating: UInt8(ascii: "0"))) .< Bytes(repeating: 10)
            return (Self.bits(comma), Self.bits(point), Self.bits(minusSign), Self.bits(comma .| point .| minusSign .| digit))
        }
        let a = classify(0), b = classify(16), c = classify(32), d = classify(48)
        commas = a.commas | b.commas &<< 16 | c.commas &<< 32 | d.commas &<< 48
        points = a.points | b.points &<< 16 | c.points &<< 32 | d.points &<< 48
        minus = a.minus | b.minus &<< 16 | c.minus &<< 32 | d.minus &<< 48
        other = ~(a.known | b.known &<< 16 | c.known &<< 32 | d.known &<< 48)
    }

    /// Bit i set when lane i of `mask` is true.
    @inline(__always)
    static func bits(_ mask: SIMDMask<SIMD16<Int8>>) -> UInt64 {
        #if arch(x86_64) && canImport(_Builtin_intrinsics.intel)
        return UInt64(UInt32(bitPattern: _mm_movemask_epi8(unsafeBitCast(mask, to: __m128i.self))))
        #else
        let (low, high) = unsafeBitCast(mask, to: (UInt64, UInt64).self)
        // Lane i's byte is 0 or 0xFF: keep bit i of byte i, then sum the bytes into the top one.
        let l = ((low & 0x8040_2010_0804_0201) &* 0x0101_0101_0101_0101) &>> 56
        let h = ((high & 0x8040_2010_0804_0201) &* 0x0101_0101_0101_0101) &>> 56
        return l | h &<< 8
        #endif
    }

    /// Bytes in `[first, last]` that cannot be in a row's numeric fields: `other` bytes, and `-`
    /// anywhere but at a field's start (after a comma or at byte 0).
    @inline(__always)
    func problems(_ first: Int, _ last: Int) -> UInt64 {
        let region = ((2 as UInt64) &<< UInt64(truncatingIfNeeded: last) &- 1) & (UInt64.max &<< UInt64(truncatingIfNeeded: first))
        return (other | (minus & ~((commas &<< 1) | 1))) & region
    }
}

/// The masked fast path: plain current-variant rows whose fields are found from `_RowWindow`
/// bit masks instead of byte by byte.
///
/// A row is classified 64 bytes at a time (a D row takes a second window, started at the first
/// field the first one does not end). A field ends at the next comma or `other` byte; so each
/// number is converted from its known digits, with no search for its end and no check per byte:
/// once the row's last field is read, one mask test checks that its numeric fields hold only
/// digits, points and leading minus signs, and that no field but the last ended at anything but
/// a comma; the last must end at `\n` or `\r\n`. Values go into the column block before that
/// test and are committed only after it.
///
/// Accepts a subset of what `plainRow` accepts (no blanks, no exponent, 1…19 digits, no field or
/// label over 62 bytes, 96 bytes readable from each window's start) and gives the same result;
/// `plainRow` takes what it declines.
extension _MotionCollectorParser {
    /// Counts a fast-path row whose values are set in its sensor's column block: its label event
    /// (when it has a label), the sensor's presence, and the row itself when the sensor is kept.
    @inline(__always)
    mutating func commitRow(sensor: Int, label: Int32, when: Double, line: Int) {
        if label >= 0 {
            rowLabels.set(0, when)
            rowLabels.commit(label)
        }
        let acc = sensors + sensor
        acc.pointee.present = true
        if keepMask & (1 << sensor) != 0 {
            acc.pointee.columns.commit(Int32(truncatingIfNeeded: line))
        }
    }
}

extension _MotionCollectorParser {
    /// Bytes that must be readable from a window's start: the 64 it classifies, and the digit
    /// loads of a field ending inside it (at most 19 digits, a sign and a point: 9 more bytes
    /// loaded past byte 62 + 17 at most).
    static let windowReadable = 96

    /// Parses masked rows from `p` on while there are any; returns where the first other line starts.
    mutating func maskedRows(_ p: Pointer, _ end: Pointer) -> Pointer {
        var p = p
        var line = lineNumber
        while let next = maskedRow(p, end, line: line &+ 1) {
            p = next
            line &+= 1
        }
        rowsRead &+= line &- lineNumber
        lineNumber = line
        return p
    }

    /// Sensor index + 1 by `code - "A"`, four bits each, for the current variant's codes A, G, M,
    /// D (0 for any other letter).
    private static let sensorByLetter: UInt64 = 1 << (4 * 0) | 2 << (4 * 6) | 3 << (4 * 12) | 4 << (4 * 3)

    /// The row at `lineStart`, line `line`, when it is a masked row: its values committed, its
    /// label event added; the start of the next line. Nil, with nothing committed, otherwise.
    /// The caller counts the row (`lineNumber`, `rowsRead`).
    @inline(always)
    mutating func maskedRow(_ lineStart: Pointer, _ end: Pointer, line: Int) -> Pointer? {
        guard end - lineStart >= Self.windowReadable && lineStart[1] == UInt8(ascii: ",") else { return nil }
        // The sensor code by table, not by a switch (its jump table cost a mispredicted indirect jump).
        let letter = lineStart.pointee &- UInt8(ascii: "A")
        guard letter < 16 else { return nil }
        let sensor = Int((Self.sensorByLetter &>> (UInt64(letter) &* 4)) & 15) &- 1
        guard sensor >= 0 else { return nil }
        var window = _RowWindow(lineStart)
        // The label runs from byte 2 to the next comma. A non-empty one must be the last label,
        // which holds no newline: so the label does not run into the next line.
        let labelEnd = (window.commas & ~3).trailingZeroBitCount
        guard labelEnd < 63 else { return nil }
        var label: Int32 = -1
        if labelEnd > 2 {
            guard labels.isLast(lineStart + 2, lineStart + labelEnd) else { return nil }
            label = labels.lastID
        }
        // Positions in a window (`first`, `start`, `stop`) are bit numbers 0…64 from
        // `trailingZeroBitCount`: they are converted with `truncatingIfNeeded` and shifted with
        // `&<<`/`&>>`, which cannot trap and need no sign check in the checked release build.
        var first = labelEnd &+ 1  // the first numeric field of this window
        var start = first
        var stops = (window.commas | window.other) & (UInt64.max &<< UInt64(truncatingIfNeeded: first))
        // Each field's first point is taken from here; one left over is a field's second point.
        var points = window.points & (UInt64.max &<< UInt64(truncatingIfNeeded: first))
        let acc = sensors + sensor
        let last = sensor == 3 ? 9 : 3
        // A sensor that is not kept needs only its When (for the label event): its values are
        // never converted, as `processLine` only counts a dropped sensor's fields.
        let converted = keepMask & (1 << sensor) != 0 ? last : 0
        // Values go straight to the block (hoisted: the stores could alias the accumulator).
        let out = acc.pointee.columns.rowStart()
        let scales = acc.pointee.scales
        var base = lineStart
        var column = 0
        var stop = 0
        while true {
            if stops == 0 {
                // The field runs past this window: every stop in it was a comma ending a plain
                // field; classify 64 bytes from the field's start.
                guard window.problems(first, 63) == 0 && points & ((1 &<< UInt64(truncatingIfNeeded: start)) &- 1) == 0 else { return nil }
                base += start
                start = 0
                first = 0
                guard end - base >= Self.windowReadable else { return nil }
                window = _RowWindow(base)
                stops = window.commas | window.other
                points = window.points
            }
            stop = stops.trailingZeroBitCount
            stops &= stops &- 1
            let pointAt = points.trailingZeroBitCount  // 64 when none is left
            // A point before `start` is a second point of an earlier field: not this field's, and
            // left in `points` for the checks to find.
            let hasPoint = UInt(bitPattern: pointAt &- start) < UInt(bitPattern: stop &- start)
            if hasPoint { points &= points &- 1 }
            let negative = (window.minus &>> UInt64(truncatingIfNeeded: start)) & 1
            let integerEnd = hasPoint ? pointAt : stop
            if column <= converted {
                guard let v = _NumberKernels.maskedDecimal(
                    base + start + Int(negative), integerDigits: integerEnd &- start &- Int(negative),
                    fractionDigits: hasPoint ? stop &- pointAt &- 1 : 0, negative: negative != 0)
                else { return nil }
                out[column &* _ColumnBlock.rows] = v * scales[column]
            }
            start = stop &+ 1
            if column == last { break }
            column &+= 1
        }
        // Only the last field ended at something other than a comma: the line end.
        guard window.problems(first, stop) == (1 as UInt64) &<< UInt64(truncatingIfNeeded: stop)
            && points & ((2 &<< UInt64(truncatingIfNeeded: stop)) &- 1) == 0 else { return nil }
        switch base[stop] {
        case 0x0A: break
        case 0x0D:
            guard base[stop &+ 1] == 0x0A else { return nil }
            start &+= 1
        default: return nil
        }
        // The row is good: commit it.
        commitRow(sensor: sensor, label: label, when: out[0], line: line)
        return base + start
    }
}

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
                guard labels.isLast(s, e) else { return nil }
                label = labels.lastID
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
                if keepMask & (1 << sensor) == 0 {
                    // A sensor that is not kept: as in `processLine`, only its field count
                    // matters, so its values are not converted.
                    guard terminator == UInt8(ascii: ","), let next = Self.droppedFields(v.stop + 1, end, count: lastColumn)
                    else { return nil }
                    p = next
                    break
                }
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
        commitRow(sensor: sensor, label: label, when: when, line: lineNumber)
        return p
    }

    /// The `count` fields of a sensor that is not kept, from `start` to the line end: the start
    /// of the next line when there are exactly `count` of them (`count − 1` commas) and the line
    /// ends before `end`; nil otherwise (`processLine` then reports a wrong field count or checks
    /// that the extra fields are empty). Eight bytes at a time while eight are left.
    @inline(__always)
    static func droppedFields(_ start: Pointer, _ end: Pointer, count: Int) -> Pointer? {
        var p = start
        var commas = 0
        while end - p >= 8 {
            let w = _NumberKernels.load(p)
            let newline = zeroBytes(w ^ 0x0A0A_0A0A_0A0A_0A0A)
            let comma = zeroBytes(w ^ 0x2C2C_2C2C_2C2C_2C2C)
            if newline != 0 {
                let at = newline.trailingZeroBitCount &>> 3
                // Commas before the newline only.
                commas &+= (comma & ((1 &<< UInt64(truncatingIfNeeded: at &* 8)) &- 1)).nonzeroBitCount
                return commas == count &- 1 ? p + at + 1 : nil
            }
            commas &+= comma.nonzeroBitCount
            p += 8
        }
        while p < end {
            if p.pointee == 0x0A { return commas == count &- 1 ? p + 1 : nil }
            if p.pointee == UInt8(ascii: ",") { commas &+= 1 }
            p += 1
        }
        return nil
    }

    /// The high bit of every byte of `w` that is zero, exactly (no false positives, unlike the
    /// one-subtraction trick: bytes above a zero byte are not flagged wrongly).
    @inline(__always)
    static func zeroBytes(_ w: UInt64) -> UInt64 {
        let low7 = (w & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F
        return ~(low7 | w | 0x7F7F_7F7F_7F7F_7F7F)
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
}
