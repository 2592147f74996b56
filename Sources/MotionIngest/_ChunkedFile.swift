/// The file side shared by every reader: open a path for reading (a folder or a missing file is
/// `.cannotOpen`, exit 66), then feed its bytes to a parser in reads of a fixed size, reusing one
/// buffer (a failed read is `.readFailed`, exit 74). Parsers never see the whole file at once.
enum _ChunkedFile {
    /// Opens `path` and calls `body` with the descriptor and the file's size when it is a regular
    /// file; closes the descriptor afterwards.
    static func withOpenFile<T>(path: String, displayPath: String, _ body: (Int32, Int?) throws -> T) throws -> T {
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
        return try body(fd, info.regularFileSize)
    }

    /// Reads `fd` to its end in reads of `chunkBytes`, handing each non-empty chunk to `consume`.
    static func forEachChunk(_ fd: Int32, chunkBytes: Int, displayPath: String,
                             _ consume: (UnsafeRawBufferPointer) throws -> Void) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkBytes, alignment: 64)
        defer { buffer.deallocate() }
        while true {
            switch _Syscalls.read(fd, into: buffer) {
            case .success(0):
                return
            case .success(let n):
                try consume(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            case .failure(let e):
                throw IngestError(.readFailed(reason: e.text, errno: e.code), at: SourceLocation(file: displayPath))
            }
        }
    }
}

import MotionCore
