import Foundation
import MotionIngest

extension WallClockZone {
    /// The zone named `name` (an IANA name such as `Europe/Berlin`), with its transitions from
    /// 1900 to 2200 as Foundation's `TimeZone` gives them (ICU's copy of the tz database), or nil
    /// for a name it does not know (docs/inputs.md, "Local wall time").
    /// The names `named` knows, for suggestions.
    public static var knownNames: [String] { TimeZone.knownTimeZoneIdentifiers }

    public static func named(_ name: String) -> WallClockZone? {
        guard !name.isEmpty, let zone = TimeZone(identifier: name) else { return nil }
        let first = Date(timeIntervalSince1970: -2_208_988_800)  // 1900-01-01T00:00:00Z
        let last = Date(timeIntervalSince1970: 7_258_118_400)    // 2200-01-01T00:00:00Z
        var transitions: [(utc: Int64, offset: Int)] = []
        var at = first
        while let next = zone.nextDaylightSavingTimeTransition(after: at), next < last, transitions.count < 4096 {
            transitions.append((Int64(next.timeIntervalSince1970.rounded(.down)), zone.secondsFromGMT(for: next)))
            at = next
        }
        return WallClockZone(name: name, initialOffset: zone.secondsFromGMT(for: first), transitions: transitions)
    }
}
