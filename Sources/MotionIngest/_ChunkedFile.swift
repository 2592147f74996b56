import MotionCore

/// The file side shared by every reader: open a path for reading (a folder or a missing file is
/// `.cannotOpen`, exit 66), then feed its bytes to a parser in reads of a fixed size, reusing one
/// buffer (a failed read is `.readFailed`, exit 74). Parsers never see the whole file at once.
enum _ChunkedFile {
    /// Opens `path` and calls `body` with the descriptor, the file's size when it is a regular
    /// file, and the observed read to pass to `forEachChunk` (nil without `observer`); closes the
    /// descriptor afterwards. When `body` fails on a file that changed since it was opened, the
    /// change is the error.
    static func withOpenFile<T>(path: String, displayPath: String, observer: (any FileReadObserver)? = nil,
                                _ body: (Int32, Int?, _ObservedRead?) throws -> T) throws -> T {
        let fd: Int32
        switch _Syscalls.openForReading(path) {
        case .success(let opened): fd = opened
        case .failure(let e):
            throw IngestError(.cannotOpen(reason: e.text, errno: e.code), at: SourceLocation(file: displayPath))
        }
        defer { _Syscalls.close(fd) }
        let info = _Syscalls.describe(fd)
        if info.isDirectory {
            let e = _Syscalls.Errno.isDirectory
            throw IngestError(.cannotOpen(reason: e.text, errno: e.code), at: SourceLocation(file: displayPath))
        }
        let observed = try _ObservedRead.begin(observer, fd: fd, path: path, displayPath: displayPath)
        do {
            return try body(fd, info.regularFileSize, observed)
        } catch {
            if let changed = observed?.changeSinceOpen(atEnd: false) { throw changed }
            throw error
        }
    }

    /// Reads `fd` to its end in reads of `chunkBytes`, handing each non-empty chunk to
    /// `observed` (the observer hashes it) and then to `consume`; at the end `observed` checks
    /// that the file did not change meanwhile.
    static func forEachChunk(_ fd: Int32, chunkBytes: Int, displayPath: String, observed: _ObservedRead? = nil,
                             _ consume: (UnsafeRawBufferPointer) throws -> Void) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkBytes, alignment: 64)
        defer { buffer.deallocate() }
        while true {
            switch _Syscalls.read(fd, into: buffer) {
            case .success(0):
                try observed?.finish()
                return
            case .success(let n):
                let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
                observed?.consume(chunk)
                try consume(chunk)
            case .failure(let e):
                throw IngestError(.readFailed(reason: e.text, errno: e.code), at: SourceLocation(file: displayPath))
            }
        }
    }
}


/// A small file read whole (an intervals labels file), through the same observed reads as the
/// readers, so that it is hashed from the bytes that are parsed.
public enum WholeFile {
    /// The bytes of `path`.
    ///
    /// - Throws: `IngestError` `.cannotOpen` (66) or `.readFailed` (74); with an `observer`, a
    ///   file that changes while it is read (74).
    public static func read(path: String, displayPath: String, observer: (any FileReadObserver)? = nil) throws -> [UInt8] {
        try _ChunkedFile.withOpenFile(path: path, displayPath: displayPath, observer: observer) { fd, size, observed in
            var bytes: [UInt8] = []
            bytes.reserveCapacity(size ?? 0)
            try _ChunkedFile.forEachChunk(fd, chunkBytes: 1 << 20, displayPath: displayPath, observed: observed) {
                bytes.append(contentsOf: $0)
            }
            return bytes
        }
    }
}
