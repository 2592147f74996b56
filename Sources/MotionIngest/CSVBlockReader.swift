import MotionCore

/// Reads a delimited text file a block at a time (issue 8), with the parser of
/// `CSVReader.read(path:…)`: concatenated, the blocks are its streams and label events, and
/// `rowsDropped` is its file's once the last block is read.
public final class CSVBlockReader: IngestBlockReader {
    private let reader: _TextBlockReader<_CSVParser>
    public var rowsDropped: [String: Int] { reader.rowsDropped }
    /// The rows whose local time the clocks went back or forward over (`time.zone`).
    public var warnings: [String] {
        reader.parser.clock?.messages(file: reader.parser.displayPath) ?? []
    }

    /// Opens `path` (`.cannotOpen`, 66, as `CSVReader.read(path:…)`); the other parameters are
    /// those of `CSVReader.read`.
    public init(path: String, displayPath: String, format: CSVFormat, units: [String: String], unitSystem: UnitSystem,
                wideSensorName: String, keep: Set<String>?, blockBytes: Int,
                observer: (any FileReadObserver)? = nil) throws {
        reader = try _TextBlockReader(path: path, displayPath: displayPath, chunkBytes: CSVReader.readChunkBytes,
                                      blockBytes: blockBytes,
                                      parser: _CSVParser(displayPath: displayPath, format: format, units: units, unitSystem: unitSystem,
                                                         wideSensorName: wideSensorName, keep: keep),
                                      observer: observer)
    }

    public func next() throws -> IngestBlock? { try reader.next() }
}

extension _CSVParser: _BlockParser {
    /// Moves out the rows parsed so far (complete records only), leaving the parser ready to go
    /// on; `finish()` later returns only what came after.
    mutating func takeBlock(rowsRead: Int, bytesRead: Int) -> IngestBlock {
        var out: [RawStream] = []
        for i in streams.indices where !format.isLong || streams[i].present {
            out.append(Self.transpose(&streams[i]))
            streams[i].lines = []
        }
        let events = LabelEvents(names: labels.names, times: rowLabelTimes, labels: rowLabelIDs)
        rowLabelTimes = []
        rowLabelIDs = []
        return IngestBlock(streams: out, rowLabels: events, markers: LabelEvents(), rowsRead: rowsRead, bytesRead: bytesRead)
    }

    mutating func finishBlock(bytesRead: Int) throws -> (block: IngestBlock, rowsRead: Int, rowsDropped: [String: Int]) {
        let whole = try finish()
        return (IngestBlock(streams: whole.streams, rowLabels: whole.rowLabels, markers: LabelEvents(), rowsRead: 0,
                            bytesRead: bytesRead), whole.rowsRead, whole.rowsDropped)
    }

    mutating func release() {}
}
