import Foundation
import MotionCore
import MotionDataset
import MotionSinks
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
package struct DatasetStaging {
    package let outputDirectory: String
    package var partialDirectory: String { outputDirectory + ".partial" }
    package var previousDirectory: String { outputDirectory + ".previous" }
    /// The staging folder as opened once it is made or reopened: every file motionprep writes
    /// last (SHA256SUMS, manifest.json, part.json) is written through it, and the folder's
    /// identity is checked against it before those writes and before the commit, so a folder
    /// swapped in at `DIR.partial` (a link, another folder) is never written into or moved
    /// into place (docs/hardening.md, "No race between check and use").
    private let handle = StagingHandle()

    package init(outputDirectory: String) {
        self.outputDirectory = outputDirectory
    }

    /// The staging folder as its descriptor, for creating the data files and record files in it
    /// (`openat`; libhdf5 through `/proc/self/fd/N/`), once `begin` or `reopen` has opened it.
    package var folder: WritableFolder { handle.folder(shownAs: partialDirectory) }

    /// Refuses an output folder that motionprep may not replace.
    ///
    /// - Throws: `MotionError(.cannotCreate)` naming the folder and what is in it.
    /// - Returns: what is at the output (absent, empty, an own dataset, a folder being filled).
    @discardableResult
    package func checkOutput() throws -> OutputFolder.Kind {
        let kind = OutputFolder.classify(outputDirectory)
        switch kind {
        case .absent, .empty, .own, .filling: return kind
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

    /// Refuses a `DIR.partial/` that motionprep did not make: one without the mark, or holding
    /// anything motionprep does not write there.
    package func checkPartial() throws {
        var st = stat()
        guard lstat(partialDirectory, &st) == 0 else { return }
        if !OutputFolder.isOwnStaging(partialDirectory) {
            let what: String
            if (st.st_mode & S_IFMT) != S_IFDIR {
                what = "it is \(OutputFolder.describe(st.st_mode)), not a staging folder motionprep made"
            } else if !OutputFolder.hasMark(partialDirectory + "/" + OutputFolder.stagingMark, text: OutputFolder.stagingMarkText) {
                if case .own = OutputFolder.classify(partialDirectory) {
                    what = "it has no `\(OutputFolder.stagingMark)` mark but holds a finished dataset, which motionprep neither deletes nor moves into place by itself"
                } else {
                    what = "it has no `\(OutputFolder.stagingMark)` mark, so motionprep did not make it"
                }
            } else if case .foreign(let why) = OutputFolder.classifyStaging(partialDirectory) {
                what = why + ", so it is not only motionprep's"
            } else {
                what = "it is not a staging folder motionprep made"
            }
            throw MotionError(.cannotCreate, "refusing to use \(partialDirectory) as the staging folder of \(outputDirectory): \(what); move it away or choose another output folder")
        }
    }

    /// Checks the output and staging folders and creates an empty `DIR.partial/` (removing a stale
    /// one of motionprep's own).
    package func begin(log: (String) -> Void = { _ in }) throws {
        try checkOutput()
        let fm = FileManager.default
        let parent = PathText.parent(outputDirectory)
        do {
            try fm.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw MotionError(.cannotCreate, "cannot create the output's parent folder \(parent): \(Self.reason(error))")
        }
        try settlePrevious(log: log)
        try checkPartial()
        if OutputFolder.classify(partialDirectory) != .absent { try removeStaging() }
        guard mkdir(partialDirectory, 0o755) == 0 else {
            throw MotionError(.cannotCreate, "cannot create \(partialDirectory): \(String(cString: strerror(errno)))")
        }
        try handle.open(partialDirectory)
        // A folder of the user's being replaced lends the new one its mode, group and ACLs.
        if OutputFiles.kind(outputDirectory) == .directory { handle.copyAttributes(from: outputDirectory) }
        try write(OutputFolder.stagingMark, OutputFolder.stagingMarkText)
    }

    /// Checks the folders of an interrupted run before `--resume` reuses its `DIR.partial/`.
    package func reopen(log: (String) -> Void = { _ in }) throws {
        try checkOutput()
        try settlePrevious(log: log)
        try checkPartial()
        try handle.open(partialDirectory)
    }

    /// Removes what an interrupted run wrote into `DIR.partial/` besides its records, its
    /// resume state and the mark (`--resume` rewrites the data files from the records), one
    /// entry at a time: the folder was found to hold only motionprep's files (`checkPartial`).
    package func clearForResume() {
        guard case .own(let entries) = OutputFolder.classifyStaging(partialDirectory) else { return }
        let keep: (String) -> Bool = { $0 == "records" || $0.hasPrefix("records/") || $0 == OutputNames.runState || $0 == OutputFolder.stagingMark }
        OutputFolder.removeEntries(partialDirectory, entries: entries.filter { !keep($0) })
    }

    /// Removes the entries of `DIR.partial/records/` that are record files, then the folder.
    package func removeRecords() {
        guard case .own(let entries) = OutputFolder.classifyStaging(partialDirectory) else { return }
        OutputFolder.removeEntries(partialDirectory, entries: entries.filter { $0.hasPrefix("records/") } + ["records"])
    }

    /// `DIR.previous/` is left only by a two-step commit killed between its renames, and then
    /// carries `OutputFolder.previousMark`: the previous dataset is put back when `DIR` is gone,
    /// else removed, each with a notice. Anything else there is refused and left alone.
    private func settlePrevious(log: (String) -> Void) throws {
        var st = stat()
        guard lstat(previousDirectory, &st) == 0 else { return }
        let marked = OutputFolder.hasMark(previousDirectory + "/" + OutputFolder.previousMark, text: OutputFolder.previousMarkText)
        guard marked, case .own(let entries) = OutputFolder.classify(previousDirectory) else {
            let reason: String
            if case .foreign(let why) = OutputFolder.classify(previousDirectory) { reason = why }
            else { reason = "it has no `\(OutputFolder.previousMark)` mark, so motionprep did not set it aside" }
            throw MotionError(.cannotCreate, "refusing to use \(previousDirectory), where motionprep sets a previous dataset aside while it replaces \(outputDirectory): \(reason); move it away")
        }
        if OutputFolder.classify(outputDirectory) == .absent, rename(previousDirectory, outputDirectory) == 0 {
            unlink(outputDirectory + "/" + OutputFolder.previousMark)
            log("notice: put the previous dataset back from \(previousDirectory) into \(outputDirectory) (a replacement had been interrupted)")
            return
        }
        OutputFolder.remove(previousDirectory, entries: entries)
        log("notice: removed \(previousDirectory), the previous dataset an interrupted replacement had set aside")
    }

    /// Refuses (73) when `DIR.partial` is no longer the folder this run made.
    package func checkIdentity() throws {
        try handle.checkIdentity(partialDirectory, output: outputDirectory)
    }

    /// Writes a small file into the staging folder through its descriptor (never through a
    /// link, never into a folder swapped in since), fsync'd: the manifest is the commit mark.
    package func write(_ name: String, _ text: String) throws {
        try handle.checkIdentity(partialDirectory, output: outputDirectory)
        try handle.write(name, Array(text.utf8), shownAs: partialDirectory + "/" + name)
    }

    /// Moves the finished dataset into place:
    /// - over nothing: one rename;
    /// - over an empty folder: the folder is kept and filled (the mark first, `manifest.json`
    ///   last), so its mode, group, ACLs and mounts stay as the user made them;
    /// - over an own dataset: exchanged atomically where the filesystem allows, else renamed
    ///   aside (marked) first and removed after.
    /// The folder being replaced is checked again first (files may have appeared in it during
    /// the run), the staging folder must be the one this run made and hold only motionprep's
    /// files, and only the entries the old folder was found to hold are removed.
    ///
    /// - Parameter log: receives a notice when something the previous dataset did not list had
    ///   to be left behind.
    package func commit(log: (String) -> Void = { _ in }) throws {
        let old = try checkOutput()
        try handle.checkIdentity(partialDirectory, output: outputDirectory)
        if case .foreign(let why) = OutputFolder.classifyStaging(partialDirectory) {
            throw MotionError(.cannotCreate, "refusing to move \(partialDirectory) into place as \(outputDirectory): \(why), so it is not only motionprep's; nothing was replaced")
        }
        switch old {
        case .absent:
            guard rename(partialDirectory, outputDirectory) == 0 else {
                throw MotionError(.cannotCreate, "cannot move \(partialDirectory) to \(outputDirectory): \(String(cString: strerror(errno)))")
            }
            try handle.checkMovedInto(outputDirectory, undo: { _ = rename(outputDirectory, partialDirectory) })
            handle.unlinkMark()
        case .empty, .filling:
            if case .filling(let entries) = old {
                OutputFolder.removeEntries(outputDirectory, entries: entries.filter { $0 != OutputFolder.stagingMark })
            }
            try handle.fill(outputDirectory, staging: partialDirectory)
        case .own(let oldEntries):
            if Self.exchange(partialDirectory, outputDirectory) {
                try handle.checkMovedInto(outputDirectory, undo: { _ = Self.exchange(partialDirectory, outputDirectory) })
                handle.unlinkMark()
                // One atomic step: DIR is the new dataset, DIR.partial the previous one.
                let left = OutputFolder.remove(partialDirectory, entries: oldEntries)
                if !left.isEmpty {
                    log("warning: kept \(partialDirectory): the previous dataset was replaced, but \(OutputFolder.list(left, or: left)) appeared in it during the run and \(left.count == 1 ? "was" : "were") not removed")
                }
                return
            }
            try OutputFiles.create(Array(OutputFolder.previousMarkText.utf8), at: outputDirectory + "/" + OutputFolder.previousMark)
            guard rename(outputDirectory, previousDirectory) == 0 else {
                let why = String(cString: strerror(errno))
                unlink(outputDirectory + "/" + OutputFolder.previousMark)
                throw MotionError(.cannotCreate, "cannot replace the previous dataset \(outputDirectory): \(why)")
            }
            guard rename(partialDirectory, outputDirectory) == 0 else {
                let reason = String(cString: strerror(errno))
                _ = rename(previousDirectory, outputDirectory)
                unlink(outputDirectory + "/" + OutputFolder.previousMark)
                throw MotionError(.cannotCreate, "cannot move \(partialDirectory) to \(outputDirectory): \(reason)")
            }
            try handle.checkMovedInto(outputDirectory, undo: {
                _ = rename(outputDirectory, partialDirectory)
                _ = rename(previousDirectory, outputDirectory)
                unlink(outputDirectory + "/" + OutputFolder.previousMark)
            })
            handle.unlinkMark()
            let left = OutputFolder.remove(previousDirectory, entries: oldEntries + [OutputFolder.previousMark])
            if !left.isEmpty {
                log("warning: kept \(previousDirectory): the previous dataset was replaced, but \(OutputFolder.list(left, or: left)) appeared in it during the run and \(left.count == 1 ? "was" : "were") not removed")
            }
        case .foreign:
            return  // checkOutput threw
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

    /// Removes the partial folder after a failure (only when it is motionprep's, and only the
    /// entries motionprep writes there: anything else stays, with its folders).
    package func abandon() {
        if OutputFolder.isOwnStaging(partialDirectory) { try? removeStaging() }
    }

    /// Removes an own staging folder entry by entry (never a recursive delete: an entry
    /// motionprep does not write there is refused, and nothing is removed).
    private func removeStaging() throws {
        switch OutputFolder.classifyStaging(partialDirectory) {
        case .absent: return
        case .empty: rmdir(partialDirectory)
        case .own(let entries), .filling(let entries):
            let left = OutputFolder.remove(partialDirectory, entries: entries)
            if !left.isEmpty {
                throw MotionError(.cannotCreate, "cannot remove the staging folder \(partialDirectory): \(OutputFolder.list(left, or: left)) could not be removed")
            }
        case .foreign(let why):
            throw MotionError(.cannotCreate, "refusing to remove the staging folder \(partialDirectory): \(why), so it is not only motionprep's; move it away")
        }
    }

    private static func reason(_ error: Error) -> String {
        if let e = error as? CocoaError, let u = e.underlying as? POSIXError { return String(cString: strerror(u.code.rawValue)) }
        return (error as NSError).localizedDescription
    }
}

/// The staging folder's descriptor and identity (device, inode), and the `*at` calls made
/// through it (docs/hardening.md, "No race between check and use").
package final class StagingHandle: @unchecked Sendable {
    private var fd: Int32 = -1
    private var identity: FileID?

    deinit { if fd >= 0 { close(fd) } }

    /// The open folder, borrowed: it stays open as long as this handle.
    package func folder(shownAs path: String) -> WritableFolder { WritableFolder(borrowing: fd, shownAs: path) }

    /// Opens `path` as a folder, never through a link.
    func open(_ path: String) throws {
        if fd >= 0 { close(fd) }
        fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            throw MotionError(.cannotCreate, "cannot open the staging folder \(path): \(String(cString: strerror(errno)))")
        }
        identity = FileID(descriptor: fd)
    }

    /// Refuses when `path` is no longer the folder this run made (swapped for a link or for
    /// another folder since it was opened).
    package func checkIdentity(_ path: String, output: String) throws {
        guard fd >= 0, let identity else { return }
        guard let now = FileID(path: path), now == identity else {
            let what = OutputFiles.kind(path) == .missing ? "it is gone" : "it is now \(OutputFiles.kind(path).phrase) that is not the folder this run made"
            throw MotionError(.cannotCreate, "refusing to finish \(output): its staging folder \(path) was replaced while the run was writing it (\(what)); nothing was moved into place, and what is at \(path) was left alone")
        }
    }

    /// After a rename into `path`: refuses (after `undo`) when what arrived is not this run's
    /// folder (a folder swapped in between the check and the rename).
    package func checkMovedInto(_ path: String, undo: () -> Void) throws {
        guard fd >= 0, let identity else { return }
        if FileID(path: path) != identity {
            undo()
            throw MotionError(.cannotCreate, "refusing to finish \(path): its staging folder was replaced just before it was moved into place; the move was undone")
        }
    }

    /// Writes a whole file through the folder's descriptor (`openat`, `O_NOFOLLOW`), fsync'd.
    package func write(_ name: String, _ bytes: [UInt8], shownAs path: String) throws {
        let file = openat(fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard file >= 0 else { throw MotionError(.cannotCreate, "cannot create \(path): \(String(cString: strerror(errno)))") }
        var isOpen = true
        defer { if isOpen { close(file) } }
        try OutputFiles.writeAll(file, bytes, path: path)
        // Some filesystems (NFS, FUSE) report a full disk only at fsync or close.
        if fsync(file) != 0 { throw MotionError(.ioError, "cannot write \(path): \(String(cString: strerror(errno)))") }
        isOpen = false
        if close(file) != 0 { throw MotionError(.ioError, "cannot write \(path): \(String(cString: strerror(errno)))") }
    }

    /// Removes the staging mark from the folder, wherever it has been moved.
    package func unlinkMark() {
        if fd >= 0 { unlinkat(fd, OutputFolder.stagingMark, 0) }
    }

    /// Fills the (empty, or being filled) folder `output` with the staging folder's entries:
    /// the mark first (so an interrupted fill is recognised as motionprep's), `manifest.json`
    /// last, then removes the mark and the emptied staging folder.
    package func fill(_ output: String, staging: String) throws {
        let out = Glibc.open(output, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard out >= 0 else { throw MotionError(.cannotCreate, "cannot open \(output): \(String(cString: strerror(errno)))") }
        defer { close(out) }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: staging)) ?? []).sorted()
        let mark = OutputFolder.stagingMark, manifest = DatasetSchema.manifestFileName
        let order = [mark] + names.filter { $0 != mark && $0 != manifest } + (names.contains(manifest) ? [manifest] : [])
        for name in order {
            guard renameat(fd, name, out, name) == 0 else {
                throw MotionError(.cannotCreate, "cannot move \(staging)/\(name) into \(output): \(String(cString: strerror(errno)))")
            }
        }
        unlinkat(out, mark, 0)
        rmdir(staging)
    }

    /// Gives the staging folder the mode (with setgid), group and ACLs of `source`, the folder
    /// it will replace, so that files created in it get what the user set up there.
    package func copyAttributes(from source: String) {
        var st = stat()
        guard fd >= 0, lstat(source, &st) == 0 else { return }
        _ = fchown(fd, uid_t.max, st.st_gid)
        _ = fchmod(fd, st.st_mode & 0o7777)
        // <sys/xattr.h> is not in Glibc's Swift overlay: looked up as `exchange` looks up renameat2.
        typealias GetXattr = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int
        typealias SetXattr = @convention(c) (Int32, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32) -> Int32
        guard let g = dlsym(nil, "lgetxattr"), let s = dlsym(nil, "fsetxattr") else { return }
        let lgetxattr = unsafeBitCast(g, to: GetXattr.self), fsetxattr = unsafeBitCast(s, to: SetXattr.self)
        for name in ["system.posix_acl_access", "system.posix_acl_default"] {
            var buffer = [UInt8](repeating: 0, count: 65536)
            let n = buffer.withUnsafeMutableBytes { lgetxattr(source, name, $0.baseAddress, $0.count) }
            if n > 0 { _ = buffer.withUnsafeBytes { fsetxattr(fd, name, $0.baseAddress, n, 0) } }
        }
    }
}

