import MotionCore
import Testing
import MotionReference
@testable import MotionResample

private func stream(_ name: String, _ times: [Double], _ values: [Double]) -> SensorStream {
    SensorStream(name: name, channelNames: ["v"], channelUnits: ["1"], times: times, channels: [values])
}

private func stream(_ times: [Double], _ values: [Double]) -> SensorStream {
    stream("A", times, values)
}

@Suite struct GridTests {
    @Test func gridRunsFromLatestFirstToEarliestLast() {
        let g = ResampleGrid.spanning(firstTimes: [0.0, 0.013], lastTimes: [1.0, 0.995], rateHz: 100)
        #expect(g.t0 == 0.013)
        // t_k = 0.013 + k/100 ≤ 0.995 → k ≤ 98.2 → 99 points.
        #expect(g.count == 99)
        #expect(g.time(98) == 0.013 + 98.0 / 100)
    }

    @Test func endpointIncludedWithinTolerance() {
        // 0.1 + 0.2 style rounding: T1 reached by k/rate up to 1e-9 relative.
        let g = ResampleGrid.spanning(firstTimes: [0.1], lastTimes: [0.1 + 0.3], rateHz: 10)
        #expect(g.count == 4)
        let exact = ResampleGrid.spanning(firstTimes: [0], lastTimes: [1], rateHz: 50)
        #expect(exact.count == 51)
    }

    @Test func gridTimesComputedFromKNotAccumulated() {
        let g = ResampleGrid.spanning(firstTimes: [1000.0], lastTimes: [1100.0], rateHz: 3)
        var acc = 1000.0
        for _ in 0..<300 { acc += 1.0 / 3 }
        #expect(g.time(300) == 1000.0 + 300.0 / 3)
        #expect(g.count == 301)
        _ = acc
    }

    @Test func emptyWhenStreamsDoNotOverlap() {
        let g = ResampleGrid.spanning(firstTimes: [0, 5], lastTimes: [4, 9], rateHz: 10)
        #expect(g.count == 0)
    }

    @Test func linearMatchesHandComputedValues() throws {
        let s = stream([0, 0.1, 0.3], [0, 1, 3])
        let r = try #require(Resampler.resample([ResampleInput(stream: s, method: .linear, maxGapS: 1)], rateHz: 20))
        #expect(r.grid.count == 7)
        #expect(r.values == [0, 0.5, 1, 1.5, 2, 2.5, 3])
        #expect(r.valid.allSatisfy { $0 })
    }

    @Test func nearestTakesEarlierOnTieAndPreviousTakesAtOrBefore() throws {
        let s = stream([0, 0.1, 0.2], [10, 20, 30])
        let nearest = try #require(Resampler.resample([ResampleInput(stream: s, method: .nearest, maxGapS: 1)], rateHz: 20))
        // t = 0, .05 (tie → earlier), .1, .15 (tie → earlier), .2
        #expect(nearest.values == [10, 10, 20, 20, 30])
        let previous = try #require(Resampler.resample([ResampleInput(stream: s, method: .previous, maxGapS: 1)], rateHz: 20))
        #expect(previous.values == [10, 10, 20, 20, 30])
        let prev40 = try #require(Resampler.resample([ResampleInput(stream: s, method: .previous, maxGapS: 1)], rateHz: 40))
        // t = 0, .025, .05, .075, .1, …, .2: the last point sits exactly on the last sample.
        #expect(prev40.values == [10, 10, 10, 10, 20, 20, 20, 20, 30])
    }

    @Test func gapExactlyAtMaxIsValidAndAboveIsNot() throws {
        let s = stream([0, 0.25, 0.5, 1.0, 1.25], [0, 1, 2, 3, 4])
        let at = try #require(Resampler.resample([ResampleInput(stream: s, method: .linear, maxGapS: 0.5)], rateHz: 4))
        #expect(at.valid.allSatisfy { $0 })
        let below = try #require(Resampler.resample([ResampleInput(stream: s, method: .linear, maxGapS: 0.49)], rateHz: 4))
        // Grid 0, .25, .5, .75, 1.0, 1.25: points bracketed by (0.5, 1.0) are .5 and .75.
        #expect(below.valid == [true, true, false, false, true, true])
        #expect(below.segments == [0..<2, 4..<6])
        #expect(below.gapStatistics.gaps == 1 && below.gapStatistics.invalidPoints == 2)
    }

    @Test func multiRateStreamsEachWithTheirOwnGapLimit() throws {
        let acc = stream("A", (0...200).map { Double($0) / 100 }, (0...200).map { Double($0) })
        let baro = stream("B", [0, 1, 2], [100, 101, 102])
        let r = try #require(Resampler.resample([
            ResampleInput(stream: acc, method: .linear, maxGapS: 0.02),
            ResampleInput(stream: baro, method: .previous, maxGapS: 1.5),
        ], rateHz: 10))
        #expect(r.channelCount == 2)
        #expect(r.grid.count == 21)
        #expect(r.valid.allSatisfy { $0 })
        #expect(r.values[2 * 15] == 150 && r.values[2 * 15 + 1] == 101)
        let strict = try #require(Resampler.resample([
            ResampleInput(stream: acc, method: .linear, maxGapS: 0.02),
            ResampleInput(stream: baro, method: .previous, maxGapS: 0.5),
        ], rateHz: 10))
        #expect(strict.valid.allSatisfy { !$0 })
    }

    @Test func tooFewSamplesYieldsNoGrid() {
        #expect(Resampler.resample([ResampleInput(stream: stream([1], [1]), method: .linear, maxGapS: 1)], rateHz: 10) == nil)
        #expect(Resampler.resample([ResampleInput(stream: stream([], []), method: .linear, maxGapS: 1)], rateHz: 10) == nil)
    }

    @Test func streamStartingLateAndEndingEarlyBoundsTheGrid() throws {
        let a = stream("A", [0, 1, 2, 3, 4], [0, 1, 2, 3, 4])
        let b = stream("B", [1.5, 2.5], [0, 10])
        let r = try #require(Resampler.resample([ResampleInput(stream: a, method: .linear, maxGapS: 2),
                                                 ResampleInput(stream: b, method: .linear, maxGapS: 2)], rateHz: 2))
        #expect(r.grid.t0 == 1.5 && r.grid.count == 3)
        #expect(r.values == [1.5, 0, 2, 5, 2.5, 10])
    }

    @Test func magnitudeIsTheNormOfTheResampledAxes() throws {
        let s = SensorStream(name: "A", channelNames: ["acc_x", "acc_y", "acc_z"], channelUnits: ["1", "1", "1"],
                             times: [0, 1], channels: [[3, 3], [4, 4], [0, 12]])
        let r = try #require(Resampler.resample([ResampleInput(stream: s, method: .linear, maxGapS: 2)], rateHz: 1,
                                                magnitudes: [[0, 1, 2]]))
        #expect(r.channelCount == 4)
        #expect(r.values == [3, 4, 0, 5, 3, 4, 12, 13])
    }
}

@Suite struct EpochClockGridTests {
    @Test func epochTimesDoNotExtendTheGridPastTheLastSample() {
        // ISO 8601 / ns clocks: |T1| ≈ 1.7e9 s. the original contract's 1e-9 × |T1| would allow 1.7 s of overrun.
        let t0 = 1_700_000_000.0, t1 = t0 + 10.005
        let g = ResampleGrid.spanning(firstTimes: [t0], lastTimes: [t1], rateHz: 100)
        #expect(g.count == 1001)
        #expect(g.time(g.count - 1) <= t1 + 1e-6)
    }

    @Test func lastSampleExactlyOnTheGridIsKeptOnAnEpochClock() {
        let t0 = 1_700_000_000.0
        let g = ResampleGrid.spanning(firstTimes: [t0], lastTimes: [t0 + 10], rateHz: 50)
        #expect(g.count == 501)
    }
}
