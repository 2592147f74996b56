import MotionCore

/// Reads a MotionCollector file a block at a time, for recordings too long to hold whole
/// (issue 8): the same parser as `MotionCollectorReader.read(path:)`, with its columns moved out
/// after every `blockBytes` of input. Errors are those of the whole-file reader, raised when the
/// block holding the bad line is read.
public final class MotionCollectorBlockReader: IngestBlockReader {
    private let reader: _TextBlockReader<_MotionCollectorParser>
    public var rowsDropped: [String: Int] { reader.rowsDropped }
    public var warnings: [String] { [] }
    /// The header flavour, once the header has been read (after the first block).
    public var variant: MotionCollectorFile.Variant? { reader.parser.variant }

    /// Opens `path`; `.cannotOpen` (exit 66) as `MotionCollectorReader.read(path:)`.
    public init(path: String, displayPath: String, units: UnitSystem, keep: Set<String>?, blockBytes: Int,
                observer: (any FileReadObserver)? = nil) throws {
        reader = try _TextBlockReader(path: path, displayPath: displayPath, chunkBytes: MotionCollectorReader.readChunkBytes,
                                      blockBytes: blockBytes,
                                      parser: _MotionCollectorParser(displayPath: displayPath, units: units, keep: keep),
                                      observer: observer)
    }

    public func next() throws -> IngestBlock? { try reader.next() }
}

extension _MotionCollectorParser: _BlockParser {
    /// Moves out the samples and events parsed so far (complete lines only), leaving the parser
    /// ready to go on; `finish()` later returns only what came after.
    mutating func takeBlock(rowsRead: Int, bytesRead: Int) -> IngestBlock {
        var streams: [RawStream] = []
        for (index, sensor) in MotionCollectorSensor.all.enumerated() where keep[index] && sensors[index].present {
            var columns = sensors[index].columns.take()
            let times = columns.doubles.removeFirst()
            streams.append(RawStream(name: sensor.code, channelNames: sensor.channelNames,
                                     channelUnits: sensor.conversion(units).units,
                                     times: times, channels: columns.doubles, lines: columns.ints))
        }
        let events = rowLabels.take()
        let markers = LabelEvents(names: markerNames, times: markerTimes, labels: markerIDs)
        markerTimes = []
        markerIDs = []
        return IngestBlock(streams: streams, rowLabels: LabelEvents(names: labels.names, times: events.doubles[0], labels: events.ints),
                           markers: markers, rowsRead: rowsRead, bytesRead: bytesRead)
    }

    mutating func finishBlock(bytesRead: Int) throws -> (block: IngestBlock, rowsRead: Int, rowsDropped: [String: Int]) {
        let whole = try finish()
        return (IngestBlock(streams: whole.streams, rowLabels: whole.rowLabels, markers: whole.markers, rowsRead: 0,
                            bytesRead: bytesRead), whole.rowsRead, whole.rowsDropped)
    }

    mutating func release() { deallocate() }
}
