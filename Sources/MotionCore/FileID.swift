#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// A file's identity on this machine: its device and inode (`st_dev`, `st_ino`). The one key for
/// "the same file": two names of one file (a hard or symbolic link), a folder met twice by `**`
/// (a bind mount), a staging folder swapped while a run wrote it, a lock file unlinked under us.
/// `FileIdentity` adds what tells that a file changed (size and times).
public struct FileID: Hashable, Sendable {
    public var device: UInt64
    public var inode: UInt64

    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }

    /// The identity `stat`, `lstat` or `fstat` gave.
    public init(_ st: stat) {
        self.init(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }

    /// What is at `path`: itself (`lstat`, a link is its own file), or with `followingLinks`
    /// what it leads to (`stat`). Nil when there is nothing.
    public init?(path: String, followingLinks: Bool = false) {
        var st = stat()
        guard (followingLinks ? stat(path, &st) : lstat(path, &st)) == 0 else { return nil }
        self.init(st)
    }

    /// The open file `descriptor` (`fstat`).
    public init?(descriptor: Int32) {
        var st = stat()
        guard fstat(descriptor, &st) == 0 else { return nil }
        self.init(st)
    }
}
