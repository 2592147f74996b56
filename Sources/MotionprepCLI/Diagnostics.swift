#if canImport(Glibc)
import Glibc
#endif
import MotionCore

/// The only place that prints errors and picks exit statuses.
enum Diagnostics {
    /// Writes `text` to stderr. A failed write to stderr is ignored: there is nowhere left to
    /// say so, and the exit status still tells.
    static func stderr(_ text: String) {
        var s = text
        if !s.hasSuffix("\n") { s += "\n" }
        _ = writeAll(2, s)
    }

    /// Writes `text` to stderr as is (no newline added), for the progress bar.
    static func stderrRaw(_ text: String) {
        _ = writeAll(2, text)
    }

    /// Writes `text` (plus a newline) to stdout, all of it, unbuffered.
    ///
    /// - Throws: ``StandardOutputError`` (74) "cannot write to standard output: <reason>" when a write
    ///   fails: a full disk or `/dev/full` (ENOSPC), a pipe whose reader is gone (EPIPE; SIGPIPE
    ///   is ignored, see ``ignoreSIGPIPE()``), a closed descriptor (EBADF). Output is never
    ///   silently lost with exit 0.
    static func stdout(_ text: String) throws {
        var s = text
        if !s.hasSuffix("\n") { s += "\n" }
        if let code = writeAll(1, s) {
            throw StandardOutputError(message: "cannot write to standard output: \(String(cString: strerror(code)))")
        }
    }

    /// ``stdout(_:)`` for text meant for a person that holds names from the data (file names,
    /// labels, column names): every control character, DEL, C1 control, line separator and
    /// bidirectional control in a line is written as `\u{1B}` (``Text/terminalSafeLines(_:)``),
    /// so a name cannot drive the terminal. Not for JSON, whose encoder escapes its own way.
    static func stdoutText(_ text: String) throws {
        try stdout(Text.terminalSafeLines(text))
    }

    /// Writes the whole string to a file descriptor (unbuffered, so stdout and stderr interleave
    /// in the order written, and nothing is left in a buffer to flush at exit).
    ///
    /// - Returns: nil when every byte was written, else the `errno` of the failed write.
    private static func writeAll(_ fd: Int32, _ s: String) -> Int32? {
        Array(s.utf8).withUnsafeBytes { FileWrites.writeAll(fd, $0) }
    }

    /// Ignores SIGPIPE for the whole process, so that writing to a pipe whose reader has gone
    /// (`motionprep run --json | head -c0`) fails with EPIPE, which ``stdout(_:)`` reports with
    /// exit 74, instead of killing the process silently. Called once, first thing in `main`.
    static func ignoreSIGPIPE() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Prints `error` as diagnostics (`FILE:LINE:COL: error: sentence`, hints indented below;
    /// docs/commands.md, "Messages") and returns its exit status.
    static func report(_ error: Error) -> ExitStatus {
        if let e = error as? UserFacingError {
            print(e.diagnostics)
            return e.exitStatus
        }
        stderr("motionprep: error: internal error: \(error)")
        return .ioError
    }

    /// Prints diagnostics to stderr, one block each.
    static func print(_ diagnostics: [Diagnostic]) {
        // Messages name files and values from the data: no raw escape sequence reaches the terminal.
        for d in diagnostics { stderr(Text.terminalSafeLines(d.description)) }
    }

    /// Prints a line logged by the library: `warning: sentence` (`notice: sentence`) becomes a warning (note) diagnostic
    /// (located when the sentence starts with `FILE:LINE…:`); anything else is progress and is
    /// printed as `motionprep: line`.
    static func log(_ line: String) {
        if line.hasPrefix("warning: ") {
            print([Diagnostic.from(sentence: String(line.dropFirst(9)), severity: .warning)])
        } else if line.hasPrefix("notice: ") {
            print([Diagnostic.from(sentence: String(line.dropFirst(8)), severity: .note)])
        } else {
            stderr(Text.terminalSafeLines("motionprep: " + line))
        }
    }

    /// Whether stderr is a terminal (progress is drawn only then).
    static var stderrIsTerminal: Bool { isatty(2) != 0 }
}

/// Standard output could not be written (exit 74). Its own type so that a command reporting
/// other errors per file (`validate` of several pipelines) stops at it instead of going on.
struct StandardOutputError: UserFacingError {
    var message: String
    var exitStatus: ExitStatus { .ioError }
}
