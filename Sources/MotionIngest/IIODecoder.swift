import MotionCore

/// Everything decoded from one IIO buffer dump.
public struct IIODump: Sendable, Equatable {
    /// One channel per output column of the layout (`IIOLayout.channelNames`), in scan-index
    /// order, one sample per whole scan, in file order (times as read, not sorted). `lines`
    /// holds each sample's 0-based scan index (saturating at `Int32.max`).
    public var stream: RawStream
    /// The raw timestamps in nanoseconds, one per scan; empty when the timestamp is disabled.
    public var timestampNanos: [Int64]
    /// Whole scans decoded (`rows_read`).
    public var scans: Int
    /// Bytes per scan.
    public var scanBytes: Int
    /// Bytes in the dump.
    public var fileBytes: Int
    /// Bytes after the last whole scan (0 for a well-formed dump).
    public var leftoverBytes: Int
    /// `W_TRUNCATED_TAIL`, `W_EMPTY_DUMP`, `W_TS_NON_MONOTONIC` (the layout's own warnings are in
    /// `IIOLayout.warnings`).
    public var warnings: [IIOWarning]

    /// `rows_dropped` of this dump: `partial_scan` 1 when it ends with a partial scan.
    public var rowsDropped: [String: Int] { leftoverBytes > 0 ? ["partial_scan": 1] : [:] }
}

/// Decodes raw Linux IIO buffer dumps (docs/inputs.md, "IIO buffer dumps (iio)", docs/iio-format.md §3–§6).
///
/// A dump is a bare concatenation of `layout.scanBytes`-byte scans. Each data word is read as an
/// unsigned integer in its declared byte order (independent of the host), shifted right,
/// masked to realbits and sign-extended from realbits when signed; the value is
/// `(Double(raw) + offset) * scale` in exactly that order (then × the `units: si` factor for
/// gauss and mdegC). Padding bytes are never read.
///
/// Times: with an enabled timestamp, its nanoseconds as seconds computed as
/// `Double(ns / 1_000_000_000) + Double(ns % 1_000_000_000) * 1e-9` (whole seconds exact, so
/// realtime-clock stamps beyond 2^53 ns keep their sub-microsecond part); otherwise scan k is at
/// `Double(k) / samplingFrequencyHz`.
public enum IIODecoder {
    /// Size of each `read(2)` in `decode(path:)`, rounded down to whole scans.
    static let readChunkBytes = 1 << 20

    /// Decodes the dump at `path`.
    ///
    /// - Parameters:
    ///   - path: where to open the file.
    ///   - displayPath: the path as the user sees it, used in messages.
    ///   - layout: the scan layout (`IIOLayout.load(folder:)` or inline).
    ///   - units: `.si` converts gauss → µT (× 100) and mdegC → degC (× 0.001), and a unit in
    ///     `layout.declaredUnits` as docs/inputs.md, "Units" says (g → m/s², deg/s → rad/s, …); other ABI units
    ///     are already SI.
    ///   - strict: the input's `strict: true`: a partial trailing scan is an error instead of a
    ///     `W_TRUNCATED_TAIL` warning.
    ///   - sensor: the stream's name (the input's `sensor`, or the file's stem).
    ///   - observer: hears every byte read, before it is parsed; with one, a file that changes
    ///     while it is read is an error (exit 74, "changed as we read it").
    /// - Returns: the decoded dump. An empty dump gives 0 samples and `W_EMPTY_DUMP`; the caller
    ///   decides whether that is an error (docs/inputs.md, "Bad rows and time order": it is, unless `on_error: skip`).
    /// - Throws: `IngestError`: `.cannotOpen` (66) for a missing, unreadable or folder path;
    ///   `.readFailed` (74); `.iioPartialScan` (65) under `strict`, located at the byte where the
    ///   partial scan starts; `.iioLayout` `E_NO_TIME` (65) when the layout has neither a
    ///   timestamp nor a sampling frequency.
    /// - Complexity: O(file size); memory O(scans × channels) plus one 1 MiB buffer.
    public static func decode(path: String, displayPath: String, layout: IIOLayout, units: UnitSystem,
                              strict: Bool, sensor: String, observer: (any FileReadObserver)? = nil) throws -> IIODump {
        try layout.checkTimeSource()
        // A dump is binary: read as it is on disk, never decompressed.
        return try _ChunkedFile.withOpenFile(path: path, displayPath: displayPath, observer: observer, isText: false) { input, size in
            var core = _IIOScanDecoder(layout: layout, units: units, expectedScans: (size ?? 0) / layout.scanBytes)
            // Reads of whole scans (at least one scan, about 1 MiB).
            let chunk = max(layout.scanBytes, readChunkBytes / layout.scanBytes * layout.scanBytes)
            try _ChunkedFile.forEachChunk(input, chunkBytes: chunk) { core.consume($0) }
            return try finish(core, layout: layout, displayPath: displayPath, strict: strict, sensor: sensor)
        }
    }

    /// Decodes a dump delivered as chunks of bytes; the result does not depend on how the bytes
    /// are cut (`decode(path:)` uses this core with 1 MiB reads).
    ///
    /// - Parameters: as `decode(path:displayPath:layout:units:strict:sensor:)`, with `chunks`
    ///   the dump's bytes in order.
    /// - Throws: `.iioPartialScan` under `strict`, `.iioLayout` `E_NO_TIME`.
    public static func decode<S: Sequence>(chunks: S, displayPath: String, layout: IIOLayout, units: UnitSystem,
                                           strict: Bool, sensor: String) throws -> IIODump where S.Element == [UInt8] {
        try layout.checkTimeSource()
        var core = _IIOScanDecoder(layout: layout, units: units)
        for chunk in chunks { chunk.withUnsafeBytes { core.consume($0) } }
        return try finish(core, layout: layout, displayPath: displayPath, strict: strict, sensor: sensor)
    }

    static func finish(_ core: _IIOScanDecoder, layout: IIOLayout, displayPath: String, strict: Bool,
                       sensor: String) throws -> IIODump {
        let scans = core.scans
        let leftover = core.carry.count
        var warnings = try endWarnings(totalBytes: core.totalBytes, scans: scans, leftover: leftover, layout: layout,
                                       displayPath: displayPath, strict: strict)
        if layout.timestamp != nil, let i = firstNonIncreasing(core.nanos) {
            warnings.append(nonMonotonic(displayPath: displayPath, scan: i, scanBytes: layout.scanBytes,
                                         nanos: core.nanos[i], previous: core.nanos[i - 1]))
        }
        let stream = Self.stream(scans: 0..<scans, columns: core.columns, nanos: core.nanos, layout: layout,
                                 units: core.units, sensor: sensor)
        return IIODump(stream: stream, timestampNanos: core.nanos, scans: scans, scanBytes: layout.scanBytes,
                       fileBytes: core.totalBytes, leftoverBytes: leftover, warnings: warnings)
    }

    /// The stream of `scans` (indices in the dump): their decoded columns, times from their
    /// timestamps (`nanos`) or, without a timestamp channel, scan k at k / `sampling_frequency`,
    /// and each scan's index as its "line".
    static func stream(scans: Range<Int>, columns: [[Double]], nanos: [Int64], layout: IIOLayout, units: UnitSystem,
                       sensor: String) -> RawStream {
        let times: [Double]
        if layout.timestamp != nil {
            times = _IIOScanDecoder.seconds(nanos)
        } else {
            let f = layout.samplingFrequencyHz!
            times = scans.map { Double($0) / f }
        }
        return RawStream(name: sensor, channelNames: layout.channelNames, channelUnits: layout.channelUnits(units),
                         times: times, channels: columns, lines: scans.map { Int32(clamping: $0) })
    }

    /// `W_EMPTY_DUMP` and `W_TRUNCATED_TAIL` of a dump that ended after `scans` whole scans and
    /// `leftover` more bytes; under `strict` a partial scan is an error instead.
    static func endWarnings(totalBytes: Int, scans: Int, leftover: Int, layout: IIOLayout, displayPath: String,
                            strict: Bool) throws -> [IIOWarning] {
        var warnings: [IIOWarning] = []
        if totalBytes == 0 {
            warnings.append(IIOWarning(code: "W_EMPTY_DUMP", message: "\(displayPath): the dump is empty (W_EMPTY_DUMP)"))
        }
        if leftover > 0 {
            let at = scans * layout.scanBytes
            if strict {
                throw IngestError(.iioPartialScan(scanBytes: layout.scanBytes, leftoverBytes: leftover),
                                  at: SourceLocation(file: displayPath, byteOffset: at))
            }
            warnings.append(IIOWarning(code: "W_TRUNCATED_TAIL",
                                       message: "\(displayPath): the dump ends with a partial scan: \(leftover) bytes at byte \(at) (scans are \(layout.scanBytes) bytes) were dropped (W_TRUNCATED_TAIL:\(leftover)B)"))
        }
        return warnings
    }

    /// `W_TS_NON_MONOTONIC` for scan `scan`, whose timestamp `nanos` is not after `previous`.
    static func nonMonotonic(displayPath: String, scan: Int, scanBytes: Int, nanos: Int64, previous: Int64) -> IIOWarning {
        IIOWarning(code: "W_TS_NON_MONOTONIC",
                   message: "\(displayPath): the timestamp of scan \(scan) at byte offset \(scan * scanBytes) is not after the previous scan's (\(nanos) ns after \(previous) ns) (W_TS_NON_MONOTONIC)")
    }

    /// The first index whose value is not above its predecessor's.
    static func firstNonIncreasing(_ values: [Int64]) -> Int? {
        guard values.count > 1 else { return nil }
        for i in 1..<values.count where values[i] <= values[i - 1] { return i }
        return nil
    }

    /// Applies the contract's (docs/inputs.md, "Bad rows and time order") "times must not decrease" to a dump read without `sort: true`.
    ///
    /// - Throws: `IngestError.Kind.iioTimeDecreases` (65) naming the first scan whose time is
    ///   below its predecessor's, and the byte offset where that scan starts.
    public static func checkTimeOrder(_ dump: IIODump, displayPath: String) throws {
        let t = dump.stream.times
        guard t.count > 1 else { return }
        for i in 1..<t.count where t[i] < t[i - 1] {
            throw IngestError(.iioTimeDecreases(stream: dump.stream.name, scan: i, time: t[i], previousTime: t[i - 1]),
                              at: SourceLocation(file: displayPath, byteOffset: i * dump.scanBytes))
        }
    }
}
