#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import MotionCore

/// The streaming delimited-text parser: bytes in (any chunking), `CSVFile` out (docs/inputs.md, "Delimited text (csv)").
///
/// Records are found with `memchr`: a line without `"` is a record on its own and its fields are
/// split in place; a line with a quote goes through a four-state RFC 4180 scanner (a quote opens
/// a quoted field only at a field's start, after optional blanks; `""` inside is a quote; after the
/// closing quote any further text up to the delimiter is kept, as Python's `csv` does) which may
/// carry the record over newlines and chunk boundaries. Quoted records are unescaped into
/// `scratch`. Only a record cut by a chunk boundary is copied (into `carry`, bounded by
/// `maxLineBytes`). Per row the work is: split fields, parse the time, look up the sensor and
/// label (strings are made only when they change), parse the channel values into a row-major
/// buffer per stream that `finish()` transposes.
///
/// Three files, one job each: chunks and records here; splitting a record into fields
/// (`_CSVFieldKernels.swift`, with `_FieldTable`); the header and the data rows
/// (`_CSVRowKernels.swift`, with `_ChannelTable`).
struct _CSVParser {
    typealias Pointer = UnsafePointer<UInt8>

    /// Records longer than this are an error (hostile input must not grow memory without bound).
    static let maxLineBytes = 1 << 20
    static let quote = UInt8(ascii: "\"")
    static let newline: UInt8 = 0x0A

    /// Where the record scanner is.
    enum ScanState: UInt8 {
        /// At a field's start, possibly after blanks.
        case fieldStart
        /// Inside a field that did not start with a quote.
        case unquoted
        /// Inside a quoted field.
        case quoted
        /// Just after a quote inside a quoted field: either the closing quote or half of `""`.
        case quoteInQuoted
    }

    /// One output stream being built: row-major `[time, channel0, channel1, …]` per kept row.
    struct Accumulator {
        var name: String
        var channelNames: [String]
        var channelUnits: [String]
        var factors: [Double]
        /// The header names of the channel columns and the pipeline keys naming them.
        var columnNames: [String]
        var roles: [String]
        /// The channel columns' indices, resolved from the header.
        var columns: [Int] = []
        var present = false
        var flat: [Double] = []
        var lines: [Int32] = []
        var width: Int { channelNames.count + 1 }
    }

    /// A record's raw bytes (the first line's start through the last line's end, without the
    /// final line end) and its first physical line, for messages.
    struct Row {
        var start: Pointer
        var end: Pointer
        var firstLine: Int
    }

    let displayPath: String
    let format: CSVFormat
    /// The input's delimiter, or the one a first line `sep=X` sets.
    var delimiter: UInt8
    let timeUnit: CSVFormat.TimeUnit
    let timeFormat: CSVTimeFormat?
    /// Preamble lines (`skip_lines`) still to skip: read as plain lines, without quote rules.
    var rawLinesLeft: Int
    /// Total size of the input when known, to reserve capacity after the first chunk.
    var expectedTotalBytes: Int?

    var streams: [Accumulator] = []
    /// Long format: each sensor group's value and its index into `streams` (-1: not kept).
    var groupValues: [[UInt8]] = []
    var groupStream: [Int] = []

    var headerSeen = false
    var bomChecked = false
    var head: [UInt8] = []
    static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
    var headerCount = 0
    /// 1 + the highest column index the input reads.
    var neededFields = 0
    var timeIndex = -1
    var labelIndex = -1
    var sensorIndex = -1

    /// Physical lines consumed by complete records.
    var lineNumber = 0
    var bytesSeen = 0
    var reserved = false
    var carry: [UInt8] = []
    var carryState: ScanState = .fieldStart
    var scratch: [UInt8] = []
    /// The current record's fields.
    var fields = _FieldTable()
    /// Every stream's channel columns and factors, for the row loop.
    var channelTable = _ChannelTable(streams: [])

    var rowsRead = 0
    var missingRows = 0
    /// `time.zone`: local wall times to UTC (docs/inputs.md, "Local wall time").
    var clock: WallClockFold?

    var labels = _LabelInterner()
    var rowLabelTimes: [Double] = []
    var rowLabelIDs: [Int32] = []
    var lastSensor: [UInt8] = []
    /// The cached id of `lastSensor`: a stream index, -1 not kept, -2 not listed, -3 nothing cached.
    var lastSensorID = -3

    init(displayPath: String, format: CSVFormat, units: [String: String], unitSystem: UnitSystem,
         wideSensorName: String, keep: Set<String>?, expectedTotalBytes: Int? = nil) {
        self.displayPath = displayPath
        self.format = format
        self.delimiter = format.delimiter
        self.timeUnit = format.timeUnit
        self.timeFormat = format.timeFormat
        self.clock = format.timeZone.map(WallClockFold.init)
        self.rawLinesLeft = format.skipLines
        self.expectedTotalBytes = expectedTotalBytes
        func accumulator(_ name: String, _ channels: [CSVFormat.Channel], role: String) -> Accumulator {
            let conversions = channels.map { PhysicalUnit.conversion(from: units[$0.name] ?? "1", to: unitSystem) }
            return Accumulator(name: name, channelNames: channels.map(\.name), channelUnits: conversions.map(\.unit),
                               factors: conversions.map(\.factor), columnNames: channels.map(\.column),
                               roles: channels.map { role + $0.name })
        }
        if format.isLong {
            for group in format.sensorGroups {
                groupValues.append(Array(group.sensor.utf8))
                if keep?.contains(group.sensor) ?? true {
                    groupStream.append(streams.count)
                    streams.append(accumulator(group.sensor, group.channels, role: "sensor_channels.\(group.sensor)."))
                } else {
                    groupStream.append(-1)
                }
            }
        } else if keep?.contains(wideSensorName) ?? true {
            streams.append(accumulator(wideSensorName, format.channels, role: "channels."))
        }
    }

    // MARK: - Chunks and records

    /// Parses every complete record of `chunk`, keeping a trailing partial record for the next call.
    mutating func consume(_ chunk: UnsafeRawBufferPointer) throws {
        guard let raw = chunk.baseAddress, chunk.count > 0 else { return }
        var start = Pointer(raw.assumingMemoryBound(to: UInt8.self))
        let end = start + chunk.count
        bytesSeen += chunk.count
        if !bomChecked {
            // The first three bytes decide whether there is a BOM, however the input is cut.
            while head.count < 3 && start < end {
                head.append(start.pointee)
                start += 1
            }
            if head.count < 3 && Self.bom.starts(with: head) { return }
            try flushHead()
        }
        try consumeBody(start, end)
    }

    /// The file's first bytes, held until it is known whether they are a UTF-8 BOM.
    private mutating func flushHead() throws {
        bomChecked = true
        var bytes = head
        head = []
        if bytes == Self.bom { return }
        try bytes.withUnsafeBufferPointer { try consumeBody($0.baseAddress!, $0.baseAddress! + $0.count) }
        bytes = []
    }

    private mutating func consumeBody(_ start: Pointer, _ end: Pointer) throws {
        guard start < end else { return }
        var p = start
        if !carry.isEmpty && rawLinesLeft > 0 {
            let nl = memchr(p, Int32(Self.newline), end - p).map { Pointer($0.assumingMemoryBound(to: UInt8.self)) }
            let stop = nl ?? end
            if carry.count + (stop - p) > Self.maxLineBytes { throw tooLong(lineNumber + 1) }
            carry.append(contentsOf: UnsafeBufferPointer(start: p, count: stop - p))
            guard let nl else { return }
            var line = carry
            carry = []
            try line.withUnsafeBufferPointer { try rawLine($0.baseAddress!, $0.baseAddress! + $0.count) }
            line.removeAll(keepingCapacity: true)
            carry = line
            p = nl + 1
        } else if !carry.isEmpty {
            let recordEnd = Self.scanRecord(p, end, delimiter: delimiter, state: &carryState)
            let stop = recordEnd ?? end
            if carry.count + (stop - p) > Self.maxLineBytes { throw tooLong(lineNumber + 1) }
            carry.append(contentsOf: UnsafeBufferPointer(start: p, count: stop - p))
            guard let recordEnd else { return }
            var record = carry
            carry = []
            try record.withUnsafeBufferPointer { try processRecord($0.baseAddress!, $0.baseAddress! + $0.count, hasQuote: nil) }
            record.removeAll(keepingCapacity: true)
            carry = record
            carryState = .fieldStart
            p = recordEnd + 1
        }
        while p < end {
            guard let nl = memchr(p, Int32(Self.newline), end - p) else { break }
            let newline = Pointer(nl.assumingMemoryBound(to: UInt8.self))
            if rawLinesLeft > 0 {
                try rawLine(p, newline)
                p = newline + 1
                continue
            }
            if memchr(p, Int32(Self.quote), newline - p) == nil {
                try processRecord(p, newline, hasQuote: false)
                p = newline + 1
                continue
            }
            var state = ScanState.fieldStart
            guard let recordEnd = Self.scanRecord(p, end, delimiter: delimiter, state: &state) else {
                try keep(p, end, state: state)
                p = end
                break
            }
            try processRecord(p, recordEnd, hasQuote: true)
            p = recordEnd + 1
        }
        if p < end && rawLinesLeft > 0 {
            try keep(p, end, state: .fieldStart)
        } else if p < end {
            var state = ScanState.fieldStart
            _ = Self.scanRecord(p, end, delimiter: delimiter, state: &state)  // no line end here: nil
            try keep(p, end, state: state)
        }
        if !reserved { reserveFromSample() }
    }

    /// One physical line `[s, e)` (without its `\n`) of the `skip_lines` preamble; line 1 may be a `sep=` line, which
    /// is not counted in `skip_lines`.
    private mutating func rawLine(_ s: Pointer, _ e: Pointer) throws {
        let line = lineNumber + 1
        lineNumber += 1
        if e - s > Self.maxLineBytes { throw tooLong(line) }
        var end = e
        if end > s && (end - 1).pointee == 0x0D { end -= 1 }
        if line == 1, try sepLine(s, end) { return }
        rawLinesLeft -= 1
    }

    /// Line 1 `[s, e)` (without its line end): true when it is Excel's `sep=X` line, which sets the delimiter.
    private mutating func sepLine(_ s: Pointer, _ e: Pointer) throws -> Bool {
        guard e - s >= 4, s[0] | 0x20 == UInt8(ascii: "s"), s[1] | 0x20 == UInt8(ascii: "e"), s[2] | 0x20 == UInt8(ascii: "p"),
              s[3] == UInt8(ascii: "=") else { return false }
        let c = s[4 < e - s ? 4 : 3]
        guard e - s == 5, c == UInt8(ascii: ",") || c == UInt8(ascii: ";") || c == 0x09 else {
            throw IngestError(.badSepLine(value: _FieldText.display(s, e)), at: SourceLocation(file: displayPath, line: 1, column: 1))
        }
        if format.delimiterGiven && c != delimiter {
            func shown(_ d: UInt8) -> String { d == 0x09 ? "\\t" : String(UnicodeScalar(d)) }
            throw IngestError(.sepConflict(sep: shown(c), given: shown(delimiter)), at: SourceLocation(file: displayPath, line: 1, column: 5))
        }
        delimiter = c
        return true
    }

    /// Keeps the start of a record that continues in the next chunk.
    private mutating func keep(_ p: Pointer, _ end: Pointer, state: ScanState) throws {
        if end - p > Self.maxLineBytes { throw tooLong(lineNumber + 1) }
        carry.append(contentsOf: UnsafeBufferPointer(start: p, count: end - p))
        carryState = state
    }

    /// Runs the record scanner from `state` over `[p, end)`: the `\n` that ends the record, or
    /// nil (with `state` updated) when the record goes on past `end`.
    @inline(__always)
    static func scanRecord(_ p: Pointer, _ end: Pointer, delimiter: UInt8, state: inout ScanState) -> Pointer? {
        var q = p
        var s = state
        while q < end {
            let c = q.pointee
            switch s {
            case .fieldStart:
                if c == newline { state = .fieldStart; return q }
                if c == quote { s = .quoted } else if c != delimiter && !_NumberKernels.isBlank(c) { s = .unquoted }
            case .unquoted:
                if c == newline { state = .fieldStart; return q }
                if c == delimiter { s = .fieldStart }
            case .quoted:
                if c == quote { s = .quoteInQuoted }
            case .quoteInQuoted:
                if c == newline { state = .fieldStart; return q }
                s = c == quote ? .quoted : (c == delimiter ? .fieldStart : .unquoted)
            }
            q += 1
        }
        state = s
        return nil
    }

    /// Parses the last record (when the input does not end with a line end) and builds the result.
    mutating func finish() throws -> CSVFile {
        if !bomChecked { try flushHead() }
        if !carry.isEmpty && rawLinesLeft > 0 {
            let line = carry
            carry = []
            try line.withUnsafeBufferPointer { try rawLine($0.baseAddress!, $0.baseAddress! + $0.count) }
        }
        if rawLinesLeft > 0 {
            throw IngestError(.preambleTooShort(lines: lineNumber, skip: format.skipLines), at: SourceLocation(file: displayPath))
        }
        if !carry.isEmpty {
            if carryState == .quoted { throw unterminatedQuote() }
            let record = carry
            carry = []
            try record.withUnsafeBufferPointer { try processRecord($0.baseAddress!, $0.baseAddress! + $0.count, hasQuote: nil) }
        }
        if !headerSeen || rowsRead == 0 { throw IngestError(.noDataRows, at: SourceLocation(file: displayPath)) }
        var out: [RawStream] = []
        for i in streams.indices where !format.isLong || streams[i].present {
            out.append(Self.transpose(&streams[i]))
        }
        var dropped: [String: Int] = [:]
        if missingRows > 0 { dropped["missing_value"] = missingRows }
        var file = CSVFile(streams: out, rowLabels: LabelEvents(names: labels.names, times: rowLabelTimes, labels: rowLabelIDs),
                           rowsRead: rowsRead, rowsDropped: dropped)
        if let clock { file.notes = clock.messages(file: displayPath) }
        return file
    }

    /// One record `[start, end)` without its final `\n`. `hasQuote` nil: look.
    private mutating func processRecord(_ start: Pointer, _ end: Pointer, hasQuote: Bool?) throws {
        let firstLine = lineNumber + 1
        let s = start
        let quoted = hasQuote ?? (memchr(s, Int32(Self.quote), end - s) != nil)
        var lines = 1
        if quoted {
            var q = s
            while q < end, let nl = memchr(q, Int32(Self.newline), end - q) {
                lines += 1
                q = Pointer(nl.assumingMemoryBound(to: UInt8.self)) + 1
            }
        }
        lineNumber += lines
        if end - s > Self.maxLineBytes { throw tooLong(firstLine) }
        var e = end
        if e > s && (e - 1).pointee == 0x0D { e -= 1 }
        if firstLine == 1 && !headerSeen, try sepLine(s, e) { return }
        if !quoted {
            var q = s
            while q < e && _NumberKernels.isBlank(q.pointee) { q += 1 }
            if q == e { return }  // a blank line: not a row
        }
        let row = Row(start: s, end: e, firstLine: firstLine)
        if quoted {
            try splitQuoted(row)
        } else {
            splitPlain(s, e)
            try dispatch(row)
        }
    }
}

extension _CSVParser {
    /// Consumes an array chunk (the `read(chunks:)` path).
    mutating func consume(_ chunk: [UInt8]) throws {
        try chunk.withUnsafeBytes { try consume($0) }
    }
}
