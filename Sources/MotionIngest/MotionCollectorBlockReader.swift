import MotionCore

/// Reads a MotionCollector file a block at a time, for recordings too long to hold whole
/// (issue 8): the same parser as `MotionCollectorReader.read(path:)`, with its columns moved out
/// after every `blockBytes` of input. Errors are those of the whole-file reader, raised when the
/// block holding the bad line is read.
public final class MotionCollectorBlockReader: IngestBlockReader {
    private let displayPath: String
    private let blockBytes: Int
    private var fd: Int32
    private var parser: _MotionCollectorParser
    private var buffer: UnsafeMutableRawBufferPointer
    private var done = false
    private var rowsBefore = 0
    private var bytesRead = 0
    public private(set) var rowsDropped: [String: Int] = [:]
    public var warnings: [String] { [] }

    /// Opens `path`; `.cannotOpen` (exit 66) as `MotionCollectorReader.read(path:)`.
    public init(path: String, displayPath: String, units: UnitSystem, keep: Set<String>?, blockBytes: Int) throws {
        switch _Syscalls.openForReading(path) {
        case .success(let opened): fd = opened
        case .failure(let e):
            throw IngestError(.cannotOpen(reason: e.text, errno: e.code), at: SourceLocation(file: displayPath))
        }
        if _Syscalls.describe(fd).isDirectory {
            _Syscalls.close(fd)
            let e = _Syscalls.Errno.isDirectory
            throw IngestError(.cannotOpen(reason: e.text, errno: e.code), at: SourceLocation(file: displayPath))
        }
        self.displayPath = displayPath
        self.blockBytes = Swift.max(1, blockBytes)
        parser = _MotionCollectorParser(displayPath: displayPath, units: units, keep: keep)
        buffer = .allocate(byteCount: Swift.min(MotionCollectorReader.readChunkBytes, self.blockBytes), alignment: 64)
    }

    deinit {
        if fd >= 0 { _Syscalls.close(fd) }
        parser.deallocate()
        buffer.deallocate()
    }

    public func next() throws -> IngestBlock? {
        guard !done else { return nil }
        var consumed = 0
        while consumed < blockBytes {
            switch _Syscalls.read(fd, into: buffer) {
            case .success(0):
                return try last()
            case .success(let n):
                try parser.consume(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                consumed += n
                bytesRead += n
            case .failure(let e):
                throw IngestError(.readFailed(reason: e.text, errno: e.code), at: SourceLocation(file: displayPath))
            }
        }
        return parser.takeBlock(rowsRead: takeRows(parser.rowsRead), bytesRead: bytesRead)
    }

    private func takeRows(_ total: Int) -> Int {
        defer { rowsBefore = total }
        return total - rowsBefore
    }

    private func last() throws -> IngestBlock {
        done = true
        _Syscalls.close(fd)
        fd = -1
        let file = try parser.finish()
        rowsDropped = file.rowsDropped
        return IngestBlock(streams: file.streams, rowLabels: file.rowLabels, markers: file.markers,
                           rowsRead: takeRows(file.rowsRead), bytesRead: bytesRead)
    }
}

extension _MotionCollectorParser {
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
        return IngestBlock(streams: streams, rowLabels: LabelEvents(names: labelNames, times: events.doubles[0], labels: events.ints),
                           markers: markers, rowsRead: rowsRead, bytesRead: bytesRead)
    }
}
