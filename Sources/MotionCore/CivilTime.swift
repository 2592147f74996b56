/// UTC civil time (proleptic Gregorian) of seconds since 1970-01-01T00:00:00, by Howard Hinnant's
/// `civil_from_days`; the inverse of the readers' `daysFromCivil`. For messages and the
/// synthesized files' clocks.
public struct CivilTime: Sendable, Equatable {
    public var year: Int64, month: Int64, day: Int64
    public var hour: Int64, minute: Int64, second: Int64

    public init(epochSeconds s: Int64) {
        let days = s >= 0 ? s / 86_400 : (s - 86_399) / 86_400
        let rest = s - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        day = doy - (153 * mp + 2) / 5 + 1
        month = mp < 10 ? mp + 3 : mp - 9
        year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        hour = rest / 3600
        minute = rest / 60 % 60
        second = rest % 60
    }

    /// `YYYY{d}MM{d}DD{between}HH{t}MM{t}SS`.
    public func text(dateSeparator d: String = "-", between: String = " ", timeSeparator t: String = ":") -> String {
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(year)\(d)\(two(month))\(d)\(two(day))\(between)\(two(hour))\(t)\(two(minute))\(t)\(two(second))"
    }
}
