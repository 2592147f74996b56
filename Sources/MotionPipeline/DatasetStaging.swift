import Foundation
import MotionCore
#if canImport(Glibc)
import Glibc
#endif

/// Builds a dataset in `DIR.partial/` beside the output folder and moves it into place only when
/// complete (docs/hardening.md, "Crash safety" and "Data safety: output folders"): until then a
/// previous dataset in `DIR` stays intact, and a failed run leaves nothing in `DIR` that looks
/// finished.
///
/// It touches only what is motionprep's: `DIR` is replaced only when it is empty or one of
/// motionprep's own datasets (or `--worker` parts) holding nothing but its listed files;
/// `DIR.partial/` carries a mark (`.motionprep-partial`) and one without it is never deleted or
/// moved into place; `DIR.previous/` is used only when it is an own dataset. Anything else is
/// refused with the folder and what is in the way, before anything is written.
struct DatasetStaging {
    let outputDirectory: String
    var partialDirectory: String { outputDirectory + ".partial" }
    var previousDirectory: String { outputDirectory + ".previous" }

    init(outputDirectory: String) {
        self.outputDirectory = outputDirectory
    }

    /// Refuses an output folder that motionprep may not replace.
    ///
    /// - Throws: `MotionError(.cannotCreate)` naming the folder and what is in it.
    /// - Returns: what is at the output (absent, empty or an own dataset).
    @discardableResult
    func checkOutput() throws -> OutputFolder.Kind {
        let kind = OutputFolder.classify(outputDirectory)
        switch kind {
        case .absent, .empty, .own: return kind
        case .foreign(let reason):
            var st = stat()
            if lstat(outputDirectory, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG {
                throw MotionError(.cannotCreate, "cannot write the dataset to \(outputDirectory): it is a file, not a folder")
            }
            if (st.st_mode & S_IFMT) == S_IFLNK {
                throw MotionError(.cannotCreate, "refusing to write the dataset to \(outputDirectory): \(reason); name the folder itself (`output.path` or `--out`)")
            }
            throw MotionError(.cannotCreate, "refusing to replace \(outputDirectory): \(reason); motionprep replaces only an empty folder or a dataset it wrote, so choose another output folder (`output.path` or `--out`) or move those files away")
        }
    }

    /// Refuses a `DIR.partial/` that motionprep did not make.
    func checkPartial() throws {
        var st = stat()
        guard lstat(partialDirectory, &st) == 0 else { return }
        if !OutputFolder.isOwnStaging(partialDirectory) {
            let what = (st.st_mode & S_IFMT) == S_IFDIR
                ? "it has no `\(OutputFolder.stagingMark)` mark, so motionprep did not make it"
                : "it is \(OutputFolder.describe(st.st_mode)), not a staging folder motionprep made"
            throw MotionError(.cannotCreate, "refusing to use \(partialDirectory) as the staging folder of \(outputDirectory): \(what); move it away or choose another output folder")
        }
    }

    /// Checks the output and staging folders and creates an empty `DIR.partial/` (removing a stale
    /// one of motionprep's own).
    func begin() throws {
        try checkOutput()
        let fm = FileManager.default
        let parent = PathText.parent(outputDirectory)
        do {
            try fm.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw MotionError(.cannotCreate, "cannot create the output's parent folder \(parent): \(Self.reason(error))")
        }
        try settlePrevious()
        try checkPartial()
        if OutputFolder.classify(partialDirectory) != .absent { removeStaging() }
        do {
            try fm.createDirectory(atPath: partialDirectory, withIntermediateDirectories: false)
        } catch {
            throw MotionError(.cannotCreate, "cannot create \(partialDirectory): \(Self.reason(error))")
        }
        try write(OutputFolder.stagingMark, OutputFolder.stagingMarkText)
    }

    /// Checks the folders of an interrupted run before `--resume` reuses its `DIR.partial/`.
    func reopen() throws {
        try checkOutput()
        try settlePrevious()
        try checkPartial()
    }

    /// `DIR.previous/` is left only by a two-step commit killed between its renames: put the
    /// previous dataset back when `DIR` is gone, else remove it (when it is an own dataset).
    private func settlePrevious() throws {
        switch OutputFolder.classify(previousDirectory) {
        case .absent: return
        case .empty, .own:
            if OutputFolder.classify(outputDirectory) == .absent, rename(previousDirectory, outputDirectory) == 0 { return }
            if case .own(let entries) = OutputFolder.classify(previousDirectory) {
                OutputFolder.remove(previousDirectory, entries: entries)
            } else {
                rmdir(previousDirectory)
            }
        case .foreign(let reason):
            throw MotionError(.cannotCreate, "refusing to use \(previousDirectory), where motionprep sets a previous dataset aside while it replaces \(outputDirectory): \(reason); move it away")
        }
    }

    /// Writes a small text file into the partial folder (fsync'd: the manifest is the commit mark).
    func write(_ name: String, _ text: String) throws {
        let path = partialDirectory + "/" + name
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw MotionError(.cannotCreate, "cannot create \(path): \(String(cString: strerror(errno)))") }
        var open = true
        defer { if open { close(fd) } }
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
        // Some filesystems (NFS, FUSE) report a full disk only at fsync or close.
        if fsync(fd) != 0 {
            throw MotionError(.ioError, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        open = false
        if close(fd) != 0 {
            throw MotionError(.ioError, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Moves the finished dataset into place: exchanges it atomically with a previous one where
    /// the filesystem allows, else renames the previous one aside first and removes it after.
    /// The folder being replaced is checked again first (files may have appeared in it during
    /// the run), and only the entries it was found to hold are removed.
    ///
    /// - Parameter log: receives a notice when something the previous dataset did not list had
    ///   to be left behind.
    func commit(log: (String) -> Void = { _ in }) throws {
        let old = try checkOutput()
        let oldEntries: [String]
        switch old {
        case .own(let entries): oldEntries = entries
        default: oldEntries = []
        }
        // The mark goes last: from here the partial folder is a complete dataset, which
        // `isOwnStaging` also recognises.
        unlink(partialDirectory + "/" + OutputFolder.stagingMark)
        if old != .absent, Self.exchange(partialDirectory, outputDirectory) {
            // One atomic step: DIR is the new dataset, DIR.partial the previous one.
            let left = OutputFolder.remove(partialDirectory, entries: oldEntries)
            if !left.isEmpty {
                log("warning: kept \(partialDirectory): the previous dataset was replaced, but \(OutputFolder.list(left, or: left)) appeared in it during the run and \(left.count == 1 ? "was" : "were") not removed")
            }
            return
        }
        if old != .absent {
            guard rename(outputDirectory, previousDirectory) == 0 else {
                throw MotionError(.cannotCreate, "cannot replace the previous dataset \(outputDirectory): \(String(cString: strerror(errno)))")
            }
        }
        guard rename(partialDirectory, outputDirectory) == 0 else {
            let reason = String(cString: strerror(errno))
            if old != .absent { _ = rename(previousDirectory, outputDirectory) }
            throw MotionError(.cannotCreate, "cannot move \(partialDirectory) to \(outputDirectory): \(reason)")
        }
        if old != .absent {
            let left = OutputFolder.remove(previousDirectory, entries: oldEntries)
            if !left.isEmpty {
                log("warning: kept \(previousDirectory): the previous dataset was replaced, but \(OutputFolder.list(left, or: left)) appeared in it during the run and \(left.count == 1 ? "was" : "were") not removed")
            }
        }
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

    /// Removes the partial folder after a failure (only when it is motionprep's).
    func abandon() {
        if OutputFolder.isOwnStaging(partialDirectory) { removeStaging() }
    }

    /// Removes an own staging folder whole (without following links inside it).
    private func removeStaging() {
        if case .own(let entries) = OutputFolder.classify(partialDirectory), !FileManager.default.fileExists(atPath: partialDirectory + "/" + OutputFolder.stagingMark) {
            OutputFolder.remove(partialDirectory, entries: entries)
        } else {
            try? FileManager.default.removeItem(atPath: partialDirectory)
        }
    }

    private static func reason(_ error: Error) -> String {
        if let e = error as? CocoaError, let u = e.underlying as? POSIXError { return String(cString: strerror(u.code.rawValue)) }
        return (error as NSError).localizedDescription
    }
}
