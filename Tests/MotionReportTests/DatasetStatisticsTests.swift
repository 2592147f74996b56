import Foundation
import MotionDataset
import Testing
@testable import MotionReport

/// An in-memory split: the second `SplitWindowSource`, which is all a new storage needs.
final class MemorySplit: SplitWindowSource {
    let split: String
    let y: [Int64], subjects: [Int32], x: [Float]
    let rowSize: Int
    let preferredBlockRows = 3
    var windowCount: Int { y.count }

    init(_ split: String, y: [Int64], subjects: [Int32], T: Int, C: Int) {
        self.split = split
        self.y = y
        self.subjects = subjects
        rowSize = T * C
        // Window i holds the value i everywhere, so a drawn example names its row.
        x = y.indices.flatMap { [Float](repeating: Float($0), count: T * C) }
    }

    func labels(start: Int, count: Int) throws -> [Int64] { Array(y[start ..< start + count]) }
    func subjectIndices(start: Int, count: Int) throws -> [Int32] { Array(subjects[start ..< start + count]) }
    func recordingIndices(start: Int, count: Int) throws -> [Int32] { Array(subjects[start ..< start + count]) }
    func startTimes(start: Int, count: Int) throws -> [Double] { (start ..< start + count).map(Double.init) }
    func windows(start: Int, count: Int) throws -> [Float] { Array(x[start * rowSize ..< (start + count) * rowSize]) }
}

struct MemoryStore: DatasetWindowStore { var splits: [SplitWindowSource] }

@Suite struct DatasetStatisticsTests {
    func manifest(trainCounts: [Int], trainWindows: Int) -> DatasetManifest {
        DatasetManifest(createdBy: "", storage: "memory", pipeline: .init(name: "t", sha256: "", resolved: .null),
                        sampleRateHz: 10, windowLength: 2, windowStride: 1,
                        channels: [.init(name: "a", unit: "g")], classes: ["p", "q"], featureNames: [], inputs: [],
                        subjects: ["s0", "s1"], recordings: ["s0", "s1"], arrays: [:],
                        splitPolicy: .init(by: "subject", seed: 0, train: 0.5, validation: 0, test: 0.5),
                        normalization: .init(x: .init(mean: [5], std: [2]), features: nil),
                        counts: .init(recordings: 2, rowsRead: 0, rowsDropped: [:], windowsDropped: [:], recordingsDropped: nil,
                                      skippedRecordings: nil, labelRowsIgnored: nil, gaps: 0, gapSeconds: 0),
                        splits: [.train: .init(numWindows: trainWindows, classCounts: trainCounts, files: []),
                                 .test: .init(numWindows: 2, classCounts: [0, 1], files: [])])
    }

    let train = MemorySplit("train", y: [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, -1], subjects: [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1], T: 2, C: 1)
    let test = MemorySplit("test", y: [1, -1], subjects: [1, 1], T: 2, C: 1)

    /// Examples sit at ranks (j + ½)·n/k of their class: class p has 10 windows (rows 0, 1, 3…11
    /// minus the last), so ranks 1, 5, 8 → rows 1, 6, 9.
    @Test func examplesAreEvenlySpacedByRank() throws {
        let st = try DatasetStatistics.compute(manifest: manifest(trainCounts: [10, 1], trainWindows: 12),
                                               store: MemoryStore(splits: [train, test]))
        #expect(st.examples[0].map(\.index) == [1, 6, 9])
        #expect(st.examples[0].map { $0.values[0] } == [1, 6, 9])
        #expect(st.examples[1].map(\.index) == [2])
        #expect(st.examples[2].map(\.index) == [11], "unlabelled windows are a class of their own")
        #expect(st.splits.map(\.classCounts) == [[10, 1, 1], [0, 1, 1]])
        #expect(st.splits.map(\.subjectCounts) == [[9, 3], [0, 2]])
        #expect(st.discrepancies.isEmpty)
        // Histogram: all 24 train values, range 5 ± 4·2 widened to ticks.
        #expect(st.histograms.count == 1 && st.histograms[0].total == 24)
        #expect(st.histogramRange == "normalization")
    }

    @Test func disagreementsWithTheManifestAreListed() throws {
        let st = try DatasetStatistics.compute(manifest: manifest(trainCounts: [9, 2], trainWindows: 13),
                                               store: MemoryStore(splits: [train, test]))
        #expect(st.discrepancies == [
            "train: the file holds 12 windows, manifest.json says 13",
            "train: class counts in the file are [10, 1], manifest.json says [9, 2]",
        ])
        let page = try PageDocument(ReportPage(manifest: manifest(trainCounts: [9, 2], trainWindows: 13), statistics: st).render())
        // The two disagreements, plus subject s1 in train and test although the split is by subject.
        let checks = page.elements("div", where: "class", is: "checks").first
        #expect(checks?.attr("data-issues") == "3")
        #expect(checks?.descendants("li").last?.stringValue == "subject s1 has windows in train and test although the split is by subject")
    }

    @Test func withoutNormalizationTheRangeComesFromMinAndMax() throws {
        var m = manifest(trainCounts: [10, 1], trainWindows: 12)
        m.normalization.x = nil
        let st = try DatasetStatistics.compute(manifest: m, store: MemoryStore(splits: [train, test]))
        #expect(st.histogramRange == "min-max")
        #expect(st.histograms[0].lower <= 0 && st.histograms[0].upper >= 11)
        #expect(st.histograms[0].below == 0 && st.histograms[0].above == 0)
    }
}
