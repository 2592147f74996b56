#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Opening a path for reading without ever waiting on it (docs/hardening.md, "Data safety: FIFOs
/// and special files"): every file motionprep reads is opened here, read-only with
/// `O_NONBLOCK | O_CLOEXEC | O_NOCTTY`, checked with `fstat` on the open descriptor (no
/// check/use race), refused unless it is a regular file, and only then made blocking again.
///
/// Opening a FIFO with `O_NONBLOCK` returns at once even without a writer, so a FIFO, a device or
/// a socket given as a labels file, a pipeline, an expectations file, a dataset file or the
/// target of `inspect` fails at once instead of hanging the command. A folder fails with
/// `EISDIR`, so that callers keep their own folder messages.
public enum RegularFile {
    /// Why a path could not be opened as a regular file.
    public enum Failure: Error, Sendable, Equatable {
        /// `open`, `fstat` or `read` failed with this `errno` (`EISDIR` for a folder).
        case system(Int32)
        /// The path is something else than a regular file: "a FIFO", "a socket"...
        case notRegular(kind: String)
        /// The file is longer than the caller's bound (bytes).
        case tooLarge(maxBytes: Int)

        /// The reason in words, to follow "cannot open PATH: ".
        public var reason: String {
            switch self {
            case .system(let code): return String(cString: strerror(code))
            case .notRegular(let kind): return RegularFile.notRegularReason(kind)
            case .tooLarge(let maxBytes): return "it is larger than \(maxBytes) bytes"
            }
        }
    }

    /// "it is a FIFO, not a regular file; motionprep reads only regular files and never waits
    /// on a pipe, device or socket".
    public static func notRegularReason(_ kind: String) -> String {
        "it is \(kind), not a regular file; motionprep reads only regular files and never waits on a pipe, device or socket"
    }

    /// The one-sentence error for `displayPath` being `kind`: exit 66 (input missing: there is no
    /// regular file at the path), as for a glob match that is a FIFO (docs/commands.md).
    public static func refusal(_ displayPath: String, kind: String) -> MotionError {
        MotionError(.noInput, "\(displayPath) is \(kind), not a regular file; motionprep reads only regular files and never waits on a pipe, device or socket")
    }

    /// What a file mode is, in words: "a FIFO", "a character device", "a block device", "a
    /// socket", "a folder", "a symbolic link", "a regular file".
    public static func kind(mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: return "a regular file"
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        case S_IFLNK: return "a symbolic link"
        default: return "a special file"
        }
    }

    /// Opens `path` for reading: the blocking descriptor of a regular file (close it), or why not.
    public static func openForReading(_ path: String) -> Result<Int32, Failure> {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        if fd < 0 {
            let code = errno
            // A socket cannot be opened at all (ENXIO): say what it is.
            var st = stat()
            if code == ENXIO, stat(path, &st) == 0, st.st_mode & S_IFMT != S_IFREG {
                return .failure(.notRegular(kind: kind(mode: st.st_mode)))
            }
            return .failure(.system(code))
        }
        var st = stat()
        if fstat(fd, &st) != 0 {
            let code = errno
            _ = close(fd)
            return .failure(.system(code))
        }
        let type = st.st_mode & S_IFMT
        if type != S_IFREG {
            _ = close(fd)
            return .failure(type == S_IFDIR ? .system(EISDIR) : .notRegular(kind: kind(mode: st.st_mode)))
        }
        let flags = fcntl(fd, F_GETFL)
        if flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 {
            let code = errno
            _ = close(fd)
            return .failure(.system(code))
        }
        return .success(fd)
    }

    /// The whole of the regular file `path` (at most `maxBytes`), or why not.
    public static func readAll(_ path: String, maxBytes: Int = Int.max) -> Result<[UInt8], Failure> {
        read(path, upTo: nil, maxBytes: maxBytes)
    }

    /// The first `count` bytes of the regular file `path` (fewer when it is shorter), or why not.
    public static func readHead(_ path: String, count: Int) -> Result<[UInt8], Failure> {
        read(path, upTo: count, maxBytes: Int.max)
    }

    private static func read(_ path: String, upTo limit: Int?, maxBytes: Int) -> Result<[UInt8], Failure> {
        let fd: Int32
        switch openForReading(path) {
        case .success(let opened): fd = opened
        case .failure(let failure): return .failure(failure)
        }
        defer { _ = close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while limit.map({ out.count < $0 }) ?? true {
            let want = min(chunk.count, (limit ?? Int.max) - out.count)
            let n = chunk.withUnsafeMutableBytes { posixRead(fd, $0.baseAddress, want) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(.system(errno))
            }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
            if out.count > maxBytes { return .failure(.tooLarge(maxBytes: maxBytes)) }
        }
        return .success(out)
    }

    /// In place of `FileManager.default.contents(atPath:)`: the bytes, or nil when the file is
    /// missing or cannot be read (the caller's message), but ``refusal(_:kind:)`` (66) for a path
    /// that is not a regular file, which is never opened for a blocking read.
    public static func contents(atPath path: String, displayPath: String? = nil) throws(MotionError) -> [UInt8]? {
        switch readAll(path) {
        case .success(let bytes): return bytes
        case .failure(.notRegular(let kind)): throw refusal(displayPath ?? path, kind: kind)
        case .failure: return nil
        }
    }

    /// Refuses `path` unless it is a regular file, or something `open` itself will report (missing,
    /// a folder, no permission): for a library that opens the path itself (HDF5).
    public static func check(_ path: String, displayPath: String? = nil) throws(MotionError) {
        switch openForReading(path) {
        case .success(let fd): _ = close(fd)
        case .failure(.notRegular(let kind)): throw refusal(displayPath ?? path, kind: kind)
        case .failure: return
        }
    }
}

/// read(2), named through its platform module (`read` alone is RegularFile's own).
private func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Darwin)
    return Darwin.read(fd, buffer, count)
    #elseif canImport(Glibc)
    return Glibc.read(fd, buffer, count)
    #else
    return Musl.read(fd, buffer, count)
    #endif
}
