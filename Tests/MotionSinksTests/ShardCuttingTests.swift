import Foundation
import MotionChecksum
import MotionCore
import MotionZstd
import Testing

@testable import MotionSinks

/// Shards hold exactly `windows_per_shard` windows, one WebDataset sample each, shuffled across the
/// split's shards by the documented permutation.
@Suite struct ShardCuttingTests {
    /// Feeds batches of the given sizes (recording i = batch i) and returns the written files
    /// with their contents.
    func write(batches: [Int], perShard: Int, description d: DatasetDescription = fixtureDescription(),
               split: String = "train", in dir: TemporaryDirectory) throws -> [(WrittenFile, ShardContents)] {
        let sink = try ShardSplitSink(directory: WritableFolder(opening: dir.path), split: split, description: d, windowsPerShard: perShard)
        var first = 0
        for (i, n) in batches.enumerated() {
            try sink.append(fixtureBatch(n, first: first, description: d), subjectIndex: Int32(i / 2),
                            recordingIndex: Int32(i), foldIndex: Int32(i % 3))
            first += n
        }
        return try sink.finish().map { ($0, try readShard(dir.path, $0)) }
    }

    @Test func everyWindowOnceAsOneSampleAcrossShuffledShards() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let d = fixtureDescription()
        let shards = try write(batches: [3, 4, 0, 6], perShard: 5, in: dir)
        #expect(shards.map(\.0.numWindows) == [5, 5, 3])
        #expect(shards.map(\.0.path) == ["train/train-00000.tar.zst", "train/train-00001.tar.zst", "train/train-00002.tar.zst"])
        let all = fixtureBatch(13, first: 0, description: d)
        // Recording of each canonical window: batches [3, 4, 0, 6] are recordings 0, 1, 2, 3.
        let recordingOf = [0, 0, 0, 1, 1, 1, 1, 3, 3, 3, 3, 3, 3]
        var numbers: [Int] = []
        for (file, c) in shards {
            #expect(c.numWindows == file.numWindows)
            #expect(c.classCounts(classes: 3) == file.classCounts)
            let x = try c.array("x")!.float32Values(), f = try c.array("features")!.float32Values()
            #expect(c.array("x")?.shape == [file.numWindows, 4, 3])
            for (i, s) in c.samples.enumerated() {
                let w = s.windowNumber
                numbers.append(w)
                #expect(s.key == "train-" + String(repeating: "0", count: 9 - String(w).count) + String(w))
                #expect(Array(c.memberNames[(4 * i)..<(4 * i + 4)]) == ["x.npy", "y.cls", "features.npy", "json"].map { "\(s.key).\($0)" })
                #expect(Array(x[(i * 12)..<(i * 12 + 12)]) == Array(all.x[(w * 12)..<(w * 12 + 12)]))
                #expect(Array(f[(i * 2)..<(i * 2 + 2)]) == Array(all.features[(w * 2)..<(w * 2 + 2)]))
                #expect(s.classID == all.y[w])
                #expect(s.label == (all.y[w] >= 0 ? d.classNames[Int(all.y[w])] : nil))
                #expect(s.startTimeS.bitPattern == all.startTimes[w].bitPattern)
                let r = recordingOf[w]
                #expect(s.recording == d.recordingNames[r] && s.subject == d.subjectNames[r / 2])
                #expect(s.foldIndex == r % 3)
            }
        }
        #expect(numbers == ShardShuffle.permutation(count: 13, seed: 0, split: "train"))
        #expect(numbers.sorted() == Array(0..<13) && numbers != Array(0..<13))
        // No spool left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["train"])
    }

    @Test func jsonMemberIsCompactSortedAndFoldsAreMinusOneOutsideTrain() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let d = fixtureDescription()
        let sink = try ShardSplitSink(directory: WritableFolder(opening: dir.path), split: "test", description: d, windowsPerShard: 5, compress: false)
        try sink.append(fixtureBatch(4, first: 0, description: d), subjectIndex: 1, recordingIndex: 2, foldIndex: -1)
        let file = try sink.finish()[0]
        #expect(file.path == "test/test-00000.tar")
        let archive = [UInt8](FileManager.default.contents(atPath: dir.path + "/" + file.path)!)
        let members = try TarReader.members(archive)
        let window3 = try #require(members.first { $0.name == "test-000000003.json" })
        #expect(String(decoding: archive[window3.data], as: UTF8.self)
                == #"{"fold_index":-1,"label":null,"recording":"s2/a","start_time_s":1700000000.12,"subject":"s2"}"#)
        let cls = try #require(members.first { $0.name == "test-000000002.y.cls" })
        #expect(String(decoding: archive[cls.data], as: UTF8.self) == "2")
        #expect(try ShardReader.read(path: dir.path + "/" + file.path).samples.allSatisfy { $0.foldIndex == -1 })
    }

    @Test func appliedShardsAreUnshuffledWithNormalisedMembersThatTheReaderGathers() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let d = fixtureDescription(folds: false)
        let norm = SinkNormalization(x: Standardization(mean: [1, 2, 3], std: [2, 0, 0.5]),
                                     features: Standardization(mean: [10, 0], std: [4, 1]))
        let sink = try ShardSplitSink(directory: WritableFolder(opening: dir.path), split: "windows", description: d, windowsPerShard: 5, compress: false,
                                      shuffle: false, normalization: norm)
        try sink.append(fixtureBatch(7, first: 0, description: d), subjectIndex: 0, recordingIndex: 1, foldIndex: nil)
        let files = try sink.finish()
        #expect(files.map(\.path) == ["windows/windows-00000.tar", "windows/windows-00001.tar"])
        let all = fixtureBatch(7, first: 0, description: d)
        var x: [Float] = [], f: [Float] = [], xn: [Float] = [], fn: [Float] = [], keys: [String] = []
        for file in files {
            let c = try ShardReader.read(path: dir.path + "/" + file.path)
            keys += c.samples.map(\.key)
            x += try #require(c.array("x")).float32Values()
            f += try #require(c.array("features")).float32Values()
            xn += try #require(c.array("x_normalized")).float32Values()
            fn += try #require(c.array("features_normalized")).float32Values()
        }
        #expect(keys == (0..<7).map { ShardSplitSink.key(split: "windows", window: $0) })  // canonical order
        #expect(x == all.x && f == all.features)
        #expect(xn == norm.x.apply(all.x) && fn == norm.features!.apply(all.features))
        #expect(xn[1] == all.x[1] - 2)  // std 0: only centred
    }

    @Test func shufflePermutationIsTheDocumentedOne() {
        // Computed independently from docs/dataset-format.md, "Shards" (Python, integers mod 2^64).
        #expect(ShardShuffle.permutation(count: 10, seed: 42, split: "train") == [3, 1, 0, 9, 5, 7, 8, 6, 4, 2])
        #expect(ShardShuffle.permutation(count: 10, seed: 42, split: "test") == [7, 1, 2, 4, 9, 5, 6, 3, 8, 0])
        #expect(ShardShuffle.permutation(count: 0, seed: 1, split: "train") == [])
        #expect(ShardShuffle.permutation(count: 1, seed: 1, split: "train") == [0])
        let big = ShardShuffle.permutation(count: 10_000, seed: 7, split: "validation")
        #expect(big.sorted() == Array(0..<10_000))
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
                #expect(!FileManager.default.fileExists(atPath: dir.path + "/train.spool.tmp"), "\(context)")
                #expect(names == files.map { String($0.path.dropFirst("train/".count)) }, "\(context)")
            }
        }
    }

    @Test func emptySplitHasOneEmptyArchive() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        for batches in [[], [0, 0]] {
            let shards = try write(batches: batches, perShard: 5, split: "validation", in: dir)
            try #require(shards.count == 1)
            let (file, c) = shards[0]
            #expect(file.path == "validation/validation-00000.tar.zst" && file.numWindows == 0 && file.classCounts == [0, 0, 0])
            #expect(c.samples.isEmpty && c.arrays.isEmpty && c.memberNames.isEmpty)
            let bytes = [UInt8](FileManager.default.contents(atPath: dir.path + "/" + file.path)!)
            // Hashed as it was written: the SHA-256 and size of the bytes on disk.
            #expect(file.sha256 == SHA256.hex(of: bytes) && file.bytes == bytes.count)
            let archive = try Zstd.decompressFrame(bytes)
            #expect(archive == [UInt8](repeating: 0, count: 1024))
        }
    }

    @Test func optionalMembersFollowTheDescription() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let d = fixtureDescription(features: 0, folds: false)
        let shards = try write(batches: [2], perShard: 5, description: d, in: dir)
        let c = shards[0].1
        #expect(c.arrays.map(\.name) == ["x", "y", "start_time_s"])
        #expect(c.arrays.map(\.dtype) == ["<f4", "<i8", "<f8"])
        #expect(c.memberNames.count == 6 && c.memberNames.allSatisfy { !$0.contains("features") })
        #expect(c.samples.allSatisfy { $0.foldIndex == nil })
    }

    @Test func readerRefusesASampleWithAnExtraMember() throws {
        var archive: [UInt8] = []
        var tar = TarWriter { archive.append(contentsOf: $0) }
        let x = NPYHeader(descr: "<f4", shape: [1, 1]).encoded() + [0, 0, 0, 0]
        for (name, body) in [("train-000000000.x.npy", x), ("train-000000000.y.cls", Array("0".utf8)),
                             ("train-000000000.extra", [1]), ("train-000000000.json", Array("{}".utf8))] {
            try tar.beginMember(name: name, size: body.count)
            try tar.writeContent(body)
        }
        try tar.finish()
        do {
            _ = try ShardReader.read(archive: archive)
            Issue.record("a sample with an extra member was read")
        } catch let e as MotionError {
            #expect(e.message.contains("sample `train-000000000` has the members"), "\(e.message)")
        }
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
        // One recording split into batches differently, and 1 to 4 writing threads: identical files.
        for (batches, threads) in [([13], 1), ([3, 4, 0, 6], 2), ([1, 1, 1, 10], 3), ([13], 4)] {
            let dir = try TemporaryDirectory()
            defer { dir.remove() }
            let d = fixtureDescription()
            let sink = try ShardSplitSink(directory: WritableFolder(opening: dir.path), split: "test", description: d, windowsPerShard: 5, compressionLevel: 3,
                                          threads: threads)
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
            _ = try ShardSplitSink(directory: WritableFolder(opening: dir.path), split: "train", description: fixtureDescription(), windowsPerShard: 0)
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
        #expect(try ShardReader.read(path: path, maxArchiveBytes: bound).numWindows == 3)
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
        // Without a bound it is a valid frame of zeros: a tar archive of end blocks, an empty shard.
        #expect(try ShardReader.read(path: path).numWindows == 0)
        // A file longer than any compressed shard of that bound is not read at all.
        try Data(count: bound * 2).write(to: URL(fileURLWithPath: path))
        #expect(throws: ShardSizeError.self) { _ = try ShardReader.read(path: path, maxArchiveBytes: bound) }
    }

    @Test func sizeBoundSaturatesInsteadOfOverflowing() {
        #expect(ShardReader.maximumArchiveBytes(windows: Int.max / 4, arrayRowElements: [896], classes: 2) == Int.max)
        #expect(ShardReader.maximumArchiveBytes(windows: 10, arrayRowElements: [Int.max / 2], classes: 2) == Int.max)
        let small = ShardReader.maximumArchiveBytes(windows: 0, arrayRowElements: [896, 1], classes: 2)
        #expect(small > 1 << 20 && small < 2 << 20)
        let perWindow = 4 * (2 * 512 + 4096) + ShardReader.maximumJSONBytes + 897 * 8
        #expect(ShardReader.maximumArchiveBytes(windows: 100, arrayRowElements: [896, 1], classes: 2) == small + 100 * perWindow)
    }
}

/// A sample's `.json` is read through MotionCore's `JSONNode`: a value of the wrong type or a
/// missing key names the member and the key.
@Suite struct ShardSampleJSONTests {
    func read(json: String) throws -> ShardContents {
        var archive: [UInt8] = []
        var tar = TarWriter { archive.append(contentsOf: $0) }
        let x = NPYHeader(descr: "<f4", shape: [1, 1]).encoded() + [0, 0, 0, 0]
        for (name, body) in [("train-000000000.x.npy", x), ("train-000000000.y.cls", Array("0".utf8)),
                             ("train-000000000.json", Array(json.utf8))] {
            try tar.beginMember(name: name, size: body.count)
            try tar.writeContent(body)
        }
        try tar.finish()
        return try ShardReader.read(archive: archive)
    }

    func message(_ json: String) -> String? {
        do { _ = try read(json: json); return nil } catch let e as MotionError {
            #expect(e.exitStatus == .dataError)
            return e.message
        } catch { return "\(error)" }
    }

    @Test func aWellFormedSampleIsRead() throws {
        let c = try read(json: #"{"fold_index":2,"label":"walk","recording":"s1/a","start_time_s":1.5,"subject":"s1"}"#)
        #expect(c.samples == [ShardSample(key: "train-000000000", windowNumber: 0, classID: 0, subject: "s1", recording: "s1/a",
                                          startTimeS: 1.5, label: "walk", foldIndex: 2)])
        let n = try read(json: #"{"label":null,"recording":"r","start_time_s":3,"subject":"s"}"#).samples[0]
        #expect(n.label == nil && n.foldIndex == nil && n.startTimeS == 3)
    }

    @Test func aValueOfTheWrongTypeOrAMissingKeyNamesTheMemberAndTheKey() {
        #expect(message(#"{"label":null,"recording":"r","start_time_s":"12","subject":"s"}"#)
                == "member `train-000000000.json`: `start_time_s` must be a number, not \"12\"")
        #expect(message(#"{"label":null,"recording":"r","start_time_s":1}"#)
                == "member `train-000000000.json`: missing key `subject` in the sample")
        #expect(message(#"{"fold_index":1.5,"label":null,"recording":"r","start_time_s":1,"subject":"s"}"#)
                == "member `train-000000000.json`: `fold_index` must be a whole number, not `1.5`")
        #expect(message(#"{"label":7,"recording":"r","start_time_s":1,"subject":"s"}"#)
                == "member `train-000000000.json`: `label` must be a string, not `7`")
        #expect(message(#"{"label":null,"recording":"r","start_time_s":1,"subject":"s","weight":1}"#)
                == "member `train-000000000.json`: unknown key `weight` in the sample")
        #expect(message("[1]") == "member `train-000000000.json`: the sample must be an object, not a list")
        #expect(message("{")?.hasPrefix("member `train-000000000.json` is not valid JSON at member `train-000000000.json`:1:2: ") == true)
    }
}
