import MotionCore

/// The file side shared by every reader: open a path for reading (a folder or a missing file is
/// `.cannotOpen`, exit 66), then feed its bytes to a parser in reads of a fixed size, reusing one
/// buffer (a failed read is `.readFailed`, exit 74). Parsers never see the whole file at once.
enum _ChunkedFile {
    /// Opens `path` and calls `body` with its bytes (`_InputBytes`: a text input decompressed
    /// when its magic says so, and refused when binary) and the file's size when it is a
    /// regular, uncompressed file (a hint for the parsers' arrays); closes the descriptor
    /// afterwards. `observer` hears the bytes on disk. When `body` fails on a file that changed
    /// since it was opened, the change is the error.
    static func withOpenFile<T>(path: String, displayPath: String, observer: (any FileReadObserver)? = nil,
                                isText: Bool = true, refusesBinary: Bool = true, chunkBytes: Int = 1 << 20,
                                _ body: (_InputBytes, Int?) throws -> T) throws -> T {
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
        let input = _InputBytes(fd: fd, displayPath: displayPath, observed: observed, chunkBytes: chunkBytes, isText: isText,
                                refusesBinary: refusesBinary)
        do {
            try input.prime()
            return try body(input, input.format == nil ? info.regularFileSize : nil)
        } catch {
            if let changed = observed?.changeSinceOpen(atEnd: false) { throw changed }
            // A compressed file damaged just past a parse error: the damage is the error.
            if error is IngestError, let damage = input.damageBehind() { throw damage }
            throw error
        }
    }

    /// Reads `input` to its end in reads of `chunkBytes`, handing each non-empty chunk to
    /// `consume` (the observer has heard the file's bytes before; at the end it checks that the
    /// file did not change meanwhile).
    static func forEachChunk(_ input: _InputBytes, chunkBytes: Int, _ consume: (UnsafeRawBufferPointer) throws -> Void) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkBytes, alignment: 64)
        defer { buffer.deallocate() }
        while true {
            let n = try input.read(into: buffer)
            if n == 0 { return }
            try consume(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
    }
}


/// A small file read whole (an intervals labels file), through the same observed reads as the
/// readers, so that it is hashed from the bytes that are parsed.
public enum WholeFile {
    /// The text of `path`: decompressed when its first bytes are a gzip, zstd, xz or bzip2
    /// magic (docs/inputs.md, "Compressed files"); the observer hears the bytes on disk. (An
    /// intervals file's rows are all kept anyway, so its text is held whole, compressed or not.)
    ///
    /// - Throws: `IngestError` `.cannotOpen` (66) or `.readFailed` (74); `.binaryNotText` and
    ///   `.decompression` (65); with an `observer`, a file that changes while it is read (74).
    public static func read(path: String, displayPath: String, observer: (any FileReadObserver)? = nil) throws -> [UInt8] {
        try _ChunkedFile.withOpenFile(path: path, displayPath: displayPath, observer: observer) { input, size in
            var bytes: [UInt8] = []
            bytes.reserveCapacity(size ?? 0)
            try _ChunkedFile.forEachChunk(input, chunkBytes: 1 << 20) { bytes.append(contentsOf: $0) }
            return bytes
        }
    }
}
