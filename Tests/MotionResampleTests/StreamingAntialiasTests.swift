import Foundation
import MotionCore
import MotionTestSupport
import Testing
import MotionReference
@testable import MotionResample

/// The streamed anti-aliasing pieces against the whole-stream ones they replace (issue 8).
@Suite struct StreamingMedianTests {
    func streamed(_ values: [Double], collectLimit: Int, guessAfter: Int = 1 << 16) -> (median: Double, passes: Int) {
        var m = StreamingMedian(collectLimit: collectLimit, guessAfter: guessAfter)
        var passes = 0
        while m.needsPass {
            for v in values { m.add(v) }
            m.endPass()
            passes += 1
        }
        return (m.median, passes)
    }

    /// The median of the intervals of `times`, as `Antialias.medianInterval` computes it.
    func intervals(_ times: [Double]) -> [Double] { (1..<times.count).map { times[$0] - times[$0 - 1] } }

    @Test(arguments: [1, 2, 3, 10, 11, 1000, 1001])
    func matchesTheSortedMedianForEveryCollectLimit(count: Int) {
        var g = SeededGenerator(seed: UInt64(count))
        var times = [0.0]
        for _ in 0..<count { times.append(times.last! + 0.01 + Double.random(in: -0.002...0.002, using: &g)) }
        let whole = Antialias.medianInterval(times)
        for limit in [0, 1, 5, 1 << 22] {
            for guessAfter in [1, 7, 1 << 16] {
                let (median, passes) = streamed(intervals(times), collectLimit: limit, guessAfter: guessAfter)
                #expect(median.bitPattern == whole.bitPattern, "count \(count), collect limit \(limit), guess after \(guessAfter)")
                #expect(passes <= 5)
                if guessAfter > count { #expect(passes == 1, "the first pass holds every value") }
            }
        }
    }

    @Test func equalValuesResolveWithoutCollecting() {
        let values = [Double](repeating: 0.01, count: 5000) + [0.02, 0.005]
        let (median, passes) = streamed(values, collectLimit: 10, guessAfter: 16)
        #expect(median == 0.01)
        #expect(passes == 4, "the guess is abandoned (too many values); 20 + 20 + 20 + 4 bits narrow to the one value")
    }

    @Test func aWrongGuessCostsAPass() {
        // The first values sit near 0.01, the bulk near 0.03: the guessed bucket is not the median's.
        var g = SeededGenerator(seed: 5)
        let values = (0..<100).map { _ in 0.01 + Double.random(in: 0..<1e-5, using: &g) }
            + (0..<1001).map { _ in 0.03 + Double.random(in: 0..<1e-5, using: &g) }
        let (median, passes) = streamed(values, collectLimit: 1 << 22, guessAfter: 50)
        #expect(median == values.sorted()[values.count / 2])
        #expect(passes == 2)
    }

    @Test func twoMiddleValuesInDifferentBuckets() {
        // Even count: the two middle ranks are 1.0 and 1000.0, far apart in their bits.
        let values = [0.5, 0.25, 1.0, 1000.0, 2000.0, 3000.0]
        #expect(streamed(values, collectLimit: 0).median == (1.0 + 1000.0) / 2)
        #expect(streamed(values, collectLimit: 100).median == (1.0 + 1000.0) / 2)
    }

    @Test func noValuesGiveZero() {
        #expect(streamed([], collectLimit: 4).median == 0)
        #expect(Antialias.medianInterval([3.0]) == 0)
    }
}

@Suite struct StreamingRunFilterTests {
    /// A noisy stream with gaps: runs of `runs[i]` samples separated by gaps of 1 s.
    func stream(runs: [Int], seed: UInt64) -> SensorStream {
        var g = SeededGenerator(seed: seed)
        var times: [Double] = []
        var t = 0.0
        for (r, n) in runs.enumerated() {
            if r > 0 { t += 1.0 }
            for _ in 0..<n {
                times.append(t)
                t += 0.01 + Double.random(in: -0.001...0.001, using: &g)
            }
        }
        var channels: [[Double]] = [[], []]
        for c in 0..<2 {
            for (i, t) in times.enumerated() {
                let wave: Double = sin(t * Double(3 + c))
                let noise: Double = Double.random(in: -0.5...0.5, using: &g)
                channels[c].append(wave + noise + Double(i % 7) * 0.01)
            }
        }
        return SensorStream(name: "A", channelNames: ["x", "y"], channelUnits: ["1", "1"], times: times, channels: channels)
    }

    func streamed(_ s: SensorStream, filter: Butterworth, maxGapS: Double) -> (values: [[Double]], times: [Double], unfiltered: Int) {
        let f = StreamingRunFilter(filter: filter, channels: s.channels.count, maxGapS: maxGapS)
        var times: [Double] = []
        var values: [[Double]] = Array(repeating: [], count: s.channels.count)
        for i in 0..<s.count {
            f.push(time: s.times[i], values: s.channels.map { $0[i] }, outTimes: &times, outValues: &values)
        }
        f.finish(outTimes: &times, outValues: &values)
        return (values, times, f.unfilteredRuns)
    }

    @Test func shortRunsAreExactlyFiltfilt() throws {
        let s = stream(runs: [400, 3, 15, 16, 17, 2000, 1], seed: 3)
        let rate = 25.0
        let median = Antialias.medianInterval(s.times)
        let filter = try #require(Antialias.lowPass(medianInterval: median, rateHz: rate))
        let whole = try Antialias.apply(s, rateHz: rate, maxGapS: 0.5)
        let (values, times, unfiltered) = streamed(s, filter: filter, maxGapS: 0.5)
        #expect(times == s.times)
        #expect(unfiltered == whole.unfilteredRuns && unfiltered == 3)
        for c in 0..<2 { #expect(values[c].map(\.bitPattern) == whole.stream.channels[c].map(\.bitPattern)) }
    }

    /// A run longer than `overlap + chunk` has samples sent before its end: they match the whole
    /// run's filtfilt to within the rounding noise of float64 filtering (the transient from the
    /// different start is below 2⁻⁶⁰; what remains is the two computations' own rounding,
    /// amplified by poles near the unit circle), far inside float32 rounding; the last
    /// `overlap` samples of a run are exact.
    @Test(arguments: [0.3, 0.03])
    func longRunsMatchWithinRounding(cutoffFraction: Double) throws {
        // Cutoff = cutoffFraction × the stream's median rate: 0.03 puts the poles near the unit
        // circle (a long overlap).
        let s = stream(runs: [30_000, 20, 25_000], seed: 9)
        let median = Antialias.medianInterval(s.times)
        let rate = cutoffFraction / median / 0.4
        let filter = try #require(Antialias.lowPass(medianInterval: median, rateHz: rate))
        let whole = try Antialias.apply(s, rateHz: rate, maxGapS: 0.5)
        let f = StreamingRunFilter(filter: filter, channels: 2, maxGapS: 0.5)
        #expect(f.overlap < 30_000 / 2)
        let (values, times, _) = streamed(s, filter: filter, maxGapS: 0.5)
        #expect(times == s.times)
        var worst = 0.0
        for c in 0..<2 {
            for i in 0..<s.count {
                let a = values[c][i], b = whole.stream.channels[c][i]
                worst = Swift.max(worst, Swift.abs(a - b))
                #expect(Float(a) == Float(b) || Swift.abs(a - b) <= Double(Float(b).ulp))
            }
        }
        // The signal is of order 1; float32 rounds it to ~6e-8.
        #expect(worst < 1e-10, "largest difference \(worst)")
        // The end of each run is finished exactly.
        for c in 0..<2 {
            let tail = (30_000 - f.overlap)..<30_000
            #expect(values[c][tail].map(\.bitPattern) == whole.stream.channels[c][tail].map(\.bitPattern))
        }
    }
}

/// The batch form of `StreamingRunFilter.push` gives the one-at-a-time form's output, bit for
/// bit, whatever the batches (across gaps, run starts, early sends and short runs).
@Suite struct StreamingRunFilterBatchTests {
    @Test(arguments: 0..<12)
    func batchesEqualOneAtATime(seed: Int) {
        var g = SeededGenerator(seed: UInt64(seed) &+ 1000)
        let filter = Antialias.lowPass(medianInterval: 0.01, rateHz: 50)!
        // Runs of various lengths (some under the pad, some long enough for early sends).
        var times: [Double] = []
        var t = 0.0
        for r in 0..<(3 + seed % 4) {
            if r > 0 { t += Double.random(in: 0.3...2, using: &g) }
            for _ in 0..<[5, 16, 40, 900, 6000][Int.random(in: 0..<5, using: &g)] {
                times.append(t)
                t += 0.01 + Double.random(in: -0.002...0.002, using: &g)
            }
        }
        let channels = (0..<3).map { c in times.map { sin($0 * Double(c + 2)) + Double.random(in: -0.3...0.3, using: &g) } }
        let chunk = [nil, 1, 8, 100][seed % 4]
        let one = StreamingRunFilter(filter: filter, channels: 3, maxGapS: 0.2, chunk: chunk)
        let batch = StreamingRunFilter(filter: filter, channels: 3, maxGapS: 0.2, chunk: chunk)
        var t1: [Double] = [], v1: [[Double]] = [[], [], []]
        var t2: [Double] = [], v2: [[Double]] = [[], [], []]
        for i in times.indices { one.push(time: times[i], values: channels.map { $0[i] }, outTimes: &t1, outValues: &v1) }
        var i = 0
        while i < times.count {
            let n = Swift.min(times.count - i, Int.random(in: 1...3000, using: &g))
            batch.push(times: times, values: channels, range: i..<(i + n), outTimes: &t2, outValues: &v2)
            i += n
        }
        one.finish(outTimes: &t1, outValues: &v1)
        batch.finish(outTimes: &t2, outValues: &v2)
        #expect(t1 == t2 && t1.count == times.count)
        #expect(v1.map { $0.map(\.bitPattern) } == v2.map { $0.map(\.bitPattern) })
        #expect(one.unfilteredRuns == batch.unfilteredRuns)
    }
}
