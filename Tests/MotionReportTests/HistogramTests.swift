import MotionDataset
import Testing
@testable import MotionReport

@Suite struct HistogramTests {
    @Test func valuesLandInTheirBinsAndOutliersAreCounted() {
        var h = Histogram(lower: 0, upper: 10, bins: 5)
        for v in [0.0, 1.99, 2.0, 9.99, 10.0, -0.01, 10.01, .nan, .infinity] { h.add(v) }
        #expect(h.counts == [2, 1, 0, 0, 2])
        #expect(h.below == 1 && h.above == 1 && h.nonFinite == 2)
        #expect(h.total == 9)
        #expect(h.minimum == -0.01 && h.maximum == 10.01)
    }

    @Test func binValuesSplitsInterleavedChannels() {
        var hs = [Histogram(lower: 0, upper: 4, bins: 4), Histogram(lower: -4, upper: 0, bins: 4)]
        // Two windows of two time steps, channels (a, b) interleaved.
        DatasetStatistics.binValues([0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, -3.5], channels: 2, into: &hs)
        #expect(hs[0].counts == [1, 1, 1, 1])
        #expect(hs[1].counts == [1, 1, 1, 1])
    }
}

@Suite struct SampledBlocksTests {
    /// Every small count, block size and budget: blocks are sorted, disjoint, block-aligned,
    /// inside the data; all rows when the budget allows, else at least the budget and at most
    /// one block more.
    @Test func blocksCoverTheBudgetDeterministically() {
        for count in 0..<60 {
            for blockRows in 1..<9 {
                for budget in 1..<70 {
                    let blocks = DatasetStatistics.sampledBlocks(count: count, blockRows: blockRows, budget: budget)
                    let rows = blocks.reduce(0) { $0 + $1.count }
                    let context = "count \(count), blockRows \(blockRows), budget \(budget): \(blocks)"
                    #expect(zip(blocks, blocks.dropFirst()).allSatisfy { $0.upperBound <= $1.lowerBound }, "\(context)")
                    #expect(blocks.allSatisfy { $0.lowerBound % blockRows == 0 && $0.upperBound <= count && !$0.isEmpty }, "\(context)")
                    if budget >= count { #expect(rows == count, "\(context)") }
                    else { #expect(rows >= min(budget, count) - blockRows && rows <= budget + blockRows, "\(context)") }
                }
            }
        }
    }
}

@Suite struct SensorGroupTests {
    @Test func motionCollectorChannelsGroupBySensor() {
        let names = ["acc_x", "acc_y", "acc_z", "gyro_x", "gyro_y", "gyro_z", "pitch", "roll", "yaw", "acc_mag"]
        let units = ["m/s^2", "m/s^2", "m/s^2", "rad/s", "rad/s", "rad/s", "rad", "rad", "rad", "m/s^2"]
        let groups = SensorGroup.make(zip(names, units).map { DatasetManifest.Channel(name: $0, unit: $1) })
        #expect(groups.map(\.name) == ["acc", "gyro", "pitch/roll/yaw"])
        #expect(groups.map(\.labels) == [["x", "y", "z", "mag"], ["x", "y", "z"], ["pitch", "roll", "yaw"]])
        #expect(groups.map(\.channels) == [[0, 1, 2, 9], [3, 4, 5], [6, 7, 8]])
    }
}

@Suite struct MarkupTests {
    @Test(arguments: [("a<b & \"c\" 'd'>", "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;"), ("µT\u{1}", "µT"), ("plain", "plain")])
    func escapingKeepsThePageWellFormed(raw: String, escaped: String) {
        #expect(Markup.escape(raw) == escaped)
    }

    @Test(arguments: [(0.0, "0"), (1.25, "1.3"), (-0.04, "0"), (12.0, "12"), (-3.56, "-3.6")])
    func coordinatesHaveOneDecimal(value: Double, expected: String) {
        #expect(Markup.px(value) == expected)
    }
}
