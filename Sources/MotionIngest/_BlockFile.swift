import MotionCore

/// The file side of the block readers (`MotionCollectorBlockReader`, `CSVBlockReader`,
/// `IIOBlockReader`): a file kept open between blocks and read about `blockBytes` at a time, in
/// reads of at most `chunkBytes` into one reused buffer. Errors as `_ChunkedFile`'s.
final class _BlockFile {
    let displayPath: String
    private var fd: Int32
    private let buffer: UnsafeMutableRawBufferPointer
    private let blockBytes: Int
    /// Bytes read so far.
    private(set) var bytesRead = 0
    private var observed: _ObservedRead?

    /// Opens `path`: `.cannotOpen` (exit 66) for a missing, unreadable or folder path. With an
    /// `observer`, every chunk goes to it before it is parsed, and the file must not change
    /// until its end is read (exit 74).
    init(path: String, displayPath: String, chunkBytes: Int, blockBytes: Int, observer: (any FileReadObserver)? = nil) throws {
        switch _Syscalls.openForReading(path) {
        case .success(let opened): fd = opened
        case .failure(let e):
            throw IngestError(.cannotOpen(reason: e.text, errno: e.code), at: SourceLocation(file: displayPath))
        }
        if _Syscalls.describe(fd).isDirectory {
            _Syscalls.close(fd)
            let e = _Syscalls.Errno.isDirectory
            throw IngestError(.cannotOpen(reason: e.text, errno: e.code), at: SourceLocation(file: displayPath))
        }
        do {
            observed = try _ObservedRead.begin(observer, fd: fd, path: path, displayPath: displayPath)
        } catch {
            _Syscalls.close(fd)
            throw error
        }
        self.displayPath = displayPath
        self.blockBytes = Swift.max(1, blockBytes)
        buffer = .allocate(byteCount: Swift.max(1, Swift.min(chunkBytes, self.blockBytes)), alignment: 64)
    }

    deinit {
        if fd >= 0 { _Syscalls.close(fd) }
        buffer.deallocate()
    }

    /// Reads the next block, handing each non-empty chunk to `consume`. Returns false, and closes
    /// the file, once its end is reached (the chunks before it in this call were consumed).
    func readBlock(_ consume: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        guard fd >= 0 else { return false }
        var consumed = 0
        while consumed < blockBytes {
            switch _Syscalls.read(fd, into: buffer) {
            case .success(0):
                defer {
                    _Syscalls.close(fd)
                    fd = -1
                }
                try observed?.finish()
                return false
            case .success(let n):
                bytesRead += n
                consumed += n
                let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
                observed?.consume(chunk)
                do {
                    try consume(chunk)
                } catch {
                    if let changed = observed?.changeSinceOpen(atEnd: false) { throw changed }
                    throw error
                }
            case .failure(let e):
                throw IngestError(.readFailed(reason: e.text, errno: e.code), at: SourceLocation(file: displayPath))
            }
        }
        return true
    }
}
