import Testing
@testable import MotionIngest

/// `time.zone`'s arithmetic (docs/inputs.md, "Local wall time") on a zone written by hand: +1 h,
/// +2 h from 2024-03-31T01:00Z (clocks forward: 02:00-03:00 local never occurs), +1 h from
/// 2024-10-27T01:00Z (clocks back: 02:00-03:00 local occurs twice).
@Suite struct WallClockZoneTests {
    static let spring: Int64 = 1_711_846_800  // 2024-03-31T01:00:00Z
    static let autumn: Int64 = 1_729_990_800  // 2024-10-27T01:00:00Z
    static let zone = WallClockZone(name: "Test/Berlin", initialOffset: 3600,
                                    transitions: [(spring, 7200), (autumn, 3600)])

    /// Local wall seconds of `utc` at `offset`.
    static func wall(_ utc: Int64, _ offset: Int64) -> Double { Double(utc + offset) }

    @Test func plainTimesSubtractTheirOffset() {
        let z = Self.zone
        // Winter, summer and winter again, one second from each change.
        #expect(z.utc(wall: Self.wall(Self.spring - 1, 3600), previous: nil) == (Double(Self.spring - 1), .plain))
        #expect(z.utc(wall: Self.wall(Self.spring, 7200), previous: nil) == (Double(Self.spring), .plain))
        #expect(z.utc(wall: Self.wall(Self.autumn + 3600, 3600), previous: nil) == (Double(Self.autumn + 3600), .plain))
        // The fraction is kept exactly.
        let r = z.utc(wall: Self.wall(Self.spring + 100, 7200) + 0.125, previous: nil)
        #expect(r.utc == Double(Self.spring + 100) + 0.125)
    }

    @Test func aFoldTakesTheFirstOccurrenceUntilTheFileGoesBack() {
        let z = Self.zone
        // 02:30 local on 27 October: 00:30Z (summer) or 01:30Z (winter).
        let w = Self.wall(Self.autumn - 1800, 7200)
        #expect(z.utc(wall: w, previous: nil) == (Double(Self.autumn - 1800), .fold(second: false)))
        // 02:00:00 right after 02:59:59 summer time: the file went back, the second occurrence.
        #expect(z.utc(wall: Self.wall(Self.autumn - 3600, 7200), previous: Double(Self.autumn - 1))
                == (Double(Self.autumn), .fold(second: true)))
        // And so on through the repeated hour: 02:30 after 02:29:59 of the second pass.
        #expect(z.utc(wall: w, previous: Double(Self.autumn + 1799)) == (Double(Self.autumn + 1800), .fold(second: true)))
        // The row before was a few samples later in the first pass (jitter): still the first.
        #expect(z.utc(wall: w, previous: Double(Self.autumn - 1800) + 0.04) == (Double(Self.autumn - 1800), .fold(second: false)))
        // 02:00:00 local is in the fold, 03:00:00 is not.
        #expect(z.utc(wall: Self.wall(Self.autumn - 3600, 7200), previous: nil).kind == .fold(second: false))
        #expect(z.utc(wall: Self.wall(Self.autumn + 3600, 3600), previous: nil).kind == .plain)
    }

    @Test func aGapTakesTheOffsetBeforeTheChange() {
        let z = Self.zone
        // 02:30 local on 31 March never occurred: with +1 h it is 01:30Z.
        let w = Double(Self.spring + 3600 + 1800)
        #expect(z.utc(wall: w, previous: nil) == (Double(Self.spring + 1800), .gap))
        #expect(z.utc(wall: Double(Self.spring + 7200), previous: nil) == (Double(Self.spring), .plain))
    }

    @Test func aZoneWithoutChanges() {
        let z = WallClockZone(name: "Test/Kolkata", initialOffset: 19_800, transitions: [])
        #expect(z.utc(wall: 1_000_000.5, previous: nil) == (1_000_000.5 - 19_800, .plain))
    }

    /// Two changes a day apart are both kept (Samoa skipped a whole day in 2011; a zone may
    /// change twice within days); only a change inside the one before it (closer than the two
    /// offset changes together, which no real zone has) replaces it.
    @Test func changesDaysApartAreKeptAndOnlyOverlappingOnesMerge() {
        let t0: Int64 = 1_700_000_000
        let z = WallClockZone(name: "Test/TwoDays", initialOffset: 0,
                              transitions: [(t0, 3600), (t0 + 86_400, 0)])
        // One day at +1 h, between two ordinary changes.
        #expect(z.utc(wall: Double(t0 + 43_200 + 3600), previous: nil) == (Double(t0 + 43_200), .plain))
        #expect(z.utc(wall: Double(t0 + 2 * 86_400), previous: nil) == (Double(t0 + 2 * 86_400), .plain))
        #expect(z.utc(wall: Double(t0 + 86_400 + 1800), previous: nil).kind == .fold(second: false))
        // +1 h, then −1 h of that only 30 minutes later: the periods would overlap by more than
        // one change, so the second replaces the first (the table stays a sequence of folds and gaps).
        let m = WallClockZone(name: "Test/Overlap", initialOffset: 0,
                              transitions: [(t0, 3600), (t0 + 1800, -3600)])
        #expect(m.starts == [t0 + 1800] && m.offsets == [0, -3600])
        #expect(m.utc(wall: Double(t0 + 7200 - 3600), previous: nil) == (Double(t0 + 7200), .plain))
    }

    @Test func notesNameTheFirstLineOfEachKind() {
        var n = WallClockNotes()
        n.add(.plain, wall: 0, line: 2)
        n.add(.fold(second: false), wall: Double(Self.autumn + 1800), line: 5)
        n.add(.fold(second: true), wall: Double(Self.autumn + 1800), line: 9)
        n.add(.gap, wall: Double(Self.spring + 5400), line: 3)
        #expect(n.messages(file: "a.csv", zone: "Test/Berlin") == [
            "a.csv:5: 2 row(s) have a local time that occurred twice in `Test/Berlin` (the clocks went back; the first at 2024-10-27 01:30:00): 1 taken at the first occurrence and 1 at the second, after the file's times went back (docs/inputs.md, \"Local wall time\")",
            "a.csv:3: 1 row(s) have a local time that never occurred in `Test/Berlin` (the clocks went forward over it; the first at 2024-03-31 02:30:00); each is taken with the offset before the change, as a clock not yet set forward shows it (docs/inputs.md, \"Local wall time\")",
        ])
    }
}
