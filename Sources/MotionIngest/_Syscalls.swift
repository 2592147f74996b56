import Glibc
import MotionCore

/// The only libc file calls of MotionIngest, each a thin wrapper (swift-system's
/// `Syscalls.swift` idea): open, fstat, read (retrying `EINTR`), close.
enum _Syscalls {
    /// `RegularFile.openForReading`: the descriptor of a regular file, or the C `errno` (`EISDIR`
    /// for a folder), or, for a FIFO, device or socket (never waited on), its refusal in words.
    static func openForReading(_ path: String) -> Result<Int32, Errno> {
        switch RegularFile.openForReading(path) {
        case .success(let fd): return .success(fd)
        case .failure(.system(let code)): return .failure(Errno(code))
        case .failure(let other): return .failure(Errno(0, text: other.reason))
        }
    }

    /// `fstat`: whether the descriptor is a directory, and its size when it is a regular file.
    static func describe(_ fd: Int32) -> (isDirectory: Bool, regularFileSize: Int?) {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return (false, nil) }
        let type = info.st_mode & S_IFMT
        return (type == S_IFDIR, type == S_IFREG ? Int(info.st_size) : nil)
    }

    /// `fstat`: the identity of a regular file (nil for anything else, or when `fstat` fails).
    static func identity(_ fd: Int32) -> FileIdentity? {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return FileIdentity(info)
    }

    /// `read(2)` into `buffer`: the byte count (0 at end of file), or the C `errno`.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n >= 0 { return .success(n) }
            if errno != EINTR { return .failure(Errno(errno)) }
        }
    }

    /// `pread(2)` of `buffer.count` bytes at `offset` (fewer at the end of the file), retrying
    /// `EINTR` and short reads: the byte count, or the C `errno`.
    static func pread(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Result<Int, Errno> {
        var done = 0
        while done < buffer.count {
            let n = Glibc.pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(Errno(errno))
            }
            done += n
        }
        return .success(done)
    }

    /// `close(2)`; errors are ignored (the file was only read).
    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// A C error number with its `strerror` text.
    struct Errno: Error {
        var code: Int32
        private var custom: String?
        init(_ code: Int32, text: String? = nil) {
            self.code = code
            custom = text
        }
        var text: String { custom ?? String(cString: strerror(code)) }
        static let isDirectory = Errno(EISDIR)
    }
}
