#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import MotionCore

/// A file being written through a large in-memory buffer, flushed about every MiB.
///
/// Rows are appended as bytes (see `OutputFile+Numbers.swift` for number text); nothing is
/// formatted through `String` except `Double.description` for times.
struct OutputFile: ~Copyable {
    /// Flush threshold.
    static let flushBytes = 1 << 20

    /// The path as given, for error messages.
    let path: String
    private var descriptor: Int32
    /// Bytes not yet written to the descriptor.
    var buffer: [UInt8]
    /// Bytes written so far (flushed or not).
    private(set) var byteCount = 0

    /// Creates or truncates `path`, which must be missing or a regular file: a symbolic link,
    /// a FIFO, a device or a folder there is refused, never written through or into
    /// (docs/hardening.md, "Data safety: faults").
    /// - Throws: `MotionError(.cannotCreate)` naming the path and the system's reason.
    init(path: String) throws(MotionError) {
        self.path = path
        var st = stat()
        if lstat(path, &st) == 0 && st.st_mode & S_IFMT != S_IFREG {
            let kind = switch st.st_mode & S_IFMT {
            case S_IFLNK: "a symbolic link"
            case S_IFDIR: "a folder"
            case S_IFIFO: "a FIFO"
            default: "a device or socket"
            }
            throw MotionError(.cannotCreate, "cannot create `\(path)`: it is \(kind), and synth writes only regular files (it neither writes through links nor into devices).")
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw MotionError(.cannotCreate, "cannot create `\(path)`: \(OutputFile.reason(errno)).")
        }
        descriptor = fd
        buffer = []
        buffer.reserveCapacity(OutputFile.flushBytes + 4096)
    }

    deinit {
        if descriptor >= 0 { _ = close(descriptor) }
    }

    /// Writes the buffer out when it holds at least `flushBytes`; call once per row.
    @inline(__always)
    mutating func flushIfFull() throws(MotionError) {
        if buffer.count >= OutputFile.flushBytes { try flush() }
    }

    /// Writes every buffered byte.
    /// - Throws: `MotionError(.ioError)` naming the path.
    mutating func flush() throws(MotionError) {
        byteCount += buffer.count
        let failure = buffer.withUnsafeBytes { FileWrites.writeAll(descriptor, $0) } ?? 0
        buffer.removeAll(keepingCapacity: true)
        if failure != 0 {
            throw MotionError(.ioError, "cannot write `\(path)`: \(OutputFile.reason(failure)).")
        }
    }

    /// Flushes and closes the file; returns its size in bytes.
    consuming func finish() throws(MotionError) -> Int {
        try flush()
        let fd = descriptor
        descriptor = -1
        if close(fd) != 0 {
            throw MotionError(.ioError, "cannot write `\(path)`: \(OutputFile.reason(errno)).")
        }
        return byteCount
    }

    /// Writes `text` as the whole content of `path` (small files such as sysfs attributes).
    static func writeSmall(_ text: String, to path: String) throws(MotionError) -> Int {
        var file = try OutputFile(path: path)
        file.append(text)
        return try file.finish()
    }

    static func reason(_ code: Int32) -> String {
        guard let c = strerror(code) else { return "error \(code)" }
        return String(cString: c)
    }
}
