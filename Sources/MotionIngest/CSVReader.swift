import MotionCore

/// Reads delimited text files (docs/inputs.md, "Delimited text (csv)", "Bad rows and time order" and "Units"), wide or long, into raw streams, label
/// events and counts, in one streaming pass over the bytes.
///
/// Dialect: the delimiter of `format` (`,`, `;` or a tab); RFC 4180 quoting (a field that starts
/// with `"`, after optional blanks, runs to the next lone `"`; `""` inside is a quote; delimiters
/// and line ends inside are data); CRLF or LF line ends; a UTF-8 BOM; blank lines (skipped, not
/// rows). The first non-blank record is the header; columns are found by exact name after
/// trimming spaces and tabs. Fields are trimmed of spaces and tabs before they are read.
/// Line numbers in messages are physical lines (a quoted line end starts a new physical line
/// but not a new row); columns are 1-based character positions where the field starts.
///
/// Rows: a row needs a field for every column the input reads; fields beyond the header's
/// count must be empty. A row whose time or any of its stream's channels is missing (docs/inputs.md, "Bad rows and time order")
/// is left out of its stream and counted as `missing_value`. Long format: rows whose sensor
/// value is not in `sensorGroups` are read (their time and label count) but belong to no
/// stream; rows of listed sensors that are not kept are not checked beyond their time and label.
public enum CSVReader {
    /// Size of each `read(2)` in `read(path:)`.
    static let readChunkBytes = 1 << 20

    /// Reads the file at `path`.
    ///
    /// - Parameters:
    ///   - path: where to open the file.
    ///   - displayPath: the path as the user sees it, used in messages.
    ///   - format: the dialect and the meaning of the columns.
    ///   - units: the unit of each channel as read (`acc_x: g`), docs/inputs.md, "Units"; channels not listed
    ///     are `1`.
    ///   - unitSystem: `.si` converts each channel with `PhysicalUnit.conversion` (g → m/s² ×
    ///     9.80665, hPa → kPa × 0.1, …); `.native` keeps values and units as read.
    ///   - wideSensorName: the name of the one stream of a wide file (the input's `sensor`, or
    ///     the file's stem, docs/inputs.md, "Recordings, subjects and channels"); unused for long files.
    ///   - keep: the stream names to build; nil keeps all. Rows of other sensors still count as
    ///     rows and still give label events.
    ///   - observer: hears every byte read, before it is parsed; with one, a file that changes
    ///     while it is read is an error (exit 74, "changed as we read it").
    /// - Returns: the streams (wide: the one stream; long: kept sensors with rows, in
    ///   `sensorGroups` order), label events, and counts. Times are seconds (`ms`, `us`, `ns`
    ///   divided exactly; ISO 8601 as seconds since the Unix epoch).
    /// - Throws: `IngestError`: `.cannotOpen` (exit 66) when the file is missing, unreadable or a
    ///   directory; `.readFailed` (74) when a read fails; otherwise a data error (65): no data
    ///   rows (an empty file too), a missing or repeated column, a field that is not a number or
    ///   not a time, a row with too few or too many fields, a quote open at the end of the file,
    ///   a NUL byte or invalid UTF-8 in a field that is read as text, a line over 1 MiB.
    /// - Complexity: O(file size) time; memory O(samples) plus one 1 MiB buffer.
    public static func read(path: String, displayPath: String, format: CSVFormat, units: [String: String],
                            unitSystem: UnitSystem, wideSensorName: String, keep: Set<String>?,
                            observer: (any FileReadObserver)? = nil) throws -> CSVFile {
        try _ChunkedFile.withOpenFile(path: path, displayPath: displayPath, observer: observer, chunkBytes: readChunkBytes) { input, size in
            var parser = _CSVParser(displayPath: displayPath, format: format, units: units, unitSystem: unitSystem,
                                    wideSensorName: wideSensorName, keep: keep, expectedTotalBytes: size)
            try _ChunkedFile.forEachChunk(input, chunkBytes: readChunkBytes) { try parser.consume($0) }
            return try parser.finish()
        }
    }

    /// Reads a file delivered as chunks of bytes; the result does not depend on how the bytes
    /// are cut (`read(path:)` uses this parser with 1 MiB chunks).
    ///
    /// - Parameters: as `read(path:…)`, with `chunks` the file's bytes in order.
    /// - Throws: `IngestError` data errors (65), as `read(path:…)`.
    public static func read<S: Sequence>(chunks: S, displayPath: String, format: CSVFormat,
                                         units: [String: String] = [:], unitSystem: UnitSystem = .si,
                                         wideSensorName: String, keep: Set<String>? = nil) throws -> CSVFile
    where S.Element == [UInt8] {
        var parser = _CSVParser(displayPath: displayPath, format: format, units: units, unitSystem: unitSystem,
                                wideSensorName: wideSensorName, keep: keep)
        for chunk in chunks { try parser.consume(chunk) }
        return try parser.finish()
    }
}
