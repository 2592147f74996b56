import Foundation
import MotionCore
#if canImport(Glibc)
import Glibc
#endif

/// Builds a dataset in `DIR.partial/` beside the output folder and moves it into place only when
/// complete (SPEC §8.3): until then a previous dataset in `DIR` stays intact, and a failed run
/// leaves nothing in `DIR` that looks finished.
struct DatasetStaging {
    let outputDirectory: String
    var partialDirectory: String { outputDirectory + ".partial" }
    private var previousDirectory: String { outputDirectory + ".previous" }

    init(outputDirectory: String) {
        self.outputDirectory = outputDirectory
    }

    /// Creates an empty `DIR.partial/` (removing a stale one).
    func begin() throws {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: outputDirectory, isDirectory: &isDir), !isDir.boolValue {
            throw MotionError(.cannotCreate, "cannot write the dataset to \(outputDirectory): it is a file, not a folder")
        }
        let parent = PathText.parent(outputDirectory)
        do {
            try fm.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw MotionError(.cannotCreate, "cannot create the output's parent folder \(parent): \(Self.reason(error))")
        }
        // A two-step commit killed between its renames left the previous dataset aside: put it back.
        if !fm.fileExists(atPath: outputDirectory), fm.fileExists(atPath: previousDirectory + "/manifest.json") {
            _ = rename(previousDirectory, outputDirectory)
        }
        if fm.fileExists(atPath: partialDirectory) {
            try? fm.removeItem(atPath: partialDirectory)
        }
        do {
            try fm.createDirectory(atPath: partialDirectory, withIntermediateDirectories: false)
        } catch {
            throw MotionError(.cannotCreate, "cannot create \(partialDirectory): \(Self.reason(error))")
        }
    }

    /// Writes a small text file into the partial folder (fsync'd: the manifest is the commit mark).
    func write(_ name: String, _ text: String) throws {
        let path = partialDirectory + "/" + name
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw MotionError(.cannotCreate, "cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw MotionError(.ioError, "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            off += n
        }
        fsync(fd)
    }

    /// Moves the finished dataset into place: exchanges it atomically with a previous one where
    /// the filesystem allows, else renames the previous one aside first and removes it after.
    func commit() throws {
        let fm = FileManager.default
        if fm.fileExists(atPath: outputDirectory), Self.exchange(partialDirectory, outputDirectory) {
            // One atomic step: DIR is the new dataset, DIR.partial the previous one.
            try? fm.removeItem(atPath: partialDirectory)
            return
        }
        if fm.fileExists(atPath: outputDirectory) {
            if rename(outputDirectory, previousDirectory) != 0 && errno != ENOENT {
                try? fm.removeItem(atPath: previousDirectory)
                guard rename(outputDirectory, previousDirectory) == 0 else {
                    throw MotionError(.cannotCreate, "cannot replace the previous dataset \(outputDirectory): \(String(cString: strerror(errno)))")
                }
            }
        }
        guard rename(partialDirectory, outputDirectory) == 0 else {
            let reason = String(cString: strerror(errno))
            _ = rename(previousDirectory, outputDirectory)
            throw MotionError(.cannotCreate, "cannot move \(partialDirectory) to \(outputDirectory): \(reason)")
        }
        try? fm.removeItem(atPath: previousDirectory)
    }

    /// `renameat2(a, b, RENAME_EXCHANGE)` (Linux 3.15+; ext4, xfs, btrfs, tmpfs…): swaps two
    /// paths atomically, so a kill at any instant leaves either dataset in `DIR`, never none.
    /// False when the C library or the filesystem lacks it (then `commit` renames in two steps).
    /// Looked up with `dlsym` because Glibc's Swift overlay hides `_GNU_SOURCE` declarations.
    private static func exchange(_ a: String, _ b: String) -> Bool {
        typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
        guard let symbol = dlsym(nil, "renameat2") else { return false }
        let renameat2 = unsafeBitCast(symbol, to: RenameAt2.self)
        let renameExchange: UInt32 = 1 << 1  // RENAME_EXCHANGE, <linux/fs.h>
        return renameat2(AT_FDCWD, a, AT_FDCWD, b, renameExchange) == 0
    }

    /// Removes the partial folder after a failure.
    func abandon() {
        try? FileManager.default.removeItem(atPath: partialDirectory)
    }

    private static func reason(_ error: Error) -> String {
        if let e = error as? CocoaError, let u = e.underlying as? POSIXError { return String(cString: strerror(u.code.rawValue)) }
        return (error as NSError).localizedDescription
    }
}
