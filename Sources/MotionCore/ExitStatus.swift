/// Process exit statuses, following sysexits(3) as docs/commands.md lists them.
public enum ExitStatus: Int32, Sendable {
    /// Success.
    case success = 0
    /// A `validate` check failed.
    case checkFailed = 1
    /// The command line was wrong (`EX_USAGE`).
    case usage = 64
    /// Input data was malformed (`EX_DATAERR`).
    case dataError = 65
    /// An input file or directory does not exist (`EX_NOINPUT`).
    case noInput = 66
    /// An output file or directory cannot be created (`EX_CANTCREAT`).
    case cannotCreate = 73
    /// A read or write failed (`EX_IOERR`).
    case ioError = 74
    /// The pipeline (or expectations) file is invalid (`EX_CONFIG`).
    case config = 78
    /// Interrupted by SIGINT (128 + 2, as shells report it); `--resume` finishes the run.
    case interrupted = 130

    /// The error is about what the input files hold, whether they exist, or how one of them is to
    /// be read (65, 66, 78: an IIO dump's layout), not a failed read or write or an interruption:
    /// which of several files' errors comes first is then the files' order (docs/inputs.md,
    /// "Bad rows and time order").
    public var isAboutInputData: Bool { self == .dataError || self == .noInput || self == .config }
}

/// An error meant for a person: one sentence naming the file, the position, the bad value and
/// what would be accepted, plus the exit status it maps to.
///
/// Every module's error type conforms; only the CLI's `Diagnostics` prints them.
public protocol UserFacingError: Error, CustomStringConvertible {
    /// The sentence printed on stderr (without a trailing newline).
    var message: String { get }
    /// The process exit status this error maps to.
    var exitStatus: ExitStatus { get }
    /// How it is printed (docs/commands.md, "Messages"); derived from `message` by default.
    var diagnostics: [Diagnostic] { get }
}

extension UserFacingError {
    public var description: String { message }
}

/// A general-purpose user-facing error, for modules whose failures are a message and a status.
public struct MotionError: UserFacingError, Equatable {
    public var message: String
    public var exitStatus: ExitStatus

    /// Creates an error with the sentence to print and its exit status.
    public init(_ exitStatus: ExitStatus, _ message: String) {
        self.message = message
        self.exitStatus = exitStatus
    }
}

extension UserFacingError {
    /// The printed form: one ``Diagnostic`` per line of `message`, each split into location,
    /// sentence and hints by ``Diagnostic/from(sentence:severity:known:)``. Error types that
    /// know their location exactly override this.
    public var diagnostics: [Diagnostic] {
        message.split(separator: "\n", omittingEmptySubsequences: true).map {
            Diagnostic.from(sentence: String($0), severity: .error)
        }
    }
}
