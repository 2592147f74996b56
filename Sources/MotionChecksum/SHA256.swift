#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MotionCore

/// One-shot SHA-256 helpers over ``SHA256Hasher``.
public enum SHA256 {
    /// The size of the buffer ``hexOfFile(path:)`` reads with: 1 MiB.
    static let fileBufferBytes = 1 << 20

    /// The SHA-256 of `bytes` as 64 lowercase hex digits.
    ///
    /// - Parameter bytes: the whole message (may be empty).
    /// - Returns: the digest, as `sha256sum` prints it.
    public static func hex(of bytes: [UInt8]) -> String {
        var hasher = SHA256Hasher()
        hasher.update(bytes)
        return hasher.finalizeHex()
    }

    /// Hashes a file by streaming it through a 1 MiB buffer, so memory use does not grow with
    /// the file's size.
    ///
    /// - Parameter path: the file to read (absolute, or relative to the working directory).
    /// - Returns: the digest as 64 lowercase hex digits, and the number of bytes read.
    /// - Throws: `MotionError` naming the path and the system's reason: `.noInput` when the
    ///   file does not exist, `.ioError` when it cannot be opened or read (permissions, a
    ///   directory, a device error). The corresponding C calls are `open(2)` and `read(2)`.
    public static func hexOfFile(path: String) throws -> (hex: String, bytes: Int) {
        let descriptor: Int32
        switch RegularFile.openForReading(path) {
        case .success(let fd): descriptor = fd
        case .failure(.system(let code)):
            let status: ExitStatus = code == ENOENT || code == ENOTDIR ? .noInput : .ioError
            throw MotionError(status, "cannot open `\(path)` to compute its SHA-256: \(_systemMessage(code))")
        case .failure(let other):
            throw MotionError(.noInput, "cannot open `\(path)` to compute its SHA-256: \(other.reason)")
        }
        defer { _ = close(descriptor) }

        var hasher = SHA256Hasher()
        var total = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: fileBufferBytes, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                throw MotionError(.ioError, "cannot read `\(path)` to compute its SHA-256: \(_systemMessage(code))")
            }
            if count == 0 { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            total += count
        }
        return (hasher.finalizeHex(), total)
    }
}

/// `strerror(code)` as a Swift string, e.g. "No such file or directory".
func _systemMessage(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "error \(code)" }
    return String(cString: text)
}
