#if canImport(Glibc)
import Glibc
#endif
import MotionCore

/// The only place that prints errors and picks exit statuses.
enum Diagnostics {
    /// Writes `text` to stderr.
    static func stderr(_ text: String) {
        var s = text
        if !s.hasSuffix("\n") { s += "\n" }
        writeAll(2, s)
    }

    /// Writes `text` to stderr as is (no newline added), for the progress bar.
    static func stderrRaw(_ text: String) {
        writeAll(2, text)
    }

    /// Writes `text` to stdout.
    static func stdout(_ text: String) {
        var s = text
        if !s.hasSuffix("\n") { s += "\n" }
        writeAll(1, s)
    }

    /// Writes the whole string to a file descriptor (unbuffered, so stdout and stderr interleave
    /// in the order written).
    private static func writeAll(_ fd: Int32, _ s: String) {
        var bytes = Array(s.utf8)
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + off, $0.count - off) }
            if n < 0 { if errno == EINTR { continue }; return }
            off += n
        }
    }

    /// Prints `error` as `motionprep: <sentence>` and returns its exit status.
    static func report(_ error: Error) -> ExitStatus {
        if let e = error as? UserFacingError {
            stderr("motionprep: " + e.message)
            return e.exitStatus
        }
        stderr("motionprep: internal error: \(error)")
        return .ioError
    }

    /// Whether stderr is a terminal (progress is drawn only then).
    static var stderrIsTerminal: Bool { isatty(2) != 0 }
}
