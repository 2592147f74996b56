import Foundation
import MotionCore
import Testing

@testable import MotionSinks

/// The partitioned layout's files (docs/dataset-format.md, "Partitioned datasets"): names, sample
/// keys and the shuffle within one partition.
@Suite struct PartitionNamingTests {
    @Test func namesParseBackAndOthersDoNot() {
        let p = DatasetPartition(index: 3, count: 16)
        #expect(p.name == "part-00003-of-00016")
        #expect(DatasetPartition.of(path: "train/part-00003-of-00016.h5") == p)
        #expect(DatasetPartition.of(path: "test/part-00003-of-00016-00012.tar.zst") == p)
        #expect(DatasetPartition.of(path: "part-123456-of-1000000.h5") == DatasetPartition(index: 123456, count: 1_000_000))
        for other in ["train.h5", "train/train-00000.tar.zst", "train/part-3-of-16.h5", "train/part-00016-of-00016.h5",
                      "train/part-00003-to-00016.h5", "train/part-0000x-of-00016.h5", "train/part-00001-of-00000.h5"] {
            #expect(DatasetPartition.of(path: other) == nil, "\(other)")
        }
    }

    @Test func shardsOfAPartitionAreNamedKeyedAndShuffledWithinIt() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let d = fixtureDescription()
        let p = DatasetPartition(index: 1, count: 3)
        let sink = try ShardSplitSink(directory: WritableFolder(opening: dir.path), split: "validation", description: d,
                                      windowsPerShard: 4, compress: false, seed: 9, partition: p)
        try sink.append(fixtureBatch(6, first: 0, description: d), subjectIndex: 0, recordingIndex: 0, foldIndex: nil)
        // The partition's spool, beside a whole split's.
        #expect(FileManager.default.fileExists(atPath: dir.path + "/validation.part-00001-of-00003.spool.tmp"))
        let files = try sink.finish()
        #expect(files.map(\.path) == ["validation/part-00001-of-00003-00000.tar", "validation/part-00001-of-00003-00001.tar"])
        var numbers: [Int] = []
        for f in files {
            for s in try readShard(dir.path, f).samples {
                #expect(s.key == "validation-p00001-" + String(repeating: "0", count: 9 - String(s.windowNumber).count) + String(s.windowNumber))
                numbers.append(s.windowNumber)
            }
        }
        let order = ShardShuffle.permutation(count: 6, seed: 9, split: "validation", partition: p)
        #expect(numbers == order)
        // Seeded with "{seed}:shuffle:{split}:part-IIIII-of-NNNNN": not the whole split's permutation.
        var state = StableHash.hash("9:shuffle:validation:part-00001-of-00003")
        var expected = Array(0..<6)
        for i in stride(from: 5, to: 0, by: -1) {
            state = state &+ 0x9e37_79b9_7f4a_7c15
            expected.swapAt(i, Int(StableHash.mix(state) % UInt64(i + 1)))
        }
        #expect(order == expected)
        #expect(order != ShardShuffle.permutation(count: 6, seed: 9, split: "validation"))
    }
}
