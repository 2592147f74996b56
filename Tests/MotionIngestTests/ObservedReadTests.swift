import Foundation
import MotionCore
import MotionTestSupport
import Testing
@testable import MotionIngest

/// Readers under a `FileReadObserver` (docs/hardening.md, "Data safety: provenance"): the
/// observer hears exactly the bytes parsed, and a file that changes while it is read is an error
/// naming it (exit 74), whichever reader reads it.
@Suite struct ObservedReadTests {
    /// Collects the bytes heard; optionally runs `change` after the first chunk (the "other
    /// writer", at a deterministic point of the read).
    final class Collector: FileReadObserver, FileReadTap, @unchecked Sendable {
        var bytes: [UInt8] = []
        var finished: Int?
        var opens = 0
        var change: (() -> Void)?

        func opened(path: String, displayPath: String, identity: FileIdentity?) throws -> any FileReadTap {
            opens += 1
            #expect(identity != nil)
            return self
        }
        func consume(_ chunk: UnsafeRawBufferPointer) {
            bytes += chunk
            if let c = change {
                change = nil
                c()
            }
        }
        func finished(bytes n: Int) throws { finished = n }
    }

    static let text = "Source,Label,When,X,Y,Z\n" + (0..<3000).map { "A,W,\(1000 + Double($0) / 100),0.1,0.2,0.3\n" }.joined()

    func file() throws -> (TemporaryDirectory, String) {
        let dir = try TemporaryDirectory(label: "observed")
        let path = dir.path("rec.csv")
        try Self.text.write(toFile: path, atomically: false, encoding: .utf8)
        return (dir, path)
    }

    @Test func theObserverHearsExactlyTheFile() throws {
        let (dir, path) = try file()
        defer { dir.remove() }
        let whole = Collector()
        _ = try MotionCollectorReader.read(path: path, displayPath: path, units: .si, keep: nil, observer: whole)
        #expect(whole.bytes == Array(Self.text.utf8) && whole.finished == Self.text.utf8.count && whole.opens == 1)
        let blocks = Collector()
        let reader = try MotionCollectorBlockReader(path: path, displayPath: path, units: .si, keep: nil, blockBytes: 4096,
                                                    observer: blocks)
        while try reader.next() != nil {}
        #expect(blocks.bytes == Array(Self.text.utf8) && blocks.finished == Self.text.utf8.count)
    }

    /// Appended to, rewritten in place (same size) and truncated after the first chunk, by the
    /// whole-file reader and the block reader: every case is caught.
    @Test(arguments: ["append", "rewrite", "truncate"], [false, true])
    func aFileChangedWhileReadIsAnError(how: String, blocks: Bool) throws {
        let (dir, path) = try file()
        defer { dir.remove() }
        let observer = Collector()
        observer.change = {
            let h = FileHandle(forUpdatingAtPath: path)!
            switch how {
            case "append": h.seekToEndOfFile(); h.write(Data("A,W,2000,1,1,1\n".utf8))
            case "rewrite": h.seek(toFileOffset: 30); h.write(Data("9".utf8))
            default: h.truncateFile(atOffset: 100)
            }
            h.closeFile()
            // mtime must move even on a coarse clock.
            var times = [timespec(tv_sec: 1, tv_nsec: 0), timespec(tv_sec: 1, tv_nsec: 0)]
            _ = utimensat(AT_FDCWD, path, &times, 0)
        }
        do {
            if blocks {
                let reader = try MotionCollectorBlockReader(path: path, displayPath: path, units: .si, keep: nil, blockBytes: 1024,
                                                            observer: observer)
                while try reader.next() != nil {}
            } else {
                // 1 MiB chunks: the change lands after the only chunk, before the end-of-file read.
                _ = try MotionCollectorReader.read(path: path, displayPath: path, units: .si, keep: nil, observer: observer)
            }
            Issue.record("no error for a file changed while read (\(how))")
        } catch let e as MotionError {
            #expect(e.exitStatus == .ioError)
            #expect(e.message.hasPrefix("\(path) changed as we read it ("), "\(e.message)")
        }
        #expect(observer.finished == nil)
    }

    @Test func aSysfsValueAndAWholeFileAreHeard() throws {
        let dir = try TemporaryDirectory(label: "observed-sysfs")
        defer { dir.remove() }
        try "12345\n".write(toFile: dir.path("labels.csv"), atomically: false, encoding: .utf8)
        let whole = Collector()
        #expect(try WholeFile.read(path: dir.path("labels.csv"), displayPath: "labels.csv", observer: whole) == Array("12345\n".utf8))
        #expect(whole.bytes == Array("12345\n".utf8) && whole.finished == 6)
        let sysfs = Collector()
        let folder = _IIOSysfsFolder(path: dir.path(""), display: "sysfs", observer: sysfs)
        #expect(try folder.value("labels.csv") == "12345")
        #expect(try folder.value("missing") == nil)
        #expect(sysfs.bytes == Array("12345\n".utf8) && sysfs.finished == 6 && sysfs.opens == 1)
    }
}
