#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MotionChecksum
import MotionCore

// The libc calls of the shard sink and reader, in one place. Every failure becomes a
// `MotionError` naming the path and the system's reason.

/// A file being written under a temporary name, renamed into place by `commit()` and removed
/// if it is dropped without being committed. It is written in order, so it is hashed as it is
/// written: `commit()` gives its SHA-256 for SHA256SUMS without reading it back.
final class _ShardFile {
    let path: String
    let temporaryPath: String
    private let folder: WritableFolder
    private let name: String
    private var fd: Int32
    private var committed = false
    private var hasher = SHA256Hasher()
    private var written = 0

    /// Creates `name + ".tmp"` in `folder` through its descriptor (truncating a stale one).
    init(in folder: WritableFolder, name: String) throws {
        self.folder = folder
        self.name = name
        path = folder.shown(name)
        temporaryPath = path + ".tmp"
        fd = try folder.create(name + ".tmp")
    }

    deinit {
        if fd >= 0 { close(fd) }
        if !committed { folder.remove(name + ".tmp") }
    }

    /// Appends bytes (retrying short writes and EINTR).
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        if let code = FileWrites.writeAll(fd, bytes) {
            throw MotionError(.ioError, "cannot write \(temporaryPath): \(_ShardFile.reason(code))")
        }
        hasher.update(bytes)
        written += bytes.count
    }

    /// Closes the file and renames it to its final name.
    ///
    /// - Returns: the SHA-256 (64 hex digits) and size of what was written.
    @discardableResult
    func commit() throws -> (sha256: String, bytes: Int) {
        let rc = close(fd)
        fd = -1
        guard rc == 0 else { throw MotionError(.ioError, "cannot write \(temporaryPath): \(_ShardFile.reason())") }
        if let why = folder.rename(name + ".tmp", to: name) {
            throw MotionError(.ioError, "cannot rename \(temporaryPath) to \(path): \(why)")
        }
        committed = true
        return (hasher.finalizeHex(), written)
    }

    /// Reads a whole file.
    /// The whole file; with `maxBytes`, a file longer than that throws ``ShardSizeError`` before
    /// anything is read.
    static func readAll(_ path: String, maxBytes: Int? = nil) throws -> [UInt8] {
        let fd: Int32
        switch RegularFile.openForReading(path) {
        case .success(let opened): fd = opened
        case .failure(.system(let code)):
            throw MotionError(code == ENOENT ? .noInput : .ioError, "cannot open \(path): \(String(cString: strerror(code)))")
        case .failure(let other):
            throw MotionError(.noInput, "cannot open \(path): \(other.reason)")
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

    private static func reason(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }
}

/// A scratch file of fixed-size rows: appended through a buffer, read back at any offset, removed
/// when released.
final class _SpoolFile {
    let path: String
    private let folder: WritableFolder
    private let name: String
    private var fd: Int32
    private var buffer: [UInt8] = []
    private static let bufferBytes = 1 << 20

    /// Creates `name` in `folder` through its descriptor.
    init(in folder: WritableFolder, name: String) throws {
        self.folder = folder
        self.name = name
        path = folder.shown(name)
        fd = try folder.create(name, access: O_RDWR, mode: 0o600)
        buffer.reserveCapacity(Self.bufferBytes)
    }

    deinit {
        close(fd)
        folder.remove(name)
    }

    func append(_ bytes: [UInt8]) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.bufferBytes { try flush() }
    }

    func flush() throws {
        if let code = buffer.withUnsafeBytes({ FileWrites.writeAll(fd, $0) }) {
            throw MotionError(.ioError, "cannot write \(path): \(String(cString: strerror(code)))")
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Reads `count` bytes at file offset `at` into `out[offset...]`.
    func read(at: Int, into out: inout [UInt8], offset: Int, count: Int) throws {
        var done = 0
        while done < count {
            let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + offset + done, count - done, off_t(at + done)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw MotionError(.ioError, "cannot read \(path): \(String(cString: strerror(errno)))")
            }
            if n == 0 { throw MotionError(.ioError, "cannot read \(path): it ends at byte \(at + done)") }
            done += n
        }
    }
}
