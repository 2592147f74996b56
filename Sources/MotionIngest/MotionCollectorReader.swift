import MotionCore

/// Reads MotionCollector CSV files (docs/inputs.md, "MotionCollector", "Bad rows and time order" and "Units") into raw streams, label events and
/// counts, in one streaming pass over the bytes.
///
/// Accepted: the current header `Source, Label, When, X, Y, Z, UA_X, UA_Y, UA_Z, Pitch, Roll, Yaw`
/// and the legacy `Type, When, X, Y, Z, …` (names in any case, spaces after commas optional, a
/// prefix through `Z` is enough); a UTF-8 BOM; CRLF line ends; blank lines (skipped, not rows).
/// A/G/M rows have 6 fields (legacy 5), D rows 12 (legacy 11), legacy marker rows `4`/`5` 2;
/// extra trailing fields are tolerated when empty. Fields are trimmed of spaces and tabs. `"` is an
/// ordinary byte (MotionCollector does not quote).
///
/// Not checked: the channel fields of rows whose sensor is not kept (only their field count,
/// Label and When are read).
public enum MotionCollectorReader {
    /// Size of each `read(2)` in `read(path:)`.
    static let readChunkBytes = 1 << 20

    /// Reads the file at `path`.
    ///
    /// - Parameters:
    ///   - path: where to open the file.
    ///   - displayPath: the path as the user sees it, used in messages.
    ///   - units: `.si` multiplies channels in g by 9.80665 and labels them `m/s^2`.
    ///   - keep: sensor codes (`A`, `G`, `M`, `D`) whose streams to build; nil keeps all. Rows of
    ///     other sensors still count as rows and still give label events.
    ///   - observer: hears every byte read, before it is parsed; with one, a file that changes
    ///     while it is read is an error (exit 74, "changed as we read it").
    /// - Returns: the streams (A, G, M, D order, present and kept ones), label events and counts.
    /// - Throws: `IngestError`: `.cannotOpen` (exit 66) when the file is missing, unreadable or a
    ///   directory; `.readFailed` (74) when a read fails; otherwise a data error (65): bad header,
    ///   empty file, no data rows, unknown source, wrong field count, a field that is not a
    ///   number, NUL bytes, invalid UTF-8, a line over 1 MiB.
    /// - Complexity: O(file size) time; memory O(samples) plus one 1 MiB buffer.
    public static func read(path: String, displayPath: String, units: UnitSystem,
                            keep: Set<String>?, observer: (any FileReadObserver)? = nil) throws -> MotionCollectorFile {
        try _ChunkedFile.withOpenFile(path: path, displayPath: displayPath, observer: observer, chunkBytes: readChunkBytes) { input, size in
            var parser = _MotionCollectorParser(displayPath: displayPath, units: units, keep: keep, expectedTotalBytes: size)
            defer { parser.deallocate() }
            try _ChunkedFile.forEachChunk(input, chunkBytes: readChunkBytes) { try parser.consume($0) }
            return try parser.finish()
        }
    }

    /// Reads a file delivered as chunks of bytes; the result does not depend on how the bytes
    /// are cut (`read(path:)` uses this with 1 MiB chunks).
    ///
    /// - Parameters: as `read(path:displayPath:units:keep:)`, with `chunks` the file's bytes in order.
    /// - Throws: `IngestError` data errors (65), as `read(path:)`.
    public static func read<S: Sequence>(chunks: S, displayPath: String, units: UnitSystem,
                                         keep: Set<String>?) throws -> MotionCollectorFile where S.Element == [UInt8] {
        var parser = _MotionCollectorParser(displayPath: displayPath, units: units, keep: keep)
        defer { parser.deallocate() }
        for chunk in chunks { try parser.consume(chunk) }
        return try parser.finish()
    }

    /// The variant whose header starts `firstBytes` (the file's first bytes, at least its first
    /// line), or nil when it is not a MotionCollector header; for `inspect`'s auto-detection.
    public static func sniff(_ firstBytes: [UInt8]) -> MotionCollectorFile.Variant? {
        _MotionCollectorParser.sniff(firstBytes)
    }
}
