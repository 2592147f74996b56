import MotionCore

/// One problem found in a pipeline file: where it is and a sentence saying what is wrong and
/// what would be accepted.
public struct ConfigIssue: Sendable, Equatable, CustomStringConvertible {
    /// The file plus `line:column` of the offending key or value; no line when the problem is
    /// the file as a whole (a missing top-level key, an empty file).
    public var location: SourceLocation
    /// The complete sentence, location included
    /// ("unknown key `lenght_s` in `window` at walk.yaml:14:3; did you mean `length_s`?").
    public var message: String

    public init(location: SourceLocation, message: String) {
        self.location = location
        self.message = message
    }

    public var description: String { message }
}

/// A pipeline file that does not parse or does not match the schema (docs/pipeline.md). Lists every
/// problem found, sorted by position; exit status 78 (`EX_CONFIG`).
public struct PipelineFileError: UserFacingError, Equatable {
    /// The pipeline file as the user named it.
    public var file: String
    /// Every problem, sorted by line and column (problems about the whole file first).
    public var issues: [ConfigIssue]

    public init(file: String, issues: [ConfigIssue]) {
        self.file = file
        self.issues = issues
    }

    /// One line per issue.
    public var message: String { issues.map(\.message).joined(separator: "\n") }

    /// One diagnostic per issue, at the issue's own location.
    public var diagnostics: [Diagnostic] {
        issues.map { issue in
            var known = issue.location
            if known.line == nil { known = SourceLocation(file: file) }
            return Diagnostic.from(sentence: issue.message, severity: .error, known: known)
        }
    }

    /// Always `.config` (78).
    public var exitStatus: ExitStatus { .config }
}
