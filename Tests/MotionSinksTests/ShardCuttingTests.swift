import Foundation
import MotionCore
import MotionZstd
import Testing

@testable import MotionSinks

/// Shards hold exactly `windows_per_shard` windows, cut across recording boundaries, in order.
@Suite struct ShardCuttingTests {
    /// Feeds batches of the given sizes (recording i = batch i) and returns the written files
    /// with their contents.
    func write(batches: [Int], perShard: Int, description d: DatasetDescription = fixtureDescription(),
               split: String = "train", in dir: TemporaryDirectory) throws -> [(WrittenFile, ShardContents)] {
        let sink = try ShardSplitSink(directory: dir.path, split: split, description: d, windowsPerShard: perShard)
        var first = 0
        for (i, n) in batches.enumerated() {
            try sink.append(fixtureBatch(n, first: first, description: d), subjectIndex: Int32(i / 2),
                            recordingIndex: Int32(i), foldIndex: Int32(i % 3))
            first += n
        }
        return try sink.finish().map { ($0, try readShard(dir.path, $0)) }
    }

    @Test func cutsAtExactCountsAcrossRecordings() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let d = fixtureDescription()
        let shards = try write(batches: [3, 4, 0, 6], perShard: 5, in: dir)
        #expect(shards.map(\.0.numWindows) == [5, 5, 3])
        #expect(shards.map(\.0.path) == ["train/train-00000.tar.zst", "train/train-00001.tar.zst", "train/train-00002.tar.zst"])
        // Concatenated, the shards give back every window in order with its indices.
        let all = fixtureBatch(13, first: 0, description: d)
        var x: [Float] = [], y: [Int64] = [], f: [Float] = [], t: [Double] = []
        var s: [Int32] = [], r: [Int32] = [], k: [Int32] = []
        for (i, (file, c)) in shards.enumerated() {
            #expect(c.stem == "train-0000\(i)")
            #expect(c.header == ShardHeader(format: "motionprep.shard", formatVersion: 1, split: "train", shardIndex: i,
                                            numWindows: file.numWindows, classCounts: file.classCounts))
            #expect(c.memberNames == ["json", "x", "y", "features", "subject_index", "recording_index", "start_time_s", "fold_index"]
                .map { "\(c.stem).\($0)\($0 == "json" ? "" : ".npy")" })
            #expect(c.array("x")?.shape == [file.numWindows, 4, 3])
            #expect(c.array("features")?.shape == [file.numWindows, 2])
            x += try c.array("x")!.float32Values()
            y += try c.array("y")!.int64Values()
            f += try c.array("features")!.float32Values()
            t += try c.array("start_time_s")!.float64Values()
            s += try c.array("subject_index")!.int32Values()
            r += try c.array("recording_index")!.int32Values()
            k += try c.array("fold_index")!.int32Values()
        }
        #expect(x == all.x && y == all.y && f == all.features)
        #expect(t.map(\.bitPattern) == all.startTimes.map(\.bitPattern))
        #expect(r == [0, 0, 0, 1, 1, 1, 1, 3, 3, 3, 3, 3, 3])
        #expect(s == [0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1])
        #expect(k == [0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
        // Class counts per shard, from y (−1 not counted).
        for (file, c) in shards {
            let ys = try c.array("y")!.int64Values()
            #expect(file.classCounts == (0..<3).map { cls in ys.filter { $0 == Int64(cls) }.count })
        }
    }

    @Test func everyShardButTheLastIsFull() throws {
        // Every windows_per_shard from 1 to 8 against a set of batch patterns.
        let patterns: [[Int]] = [[1], [7], [0, 0, 5], [3, 4, 0, 6], [8, 8], [2, 2, 2, 2, 2, 2, 2], [16]]
        for perShard in 1...8 {
            for batches in patterns {
                let dir = try TemporaryDirectory()
                defer { dir.remove() }
                let files = try write(batches: batches, perShard: perShard, in: dir).map(\.0)
                let total = batches.reduce(0, +)
                let context = "windows_per_shard \(perShard), batches \(batches)"
                #expect(files.reduce(0) { $0 + $1.numWindows } == total, "\(context)")
                #expect(files.count == max(1, (total + perShard - 1) / perShard), "\(context)")
                #expect(files.dropLast().allSatisfy { $0.numWindows == perShard }, "\(context)")
                #expect((1...perShard).contains(files.last!.numWindows), "\(context)")
                // No stray temporary files.
                let names = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/train").sorted()
                #expect(names == files.map { String($0.path.dropFirst("train/".count)) }, "\(context)")
            }
        }
    }

    @Test func emptySplitHasOneShardWithNoWindows() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        for batches in [[], [0, 0]] {
            let shards = try write(batches: batches, perShard: 5, split: "validation", in: dir)
            try #require(shards.count == 1)
            let (file, c) = shards[0]
            #expect(file == WrittenFile(path: "validation/validation-00000.tar.zst", numWindows: 0, classCounts: [0, 0, 0]))
            #expect(c.header.numWindows == 0 && c.header.classCounts == [0, 0, 0] && c.header.split == "validation")
            #expect(c.arrays.map(\.shape) == [[0, 4, 3], [0], [0, 2], [0], [0], [0], [0]])
            #expect(c.arrays.allSatisfy { $0.data.isEmpty })
        }
    }

    @Test func optionalArraysFollowTheDescription() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let d = fixtureDescription(features: 0, folds: false)
        let shards = try write(batches: [2], perShard: 5, description: d, in: dir)
        #expect(shards[0].1.arrays.map(\.name) == ["x", "y", "subject_index", "recording_index", "start_time_s"])
        #expect(shards[0].1.arrays.map(\.dtype) == ["<f4", "<i8", "<i4", "<i4", "<f8"])
    }

    @Test func npyDataIsAlignedInTheArchive() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let shards = try write(batches: [3, 4], perShard: 5, in: dir)
        for (file, _) in shards {
            let archive = try Zstd.decompressFrame([UInt8](FileManager.default.contents(atPath: dir.path + "/" + file.path)!))
            for m in try TarReader.members(archive) where m.name.hasSuffix(".npy") {
                #expect(m.data.lowerBound % 512 == 0)
                let (_, offset) = try NPYHeader.parse(archive[m.data])
                #expect(offset % 64 == 0 && (m.data.lowerBound + offset) % 64 == 0, "\(m.name)")
            }
        }
    }

    @Test func sameWindowsGiveTheSameBytesHoweverTheyArrive() throws {
        // One recording split into batches differently: identical files.
        var outputs: [[[UInt8]]] = []
        for batches in [[13], [3, 4, 0, 6], [1, 1, 1, 10], [13]] {
            let dir = try TemporaryDirectory()
            defer { dir.remove() }
            let d = fixtureDescription()
            let sink = try ShardSplitSink(directory: dir.path, split: "test", description: d, windowsPerShard: 5, compressionLevel: 3)
            var first = 0
            for n in batches {
                try sink.append(fixtureBatch(n, first: first, description: d), subjectIndex: 1, recordingIndex: 2, foldIndex: nil)
                first += n
            }
            let files = try sink.finish()
            outputs.append(files.map { [UInt8](FileManager.default.contents(atPath: dir.path + "/" + $0.path)!) })
        }
        #expect(outputs.allSatisfy { $0 == outputs[0] })
        #expect(outputs[0].count == 3)
    }

    @Test func rejectsZeroWindowsPerShard() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        #expect(throws: MotionError.self) {
            _ = try ShardSplitSink(directory: dir.path, split: "train", description: fixtureDescription(), windowsPerShard: 0)
        }
    }

    @Test func readerNamesTheFileOfADamagedShard() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (file, _) = try write(batches: [3], perShard: 5, in: dir)[0]
        let path = dir.path + "/" + file.path
        var bytes = [UInt8](FileManager.default.contents(atPath: path)!)
        bytes[bytes.count / 2] ^= 0x40
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        do {
            _ = try ShardReader.read(path: path)
            Issue.record("a damaged shard was read without error")
        } catch let e as MotionError {
            #expect(e.exitStatus == .dataError)
            #expect(e.message.hasPrefix("shard \(path) is malformed: "))
        }
        #expect((try? ShardReader.read(path: dir.path + "/missing.tar.zst")) == nil)
    }

    @Test func sizeBoundRefusesAShardThatDeclaresMoreContent() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (file, _) = try write(batches: [3], perShard: 5, in: dir)[0]
        let path = dir.path + "/" + file.path
        let bound = ShardReader.maximumArchiveBytes(windows: 3, arrayRowElements: [128 * 7, 1, 1, 1, 1, 14], classes: 2)
        #expect(try ShardReader.read(path: path, maxArchiveBytes: bound).header.numWindows == 3)
        // A frame of zeros one byte over the bound: refused from its header, before decompressing.
        let zeros = [UInt8](repeating: 0, count: bound + 1)
        let bomb = try zeros.withUnsafeBytes { try Zstd.compressFrame($0, level: 1) }
        try Data(bomb).write(to: URL(fileURLWithPath: path))
        #expect(bomb.count < bound / 100)
        do {
            _ = try ShardReader.read(path: path, maxArchiveBytes: bound)
            Issue.record("a shard over its bound was read")
        } catch let e as ShardSizeError {
            #expect(e.message == "shard \(path) declares \(bound + 1) bytes of content in its zstd frame header, more than the \(bound) its manifest entry allows; it is not decompressed")
        }
        // Without a bound it is a valid frame (and not a shard).
        #expect(throws: MotionError.self) { _ = try ShardReader.read(path: path) }
        // A file longer than any compressed shard of that bound is not read at all.
        try Data(count: bound * 2).write(to: URL(fileURLWithPath: path))
        #expect(throws: ShardSizeError.self) { _ = try ShardReader.read(path: path, maxArchiveBytes: bound) }
    }

    @Test func sizeBoundSaturatesInsteadOfOverflowing() {
        #expect(ShardReader.maximumArchiveBytes(windows: Int.max / 4, arrayRowElements: [896], classes: 2) == Int.max)
        #expect(ShardReader.maximumArchiveBytes(windows: 10, arrayRowElements: [Int.max / 2], classes: 2) == Int.max)
        let small = ShardReader.maximumArchiveBytes(windows: 0, arrayRowElements: [896, 1], classes: 2)
        #expect(small > 1 << 20 && small < 2 << 20)
        #expect(ShardReader.maximumArchiveBytes(windows: 100, arrayRowElements: [896, 1], classes: 2) == small + 100 * 897 * 8)
    }
}
