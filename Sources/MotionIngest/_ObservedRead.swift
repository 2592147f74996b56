import MotionCore

/// One read of a file under a `FileReadObserver`: hands every chunk to the observer's tap before
/// it is parsed, and at the end of the file checks with `fstat` that the file is the one opened
/// (same inode, size, mtime and ctime) and that exactly its size was read.
final class _ObservedRead {
    private let tap: any FileReadTap
    private let identity: FileIdentity?
    private let fd: Int32
    private let displayPath: String
    private var bytes = 0

    private init(tap: any FileReadTap, identity: FileIdentity?, fd: Int32, displayPath: String) {
        self.tap = tap
        self.identity = identity
        self.fd = fd
        self.displayPath = displayPath
    }

    /// Starts observing the read of `fd`, or nil without an observer.
    static func begin(_ observer: (any FileReadObserver)?, fd: Int32, path: String, displayPath: String) throws -> _ObservedRead? {
        guard let observer else { return nil }
        let identity = _Syscalls.identity(fd)
        let tap = try observer.opened(path: path, displayPath: displayPath, identity: identity)
        return _ObservedRead(tap: tap, identity: identity, fd: fd, displayPath: displayPath)
    }

    /// The next bytes read.
    func consume(_ chunk: UnsafeRawBufferPointer) {
        bytes += chunk.count
        tap.consume(chunk)
    }

    /// The file's end was reached: checks it did not change, then tells the observer.
    func finish() throws {
        if let error = changeSinceOpen() { throw error }
        try tap.finished(bytes: bytes)
    }

    /// The error to raise when the file changed since it was opened (or was not read to its
    /// size at its end), else nil. Also asked when parsing failed: a truncated or rewritten file
    /// is reported as changed rather than as the parse error its new bytes caused.
    func changeSinceOpen(atEnd: Bool = true) -> MotionError? {
        guard let identity else { return nil }
        guard let now = _Syscalls.identity(fd) else { return FileIdentity.changedError(displayPath, "it can no longer be examined") }
        if now != identity { return FileIdentity.changedError(displayPath, now.difference(from: identity)) }
        if atEnd && bytes != identity.size {
            return FileIdentity.changedError(displayPath, "\(bytes) bytes were read from a file of \(identity.size) bytes")
        }
        return nil
    }
}
