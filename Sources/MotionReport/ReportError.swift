import MotionCore

/// Why a report could not be made: a sentence naming the folder or file, plus its exit status.
public struct ReportError: UserFacingError, Equatable, Sendable {
    /// The sentence to print (no trailing newline).
    public var message: String
    /// The exit status this failure maps to.
    public var exitStatus: ExitStatus

    public init(_ exitStatus: ExitStatus, _ message: String) {
        self.exitStatus = exitStatus
        self.message = message
    }

    /// The dataset folder (or its manifest) does not exist.
    static func missing(_ path: String, what: String) -> ReportError {
        ReportError(.noInput, "`\(path)` does not exist; `motionprep report` needs \(what)")
    }

    /// `manifest.json` is there but is not what docs/dataset-format.md, "Manifest, checksums and commit" describes.
    static func badManifest(_ path: String, _ reason: String) -> ReportError {
        ReportError(.dataError, "`\(path)` is not a motionprep dataset manifest: \(reason)")
    }

    /// The split files disagree with the manifest in a way the report cannot paper over.
    static func badData(_ path: String, _ reason: String) -> ReportError {
        ReportError(.dataError, "`\(path)`: \(reason)")
    }
}
