import Foundation
import MotionCore
import MotionValidate
import MotionZstd
import Testing

/// `storage: "shards"`: the same checks through the shard reader, plus the shard layout.
@Suite struct ShardTests {
    @Test func cleanShardDatasetPasses() throws {
        let dir = Fixture.copy(shards: true)
        let (status, output) = try validate(dir)
        #expect(status == .success, "\(output)")
        #expect(report(dir).checks.count == 22)
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

    /// A header that disagrees with its arrays, re-compressed and re-hashed so only that is wrong.
    @Test func headerCountsDisagreeingWithDataFail() throws {
        let dir = Fixture.copy(shards: true)
        let file = "train/train-00000.tar.zst"
        let path = dir + "/" + file
        let archive = try Zstd.decompressFrame([UInt8](Data(contentsOf: URL(fileURLWithPath: path))))
        // Same length, so the tar member sizes stay right.
        let from = Array("\"num_windows\":50".utf8), to = Array("\"num_windows\":49".utf8)
        var edited = archive
        let at = try #require((0...(archive.count - from.count)).first { Array(archive[$0..<($0 + from.count)]) == from })
        edited.replaceSubrange(at..<(at + from.count), with: to)
        let compressed = try edited.withUnsafeBytes { try Zstd.compressFrame($0, level: 3) }
        try Data(compressed).write(to: URL(fileURLWithPath: path))
        try refreshChecksums(dir, file)
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/train/train-00000.tar.zst: counts.file: its header declares 49 windows, but it holds 50"))
        #expect(failedChecks(report(dir)) == ["counts.file"])
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
