/// Counters for tolerated problems, keyed by the reason names of docs/dataset-format.md, "Manifest, checksums and commit"
/// (`missing_value`, `duplicate_time`, `partial_scan`; `no_label`, …).
/// Keys are sorted whenever they reach output.
public typealias ReasonCounts = [String: Int]

extension Dictionary where Key == String, Value == Int {
    /// Adds `other`'s counts to these.
    public mutating func add(_ other: [String: Int]) {
        for (k, v) in other { self[k, default: 0] += v }
    }
}

/// Everything ingest read for one recording, ready for the signal stages.
public struct Recording: Sendable {
    /// The recording's name (docs/inputs.md, "Recordings, subjects and channels"), e.g. `subject01/rec-0930`.
    public var name: String
    /// The subject the recording belongs to.
    public var subject: String
    /// The kept streams, in channel order (docs/inputs.md, "Recordings, subjects and channels").
    public var streams: [SensorStream]
    /// The label step function, when the pipeline has labels.
    public var labels: LabelTrack?
    /// Data rows (or scans) read, over all files of the recording.
    public var rowsRead: Int
    /// Rows left out of their stream, by reason.
    public var rowsDropped: ReasonCounts
    /// Non-fatal problems worth telling the user (partial IIO scans, …).
    public var warnings: [String]

    public init(name: String, subject: String, streams: [SensorStream], labels: LabelTrack?,
                rowsRead: Int, rowsDropped: ReasonCounts = [:], warnings: [String] = []) {
        self.name = name
        self.subject = subject
        self.streams = streams
        self.labels = labels
        self.rowsRead = rowsRead
        self.rowsDropped = rowsDropped
        self.warnings = warnings
    }
}
