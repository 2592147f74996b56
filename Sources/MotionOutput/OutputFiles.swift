#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MotionCore

/// Writing the files a command is asked to produce (`report -o FILE`, `inspect --samples DIR`)
/// without ever replacing or writing through what is not a file of ours (docs/hardening.md,
/// "Data safety: faults"):
///
/// - a symbolic link is refused, never followed and never replaced (the link may point
///   anywhere; replacing it would silently drop it);
/// - a folder, a block device or a socket is refused;
/// - a character device or a FIFO (`/dev/null`, a named pipe) is written into as it is, never
///   unlinked or replaced by a regular file;
/// - a regular file (or nothing) is replaced atomically: the bytes go to a temporary file in the
///   same folder, which is synced and renamed over the path, so a reader never sees half a file
///   and a failed write (a full disk) leaves the previous file as it was.
///
/// Errors: `MotionError(.cannotCreate)` (73) for a refused path or a file that cannot be
/// created, `.ioError` (74) when writing fails, each naming the path and the system's reason.
public enum OutputFiles {
    /// What is at a path, without following a final symbolic link (`lstat`).
    public enum Kind: Equatable, Sendable {
        case missing
        case regularFile
        case directory
        case symbolicLink
        case characterDevice
        case fifo
        case blockDevice
        case socket

        /// The kind of a file with `st_mode` `mode`.
        public init(mode: mode_t) {
            switch mode & S_IFMT {
            case S_IFREG: self = .regularFile
            case S_IFDIR: self = .directory
            case S_IFLNK: self = .symbolicLink
            case S_IFCHR: self = .characterDevice
            case S_IFIFO: self = .fifo
            case S_IFBLK: self = .blockDevice
            default: self = .socket
            }
        }

        /// "a FIFO", "a character device", … for messages.
        public var phrase: String {
            switch self {
            case .missing: "nothing"
            case .regularFile: "a regular file"
            case .directory: "a folder"
            case .symbolicLink: "a symbolic link"
            case .characterDevice: "a character device"
            case .fifo: "a FIFO"
            case .blockDevice: "a block device"
            case .socket: "a socket"
            }
        }
    }

    /// What is at `path` (`lstat`, so a symbolic link is reported as one).
    public static func kind(_ path: String) -> Kind {
        var st = stat()
        guard lstat(path, &st) == 0 else { return .missing }
        return Kind(mode: st.st_mode)
    }

    /// Writes `bytes` as the whole content of `path` (see the type's rules).
    ///
    /// - Parameter what: what is written, for messages, e.g. "the report".
    /// - Throws: `MotionError` `.cannotCreate` for a refused path, `.ioError` for a failed write.
    public static func write(_ bytes: [UInt8], to path: String, what: String) throws {
        switch kind(path) {
        case .symbolicLink:
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)).map { " (to `\($0)`)" } ?? ""
            throw MotionError(.cannotCreate, "cannot write \(what) to `\(path)`: it is a symbolic link\(target), and motionprep neither writes through nor replaces links; give the file itself, or remove the link")
        case .directory:
            throw MotionError(.cannotCreate, "cannot write \(what) to `\(path)`: it is a folder; give a file name")
        case .blockDevice, .socket:
            throw MotionError(.cannotCreate, "cannot write \(what) to `\(path)`: it is \(kind(path).phrase), not a file")
        case .characterDevice, .fifo:
            try writeInPlace(bytes, to: path)
        case .missing, .regularFile:
            try replaceAtomically(bytes, at: path)
        }
    }

    /// Creates `path`, which must not exist yet, with `bytes` as its content (`O_EXCL |
    /// O_NOFOLLOW`: never through a link, never over anything). For files inside a folder the
    /// caller has just made its own.
    ///
    /// - Throws: `MotionError` `.cannotCreate` when the file exists or cannot be created,
    ///   `.ioError` when writing fails.
    public static func create(_ bytes: [UInt8], at path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw MotionError(.cannotCreate, "cannot create `\(path)`: \(reason(errno))") }
        do {
            try writeAndClose(fd, bytes, path: path, sync: false)
        } catch {
            unlink(path)  // ours: created just now, and incomplete
            throw error
        }
    }

    /// A file created new as `create(_:at:)` creates it, written in pieces (`inspect --samples`
    /// streams a recording into it). `abandon()` removes it; `close()` finishes it.
    package final class NewFile {
        package let path: String
        private var fd: Int32

        package init(path: String) throws {
            self.path = path
            fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw MotionError(.cannotCreate, "cannot create `\(path)`: \(reason(errno))") }
        }

        deinit { if fd >= 0 { _ = Glibc.close(fd) } }

        package func write(_ bytes: [UInt8]) throws {
            try writeAll(fd, bytes, path: path)
        }

        package func close() throws {
            let f = fd
            fd = -1
            try closeChecked(f, path: path)
        }

        /// Closes and removes the file (ours: created just now).
        package func abandon() {
            if fd >= 0 { _ = Glibc.close(fd) }
            fd = -1
            unlink(path)
        }
    }

    /// Creates `path`, which must not exist, with `bytes` as its whole content, atomically: a
    /// temporary file in the same folder, synced, then hard-linked to `path` (`link` fails with
    /// `EEXIST` on anything that appeared there meanwhile, which is then left alone).
    package static func createAtomically(_ bytes: [UInt8], at path: String, what: String) throws {
        let temporary = try writeTemporary(bytes, near: path)
        defer { unlink(temporary) }
        guard link(temporary, path) == 0 else {
            let code = errno
            if code == EEXIST {
                throw MotionError(.cannotCreate, "refusing to write \(what) to `\(path)`: a file appeared there while it was being written, and motionprep never replaces what it did not write; give another name")
            }
            throw MotionError(.cannotCreate, "cannot write \(what) to `\(path)`: \(reason(code))")
        }
    }

    /// `bytes` in a new temporary file (mode 0644) in `path`'s folder, synced and closed; its
    /// path. Removed again when writing fails.
    private static func writeTemporary(_ bytes: [UInt8], near path: String) throws -> String {
        let folder = PathText.parent(path)
        var template = Array((folder + "/." + PathText.lastComponent(path) + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw MotionError(.cannotCreate, "cannot write `\(path)`: cannot create a file in its folder `\(folder)`: \(reason(errno))")
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        do {
            _ = fchmod(fd, 0o644)
            try writeAndClose(fd, bytes, path: path, sync: true)
        } catch {
            unlink(temporary)
            throw error
        }
        return temporary
    }

    /// Writes into an existing character device or FIFO, which stays what it is.
    private static func writeInPlace(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw MotionError(.cannotCreate, "cannot open `\(path)` for writing: \(reason(errno))") }
        try writeAndClose(fd, bytes, path: path, sync: false)
    }

    /// Temporary file in the same folder, synced, renamed over `path`.
    private static func replaceAtomically(_ bytes: [UInt8], at path: String) throws {
        let temporary = try writeTemporary(bytes, near: path)
        guard rename(temporary, path) == 0 else {
            let why = reason(errno)
            unlink(temporary)
            throw MotionError(.cannotCreate, "cannot write `\(path)`: \(why)")
        }
    }

    /// Writes all of `bytes` (then `fsync`s with `sync`) and closes `fd`, which is closed on
    /// failure too.
    private static func writeAndClose(_ fd: Int32, _ bytes: [UInt8], path: String, sync: Bool) throws {
        do {
            try writeAll(fd, bytes, path: path)
            if sync && fsync(fd) != 0 { throw MotionError(.ioError, "cannot write `\(path)`: \(reason(errno))") }
        } catch {
            _ = close(fd)
            throw error
        }
        try closeChecked(fd, path: path)
    }

    package static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws {
        if let code = bytes.withUnsafeBytes({ FileWrites.writeAll(fd, $0) }) {
            throw MotionError(.ioError, "cannot write `\(path)`: \(reason(code))")
        }
    }

    /// `close`, whose failure (a deferred write error on NFS) is an I/O error. The descriptor is
    /// released either way.
    fileprivate static func closeChecked(_ fd: Int32, path: String) throws {
        if close(fd) != 0 && errno != EINTR {
            throw MotionError(.ioError, "cannot write `\(path)`: \(reason(errno))")
        }
    }

    package static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
