#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MotionCore

// The libc calls of the shard sink and reader, in one place. Every failure becomes a
// `MotionError` naming the path and the system's reason.

/// libc's `write`, under a name the class's own `write` does not shadow.
private func _systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}

/// A file being written under a temporary name, renamed into place by `commit()` and removed
/// if it is dropped without being committed.
final class _ShardFile {
    let path: String
    let temporaryPath: String
    private var fd: Int32
    private var committed = false

    /// Creates `path + ".tmp"` (truncating a stale one).
    init(path: String) throws {
        self.path = path
        temporaryPath = path + ".tmp"
        fd = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw MotionError(.cannotCreate, "cannot create \(temporaryPath): \(_ShardFile.reason())")
        }
    }

    deinit {
        if fd >= 0 { close(fd) }
        if !committed { unlink(temporaryPath) }
    }

    /// Appends bytes (retrying short writes and EINTR).
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let n = _systemWrite(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw MotionError(.ioError, "cannot write \(temporaryPath): \(_ShardFile.reason())")
            }
            offset += n
        }
    }

    /// Closes the file and renames it to its final name.
    func commit() throws {
        let rc = close(fd)
        fd = -1
        guard rc == 0 else { throw MotionError(.ioError, "cannot write \(temporaryPath): \(_ShardFile.reason())") }
        guard rename(temporaryPath, path) == 0 else {
            throw MotionError(.ioError, "cannot rename \(temporaryPath) to \(path): \(_ShardFile.reason())")
        }
        committed = true
    }

    /// Creates a folder if it does not exist yet.
    static func makeDirectory(_ path: String) throws {
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw MotionError(.cannotCreate, "cannot create \(path): \(reason())")
        }
    }

    /// Reads a whole file.
    /// The whole file; with `maxBytes`, a file longer than that throws ``ShardSizeError`` before
    /// anything is read.
    static func readAll(_ path: String, maxBytes: Int? = nil) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw MotionError(errno == ENOENT ? .noInput : .ioError, "cannot open \(path): \(reason())")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw MotionError(.ioError, "cannot read \(path): \(reason())") }
        if let maxBytes, Int(st.st_size) > maxBytes {
            throw ShardSizeError(message: "shard \(path) is \(st.st_size) bytes long, more than the \(maxBytes) a compressed shard of its manifest entry can take; it is not read")
        }
        var out = [UInt8](repeating: 0, count: Int(st.st_size))
        var offset = 0
        while offset < out.count {
            let n = out.withUnsafeMutableBytes { read(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw MotionError(.ioError, "cannot read \(path): \(reason())")
            }
            if n == 0 { out.removeLast(out.count - offset); break }
            offset += n
        }
        return out
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
