import Foundation
import MotionCore
import MotionTestSupport
import Testing
@testable import MotionResample

/// `StreamBuffer.append(name:times:channels:lines:)` takes an in-order block column by column;
/// whatever the block, the buffer must end as if its samples had come one at a time.
@Suite struct StreamBufferBatchTests {
    struct Case {
        var times: [Double]
        var channels: [[Double]]
        var lines: [Int32]
    }

    /// Times at ~100 Hz with runs of equal times, and, when asked, a decrease or a NaN time.
    func samples(_ n: Int, seed: UInt64, decreaseAt: Int? = nil, nanAt: Int? = nil) -> Case {
        var g = SeededGenerator(seed: seed)
        var t = 10.0
        var times: [Double] = []
        for i in 0..<n {
            if i > 0 && Double.random(in: 0..<1, using: &g) < 0.15 {
                times.append(times.last!)            // a duplicate time
                continue
            }
            t += 0.01 + Double.random(in: -0.003...0.003, using: &g)
            if Double.random(in: 0..<1, using: &g) < 0.01 { t += 0.5 }   // a gap
            times.append(t)
        }
        if let d = decreaseAt, d < n { times[d] = times[d] - 0.2 }
        if let k = nanAt, k < n { times[k] = .nan }
        let channels = (0..<3).map { _ in (0..<n).map { _ in Double.random(in: -20...20, using: &g) } }
        return Case(times: times, channels: channels, lines: (0..<n).map { Int32($0 + 2) })
    }

    func buffer(filter: Bool, keepUntil: Double) throws -> StreamBuffer {
        var b = StreamBuffer(channels: 3)
        b.maxGapS = 0.2
        b.keepUntil = keepUntil
        if filter {
            let f = try #require(Antialias.lowPass(medianInterval: 0.01, rateHz: 25))
            b.filter = StreamingRunFilter(filter: f, channels: 3, maxGapS: 0.2)
        }
        return b
    }

    /// Feeds `c` in blocks of the given sizes (cycled), or one sample at a time, then finishes.
    func feed(_ c: Case, into b: inout StreamBuffer, blocks: [Int]?) {
        var i = 0, k = 0
        while i < c.times.count {
            guard let blocks else {
                b.append(name: "acc", time: c.times[i], line: c.lines[i]) { c.channels[$0][i] }
                i += 1
                continue
            }
            let j = min(c.times.count, i + blocks[k % blocks.count])
            k += 1
            b.append(name: "acc", times: Array(c.times[i..<j]), channels: c.channels.map { Array($0[i..<j]) },
                     lines: Array(c.lines[i..<j]))
            i = j
        }
        b.finish()
    }

    func expectSame(_ a: StreamBuffer, _ b: StreamBuffer, _ what: String) {
        #expect(a.times.map(\.bitPattern) == b.times.map(\.bitPattern), "\(what): times")
        #expect(a.values.map { $0.map(\.bitPattern) } == b.values.map { $0.map(\.bitPattern) }, "\(what): values")
        #expect(a.base == b.base && a.duplicates == b.duplicates && a.received == b.received, "\(what): counts")
        #expect(a.firstTime?.bitPattern == b.firstTime?.bitPattern, "\(what): first time")
        #expect(a.extent.map { "\($0)" } == b.extent.map { "\($0)" }, "\(what): extent")
        #expect(a.decrease.map { "\($0)" } == b.decrease.map { "\($0)" }, "\(what): decrease")
    }

    @Test(arguments: [false, true])
    func blocksEqualOneSampleAtATime(filter: Bool) throws {
        let cases: [(String, Case)] = [
            ("in order", samples(5000, seed: 1)),
            ("a decrease", samples(3000, seed: 2, decreaseAt: 1777)),
            ("a NaN time", samples(3000, seed: 3, nanAt: 1234)),
            ("one sample", samples(1, seed: 4)),
            ("all equal", Case(times: [Double](repeating: 3, count: 50), channels: (0..<3).map { c in (0..<50).map { Double($0 + c) } },
                               lines: (0..<50).map { Int32($0) })),
        ]
        for (name, c) in cases {
            for keepUntil in [Double.infinity, 25.0] {
                var one = try buffer(filter: filter, keepUntil: keepUntil)
                feed(c, into: &one, blocks: nil)
                for blocks in [[1], [7], [1000], [3, 1, 250, 2], [100_000]] {
                    var batch = try buffer(filter: filter, keepUntil: keepUntil)
                    feed(c, into: &batch, blocks: blocks)
                    expectSame(batch, one, "\(name), filter \(filter), keep until \(keepUntil), blocks \(blocks)")
                }
            }
        }
    }

    /// A block that begins with the open sample's time replaces it (counted as a duplicate).
    @Test func aBlockStartingAtTheOpenTimeReplacesTheOpenSample() {
        var b = StreamBuffer(channels: 1)
        b.append(name: "s", times: [1, 2], channels: [[10, 20]], lines: [1, 2])
        b.append(name: "s", times: [2, 3], channels: [[21, 30]], lines: [3, 4])
        b.finish()
        #expect(b.times == [1, 2, 3])
        #expect(b.values == [[10, 21, 30]])
        #expect(b.duplicates == 1)
    }
}
