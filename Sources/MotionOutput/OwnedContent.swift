#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MotionChecksum
import MotionCore
import MotionSinks

/// What motionprep writes into a staging folder (`DIR.partial/`), recognised by name *and* by
/// how the file starts (docs/hardening.md, "Staging folders"): a staging folder holding
/// anything else is not deleted, reused or moved into place.
package enum StagingEntry {
    /// The splits a run writes, and `apply`'s one split.
    package static let splitNames: Set<String> = ["train", "validation", "test", "windows"]

    /// Why `entry` (below `root`) is not one motionprep writes while staging, as a sentence
    /// fragment ("is not a file motionprep writes while staging"), or nil when it is.
    package static func problem(root: String, entry e: OutputFolder.Entry) -> String? {
        let full = root + "/" + e.path
        let parts = e.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let notOurs = "is not a file motionprep writes while staging"
        if e.isDirectory {
            if parts.count == 1 && (parts[0] == "records" || splitNames.contains(parts[0])) { return nil }
            // `createml`: a class's folder in a split (docs/dataset-format.md, "Create ML folders").
            if parts.count == 2 && splitNames.contains(parts[0]) && !parts[1].hasPrefix(".") { return nil }
            return "is a folder motionprep does not make while staging"
        }
        guard e.isRegular else { return "is \(OutputFolder.describe(e.mode)), which motionprep never writes" }
        if parts.count == 1 {
            let name = parts[0]
            switch name {
            case OutputFolder.stagingMark:
                return OutputFolder.hasMark(full, text: OutputFolder.stagingMarkText) ? nil : "is not the staging mark motionprep writes"
            case OutputNames.runState, OutputNames.part, "manifest.json":
                // A write stopped by a full disk leaves a prefix of the JSON motionprep writes.
                return startsLike(full, size: e.size, magic: Array("{".utf8), at: 0) ? nil : "is not the JSON file motionprep writes there"
            case OutputNames.partChecksums, "SHA256SUMS":
                return e.size < 64 << 20 ? nil : notOurs
            default: break
            }
            // OutputFiles.write's temporary file for state.json: `.state.json.XXXXXX`.
            if name.hasPrefix("." + OutputNames.runState + "."), name.utf8.count == OutputNames.runState.utf8.count + 8 { return nil }
            if name.hasSuffix(".h5"), splitNames.contains(String(name.dropLast(3))) {
                return startsLike(full, size: e.size, magic: hdf5Signature, at: 0) ? nil : "is not an HDF5 file motionprep writes"
            }
            if name.hasSuffix(".spool.tmp") {
                // `{split}.spool.tmp`, or a partition's `{split}.part-IIIII-of-NNNNN.spool.tmp`.
                let stem = name.dropLast(10)
                let split = stem.prefix { $0 != "." }
                if splitNames.contains(String(split)),
                   split.count == stem.count || DatasetPartition.of(path: String(stem.dropFirst(split.count + 1))) != nil { return nil }
            }
            return notOurs
        }
        if parts.count == 2 && parts[0] == "records" {
            let name = parts[1]
            guard name.hasSuffix(".mprec") || name.hasSuffix(".mprec.tmp") else { return notOurs }
            return isRecord(full, complete: false) ? nil : "is not a record file motionprep writes"
        }
        // `createml`: a stretch's CSV in its class's folder, a split's annotation file.
        if parts.count == 3 && splitNames.contains(parts[0]) {
            var name = parts[2]
            if name.hasSuffix(".tmp") { name = String(name.dropLast(4)) }
            guard name.hasSuffix(".csv") else { return notOurs }
            return startsLike(full, size: e.size, magic: Array("time,".utf8), at: 0) ? nil : "is not a Create ML file motionprep writes"
        }
        if parts.count == 2 && splitNames.contains(parts[0]) && parts[1].hasPrefix("annotations.csv") {
            guard parts[1] == "annotations.csv" || parts[1] == "annotations.csv.tmp" else { return notOurs }
            return startsLike(full, size: e.size, magic: Array("file,label,".utf8), at: 0) ? nil : "is not a Create ML annotation file motionprep writes"
        }
        if parts.count == 2 && splitNames.contains(parts[0]) {
            var name = parts[1]
            if name.hasSuffix(".tmp") { name = String(name.dropLast(4)) }
            // A partition's files (`output.partitioned`): `part-IIIII-of-NNNNN.h5` and
            // `part-IIIII-of-NNNNN-SSSSS.tar.zst` (or `.tar`); a copy merge is making ends in `.tmp`.
            let partitionFile = DatasetPartition.of(path: name) != nil
            if partitionFile, name.hasSuffix(".h5") {
                return startsLike(full, size: e.size, magic: hdf5Signature, at: 0) ? nil : "is not an HDF5 file motionprep writes"
            }
            guard partitionFile || name.hasPrefix(parts[0] + "-") else { return notOurs }
            if name.hasSuffix(".tar.zst") {
                return startsLike(full, size: e.size, magic: [0x28, 0xB5, 0x2F, 0xFD], at: 0) ? nil : "is not a zstd shard motionprep writes"
            }
            if name.hasSuffix(".tar") {
                return startsLike(full, size: e.size, magic: Array("ustar".utf8), at: 257) ? nil : "is not a tar shard motionprep writes"
            }
        }
        return notOurs
    }

    package static let hdf5Signature: [UInt8] = [0x89, 0x48, 0x44, 0x46, 0x0D, 0x0A, 0x1A, 0x0A]

    /// A record file: starts with the record format's magic (`OutputNames.recordMagicPrefix`, "MPREC");
    /// `complete` also wants its closing "MPRECEND". An empty file (created, not yet written)
    /// counts when not `complete`.
    package static func isRecord(_ path: String, complete: Bool) -> Bool {
        guard let fd = openRegular(path) else { return false }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return false }
        if st.st_size == 0 { return !complete }
        guard read(fd, at: 0, count: 5) == OutputNames.recordMagicPrefix else { return false }
        if !complete { return true }
        return st.st_size >= 16 && read(fd, at: Int(st.st_size) - 8, count: 8) == OutputNames.recordEndMagic
    }

    /// True when the file holds `magic` at `offset`, or is still too short to hold it (a file
    /// motionprep had only begun to write when it was stopped) with nothing but zeros so far.
    package static func startsLike(_ path: String, size: Int, magic: [UInt8], at offset: Int) -> Bool {
        guard let fd = openRegular(path) else { return false }
        defer { close(fd) }
        if size == 0 { return true }
        let head = read(fd, at: offset, count: magic.count)
        if head == magic { return true }
        // libhdf5 writes its superblock last: a killed write may leave zeros before it.
        let start = read(fd, at: 0, count: Swift.min(size, offset + magic.count))
        return start.allSatisfy { $0 == 0 }
    }

    /// Opens a regular file for reading without following a link or waiting on a FIFO.
    package static func openRegular(_ path: String) -> Int32? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { close(fd); return nil }
        return fd
    }

    package static func read(_ fd: Int32, at offset: Int, count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: count)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
        return n > 0 ? Array(buffer[0..<n]) : []
    }
}

/// The SHA-256 of files an ownership check has already verified, keyed by their `lstat`
/// identity (device, inode, size, modification and change times), as git's index caches the
/// hashes of files whose stat data has not changed: the check before a run and the one just
/// before its commit read an old dataset once, not twice.
package final class HashCache: @unchecked Sendable {
    package static let shared = HashCache()

    private let lock = NSLock()
    private var known: [String: (FileIdentity, String)] = [:]

    /// True when the regular file at `path` has the SHA-256 `sha256` (lowercase hex).
    package func matches(_ path: String, sha256: String) -> Bool {
        guard let stamp = Self.stamp(path) else { return false }
        lock.lock()
        let cached = known[path]
        lock.unlock()
        if let cached, cached.0 == stamp { return cached.1 == sha256 }
        guard let fd = StagingEntry.openRegular(path) else { return false }
        close(fd)
        guard let (hex, _) = try? SHA256.hexOfFile(path: path) else { return false }
        // Stored only when the file did not change while it was hashed.
        if Self.stamp(path) == stamp {
            lock.lock()
            known[path] = (stamp, hex)
            lock.unlock()
        }
        return hex == sha256
    }

    private static func stamp(_ path: String) -> FileIdentity? {
        var st = stat()
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return FileIdentity(st)
    }
}
