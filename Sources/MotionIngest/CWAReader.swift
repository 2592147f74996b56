import MotionCore

/// Everything read from one Axivity CWA file (docs/inputs.md, "Axivity CWA (cwa)").
public struct CWAFile: Sendable, Equatable {
    public var header: CWAFormat.Header
    /// The kept streams, in the order `acc`, `gyro`, `temperature`; each sample's "line" is the
    /// 0-based index of its data block.
    public var streams: [RawStream]
    /// Samples of the blocks kept (`rows_read`).
    public var rowsRead: Int
    /// Blocks left out, by reason (`cwa_bad_checksum`, …), and `missing_value` temperatures.
    public var rowsDropped: [String: Int]
    public var warnings: [String]
}

/// Reads Axivity AX3 / AX6 `.cwa` files: `acc` (acc_x, acc_y, acc_z; g, or m/s² under
/// `units: si`), `gyro` (AX6: gyro_x, gyro_y, gyro_z; deg/s, or rad/s) and `temperature` (one
/// reading per block, degC), the streams in `keep`.
public enum CWAReader {
    /// The streams a CWA input can keep, in their order.
    public static let sensors: [(name: String, channels: [(String, String)])] = [
        ("acc", [("acc_x", "g"), ("acc_y", "g"), ("acc_z", "g")]),
        ("gyro", [("gyro_x", "deg/s"), ("gyro_y", "deg/s"), ("gyro_z", "deg/s")]),
        ("temperature", [("temperature", "degC")]),
    ]

    /// Decodes a file delivered as chunks of bytes; the result does not depend on how the bytes
    /// are cut.
    ///
    /// - Throws: `IngestError` `.cwa` (65): not CWA, cut inside the header, no usable block, a
    ///   block without a kept gyroscope, or (with `strict`) a partial last block.
    public static func read<S: Sequence>(chunks: S, displayPath: String, keep: Set<String>, units: UnitSystem,
                                         strict: Bool = false, zone: WallClockZone? = nil) throws -> CWAFile where S.Element == [UInt8] {
        var core = _CWADecoder(displayPath: displayPath, keep: keep, units: units, zone: zone)
        for chunk in chunks { try chunk.withUnsafeBytes { try core.consume($0) } }
        try core.finish(strict: strict)
        try requireData(core)
        return CWAFile(header: core.header!, streams: streams(&core, units: units), rowsRead: core.samples,
                       rowsDropped: core.rowsDropped, warnings: core.warnings)
    }

    /// A file without one usable sample is an error (docs/inputs.md, "Empty files").
    static func requireData(_ core: _CWADecoder) throws {
        guard core.samples == 0 else { return }
        let dropped = core.dropped.values.reduce(0) { $0 + $1.count }
        let why = core.blocks == 0 && dropped == 0
            ? "the file has a header but no data block"
            : "none of its \(core.blocks) data block\(core.blocks == 1 ? "" : "s") has a sample that could be used (\(core.rowsDropped.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")))"
        throw IngestError(.cwa(problem: "no data rows: \(why) (a file without data is an error unless `on_error: skip`)"),
                          at: SourceLocation(file: core.displayPath, byteOffset: CWAFormat.headerBytes))
    }

    /// The samples decoded since the last call, as the kept streams that have any.
    static func streams(_ core: inout _CWADecoder, units: UnitSystem) -> [RawStream] {
        func unit(_ u: String) -> String { PhysicalUnit.conversion(from: u, to: units).unit }
        var out: [RawStream] = []
        let names = ["acc": core.keepAcc, "gyro": core.keepGyro, "temperature": core.keepTemperature]
        for sensor in sensors where names[sensor.name] == true {
            let channels: [[Double]]
            let times: [Double], lines: [Int32]
            switch sensor.name {
            case "acc": channels = core.acc; times = core.times; lines = core.lines
            case "gyro": channels = core.gyro; times = core.times; lines = core.lines
            default: channels = [core.temperature]; times = core.temperatureTimes; lines = core.temperatureLines
            }
            out.append(RawStream(name: sensor.name, channelNames: sensor.channels.map(\.0),
                                 channelUnits: sensor.channels.map { unit($0.1) }, times: times, channels: channels, lines: lines))
        }
        core.times = []; core.lines = []
        core.acc = [[], [], []]; core.gyro = [[], [], []]
        core.temperatureTimes = []; core.temperature = []; core.temperatureLines = []
        return out
    }
}

/// Reads a CWA file a block of whole 512-byte blocks at a time (docs/streaming.md): concatenated,
/// its blocks are `CWAReader.read`'s streams, and `rowsDropped` and `warnings` are its file's once
/// the last block is read. Memory: the samples of about `blockBytes` of file, and one held block.
public final class CWABlockReader: IngestBlockReader {
    private let file: _BlockFile
    private var core: _CWADecoder
    private let units: UnitSystem
    private let strict: Bool
    private var done = false
    public private(set) var warnings: [String] = []
    public private(set) var rowsDropped: [String: Int] = [:]
    private var taken = 0
    /// The file's header, once read.
    public var header: CWAFormat.Header? { core.header }

    /// Opens `path` (`.cannotOpen`, 66). `keep`: the streams to give (`acc`, `gyro`, `temperature`).
    public init(path: String, displayPath: String, keep: Set<String>, units: UnitSystem, strict: Bool, blockBytes: Int,
                observer: (any FileReadObserver)? = nil, zone: WallClockZone? = nil) throws {
        core = _CWADecoder(displayPath: displayPath, keep: keep, units: units, zone: zone)
        self.units = units
        self.strict = strict
        let chunk = Swift.max(CWAFormat.blockBytes, Swift.min(1 << 20, blockBytes) / CWAFormat.blockBytes * CWAFormat.blockBytes)
        file = try _BlockFile(path: path, displayPath: displayPath, chunkBytes: chunk, blockBytes: Swift.max(blockBytes, chunk),
                              observer: observer, isText: false)
    }

    public func next() throws -> IngestBlock? {
        guard !done else { return nil }
        if try file.readBlock({ try core.consume($0) }) { return take() }
        done = true
        try core.finish(strict: strict)
        try CWAReader.requireData(core)
        rowsDropped = core.rowsDropped
        warnings = core.warnings
        return take()
    }

    private func take() -> IngestBlock {
        let read = core.samples - taken
        taken = core.samples
        return IngestBlock(streams: CWAReader.streams(&core, units: units), rowLabels: LabelEvents(), markers: LabelEvents(),
                           rowsRead: read, bytesRead: core.totalBytes)
    }
}
