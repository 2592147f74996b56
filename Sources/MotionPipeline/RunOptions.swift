/// Command-line options of `motionprep run` that are not part of the pipeline (and so not part of
/// its hash).
public struct RunOptions: Sendable {
    /// Parallel workers (`--jobs`); default: all cores.
    public var jobs: Int
    /// Output folder overriding `output.path` (`--out`), relative to the current directory.
    public var outputDirectory: String?
    /// Receives progress and warning lines (stderr in the CLI).
    public var log: @Sendable (String) -> Void

    public init(jobs: Int, outputDirectory: String? = nil, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.jobs = jobs
        self.outputDirectory = outputDirectory
        self.log = log
    }
}

/// What a run did: the numbers behind the summary and `--json`.
public struct RunSummary: Sendable {
    public var outputDirectory: String
    public var recordings: Int
    public var rowsRead: Int
    public var rowsDropped: [String: Int]
    public var windowsDropped: [String: Int]
    public var recordingsDropped: [String: Int]
    public var skipped: [(recording: String, reason: String)]
    public var gaps: Int
    public var gapSeconds: Double
    public var windowsPerSplit: [(split: String, windows: Int)]
    public var warnings: [String]
    public var bytesWritten: Int
}
