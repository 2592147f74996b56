#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The one loop that writes a whole buffer to a descriptor, for every file and stream motionprep
/// writes (output files, record and shard files, the merge's copies, standard output and error).
public enum FileWrites {
    /// Writes every byte of `bytes` to `fd`: a short write goes on from where it stopped, an
    /// interrupted one (`EINTR`) is retried, and a write that takes no byte is `EIO`.
    ///
    /// - Returns: nil when every byte was written, else the `errno` of the failed write.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if n == 0 { return EIO }
            offset += n
        }
        return nil
    }
}
