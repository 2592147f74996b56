import MotionCore

/// Splitting a record into fields: plain records in place, quoted ones unescaped into `scratch`;
/// then the header or a data row (`_CSVRowKernels.swift`).
extension _CSVParser {
    /// Splits a record without quotes at each delimiter.
    @inline(__always)
    mutating func splitPlain(_ s: Pointer, _ e: Pointer) {
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
    mutating func splitQuoted(_ row: Row) throws {
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
    mutating func dispatch(_ row: Row) throws {
        if headerSeen {
            rowsRead += 1
            try dataRow(row)
        } else {
            try header(row)
        }
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
