#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import MotionCore

/// The header and the data rows: columns resolved once, then per row the time, the sensor, the
/// label and the channel values into the row-major buffer per stream, transposed at the end.
extension _CSVParser {
    // MARK: - Header

    mutating func header(_ row: Row) throws {
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
    mutating func dataRow(_ row: Row) throws {
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
            if clock != nil {
                time = Number(value: try local(v, row), ok: true)
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
    private mutating func local(_ wall: Double, _ row: Row) throws -> Double {
        if timeFormat == nil && CSVTime.hasZoneDesignator(fields.starts[timeIndex], fields.ends[timeIndex]) {
            let value = _FieldText.display(fields.starts[timeIndex], fields.ends[timeIndex])
            throw IngestError(.zonedTimeWithTimeZone(value: value, zone: clock!.zone.name), at: location(timeIndex, row))
        }
        return clock!.utc(wall: wall, line: row.firstLine)
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
        if s == e { return -1 }
        if labels.isLast(s, e) { return labels.lastID }
        try checkText(i, row)
        return labels.intern(s, e)
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
    mutating func reserveFromSample() {
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
