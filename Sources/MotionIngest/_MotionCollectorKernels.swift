#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import MotionCore

/// The streaming MotionCollector parser: bytes in (any chunking), `MotionCollectorFile` out.
///
/// Complete lines are parsed in place from the caller's chunk; only a line cut by a chunk
/// boundary is copied (into `carry`, bounded by `maxLineBytes`). Plain rows take the fast path of
/// `_MotionCollectorRowKernels.swift` (one pass over the bytes, no per-line `memchr`); any row it
/// does not accept (blanks, missing values, new labels, errors, …) is parsed line by line
/// (`processLine`; its rows and fields are in `_MotionCollectorFieldKernels.swift`), with the
/// same result. Values go straight into per-sensor column blocks (`_ColumnBlock`) whose
/// arrays become the streams. Strings are made only when a row's label differs from the previous
/// row's, and on the error path.
struct _MotionCollectorParser {
    typealias Pointer = UnsafePointer<UInt8>

    /// Lines longer than this are an error (hostile input must not grow memory without bound).
    static let maxLineBytes = 1 << 20

    /// The samples of one sensor: columns time, channel0, channel1, …, and the line of each row.
    struct Accumulator {
        var width: Int
        /// Multiplier per column (`width` of them): 1 for the time, then each channel's unit
        /// conversion factor; owned like `columns`.
        let scales: UnsafeMutablePointer<Double>
        var present = false
        var columns: _ColumnBlock

        init(width: Int, factors: [Double]) {
            precondition(factors.count == width - 1, "Accumulator: one factor per channel")
            self.width = width
            self.columns = _ColumnBlock(width: width)
            self.scales = .allocate(capacity: width)
            self.scales.initialize(from: [1] + factors, count: width)
        }

        /// The unit conversion factor of channel `c`.
        @inline(__always)
        func factor(_ c: Int) -> Double { scales[c &+ 1] }

        mutating func deallocate() {
            columns.deallocate()
            scales.deallocate()
        }
    }

    let displayPath: String
    let units: UnitSystem
    let keep: [Bool]
    /// `keep` as bits: bit i set when sensor i is kept.
    let keepMask: Int
    /// Total size of the input when known, to reserve capacity after the first chunk.
    var expectedTotalBytes: Int?

    var variant: MotionCollectorFile.Variant?
    var lineNumber = 0
    var bytesSeen = 0
    var reserved = false
    /// Label events to make room for when the first one comes after the reservation.
    var labelRowsLeft: Int?
    var carry: [UInt8] = []
    /// The four accumulators (A, G, M, D), in memory this parser allocates; `deallocate()` frees it.
    let sensors: UnsafeMutablePointer<Accumulator>
    var rowsRead = 0
    var missingRows = 0

    var labels = _LabelInterner()
    /// Row label events: one column (the time) and the label id.
    var rowLabels = _ColumnBlock(width: 1)
    var markerNames: [String] = []
    var markerTimes: [Double] = []
    var markerIDs: [Int32] = []

    init(displayPath: String, units: UnitSystem, keep: Set<String>?, expectedTotalBytes: Int? = nil) {
        self.displayPath = displayPath
        self.units = units
        self.keep = MotionCollectorSensor.all.map { keep?.contains($0.code) ?? true }
        self.keepMask = self.keep.enumerated().reduce(0) { $0 | ($1.element ? 1 << $1.offset : 0) }
        self.expectedTotalBytes = expectedTotalBytes
        self.sensors = .allocate(capacity: MotionCollectorSensor.all.count)
        for (i, sensor) in MotionCollectorSensor.all.enumerated() {
            (sensors + i).initialize(to: Accumulator(width: sensor.channelNames.count + 1,
                                                     factors: sensor.conversion(units).factors))
        }
    }

    // MARK: - Chunks and lines

    /// Parses every complete line of `chunk`, keeping a trailing partial line for the next call.
    mutating func consume(_ chunk: UnsafeRawBufferPointer) throws {
        guard let raw = chunk.baseAddress, chunk.count > 0 else { return }
        let start = Pointer(raw.assumingMemoryBound(to: UInt8.self))
        let end = start + chunk.count
        bytesSeen += chunk.count
        var p = start
        if !carry.isEmpty {
            guard let nl = memchr(p, 0x0A, end - p) else {
                if carry.count + (end - p) > Self.maxLineBytes { throw overlongLine(lineNumber + 1, preview: p, end) }
                carry.append(contentsOf: UnsafeBufferPointer(start: p, count: end - p))
                return
            }
            let newline = Pointer(nl.assumingMemoryBound(to: UInt8.self))
            if carry.count + (newline - p) > Self.maxLineBytes { throw overlongLine(lineNumber + 1, preview: p, newline) }
            carry.append(contentsOf: UnsafeBufferPointer(start: p, count: newline - p))
            var line = carry
            carry = []
            try line.withUnsafeBufferPointer {
                try processLine($0.baseAddress!, $0.baseAddress! + $0.count, readable: $0.baseAddress! + $0.count, isLast: false)
            }
            line.removeAll(keepingCapacity: true)
            carry = line
            p = newline + 1
        }
        if !reserved && expectedTotalBytes != nil && end - p > Self.sampleBytes * 2 {
            // Reserve from the first 64 KiB of rows, not from the whole first chunk: the rows
            // before the reservation are appended into small arrays that grow, reallocate and
            // fault their pages in one by one.
            if let nl = memchr(p + Self.sampleBytes, 0x0A, end - p - Self.sampleBytes) {
                let sampleEnd = Pointer(nl.assumingMemoryBound(to: UInt8.self)) + 1
                p = try lines(p, sampleEnd)
                reserveFromSample(parsed: bytesSeen - (end - p))
            }
        }
        p = try lines(p, end)
        if p < end {
            if end - p > Self.maxLineBytes { throw overlongLine(lineNumber + 1, preview: p, end) }
            carry.append(contentsOf: UnsafeBufferPointer(start: p, count: end - p))
        }
        if !reserved { reserveFromSample(parsed: bytesSeen) }
        if labelRowsLeft != nil { reserveLabelEvents() }
    }

    /// Bytes of rows read before reserving the arrays from the file size.
    static let sampleBytes = 1 << 16

    /// Parses the complete lines in `[p, end)` (`end` is also the end of the readable buffer);
    /// returns the start of the partial line left at the end (`end` when there is none).
    private mutating func lines(_ start: Pointer, _ end: Pointer) throws -> Pointer {
        var p = start
        while p < end {
            if let variant {
                if variant == .current {
                    while true {
                        p = maskedRows(p, end)
                        guard let next = plainRow(p, end, current: true) else { break }
                        p = next
                    }
                } else {
                    while p < end, let next = plainRow(p, end, current: false) { p = next }
                }
                if p == end { break }
            }
            guard let nl = memchr(p, 0x0A, end - p) else { break }
            let newline = Pointer(nl.assumingMemoryBound(to: UInt8.self))
            try processLine(p, newline, readable: end, isLast: false)
            p = newline + 1
        }
        return p
    }

    /// Parses the last line (when the input does not end with a newline) and builds the result.
    mutating func finish() throws -> MotionCollectorFile {
        if !carry.isEmpty {
            var line = carry
            carry = []
            try line.withUnsafeBufferPointer {
                try processLine($0.baseAddress!, $0.baseAddress! + $0.count, readable: $0.baseAddress! + $0.count, isLast: true)
            }
            line = []
        }
        guard let variant else { throw IngestError(.emptyFile, at: SourceLocation(file: displayPath)) }
        if rowsRead == 0 { throw IngestError(.noDataRows, at: SourceLocation(file: displayPath)) }
        var streams: [RawStream] = []
        for (index, sensor) in MotionCollectorSensor.all.enumerated() where keep[index] && sensors[index].present {
            streams.append(Self.rawStream(&sensors[index], sensor: sensor, units: units))
        }
        var dropped: [String: Int] = [:]
        if missingRows > 0 { dropped["missing_value"] = missingRows }
        let events = rowLabels.take()
        return MotionCollectorFile(
            variant: variant, streams: streams,
            rowLabels: LabelEvents(names: labels.names, times: events.doubles[0], labels: events.ints),
            markers: LabelEvents(names: markerNames, times: markerTimes, labels: markerIDs),
            rowsRead: rowsRead, rowsDropped: dropped)
    }

    /// Reserves per-sensor capacity for the whole input, extrapolating from what was read so far.
    /// `parsed`: the bytes of the input whose lines have been parsed.
    private mutating func reserveFromSample(parsed: Int) {
        guard let total = expectedTotalBytes else { reserved = true; return }
        guard variant != nil else { return }
        guard parsed >= Self.sampleBytes || bytesSeen >= total else { return }
        reserved = true
        let scale = Double(total) / Double(max(parsed, 1)) * 1.05
        for i in MotionCollectorSensor.all.indices {
            let rows = sensors[i].columns.count
            guard rows > 0 else { continue }
            sensors[i].columns.reserve(Int(Double(rows) * scale) + 64)
            for column in sensors[i].columns.doubles { Self.adviseLargeArray(column) }
            Self.adviseLargeArray(sensors[i].columns.ints)
        }
        if rowLabels.count > 0 {
            rowLabels.reserve(Int(Double(rowLabels.count) * scale) + 64)
            for column in rowLabels.doubles { Self.adviseLargeArray(column) }
            Self.adviseLargeArray(rowLabels.ints)
        } else {
            labelRowsLeft = Int(Double(rowsRead) * (scale - 1)) + 64
        }
    }

    /// When label events start after the sample (none in it), room for one per remaining row
    /// at most, as estimated at the reservation (not prefaulted: it may be far too much).
    private mutating func reserveLabelEvents() {
        guard let rows = labelRowsLeft, rowLabels.count > 0 else { return }
        labelRowsLeft = nil
        rowLabels.reserve(rowLabels.count + rows)
    }

    /// Prefaults the whole pages of a large array's reserved storage (its capacity, not only its
    /// count) in one `madvise(MADV_POPULATE_WRITE)` (Linux 5.14+): the output arrays are ~1.15×
    /// the input size and written once, and one call is cheaper than a trap per 4 KiB page on
    /// first touch. Contents are unchanged; where the advice fails (older kernels), nothing changes.
    private static func adviseLargeArray<T>(_ array: [T]) {
        let bytes = array.capacity * MemoryLayout<T>.stride
        guard bytes >= 1 << 16 else { return }
        array.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            let page = 4096
            let start = (UInt(bitPattern: base) + UInt(page - 1)) & ~UInt(page - 1)
            let stop = (UInt(bitPattern: base) + UInt(bytes)) & ~UInt(page - 1)
            guard stop > start, let p = UnsafeMutableRawPointer(bitPattern: start) else { return }
            #if os(Linux)
            _ = madvise(p, Int(stop - start), MADV_POPULATE_WRITE)
            #endif
        }
    }

    /// Moves an accumulator's columns into a stream.
    private static func rawStream(_ acc: inout Accumulator, sensor: MotionCollectorSensor, units: UnitSystem) -> RawStream {
        var columns = acc.columns.take()
        let times = columns.doubles.removeFirst()
        return RawStream(name: sensor.code, channelNames: sensor.channelNames,
                         channelUnits: sensor.conversion(units).units,
                         times: times, channels: columns.doubles, lines: columns.ints)
    }

    /// Frees the sample buffers; call exactly once, when done with the parser (also after an error).
    mutating func deallocate() {
        for i in MotionCollectorSensor.all.indices {
            sensors[i].deallocate()
        }
        sensors.deinitialize(count: MotionCollectorSensor.all.count)
        sensors.deallocate()
        rowLabels.deallocate()
    }

    /// One physical line, without its `\n`.
    @inline(__always)
    /// `readable`: the end of the buffer holding the line; numbers may load (never use) bytes up to it.
    private mutating func processLine(_ start: Pointer, _ end: Pointer, readable: Pointer, isLast: Bool) throws {
        lineNumber += 1
        if end - start > Self.maxLineBytes { throw overlongLine(lineNumber, preview: start, end) }
        var e = end
        if e > start && (e - 1).pointee == 0x0D { e -= 1 }
        guard let variant else { return try header(start, e, isLast: isLast) }
        if start == e { return }
        if _NumberKernels.isBlank(start.pointee) {
            var p = start
            while p < e && _NumberKernels.isBlank(p.pointee) { p += 1 }
            if p == e { return }
        }
        rowsRead += 1
        switch variant {
        case .current: try currentRow(start, e, readable)
        case .legacy: try legacyRow(start, e, readable)
        }
    }

    private mutating func header(_ start: Pointer, _ end: Pointer, isLast: Bool) throws {
        let s = Self.skippingBOM(start, end)
        if isLast && s == end { throw IngestError(.emptyFile, at: SourceLocation(file: displayPath)) }
        let bytes = UnsafeBufferPointer(start: s, count: end - s)
        if let text = String(validating: bytes, as: UTF8.self), !text.utf8.contains(0),
           let variant = MotionCollectorHeader.variant(of: text) {
            self.variant = variant
            return
        }
        throw IngestError(.notAHeader(text: _FieldText.display(s, end)), at: SourceLocation(file: displayPath, line: 1))
    }
}

extension _MotionCollectorParser {
    /// Consumes an array chunk (the `read(chunks:)` path).
    mutating func consume(_ chunk: [UInt8]) throws {
        try chunk.withUnsafeBytes { try consume($0) }
    }

    /// The header variant of `firstBytes` (BOM and CRLF tolerated), for `sniff`.
    static func sniff(_ firstBytes: [UInt8]) -> MotionCollectorFile.Variant? {
        var bytes = firstBytes[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        if let nl = bytes.firstIndex(of: 0x0A) { bytes = bytes[..<nl] }
        if bytes.last == 0x0D { bytes = bytes.dropLast() }
        guard !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) else { return nil }
        return MotionCollectorHeader.variant(of: text)
    }
}
