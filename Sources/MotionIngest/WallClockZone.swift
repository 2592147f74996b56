import MotionCore

/// A time zone's offsets from UTC over time, for inputs whose clock is local wall time
/// (`time.zone`, docs/inputs.md, "Local wall time"): a wall time read as if it were UTC becomes
/// UTC by subtracting the offset in force at it.
///
/// Built from the zone's transitions (MotionConfig asks Foundation's `TimeZone`); this type only
/// does the arithmetic, on whole seconds, so a wall time's fraction is never touched: `wall −
/// offset` is exact for any wall time of a double (the offset is a whole number of seconds, a
/// multiple of the value's last place).
public struct WallClockZone: Sendable, Equatable {
    /// The IANA name (`Europe/Berlin`).
    public let name: String
    /// UTC instants (Unix seconds) where each period after the first begins, ascending.
    let starts: [Int64]
    /// The offset (seconds east of UTC) of each period: `offsets[0]` before `starts[0]`,
    /// `offsets[i + 1]` from `starts[i]` on.
    let offsets: [Int64]
    /// Per transition i: wall times below `wallBefore[i]` are reachable by the period before it,
    /// and wall times from `wallAfter[i]` on by the period after it. Where `wallAfter < wallBefore`
    /// the clocks went back (a fold: those wall times occur twice); where `wallAfter > wallBefore`
    /// they went forward (a gap: those wall times never occur).
    let wallBefore: [Int64]
    let wallAfter: [Int64]

    /// - Parameters:
    ///   - transitions: each transition's UTC instant and the offset from then on, ascending.
    ///   - initialOffset: the offset before the first transition.
    public init(name: String, initialOffset: Int, transitions: [(utc: Int64, offset: Int)]) {
        self.name = name
        var starts: [Int64] = [], offsets: [Int64] = [Int64(initialOffset)]
        for t in transitions where Int64(t.offset) != offsets.last! {
            // `utc(wall:previous:)` relies on each wall time lying in at most two adjacent
            // periods (one fold or gap at a time), which holds when the period between two
            // transitions is longer than the two offset changes together. No zone of the tz
            // database comes near (changes are days apart, and at most a day each), but a
            // transition that would break it replaces the one before it, whatever the table.
            while let last = starts.last, t.utc - last <= abs(offsets[offsets.count - 1] - offsets[offsets.count - 2])
                                                         + abs(Int64(t.offset) - offsets.last!) {
                starts.removeLast()
                offsets.removeLast()
            }
            if Int64(t.offset) == offsets.last! { continue }
            starts.append(t.utc)
            offsets.append(Int64(t.offset))
        }
        self.starts = starts
        self.offsets = offsets
        wallBefore = starts.indices.map { starts[$0] + offsets[$0] }
        wallAfter = starts.indices.map { starts[$0] + offsets[$0 + 1] }
    }

    /// How a wall time maps to UTC.
    public enum Kind: Sendable, Equatable {
        /// One instant.
        case plain
        /// The clocks went back over it, so it occurred twice; `second` is whether the later
        /// occurrence was taken.
        case fold(second: Bool)
        /// The clocks went forward over it, so it never occurred; taken with the offset before
        /// the change (as a clock not yet set forward shows it, and as POSIX `mktime` and
        /// Python's `zoneinfo` with `fold=0` take it).
        case gap
    }

    /// UTC seconds of the wall time `wall` (seconds since 1970-01-01T00:00 on the local clock).
    ///
    /// - Parameter previous: the UTC time of the file's row before, when there is one. A wall
    ///   time the clocks went back over is taken at its first occurrence unless `previous` is
    ///   more than half the fold past that occurrence: then the file's clock has gone back, and
    ///   the row is the second occurrence (docs/inputs.md, "Local wall time").
    @inline(__always)
    public func utc(wall: Double, previous: Double?) -> (utc: Double, kind: Kind) {
        let w = Int64(wall.rounded(.down))
        // The last transition whose after-period reaches w (the table is ascending).
        var lo = 0, hi = wallAfter.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if wallAfter[mid] <= w { lo = mid + 1 } else { hi = mid }
        }
        let p = lo  // period index: offsets[p] is in force after transition p − 1
        let inPeriod = p >= wallBefore.count || w < wallBefore[p]
        let inEarlier = p >= 1 && w < wallBefore[p - 1]
        if inPeriod && inEarlier {
            let first = wall - Double(offsets[p - 1]), second = wall - Double(offsets[p])
            if let previous, previous - first > (second - first) / 2 { return (second, .fold(second: true)) }
            return (first, .fold(second: false))
        }
        if inPeriod { return (wall - Double(offsets[p]), .plain) }
        return (wall - Double(offsets[p]), .gap)
    }
}

/// What a file's `time.zone` conversion met that the run reports (docs/inputs.md, "Local wall
/// time"): rows whose wall time occurred twice (taken at the first or the second occurrence) or
/// never (the clocks went forward over it), with the first line of each kind.
public struct WallClockNotes: Sendable, Equatable {
    public var firstOccurrence = 0, secondOccurrence = 0, gap = 0
    var firstLines: [Int] = [0, 0, 0]
    var firstWalls: [Double] = [0, 0, 0]

    public init() {}

    @inline(__always)
    mutating func add(_ kind: WallClockZone.Kind, wall: Double, line: Int) {
        let k: Int
        switch kind {
        case .plain: return
        case .fold(false): k = 0
        case .fold(true): k = 1
        case .gap: k = 2
        }
        let count = k == 0 ? firstOccurrence : k == 1 ? secondOccurrence : gap
        if count == 0 { firstLines[k] = line; firstWalls[k] = wall }
        switch k {
        case 0: firstOccurrence += 1
        case 1: secondOccurrence += 1
        default: gap += 1
        }
    }

    /// One sentence per kind that occurred, naming the file and the first line (`at: "line"`,
    /// `file:N:`) or byte offset (`at: "byte"`, `file: byte N:`) of `item`s (rows, blocks).
    public func messages(file: String, zone: String, item: String = "row", at: String = "line") -> [String] {
        var out: [String] = []
        func place(_ n: Int) -> String { at == "line" ? "\(file):\(n)" : "\(file): \(at) \(n)" }
        if firstOccurrence + secondOccurrence > 0 {
            let line = firstOccurrence > 0 ? firstLines[0] : firstLines[1]
            let wall = firstOccurrence > 0 ? firstWalls[0] : firstWalls[1]
            out.append("\(place(line)): \(firstOccurrence + secondOccurrence) \(item)(s) have a local time that occurred twice in `\(zone)` (the clocks went back; the first at \(Self.show(wall))): \(firstOccurrence) taken at the first occurrence and \(secondOccurrence) at the second, after the file's times went back (docs/inputs.md, \"Local wall time\")")
        }
        if gap > 0 {
            out.append("\(place(firstLines[2])): \(gap) \(item)(s) have a local time that never occurred in `\(zone)` (the clocks went forward over it; the first at \(Self.show(firstWalls[2]))); each is taken with the offset before the change, as a clock not yet set forward shows it (docs/inputs.md, \"Local wall time\")")
        }
        return out
    }

    /// A wall time as `YYYY-MM-DD HH:MM:SS` (whole seconds).
    static func show(_ wall: Double) -> String { CivilTime(epochSeconds: Int64(wall.rounded(.down))).text() }
}

/// A file's local wall times turned to UTC as they come (`time.zone`, docs/inputs.md, "Local
/// wall time"): the zone, the UTC time before (for the fold rule) and the notes of the times the
/// clocks went back or forward over. The CSV, CWA and GT3X decoders' one copy of that rule.
struct WallClockFold {
    let zone: WallClockZone
    private var previous: Double?
    private(set) var notes = WallClockNotes()

    init(_ zone: WallClockZone) { self.zone = zone }

    /// The UTC time of the local wall time `wall`, noting a fold or a gap at `line` (a line, or
    /// a byte offset for binary files).
    mutating func utc(wall: Double, line: Int) -> Double {
        let (utc, kind) = zone.utc(wall: wall, previous: previous)
        previous = utc
        notes.add(kind, wall: wall, line: line)
        return utc
    }

    /// `WallClockNotes.messages` for this zone.
    func messages(file: String, item: String = "row", at: String = "line") -> [String] {
        notes.messages(file: file, zone: zone.name, item: item, at: at)
    }
}
