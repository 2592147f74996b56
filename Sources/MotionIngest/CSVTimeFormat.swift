/// A wall-clock time format for a csv time column (docs/inputs.md, "Delimited text (csv)", `time.format`):
/// a small strftime-like subset, for loggers that write times such as `2022-10-22 18:36:24:895`.
///
/// Directives: `%Y` (4 digits), `%m`, `%d`, `%H`, `%M`, `%S` (2 digits each), `%f` (1 to 9 digits,
/// a fraction of a second: `895` is 0.895 s), `%z` (`Z`, `±HH:MM` or `±HHMM`) and `%%` (a `%`);
/// any other character matches itself. `%Y %m %d %H %M %S` must each occur exactly once, `%f` and
/// `%z` at most once. Times are seconds since the Unix epoch, computed exactly as an integer from
/// the civil date (proleptic Gregorian, as for `iso8601`), the zone subtracted, the fraction added
/// last (`n / 10^digits`, correctly rounded); without `%z` the time is UTC.
public struct CSVTimeFormat: Sendable, Equatable {
    enum Token: Equatable, Sendable {
        case year, month, day, hour, minute, second, fraction, zone
        case literal(UInt8)
    }

    /// Why a pattern cannot be used, for the pipeline decoder.
    public struct Invalid: Error, Equatable {
        public var reason: String
    }

    /// The pattern as written in the pipeline file.
    public let pattern: String
    let tokens: [Token]

    /// The directives accepted, for messages.
    public static let directives = ["%Y", "%m", "%d", "%H", "%M", "%S", "%f", "%z", "%%"]

    public init(pattern: String) throws(Invalid) {
        var tokens: [Token] = []
        let bytes = Array(pattern.utf8)
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            guard c == UInt8(ascii: "%") else {
                tokens.append(.literal(c))
                i += 1
                continue
            }
            guard i + 1 < bytes.count else { throw Invalid(reason: "ends with a lone `%` (write `%%` for a percent sign)") }
            let d = bytes[i + 1]
            switch d {
            case UInt8(ascii: "Y"): tokens.append(.year)
            case UInt8(ascii: "m"): tokens.append(.month)
            case UInt8(ascii: "d"): tokens.append(.day)
            case UInt8(ascii: "H"): tokens.append(.hour)
            case UInt8(ascii: "M"): tokens.append(.minute)
            case UInt8(ascii: "S"): tokens.append(.second)
            case UInt8(ascii: "f"): tokens.append(.fraction)
            case UInt8(ascii: "z"): tokens.append(.zone)
            case UInt8(ascii: "%"): tokens.append(.literal(UInt8(ascii: "%")))
            default:
                let text = String(decoding: bytes[i..<min(bytes.count, i + 2)], as: UTF8.self)
                throw Invalid(reason: "uses `\(text)`, which is not a supported directive")
            }
            i += 2
        }
        let required: [(Token, String)] = [(.year, "%Y"), (.month, "%m"), (.day, "%d"), (.hour, "%H"), (.minute, "%M"), (.second, "%S")]
        for (t, name) in required {
            let n = tokens.filter { $0 == t }.count
            if n != 1 { throw Invalid(reason: n == 0 ? "lacks `\(name)`" : "has `\(name)` \(n) times") }
        }
        for (t, name) in [(Token.fraction, "%f"), (.zone, "%z")] where tokens.filter({ $0 == t }).count > 1 {
            throw Invalid(reason: "has `\(name)` more than once")
        }
        self.pattern = pattern
        self.tokens = tokens
    }

    public static func == (a: CSVTimeFormat, b: CSVTimeFormat) -> Bool { a.pattern == b.pattern }

    typealias Pointer = UnsafePointer<UInt8>

    /// Parses one time field `[start, end)`: blanks around it are ignored; empty or a missing-value
    /// word is missing.
    func parse(_ start: Pointer, _ end: Pointer) -> CSVTime.Result {
        var s = start, e = end
        while s < e && _NumberKernels.isBlank(s.pointee) { s += 1 }
        while e > s && _NumberKernels.isBlank((e - 1).pointee) { e -= 1 }
        if s == e || _NumberKernels.isMissingWord(s, e) { return .missing }
        var p = s
        var year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, offset = 0
        var fraction = 0.0
        func digits(_ count: Int) -> Int? {
            guard e - p >= count else { return nil }
            var v = 0
            for k in 0..<count {
                let c = p[k]
                guard c &- UInt8(ascii: "0") < 10 else { return nil }
                v = v * 10 + Int(c &- UInt8(ascii: "0"))
            }
            p += count
            return v
        }
        for token in tokens {
            switch token {
            case .year: guard let v = digits(4) else { return .invalid }; year = v
            case .month: guard let v = digits(2) else { return .invalid }; month = v
            case .day: guard let v = digits(2) else { return .invalid }; day = v
            case .hour: guard let v = digits(2) else { return .invalid }; hour = v
            case .minute: guard let v = digits(2) else { return .invalid }; minute = v
            case .second: guard let v = digits(2) else { return .invalid }; second = v
            case .fraction:
                var n = 0, k = 0
                while p < e && p.pointee &- UInt8(ascii: "0") < 10 && k < 9 {
                    n = n * 10 + Int(p.pointee &- UInt8(ascii: "0"))
                    k += 1
                    p += 1
                }
                if k == 0 || (p < e && p.pointee &- UInt8(ascii: "0") < 10) { return .invalid }
                var scale = 1.0
                for _ in 0..<k { scale *= 10 }
                fraction = Double(n) / scale
            case .zone:
                guard p < e else { return .invalid }
                let c = p.pointee
                if c == UInt8(ascii: "Z") || c == UInt8(ascii: "z") {
                    p += 1
                } else if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") {
                    p += 1
                    guard let oh = digits(2) else { return .invalid }
                    if p < e && p.pointee == UInt8(ascii: ":") { p += 1 }
                    guard let om = digits(2), oh < 24, om < 60 else { return .invalid }
                    offset = (oh * 3600 + om * 60) * (c == UInt8(ascii: "-") ? -1 : 1)
                } else {
                    return .invalid
                }
            case .literal(let c):
                guard p < e && p.pointee == c else { return .invalid }
                p += 1
            }
        }
        guard p == e else { return .invalid }
        guard (1...12).contains(month), day >= 1, day <= CSVTime.daysInMonth(year: year, month: month),
              hour < 24, minute < 60, second < 60 else { return .invalid }
        let days = CSVTime.daysFromCivil(year: year, month: month, day: day)
        let whole = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return .value(Double(whole) + fraction)
    }

    /// Convenience for tests: parses the UTF-8 of `text`.
    func parse(_ text: String) -> CSVTime.Result {
        let bytes = Array(text.utf8) + [0]
        return bytes.withUnsafeBufferPointer { b in parse(b.baseAddress!, b.baseAddress! + (b.count - 1)) }
    }
}
