/// Everything read from one delimited text file (docs/inputs.md, "Delimited text (csv)"), parallel to `MotionCollectorFile`.
public struct CSVFile: Sendable, Equatable {
    /// Wide format: one stream (named by the caller, docs/inputs.md, "Recordings, subjects and channels") with the channels in mapping
    /// order, present even when every row had a missing value. Long format: one stream per
    /// kept sensor that has at least one row, in `sensorGroups` order.
    public var streams: [RawStream]
    /// Every data row with a non-empty label and a time that is not missing, whatever its
    /// sensor and even if its values are missing (docs/signal.md, "Windows and labels" `rows`). Empty without a label column.
    public var rowLabels: LabelEvents
    /// Data rows read: every record after the header that is not blank, rows of sensors that
    /// are not kept or not listed included.
    public var rowsRead: Int
    /// Rows left out, by reason: `missing_value` counts rows of kept streams with a missing time
    /// or channel value. Only reasons that occurred are present.
    public var rowsDropped: [String: Int]
    /// What the run reports about the file without it being an error: the rows whose local wall
    /// time the clocks went back or forward over (`time.zone`).
    public var notes: [String] = []

    public init(streams: [RawStream], rowLabels: LabelEvents, rowsRead: Int, rowsDropped: [String: Int]) {
        self.streams = streams
        self.rowLabels = rowLabels
        self.rowsRead = rowsRead
        self.rowsDropped = rowsDropped
    }

    /// The stream named `name`, if present.
    public func stream(_ name: String) -> RawStream? {
        streams.first { $0.name == name }
    }
}
