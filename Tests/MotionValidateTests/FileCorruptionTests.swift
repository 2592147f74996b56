import Foundation
import MotionCore
import MotionValidate
import Testing

/// `files.*`: every way the bytes of a dataset can go wrong is caught and names the file.
@Suite struct FileCorruptionTests {
    @Test func cleanDatasetPasses() throws {
        let dir = Fixture.copy()
        let (status, output) = try validate(dir)
        #expect(status == .success, "\(output)")
        #expect(output.contains("ok: "))
        #expect(output.contains("MB/s"))
    }

    @Test func flippedByteFailsSHA256() throws {
        let dir = Fixture.copy()
        let path = dir + "/train.h5"
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count / 2] ^= 0x40
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/train.h5: files.sha256: has SHA-256 "))
        #expect(!output.contains("files.size"))
    }

    @Test func truncatedFileFailsSize() throws {
        let dir = Fixture.copy()
        let path = dir + "/validation.h5"
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        let size = try handle.seekToEnd()
        try handle.truncate(atOffset: size / 2)
        try handle.close()
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/validation.h5: files.size: has \(size / 2) bytes, but the manifest lists \(size) (truncated?)"))
        #expect(output.contains("\(dir)/validation.h5: files.sha256:"))
        // Half an HDF5 file does not decode either.
        #expect(output.contains("\(dir)/validation.h5: files.readable:"))
    }

    @Test func deletedFileFailsExist() throws {
        let dir = Fixture.copy()
        try FileManager.default.removeItem(atPath: dir + "/test.h5")
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/test.h5: files.exist: is listed in the manifest (split `test`) but does not exist"))
        let r = report(dir)
        // Its counts cannot be recomputed, so nothing may pass on them silently.
        #expect(failedChecks(r) == ["files.exist"])
        #expect(r.outcome(.splitsDisjointSubjects)?.status == .skipped)
        #expect(r.outcome(.normalizationStats)?.status == .passed)  // train is intact
    }

    @Test(arguments: ["extra.h5", "train/train-00000.tar.zst", "old/validation.h5"])
    func addedDataFileFailsUnlisted(_ name: String) throws {
        let dir = Fixture.copy()
        let path = dir + "/" + name
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: dir + "/train.h5", toPath: path)
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/\(name): files.unlisted: is a file the manifest does not list"))
        #expect(failedChecks(report(dir)) == ["files.unlisted"])
    }

    @Test func topLevelReadmeAndReportAreAllowed() throws {
        let dir = Fixture.copy()
        try "notes".write(toFile: dir + "/README.md", atomically: true, encoding: .utf8)
        try "notes".write(toFile: dir + "/readme", atomically: true, encoding: .utf8)
        try "<html/>".write(toFile: dir + "/report.html", atomically: true, encoding: .utf8)
        #expect(try validate(dir).status == .success)
    }

    @Test(arguments: ["notes.txt", "TRAIN.H5", "old.tar", ".DS_Store", "sub/README.md", "train.h5.partial"])
    func anyOtherFileFailsUnlisted(_ name: String) throws {
        let dir = Fixture.copy()
        let path = dir + "/" + name
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try "extra".write(toFile: path, atomically: false, encoding: .utf8)
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/\(name): files.unlisted: is a file the manifest does not list"))
        #expect(failedChecks(report(dir)) == ["files.unlisted"])
    }

    @Test func fifoInTheFolderFailsRegularWithoutBeingOpened() throws {
        let dir = Fixture.copy()
        #expect(mkfifo(dir + "/pipe", 0o644) == 0)
        #expect(mkfifo(dir + "/test.h5.fifo", 0o644) == 0)
        try FileManager.default.removeItem(atPath: dir + "/test.h5")
        #expect(mkfifo(dir + "/test.h5", 0o644) == 0)
        // Opening either FIFO would block in open(2): validate on another thread, waited for at
        // most 10 s, so a regression fails this test instead of hanging the suite.
        final class Box: @unchecked Sendable {
            var result: (status: MotionCore.ExitStatus, output: String)?
            var failed: [String] = []
        }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            box.result = try? validate(dir)
            box.failed = failedChecks(report(dir))
            done.signal()
        }
        guard done.wait(timeout: .now() + 10) == .success, let (status, output) = box.result else {
            Issue.record("validate did not finish within 10 s: it opened a FIFO")
            return
        }
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/pipe: files.regular: is a FIFO (named pipe); a dataset folder holds only regular files and folders"))
        #expect(output.contains("\(dir)/test.h5: files.exist: is listed in the manifest (split `test`) but is a FIFO (named pipe), not a regular file, so it is not opened"))
        #expect(box.failed == ["files.exist", "files.regular"])
    }

    @Test func editedSHA256SUMSFails() throws {
        let dir = Fixture.copy()
        let sums = dir + "/SHA256SUMS"
        var lines = try String(contentsOfFile: sums, encoding: .utf8).split(separator: "\n").map(String.init)
        lines[0] = String(repeating: "0", count: 64) + "  train.h5"
        lines.removeLast()  // test.h5
        lines.append(String(repeating: "a", count: 64) + "  ghost.h5")
        lines.append("not a checksum line")
        try (lines.joined(separator: "\n") + "\n").write(toFile: sums, atomically: true, encoding: .utf8)
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/SHA256SUMS: files.sha256sums: gives `train.h5` the digest 0000"))
        #expect(output.contains("\(dir)/SHA256SUMS: files.sha256sums: does not list `test.h5`"))
        #expect(output.contains("\(dir)/SHA256SUMS: files.sha256sums: lists `ghost.h5`, which the manifest does not list"))
        #expect(output.contains("\(dir)/SHA256SUMS: files.sha256sums: line 4 is not"))
        #expect(failedChecks(report(dir)) == ["files.sha256sums"])
    }

    @Test func missingSHA256SUMSFails() throws {
        let dir = Fixture.copy()
        try FileManager.default.removeItem(atPath: dir + "/SHA256SUMS")
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/SHA256SUMS: files.sha256sums: is missing"))
    }
}
