#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// What `fstat` says about an open file: enough to notice that it changed (GNU tar's test for
/// "file changed as we read it": size, modification and status-change times, plus the inode).
public struct FileIdentity: Sendable, Equatable, CustomStringConvertible {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int
    /// `st_mtim`, nanoseconds since the epoch.
    public var modifiedNanos: Int64
    /// `st_ctim`, nanoseconds since the epoch.
    public var changedNanos: Int64

    public init(device: UInt64, inode: UInt64, size: Int, modifiedNanos: Int64, changedNanos: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modifiedNanos = modifiedNanos
        self.changedNanos = changedNanos
    }

    /// The stamp `stat`, `lstat` or `fstat` gave.
    public init(_ st: stat) {
        self.init(device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int(st.st_size),
                  modifiedNanos: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
                  changedNanos: Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec))
    }

    /// The file, whatever its content (`FileID`).
    public var id: FileID { FileID(device: device, inode: inode) }

    public var description: String {
        "\(size) bytes, inode \(inode), mtime \(modifiedNanos) ns, ctime \(changedNanos) ns"
    }

    /// What differs from `earlier`, in words (for a changed-file message).
    public func difference(from earlier: FileIdentity) -> String {
        if device != earlier.device || inode != earlier.inode { return "it was replaced by another file (inode \(earlier.inode), now \(inode))" }
        if size != earlier.size { return "its size went from \(earlier.size) to \(size) bytes" }
        if modifiedNanos != earlier.modifiedNanos { return "it was modified (mtime \(earlier.modifiedNanos) ns, now \(modifiedNanos) ns)" }
        if changedNanos != earlier.changedNanos { return "its status changed (ctime \(earlier.changedNanos) ns, now \(changedNanos) ns)" }
        return "no difference"
    }

    /// The error for a file that changed while (or between the times) it was read: exit 74, as
    /// a failed read (the bytes could not be read consistently; rerun once the writer is done).
    public static func changedError(_ displayPath: String, _ detail: String) -> MotionError {
        MotionError(.ioError, "\(displayPath) changed as we read it (\(detail)); the bytes parsed and the bytes hashed for the manifest could differ, so nothing was written from it; rerun once the file is no longer being written")
    }
}

/// Hears every byte a reader takes from a file, so that the file is hashed from exactly the bytes
/// that were parsed (issue #14: the manifest's SHA-256 is of the data used, not of a second read).
///
/// Readers given an observer call `opened` once per open (which may refuse a file known to have
/// changed since an earlier read), feed the tap each chunk before parsing it, and at the end of
/// the file check that `fstat` still gives the identity of the open before calling `finished`.
public protocol FileReadObserver: Sendable {
    /// `path` (named `displayPath` in messages) was opened; `identity` is its `fstat`.
    /// `identity` is nil for a file that is not a regular file (a FIFO): only its bytes are hashed.
    func opened(path: String, displayPath: String, identity: FileIdentity?) throws -> any FileReadTap
}

/// The bytes of one open of a file, in order.
public protocol FileReadTap: AnyObject {
    /// The next bytes read, before they are parsed.
    func consume(_ bytes: UnsafeRawBufferPointer)
    /// The whole file was read (`bytes` bytes) and did not change meanwhile.
    func finished(bytes: Int) throws
}
