import MotionCore

/// Reads an IIO buffer dump a block of whole scans at a time (issue 8), with the decoder of
/// `IIODecoder.decode(path:)`: concatenated, the blocks are its stream, and `warnings`,
/// `rowsDropped` and `scans` are its dump's once the last block is read.
public final class IIOBlockReader: IngestBlockReader {
    private let displayPath: String
    private let layout: IIOLayout
    private let strict: Bool
    private let sensor: String
    private let file: _BlockFile
    private var core: _IIOScanDecoder
    private var done = false
    private var taken = 0
    private var lastNanos: Int64?
    private var nonMonotonic: IIOWarning?
    public private(set) var warnings: [String] = []
    public private(set) var rowsDropped: [String: Int] = [:]
    /// Whole scans decoded so far.
    public var scans: Int { core.scans }
    /// Bytes per scan.
    public var scanBytes: Int { layout.scanBytes }

    /// Throws the dump's error when it held no whole scan (docs/inputs.md, "Bad rows and time
    /// order": no data rows), as `IIODecoder.decode` callers raise it; call after the last block.
    public func requireWholeScan() throws {
        guard core.scans == 0 else { return }
        throw IngestError(.iioNoScans(fileBytes: core.totalBytes, scanBytes: layout.scanBytes), at: SourceLocation(file: displayPath))
    }

    /// Opens `path` (`.cannotOpen`, 66, as `IIODecoder.decode`); the layout must give a time
    /// source (`E_NO_TIME`).
    public init(path: String, displayPath: String, layout: IIOLayout, units: UnitSystem, strict: Bool, sensor: String,
                blockBytes: Int, observer: (any FileReadObserver)? = nil) throws {
        try layout.checkTimeSource()
        self.displayPath = displayPath
        self.layout = layout
        self.strict = strict
        self.sensor = sensor
        core = _IIOScanDecoder(layout: layout, units: units)
        // Reads of whole scans (at least one scan, about 1 MiB), as `IIODecoder.decode(path:)`.
        let chunk = Swift.max(layout.scanBytes, Swift.min(IIODecoder.readChunkBytes, blockBytes) / layout.scanBytes * layout.scanBytes)
        file = try _BlockFile(path: path, displayPath: displayPath, chunkBytes: chunk, blockBytes: Swift.max(blockBytes, chunk),
                              observer: observer, isText: false)
    }

    public func next() throws -> IngestBlock? {
        guard !done else { return nil }
        if try file.readBlock({ core.consume($0) }) { return take() }
        return try last()
    }

    /// The scans decoded since the last block, as a block.
    private func take() -> IngestBlock {
        let first = taken
        let count = core.scans - taken
        taken = core.scans
        var columns: [[Double]] = Array(repeating: [], count: core.columns.count)
        swap(&columns, &core.columns)
        let nanos = core.nanos
        core.nanos = []
        for (i, ns) in nanos.enumerated() {
            if nonMonotonic == nil, let p = lastNanos, ns <= p {
                nonMonotonic = IIODecoder.nonMonotonic(displayPath: displayPath, scan: first + i, scanBytes: layout.scanBytes,
                                                       nanos: ns, previous: p)
            }
            lastNanos = ns
        }
        let stream = IIODecoder.stream(scans: first..<(first + count), columns: columns, nanos: nanos, layout: layout,
                                       units: core.units, sensor: sensor)
        return IngestBlock(streams: [stream], rowLabels: LabelEvents(), markers: LabelEvents(), rowsRead: count,
                           bytesRead: core.totalBytes)
    }

    /// The last block, and the dump's warnings and counts, as `IIODecoder.finish` gives them.
    private func last() throws -> IngestBlock {
        done = true
        let block = take()
        let leftover = core.carry.count
        var w = try IIODecoder.endWarnings(totalBytes: core.totalBytes, scans: core.scans, leftover: leftover, layout: layout,
                                           displayPath: displayPath, strict: strict)
        if leftover > 0 { rowsDropped = ["partial_scan": 1] }
        if let nonMonotonic { w.append(nonMonotonic) }
        warnings = layout.warnings.map(\.message) + w.map(\.message)
        return block
    }
}
