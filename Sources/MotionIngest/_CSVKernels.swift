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
    /// `time.zone`: the UTC time of the row before (for the fold rule) and the rows whose wall
    /// time the clocks went back or forward over (docs/inputs.md, "Local wall time").
    let timeZone: WallClockZone?
    var zonePrevious: Double?
    var zoneNotes = WallClockNotes()

    var labelNames: [String] = []
    var labelIDs: [String: Int32] = [:]
    var lastLabel: [UInt8] = []
    var lastLabelID: Int32 = -1
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
        self.timeZone = format.timeZone
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
        lastLabel.reserveCapacity(64)
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
        var file = CSVFile(streams: out, rowLabels: LabelEvents(names: labelNames, times: rowLabelTimes, labels: rowLabelIDs),
                           rowsRead: rowsRead, rowsDropped: dropped)
        if let zone = timeZone { file.notes = zoneNotes.messages(file: displayPath, zone: zone.name) }
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

    /// Splits a record without quotes at each delimiter.
    @inline(__always)
    private mutating func splitPlain(_ s: Pointer, _ e: Pointer) {
        fields.reset(withSources: false)
        let d = delimiter
        var p = s
        var fieldStart = s
        // Eight bytes at a time: a byte of `word ^ pattern` is zero where the delimiter is, and
        // `zeroBytes` sets exactly those bytes' high bits (no carries between bytes).
        let pattern = UInt64(d) &* 0x0101_0101_0101_0101
        while e - p >= 8 {
            var hits = Self.zeroBytes(UnsafeRawPointer(p).loadUnaligned(as: UInt64.self) ^ pattern)
            while hits != 0 {
                let at = p + hits.trailingZeroBitCount >> 3
                fields.append(fieldStart, at)
                fieldStart = at + 1
                hits &= hits &- 1
            }
            p += 8
        }
        while p < e {
            if p.pointee == d {
                fields.append(fieldStart, p)
                fieldStart = p + 1
            }
            p += 1
        }
        fields.append(fieldStart, e)
    }

    /// The high bit of each byte of `word` that is zero (and no other bit).
    @inline(__always)
    static func zeroBytes(_ word: UInt64) -> UInt64 {
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        return ~(((word & low7) &+ low7) | word | low7)
    }

    /// Splits a record with quotes, unescaping fields into `scratch`, then dispatches it.
    private mutating func splitQuoted(_ row: Row) throws {
        var buffer = scratch
        scratch = []
        let need = row.end - row.start + 1
        if buffer.count < need { buffer = [UInt8](repeating: 0, count: max(need, 4096)) }
        try buffer.withUnsafeMutableBufferPointer { b in
            fields.reset(withSources: true)
            let d = delimiter
            var out = b.baseAddress!
            var fieldOut = out
            var source = row.start
            var state = ScanState.fieldStart
            var p = row.start
            while p < row.end {
                let c = p.pointee
                switch state {
                case .fieldStart, .unquoted, .quoteInQuoted:
                    if c == d {
                        fields.append(Pointer(fieldOut), Pointer(out), source: source)
                        fieldOut = out
                        source = p + 1
                        state = .fieldStart
                    } else if c == Self.quote && state == .fieldStart {
                        out = fieldOut  // blanks before the opening quote are not part of the field
                        state = .quoted
                    } else if c == Self.quote && state == .quoteInQuoted {
                        out.pointee = c
                        out += 1
                        state = .quoted
                    } else {
                        out.pointee = c
                        out += 1
                        if state != .fieldStart || !_NumberKernels.isBlank(c) { state = .unquoted }
                    }
                case .quoted:
                    if c == Self.quote {
                        state = .quoteInQuoted
                    } else {
                        out.pointee = c
                        out += 1
                    }
                }
                p += 1
            }
            if state == .quoted {
                throw IngestError(.unterminatedQuote, at: Self.location(displayPath, row, source))
            }
            fields.append(Pointer(fieldOut), Pointer(out), source: source)
            try dispatch(row)
        }
        scratch = buffer
    }

    @inline(__always)
    private mutating func dispatch(_ row: Row) throws {
        if headerSeen {
            rowsRead += 1
            try dataRow(row)
        } else {
            try header(row)
        }
    }

    // MARK: - Header

    private mutating func header(_ row: Row) throws {
        var names: [String] = []
        var raw: [String] = []
        for i in 0..<fields.count {
            try checkText(i, row)
            let (s, e) = trimmed(i)
            names.append(String(decoding: UnsafeBufferPointer(start: s, count: e - s), as: UTF8.self))
            raw.append(String(decoding: UnsafeBufferPointer(start: fields.starts[i], count: fields.ends[i] - fields.starts[i]), as: UTF8.self))
        }
        let location = SourceLocation(file: displayPath, line: row.firstLine)
        // Each name's first two positions, found in one pass: a lookup per pipeline column in a
        // 30,000-column header was a linear search each, quadratic (docs/hardening.md).
        var positions: [String: (first: Int, second: Int?)] = [:]
        positions.reserveCapacity(names.count)
        for (i, name) in names.enumerated() {
            if let seen = positions[name] {
                if seen.second == nil { positions[name] = (seen.first, i) }
            } else {
                positions[name] = (i, nil)
            }
        }
        func index(_ column: String, _ role: String) throws -> Int {
            guard let (first, secondIndex) = positions[column] else {
                if let app = format.app {
                    throw IngestError(.notAppHeader(column: column, header: names, app: app),
                                      at: SourceLocation(file: displayPath, line: row.firstLine, column: 1))
                }
                throw IngestError(.missingColumn(column: column, role: role, header: names), at: location)
            }
            if let second = secondIndex {
                if raw[first] != raw[second] {
                    throw IngestError(.ambiguousColumn(column: column, role: role, first: first + 1, second: second + 1,
                                                       firstRaw: raw[first], secondRaw: raw[second]), at: location)
                }
                throw IngestError(.duplicateColumn(column: column, role: role), at: location)
            }
            return first
        }
        timeIndex = try index(format.timeColumn, "time.column")
        if let sensorColumn = format.sensorColumn { sensorIndex = try index(sensorColumn, "sensor_column") }
        for s in streams.indices {
            streams[s].columns = try zip(streams[s].columnNames, streams[s].roles).map { try index($0, $1) }
        }
        if let labelColumn = format.labelColumn, !(format.labelColumnOptional && positions[labelColumn] == nil) {
            labelIndex = try index(labelColumn, "label_column")
        }
        neededFields = ([timeIndex, sensorIndex, labelIndex] + streams.flatMap(\.columns)).max()! + 1
        channelTable = _ChannelTable(streams: streams)
        headerCount = names.count
        headerSeen = true
    }

    // MARK: - Rows

    @inline(__always)
    private mutating func dataRow(_ row: Row) throws {
        let n = fields.count
        if n < neededFields { throw fieldCountError(row) }
        if n > headerCount {
            for i in headerCount..<n {
                let (s, e) = trimmed(i)
                if s != e { throw fieldCountError(row) }
            }
        }
        let time: Number
        let ts = fields.starts[timeIndex], te = fields.ends[timeIndex]
        switch timeFormat.map({ $0.parse(ts, te) }) ?? CSVTime.parse(ts, te, unit: timeUnit) {
        case .value(let v):
            if let zone = timeZone {
                time = Number(value: try local(v, zone, row), ok: true)
            } else {
                time = Number(value: v, ok: true)
            }
        case .missing: time = Number(value: 0, ok: false)
        case .invalid: throw notATime(row)
        }
        var target = streams.isEmpty ? -1 : 0
        if sensorIndex >= 0 { target = try sensorID(row) }
        if labelIndex >= 0 && time.ok {
            let label = try labelID(labelIndex, row)
            if label >= 0 {
                rowLabelTimes.append(time.value)
                rowLabelIDs.append(label)
            }
        }
        guard target >= 0 else { return }
        try values(target, time: time, row)
    }

    /// The channel values of a row of stream `target`.
    ///
    /// Works through a pointer to the stream's accumulator: reaching through `streams[target]`
    /// field by field costs a retain and release of its arrays per value.
    @inline(__always)
    private mutating func values(_ target: Int, time: Number, _ row: Row) throws {
        let starts = fields.starts, ends = fields.ends
        let line = Int32(truncatingIfNeeded: row.firstLine)
        let first = channelTable.offsets[target], count = channelTable.offsets[target + 1] - first
        let columns = channelTable.columns + first, factors = channelTable.factors + first
        // -2: kept; -1: a missing value; ≥ 0: the field that is not a number.
        let outcome = streams.withUnsafeMutableBufferPointer { buffer -> Int in
            let acc = buffer.baseAddress! + target
            acc.pointee.present = true
            var ok = time.ok
            let mark = acc.pointee.flat.count
            acc.pointee.flat.append(time.value)
            var bad = -1
            for c in 0..<count {
                let i = columns[c]
                let s = starts[i], e = ends[i]
                let scan = _NumberKernels.scanDecimal(s, e)
                var value = scan.value
                if scan.stop != e || scan.status != .value {
                    if scan.stop == e && scan.status == .overflow || _NumberKernels.isMissingWord(s, e) {
                        ok = false
                        value = 0
                    } else {
                        bad = i
                        break
                    }
                }
                acc.pointee.flat.append(value * factors[c])
            }
            if bad >= 0 || !ok {
                acc.pointee.flat.removeSubrange(mark...)
                return bad >= 0 ? bad : -1
            }
            acc.pointee.lines.append(line)
            return -2
        }
        if outcome == -1 { missingRows += 1 }
        if outcome >= 0 { throw notANumber(outcome, row) }
    }

    struct Number {
        var value: Double
        /// False for a missing value.
        var ok: Bool
    }

    /// The error for field `i`, which is neither a decimal nor a missing value.
    @inline(never)
    private func notANumber(_ i: Int, _ row: Row) -> IngestError {
        do { try checkText(i, row) } catch let error as IngestError { return error } catch {}
        let value = _FieldText.display(fields.starts[i], fields.ends[i])
        if let note = format.app?.decimalCommaNote, !note.isEmpty, value.contains(",") {
            return IngestError(.notANumberInApp(value: value, note: note), at: location(i, row))
        }
        return IngestError(.notANumber(value: value), at: location(i, row))
    }

    /// A local wall time `wall` (read as if UTC) as UTC, by `zone`; a time written with its own
    /// zone is refused (docs/inputs.md, "Local wall time").
    @inline(never)
    private mutating func local(_ wall: Double, _ zone: WallClockZone, _ row: Row) throws -> Double {
        if timeFormat == nil && CSVTime.hasZoneDesignator(fields.starts[timeIndex], fields.ends[timeIndex]) {
            let value = _FieldText.display(fields.starts[timeIndex], fields.ends[timeIndex])
            throw IngestError(.zonedTimeWithTimeZone(value: value, zone: zone.name), at: location(timeIndex, row))
        }
        let (utc, kind) = zone.utc(wall: wall, previous: zonePrevious)
        zonePrevious = utc
        zoneNotes.add(kind, wall: wall, line: row.firstLine)
        return utc
    }

    /// The error for the time field, which is neither a time nor a missing value.
    @inline(never)
    private func notATime(_ row: Row) -> IngestError {
        do { try checkText(timeIndex, row) } catch let error as IngestError { return error } catch {}
        let value = _FieldText.display(fields.starts[timeIndex], fields.ends[timeIndex])
        if let note = format.app?.decimalCommaNote, !note.isEmpty, value.contains(",") {
            return IngestError(.notANumberInApp(value: value, note: note), at: location(timeIndex, row))
        }
        return IngestError(.notATime(value: value, unit: timeFormat?.pattern ?? timeUnit.rawValue), at: location(timeIndex, row))
    }

    /// The stream index of the row's sensor: ≥ 0, or -1 (listed but not kept), -2 (not listed).
    @inline(__always)
    private mutating func sensorID(_ row: Row) throws -> Int {
        let (s, e) = trimmed(sensorIndex)
        let n = e - s
        if lastSensorID != -3 && n == lastSensor.count {
            let same = n == 0 || lastSensor.withUnsafeBufferPointer { memcmp($0.baseAddress!, s, n) == 0 }
            if same { return lastSensorID }
        }
        return try newSensor(s, e, row)
    }

    @inline(never)
    private mutating func newSensor(_ s: Pointer, _ e: Pointer, _ row: Row) throws -> Int {
        try checkText(sensorIndex, row)
        let bytes = UnsafeBufferPointer(start: s, count: e - s)
        var id = -2
        if let k = groupValues.firstIndex(where: { $0.elementsEqual(bytes) }) { id = groupStream[k] }
        lastSensor.removeAll(keepingCapacity: true)
        lastSensor.append(contentsOf: bytes)
        lastSensorID = id
        return id
    }

    /// The label's id (-1 for an empty label), interning new names.
    @inline(__always)
    private mutating func labelID(_ i: Int, _ row: Row) throws -> Int32 {
        let (s, e) = trimmed(i)
        let n = e - s
        if n == 0 { return -1 }
        if n == lastLabel.count {
            let same = lastLabel.withUnsafeBufferPointer { memcmp($0.baseAddress!, s, n) == 0 }
            if same { return lastLabelID }
        }
        return try newLabel(i, s, e, row)
    }

    @inline(never)
    private mutating func newLabel(_ i: Int, _ s: Pointer, _ e: Pointer, _ row: Row) throws -> Int32 {
        try checkText(i, row)
        let bytes = UnsafeBufferPointer(start: s, count: e - s)
        let name = String(decoding: bytes, as: UTF8.self)
        let id: Int32
        if let known = labelIDs[name] {
            id = known
        } else {
            id = Int32(labelNames.count)
            labelNames.append(name)
            labelIDs[name] = id
        }
        lastLabel.removeAll(keepingCapacity: true)
        lastLabel.append(contentsOf: bytes)
        lastLabelID = id
        return id
    }

    /// Field `i` without surrounding blanks.
    @inline(__always)
    private func trimmed(_ i: Int) -> (Pointer, Pointer) {
        var s = fields.starts[i], e = fields.ends[i]
        while s < e && _NumberKernels.isBlank(s.pointee) { s += 1 }
        while e > s && _NumberKernels.isBlank((e - 1).pointee) { e -= 1 }
        return (s, e)
    }

    // MARK: - Results

    /// Reserves per-stream capacity for the whole input, extrapolating from what was read so far.
    private mutating func reserveFromSample() {
        guard let total = expectedTotalBytes else { reserved = true; return }
        guard headerSeen else { return }
        guard bytesSeen >= 1 << 16 || bytesSeen >= total else { return }
        reserved = true
        let scale = Double(total) / Double(max(bytesSeen, 1)) * 1.05
        for i in streams.indices {
            let rows = streams[i].lines.count
            guard rows > 0 else { continue }
            let expected = Int(Double(rows) * scale) + 64
            streams[i].flat.reserveCapacity(expected * streams[i].width)
            streams[i].lines.reserveCapacity(expected)
        }
        if !rowLabelTimes.isEmpty {
            let expected = Int(Double(rowLabelTimes.count) * scale) + 64
            rowLabelTimes.reserveCapacity(expected)
            rowLabelIDs.reserveCapacity(expected)
        }
    }

    static func transpose(_ acc: inout Accumulator) -> RawStream {
        let w = acc.width
        let n = acc.lines.count
        var columns: [[Double]] = []
        columns.reserveCapacity(w)
        acc.flat.withUnsafeBufferPointer { flat in
            for c in 0..<w {
                columns.append([Double](unsafeUninitializedCapacity: n) { out, initialized in
                    var j = c
                    for i in 0..<n {
                        out[i] = flat[j]
                        j += w
                    }
                    initialized = n
                })
            }
        }
        acc.flat = []
        let times = columns.removeFirst()
        return RawStream(name: acc.name, channelNames: acc.channelNames, channelUnits: acc.channelUnits,
                         times: times, channels: columns, lines: acc.lines)
    }
}

extension _CSVParser {
    /// Consumes an array chunk (the `read(chunks:)` path).
    mutating func consume(_ chunk: [UInt8]) throws {
        try chunk.withUnsafeBytes { try consume($0) }
    }
}

/// The field bounds of one record: `starts[i]..<ends[i]` is field `i`'s content (in the record,
/// or unescaped in the parser's scratch), `sources[i]` where it starts in the record (records with
/// quotes only). Plain pointers rather than arrays: appending to three arrays per field costs a
/// uniqueness check each; the storage is owned by a class so that it is freed.
struct _FieldTable {
    typealias Pointer = UnsafePointer<UInt8>

    final class Storage {
        let base: UnsafeMutablePointer<Pointer>
        init(capacity: Int) { base = .allocate(capacity: 3 * capacity) }
        deinit { base.deallocate() }
    }

    private var storage: Storage
    private(set) var capacity: Int
    private(set) var starts: UnsafeMutablePointer<Pointer>
    private(set) var ends: UnsafeMutablePointer<Pointer>
    private(set) var sources: UnsafeMutablePointer<Pointer>
    private(set) var count = 0
    private(set) var hasSources = false

    init(capacity: Int = 64) {
        storage = Storage(capacity: capacity)
        self.capacity = capacity
        starts = storage.base
        ends = storage.base + capacity
        sources = storage.base + 2 * capacity
    }

    @inline(__always)
    mutating func reset(withSources: Bool) {
        count = 0
        hasSources = withSources
    }

    @inline(__always)
    mutating func append(_ start: Pointer, _ end: Pointer) {
        if count == capacity { grow() }
        starts[count] = start
        ends[count] = end
        count += 1
    }

    @inline(__always)
    mutating func append(_ start: Pointer, _ end: Pointer, source: Pointer) {
        if count == capacity { grow() }
        starts[count] = start
        ends[count] = end
        sources[count] = source
        count += 1
    }

    @inline(never)
    private mutating func grow() {
        let bigger = Storage(capacity: 2 * capacity)
        let newCapacity = 2 * capacity
        (bigger.base).update(from: starts, count: count)
        (bigger.base + newCapacity).update(from: ends, count: count)
        (bigger.base + 2 * newCapacity).update(from: sources, count: count)
        storage = bigger
        capacity = newCapacity
        starts = bigger.base
        ends = bigger.base + newCapacity
        sources = bigger.base + 2 * newCapacity
    }
}

/// The channel columns and conversion factors of every stream, flattened into plain memory (owned
/// by this class) so the row loop reads them without retaining arrays. Stream `k`'s channels are
/// entries `offsets[k]..<offsets[k + 1]`.
final class _ChannelTable {
    let columns: UnsafeMutablePointer<Int>
    let factors: UnsafeMutablePointer<Double>
    let offsets: UnsafeMutablePointer<Int>
    private let count: Int
    private let streamCount: Int

    init(streams: [_CSVParser.Accumulator]) {
        let allColumns = streams.flatMap(\.columns)
        let allFactors = streams.flatMap(\.factors)
        precondition(allColumns.count == allFactors.count, "_ChannelTable: one factor per column")
        count = allColumns.count
        streamCount = streams.count
        columns = .allocate(capacity: max(count, 1))
        columns.initialize(from: allColumns, count: count)
        factors = .allocate(capacity: max(count, 1))
        factors.initialize(from: allFactors, count: count)
        offsets = .allocate(capacity: streamCount + 1)
        var offset = 0
        for (k, stream) in streams.enumerated() {
            offsets[k] = offset
            offset += stream.columns.count
        }
        offsets[streamCount] = offset
    }

    deinit {
        columns.deallocate()
        factors.deallocate()
        offsets.deallocate()
    }
}
