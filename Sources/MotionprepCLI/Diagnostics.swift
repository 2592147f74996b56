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
        fputs(s, Glibc.stderr)
    }

    /// Writes `text` to stdout.
    static func stdout(_ text: String) {
        var s = text
        if !s.hasSuffix("\n") { s += "\n" }
        fputs(s, Glibc.stdout)
        fflush(Glibc.stdout)
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
