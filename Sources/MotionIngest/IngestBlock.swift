import MotionCore

/// What a block reader hands out: the samples and label events read since the previous block.
///
/// Concatenating every block's streams (by name) and events gives exactly what the whole-file
/// reader returns, so a consumer may process a file of any length a block at a time.
public struct IngestBlock: Sendable {
    /// New samples of the kept streams seen so far, in file order (a stream may be empty).
    public var streams: [RawStream]
    /// New row label events; `names` holds every name seen so far (indices are stable).
    public var rowLabels: LabelEvents
    /// New marker events (legacy MotionCollector), names as for `rowLabels`.
    public var markers: LabelEvents
    /// Data rows (or scans) read in this block.
    public var rowsRead: Int
    /// Bytes of the file consumed so far.
    public var bytesRead: Int
    /// Where this block's samples were added by the reader rather than measured (a GT3X file's
    /// idle-sleep fill): each span from the first added sample's time to the last's. The `qa`
    /// column `imputed` counts the grid points inside them (docs/pipeline.md, "qa").
    public var added: [ClosedRange<Double>] = []

    public init(streams: [RawStream], rowLabels: LabelEvents, markers: LabelEvents, rowsRead: Int, bytesRead: Int) {
        self.streams = streams
        self.rowLabels = rowLabels
        self.markers = markers
        self.rowsRead = rowsRead
        self.bytesRead = bytesRead
    }
}

/// A reader that yields a file in blocks of roughly `blockBytes` of input.
public protocol IngestBlockReader: AnyObject {
    /// The next block, or nil after the last one. Throws the error the whole-file reader would.
    func next() throws -> IngestBlock?
    /// Rows left out, by reason; complete once `next()` has returned nil.
    var rowsDropped: [String: Int] { get }
    /// Non-fatal problems (complete once `next()` has returned nil).
    var warnings: [String] { get }
}
