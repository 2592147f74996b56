import MotionCore
import Testing
@testable import MotionLive

/// The live library's rows (docs/live.md, "Rows"): the grid after every transform, row by row,
/// with each row's time and segment. Every dataset window is `T` consecutive rows of one segment,
/// bit for bit, at the window's times; rows come in time order, one per valid grid point.
@Suite struct LiveRowsTests {
    static func replayRows(_ c: LiveReplayTests.Case) throws -> (windows: [LiveWindow], rows: [LiveRow], counts: LiveCounts) {
        let live = try LiveProcessor(configuration: c.configuration, sampleIntervals: c.intervals)
        live.emitsRows = true
        var windows: [LiveWindow] = [], rows: [LiveRow] = []
        for (s, j) in LiveReplayTests.arrivals(c.streams, seed: 2) {
            let stream = c.streams[s]
            windows += try live.push(stream.name, time: stream.times[j], values: stream.channels.map { $0[j] })
            // Rows come no later than the windows that hold them.
            let got = live.takeRows()
            rows += got
            if let w = windows.last { #expect(rows.last.map { $0.time >= w.startTime } ?? false) }
        }
        windows += live.finish()
        rows += live.takeRows()
        return (windows, rows, live.counts)
    }

    static func check(_ c: LiveReplayTests.Case, _ windows: [LiveWindow], _ rows: [LiveRow]) {
        LiveReplayTests.check(c, windows)
        let T = c.configuration.windowLength, C = c.configuration.channelNames.count
        #expect(rows.count > 10 * T)
        #expect(zip(rows, rows.dropFirst()).allSatisfy { $0.time < $1.time && $0.segment <= $1.segment })
        #expect(rows.allSatisfy { $0.values.count == C })
        var index: [UInt64: Int] = [:]
        for (i, r) in rows.enumerated() { index[r.time.bitPattern] = i }
        let e = c.expected.windows
        var same = 0
        for w in 0..<e.count {
            guard let i = index[e.startTimes[w].bitPattern], i + T <= rows.count else { continue }
            let span = rows[i..<(i + T)]
            let values = span.flatMap(\.values).map(\.bitPattern)
            if values == e.x[(w * T * C)..<((w + 1) * T * C)].map(\.bitPattern) && span.first!.segment == span.last!.segment {
                same += 1
            }
        }
        #expect(same == e.count && e.count > 3)
    }

    @Test func rowsHoldTheWindowsWithoutTransforms() throws {
        let c = try LiveReplayTests.make(LiveReplayTests.walk)
        defer { c.dir.remove() }
        let (windows, rows, counts) = try Self.replayRows(c)
        Self.check(c, windows, rows)
        // A segment per run of valid grid points: the gaps split them.
        #expect(rows.last!.segment == counts.gaps || rows.last!.segment == counts.gaps - 1)
        // Rows cost nothing when not asked for.
        let plain = try LiveProcessor(configuration: c.configuration, sampleIntervals: c.intervals)
        _ = try plain.push(c.streams[0].name, time: c.streams[0].times[0], values: c.streams[0].channels.map { $0[0] })
        #expect(plain.takeRows().isEmpty)
    }

    @Test func rowsHoldTheWindowsAfterTransforms() throws {
        let c = try LiveReplayTests.make(LiveReplayTests.walk + """
            transforms:
              - butterworth: {channels: [A, G], type: lowpass, order: 3, cutoff_hz: 20}
              - gravity: {channels: [A], cutoff_hz: 0.3, order: 3}
              - magnitude: {channels: [acc_body, gyro]}

            """, seed: 5)
        defer { c.dir.remove() }
        let (windows, rows, _) = try Self.replayRows(c)
        Self.check(c, windows, rows)
        #expect(rows[0].values.count == c.configuration.channelNames.count && c.configuration.channelNames.count > 7)
    }
}
