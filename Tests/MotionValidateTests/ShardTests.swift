import Foundation
import MotionCore
import MotionSinks
import MotionValidate
import MotionZstd
import Testing

/// `storage: "shards"`: the same checks through the shard reader, plus the shard layout.
@Suite struct ShardTests {
    @Test func cleanShardDatasetPasses() throws {
        let dir = Fixture.copy(shards: true)
        let (status, output) = try validate(dir)
        #expect(status == .success, "\(output)")
        #expect(report(dir).checks.count == 26)
    }

    @Test func deletedShardFailsExist() throws {
        let dir = Fixture.copy(shards: true)
        try FileManager.default.removeItem(atPath: dir + "/test/test-00001.tar.zst")
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/test/test-00001.tar.zst: files.exist: is listed in the manifest (split `test`) but does not exist"))
    }

    @Test func strayShardFailsUnlisted() throws {
        let dir = Fixture.copy(shards: true)
        try FileManager.default.copyItem(atPath: dir + "/train/train-00001.tar.zst", toPath: dir + "/train/train-00002.tar.zst")
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/train/train-00002.tar.zst: files.unlisted: is a file the manifest does not list"))
    }

    @Test func flippedByteFailsChecksumsAndDecoding() throws {
        let dir = Fixture.copy(shards: true)
        let path = dir + "/validation/validation-00000.tar.zst"
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count / 2] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/validation/validation-00000.tar.zst: files.sha256:"))
        #expect(output.contains("\(dir)/validation/validation-00000.tar.zst: files.readable: cannot be opened as shards"))
    }

    /// Replaces the first occurrence of `from` in a shard's archive by `to` (same length, so the
    /// tar member sizes stay right), re-compresses and re-hashes so only that is wrong.
    private func editArchive(_ dir: String, _ file: String, _ from: String, _ to: String) throws {
        let path = dir + "/" + file
        let archive = try Zstd.decompressFrame([UInt8](Data(contentsOf: URL(fileURLWithPath: path))))
        let f = Array(from.utf8), t = Array(to.utf8)
        var edited = archive
        let at = try #require((0...(archive.count - f.count)).first { Array(archive[$0..<($0 + f.count)]) == f })
        edited.replaceSubrange(at..<(at + f.count), with: t)
        let compressed = try edited.withUnsafeBytes { try Zstd.compressFrame($0, level: 3) }
        try Data(compressed).write(to: URL(fileURLWithPath: path))
        try refreshChecksums(dir, file)
    }

    /// A window whose json label disagrees with its `y.cls`.
    @Test func labelDisagreeingWithTheClassIdFails() throws {
        let dir = Fixture.copy(shards: true)
        let file = "train/train-00000.tar.zst"
        try editArchive(dir, file, "\"label\":\"walk\"", "\"label\":\"turn\"")
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/train/train-00000.tar.zst: files.metadata: 1 window(s) disagree on their class; first: `train-"), "\(output)")
        #expect(failedChecks(report(dir)) == ["files.metadata"])
    }

    /// The clean fixture's keys number each split's windows 0 ..< N, shuffled.
    @Test func cleanShardsNumberEveryWindowOnceShuffled() throws {
        let dir = Fixture.copy(shards: true)
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/manifest.json"))) as! [String: Any]
        let splits = manifest["splits"] as! [String: Any]
        for name in ["train", "validation", "test"] {
            let split = splits[name] as! [String: Any]
            var numbers: [Int] = []
            for f in split["files"] as! [[String: Any]] {
                numbers += try ShardReader.read(path: dir + "/" + (f["path"] as! String)).samples.map(\.windowNumber)
            }
            #expect(numbers.sorted() == Array(0..<(split["num_windows"] as! Int)), "\(name)")
            #expect(numbers != numbers.sorted(), "\(name) is shuffled")
        }
    }

    /// A shard copied over another of its split: its windows appear twice, the other's never.
    @Test func repeatedWindowsFailCountsSplit() throws {
        let dir = Fixture.copy(shards: true)
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/train/train-00000.tar.zst"))
        try data.write(to: URL(fileURLWithPath: dir + "/train/train-00001.tar.zst"))
        try refreshChecksums(dir, "train/train-00001.tar.zst")
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("manifest.json: counts.split: the sample keys of split `train` do not number its"), "\(output)")
        #expect(output.contains("repeated, first"), "\(output)")
    }

    @Test func shardDeclaringMoreThanItsEntryAllowsFailsContainer() throws {
        let dir = Fixture.copy(shards: true)
        let name = "train/train-00000.tar.zst"
        let zeros = [UInt8](repeating: 0, count: 8 << 20)  // far more than 50 windows of 128 × 7 floats
        let bomb = try zeros.withUnsafeBytes { try Zstd.compressFrame($0, level: 1) }
        try Data(bomb).write(to: URL(fileURLWithPath: dir + "/" + name))
        try refreshChecksums(dir, name)
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/\(name): files.container: shard \(dir)/\(name) declares \(8 << 20) bytes of content in its zstd frame header, more than the "))
        #expect(failedChecks(report(dir)) == ["files.container"])
    }
}
