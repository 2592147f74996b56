import MotionCore
import MotionDecompress

/// The file side of the block readers (`MotionCollectorBlockReader`, `CSVBlockReader`,
/// `IIOBlockReader`): a file kept open between blocks and read about `blockBytes` at a time, in
/// reads of at most `chunkBytes` into one reused buffer. Errors as `_ChunkedFile`'s.
final class _BlockFile {
    let displayPath: String
    private var fd: Int32
    private let buffer: UnsafeMutableRawBufferPointer
    private let blockBytes: Int
    private let input: _InputBytes
    /// Bytes read so far, for progress: of the file as it is on disk (compressed, for a
    /// compressed file; its blocks are cut by text bytes, `blockBytes` of them).
    var bytesRead: Int { input.format == nil ? input.textBytesRead : input.fileBytesRead }
    /// The compression the file's first bytes gave (nil before the first block, and for a plain file).
    var compression: CompressionFormat? { input.format }
    private var observed: _ObservedRead?

    /// Opens `path`: `.cannotOpen` (exit 66) for a missing, unreadable or folder path. With an
    /// `observer`, every chunk goes to it before it is parsed, and the file must not change
    /// until its end is read (exit 74). `isText`: decompress and refuse binary (`_InputBytes`);
    /// false for IIO dumps.
    init(path: String, displayPath: String, chunkBytes: Int, blockBytes: Int, observer: (any FileReadObserver)? = nil,
         isText: Bool = true) throws {
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
        let chunk = Swift.max(1, Swift.min(chunkBytes, self.blockBytes))
        buffer = .allocate(byteCount: chunk, alignment: 64)
        input = _InputBytes(fd: fd, displayPath: displayPath, observed: observed, chunkBytes: Swift.max(chunkBytes, 1), isText: isText)
    }

    deinit {
        if fd >= 0 { _Syscalls.close(fd) }
        buffer.deallocate()
    }

    /// Reads the next block (`blockBytes` of text), handing each non-empty chunk to `consume`.
    /// Returns false, and closes the file, once its end is reached (the chunks before it in this
    /// call were consumed).
    func readBlock(_ consume: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        guard fd >= 0 else { return false }
        var consumed = 0
        while consumed < blockBytes {
            let n: Int
            do {
                n = try input.read(into: buffer)
            } catch {
                if let changed = observed?.changeSinceOpen(atEnd: false) { throw changed }
                throw error
            }
            if n == 0 {
                _Syscalls.close(fd)
                fd = -1
                return false
            }
            consumed += n
            do {
                try consume(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            } catch {
                if let changed = observed?.changeSinceOpen(atEnd: false) { throw changed }
                // A compressed file damaged just past a parse error: the damage is the error.
                if let damage = input.damageBehind() { throw damage }
                throw error
            }
        }
        return true
    }
}
