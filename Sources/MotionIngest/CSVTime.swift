/// Parses the time field of a csv row into seconds (docs/inputs.md, "Delimited text (csv)" and "Bad rows and time order").
///
/// Numeric units are docs/inputs.md, "Bad rows and time order" decimals. For `ms`, `us` and `ns` a plain decimal whose integer
/// part fits an `Int64` is split exactly: `whole = n / scale` and `rest = n % scale` as
/// integers, then `Double(whole) + (Double(rest) + fraction) / scale`, so an epoch in
/// nanoseconds (`1700000000123456789`) becomes the double nearest to its value in seconds
/// rather than picking up the rounding of a 19-digit double. Other decimals (an exponent, an
/// integer part beyond `Int64.max`) are parsed as doubles and divided.
///
/// ISO 8601: `YYYY-MM-DDTHH:MM:SS[.fraction][Z|±HH:MM|±HHMM]`, `T` (or `t`) or one space between
/// date and time, surrounding blanks ignored; no zone means UTC. Seconds since the Unix epoch
/// are computed exactly as an integer (days from the civil date, Howard Hinnant's algorithm),
/// and the fraction, read as a correctly rounded decimal, is added last. Fields out of range
/// (month 13, 31 April, hour 24, second 60, zone beyond ±23:59) are invalid.
enum CSVTime {
    typealias Pointer = UnsafePointer<UInt8>

    /// A time field's meaning.
    enum Result: Equatable {
        /// Seconds.
        case value(Double)
        /// Empty, a missing-value word, or a decimal beyond the range of a double.
        case missing
        case invalid
    }

    /// Parses `[start, end)` (one field, without delimiters or quotes) in `unit`.
    @inline(__always)
    static func parse(_ start: Pointer, _ end: Pointer, unit: CSVFormat.TimeUnit) -> Result {
        switch unit {
        case .s:
            let scan = _NumberKernels.scanDecimal(start, end)
            if scan.stop == end && scan.status == .value { return .value(scan.value) }
            return slowDecimal(start, end, scale: 1)
        case .ms: return scaled(start, end, scale: 1_000)
        case .us: return scaled(start, end, scale: 1_000_000)
        case .ns: return scaled(start, end, scale: 1_000_000_000)
        case .iso8601: return iso8601(start, end)
        }
    }

    /// Convenience for tests and configuration: parses the UTF-8 of `text`.
    static func parse(_ text: String, unit: CSVFormat.TimeUnit) -> Result {
        let bytes = Array(text.utf8) + [0]  // never empty, so the base address exists
        return bytes.withUnsafeBufferPointer { b in
            parse(b.baseAddress!, b.baseAddress! + (b.count - 1), unit: unit)
        }
    }

    // MARK: - Decimals

    @inline(__always)
    private static func isDigit(_ c: UInt8) -> Bool { c &- UInt8(ascii: "0") < 10 }

    /// A decimal count of `1/scale` seconds.
    private static func scaled(_ start: Pointer, _ end: Pointer, scale: Int64) -> Result {
        var p = start
        while p < end && _NumberKernels.isBlank(p.pointee) { p += 1 }
        var negative = false
        if p < end && (p.pointee == UInt8(ascii: "-") || p.pointee == UInt8(ascii: "+")) {
            negative = p.pointee == UInt8(ascii: "-")
            p += 1
        }
        var n: Int64 = 0
        var exact = true
        let integerStart = p
        while p < end && isDigit(p.pointee) {
            let (times10, o1) = n.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int64(p.pointee &- UInt8(ascii: "0")))
            if o1 || o2 { exact = false; break }
            n = sum
            p += 1
        }
        if exact && p > integerStart {
            var fraction = 0.0
            var q = p
            if q < end && q.pointee == UInt8(ascii: ".") {
                let dot = q
                q += 1
                while q < end && isDigit(q.pointee) { q += 1 }
                if q - dot > 1 { fraction = _NumberKernels.scanDecimal(dot, q).value }
            }
            while q < end && _NumberKernels.isBlank(q.pointee) { q += 1 }
            if q == end {
                let whole = n / scale, rest = n % scale
                let seconds = Double(whole) + (Double(rest) + fraction) / Double(scale)
                return .value(negative ? -seconds : seconds)
            }
        }
        let scan = _NumberKernels.scanDecimal(start, end)
        if scan.stop == end && scan.status == .value { return .value(scan.value / Double(scale)) }
        return slowDecimal(start, end, scale: Double(scale))
    }

    /// Not a plain decimal: overflow or a missing-value word, else invalid.
    @inline(never)
    private static func slowDecimal(_ start: Pointer, _ end: Pointer, scale: Double) -> Result {
        switch _NumberKernels.classifyField(start, end) {
        case .value(let v): return .value(v / scale)
        case .missing: return .missing
        case .invalid: return .invalid
        }
    }

    // MARK: - ISO 8601

    /// True when an ISO 8601 time `[start, end)` ends in a zone (`Z`, `±HH:MM`, `±HHMM`): a `Z`, `z`,
    /// `+` or `-` after the date and the `T`. Only asked of fields that parsed as times.
    static func hasZoneDesignator(_ start: Pointer, _ end: Pointer) -> Bool {
        var p = start
        while p < end && (p.pointee == 0x20 || p.pointee == 0x09) { p += 1 }
        p += 11  // `YYYY-MM-DDT`: the date's own `-` are before this
        while p < end {
            switch p.pointee {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"), UInt8(ascii: "+"), UInt8(ascii: "-"): return true
            default: p += 1
            }
        }
        return false
    }

    /// Reads exactly `count` digits at `p` as a number, or nil.
    @inline(__always)
    private static func digits(_ p: inout Pointer, _ end: Pointer, _ count: Int) -> Int? {
        guard end - p >= count else { return nil }
        var v = 0
        for i in 0..<count {
            let c = p[i]
            guard isDigit(c) else { return nil }
            v = v * 10 + Int(c &- UInt8(ascii: "0"))
        }
        p += count
        return v
    }

    @inline(__always)
    private static func expect(_ p: inout Pointer, _ end: Pointer, _ c: UInt8) -> Bool {
        guard p < end && p.pointee == c else { return false }
        p += 1
        return true
    }

    /// Days from 1970-01-01 to the proleptic Gregorian date `y-m-d` (Howard Hinnant's
    /// `days_from_civil`).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func iso8601(_ start: Pointer, _ end: Pointer) -> Result {
        var s = start, e = end
        while s < e && _NumberKernels.isBlank(s.pointee) { s += 1 }
        while e > s && _NumberKernels.isBlank((e - 1).pointee) { e -= 1 }
        if s == e || _NumberKernels.isMissingWord(s, e) { return .missing }
        var p = s
        guard let year = digits(&p, e, 4), expect(&p, e, UInt8(ascii: "-")),
              let month = digits(&p, e, 2), expect(&p, e, UInt8(ascii: "-")),
              let day = digits(&p, e, 2), p < e,
              p.pointee == UInt8(ascii: "T") || p.pointee == UInt8(ascii: "t") || p.pointee == UInt8(ascii: " ")
        else { return .invalid }
        p += 1
        guard let hour = digits(&p, e, 2), expect(&p, e, UInt8(ascii: ":")),
              let minute = digits(&p, e, 2), expect(&p, e, UInt8(ascii: ":")),
              let second = digits(&p, e, 2)
        else { return .invalid }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month),
              hour < 24, minute < 60, second < 60 else { return .invalid }
        var fraction = 0.0
        if p < e && p.pointee == UInt8(ascii: ".") {
            let dot = p
            p += 1
            while p < e && isDigit(p.pointee) { p += 1 }
            guard p - dot > 1 else { return .invalid }
            fraction = _NumberKernels.scanDecimal(dot, p).value
        }
        var offsetSeconds = 0
        if p < e {
            let c = p.pointee
            if c == UInt8(ascii: "Z") || c == UInt8(ascii: "z") {
                p += 1
            } else if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") {
                p += 1
                guard let oh = digits(&p, e, 2) else { return .invalid }
                _ = expect(&p, e, UInt8(ascii: ":"))
                guard let om = digits(&p, e, 2), oh < 24, om < 60 else { return .invalid }
                offsetSeconds = (oh * 3600 + om * 60) * (c == UInt8(ascii: "-") ? -1 : 1)
            } else {
                return .invalid
            }
        }
        guard p == e else { return .invalid }
        let days = daysFromCivil(year: year, month: month, day: day)
        let whole = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return .value(Double(whole) + fraction)
    }
}
