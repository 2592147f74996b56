import MotionCore

/// How one output column (one word of one element) is turned into a value
/// (docs/iio-format.md §4.1, §4.2).
struct _IIOColumnPlan: Sendable, Equatable {
    /// Byte offset of the word within a scan.
    var byteOffset: Int
    /// 1, 2, 4 or 8.
    var storageBytes: Int
    var bigEndian: Bool
    var shift: UInt64
    /// `(1 << realBits) - 1`, all ones for 64 bits.
    var mask: UInt64
    /// `1 << (realBits - 1)` for signed types, 0 for unsigned.
    var signBit: UInt64
    var offset: Double
    var scale: Double
    /// The unit conversion factor applied after scaling (1 under `units: native`).
    var factor: Double

    /// The plan of word `word` of `element`.
    init(element: IIOLayout.Element, word: Int, factor: Double) {
        let t = element.type
        byteOffset = element.byteOffset + word * t.storageBytes
        storageBytes = t.storageBytes
        bigEndian = t.byteOrder == .big
        shift = UInt64(t.shift)
        mask = t.realBits == 64 ? ~0 : (UInt64(1) << UInt64(t.realBits)) - 1
        signBit = t.isSigned ? UInt64(1) << UInt64(t.realBits - 1) : 0
        offset = element.offset ?? 0
        scale = element.scale ?? 1
        self.factor = factor
    }

    /// Steps 2–4 of §4.1 on the unsigned word: shift, mask, sign-extend from realbits. The
    /// result's bit pattern is the two's complement value for signed types.
    @inline(__always)
    func bits(_ word: UInt64) -> UInt64 {
        let v = (word >> shift) & mask
        return v & signBit != 0 ? v | ~mask : v
    }

    /// The decoded integer as a double (exact for |v| < 2^53).
    @inline(__always)
    func raw(_ word: UInt64) -> Double {
        let v = bits(word)
        return signBit != 0 ? Double(Int64(bitPattern: v)) : Double(v)
    }

    /// `(raw + offset) * scale`, then × `factor` when it is not 1, in doubles and in that order.
    @inline(__always)
    func value(_ word: UInt64) -> Double {
        let scaled = (raw(word) + offset) * scale
        return factor == 1 ? scaled : scaled * factor
    }

    /// The timestamp in nanoseconds: the signed (or unsigned, reinterpreted) integer.
    @inline(__always)
    func nanos(_ word: UInt64) -> Int64 {
        Int64(bitPattern: bits(word))
    }
}

/// Seconds from nanoseconds, as `Double(ns / 1e9 whole) + Double(ns % 1e9) * 1e-9`: the whole
/// seconds are exact, so realtime-clock stamps (about 1.7e18 ns, beyond 2^53) keep sub-µs
/// precision that `Double(ns) / 1e9` would round away.
@inline(__always)
func _iioSeconds(nanos ns: Int64) -> Double {
    Double(ns / 1_000_000_000) + Double(ns % 1_000_000_000) * 1e-9
}

/// The streaming core of `IIODecoder`: consumes bytes in any cuts, decodes every whole scan
/// and carries a partial one to the next call.
struct _IIOScanDecoder {
    let scanBytes: Int
    let units: UnitSystem
    let plans: [_IIOColumnPlan]
    let timePlan: _IIOColumnPlan?
    /// One array per output column.
    var columns: [[Double]]
    /// Timestamps (ns) when the layout has one.
    var nanos: [Int64] = []
    /// Bytes of a scan cut by the previous chunk (fewer than `scanBytes`).
    var carry: [UInt8] = []
    var scans = 0
    var totalBytes = 0

    init(layout: IIOLayout, units: UnitSystem, expectedScans: Int = 0) {
        scanBytes = layout.scanBytes
        self.units = units
        var plans: [_IIOColumnPlan] = []
        let unitsRead = layout.nativeUnits  // one per output column, declared units included
        for e in layout.elements {
            for k in 0..<e.type.repeatCount {
                let factor = PhysicalUnit.conversion(from: unitsRead[plans.count], to: units).factor
                plans.append(_IIOColumnPlan(element: e, word: k, factor: factor))
            }
        }
        self.plans = plans
        timePlan = layout.timestamp.map { _IIOColumnPlan(element: $0, word: 0, factor: 1) }
        let reserve = min(expectedScans, 1 << 28)
        columns = plans.map { _ in
            var a: [Double] = []
            a.reserveCapacity(reserve)
            return a
        }
        if timePlan != nil { nanos.reserveCapacity(reserve) }
        carry.reserveCapacity(scanBytes)
    }

    /// Consumes the next bytes of the dump.
    mutating func consume(_ bytes: UnsafeRawBufferPointer) {
        totalBytes += bytes.count
        var start = 0
        if !carry.isEmpty {
            let take = min(scanBytes - carry.count, bytes.count)
            carry.append(contentsOf: bytes[0..<take])
            start = take
            guard carry.count == scanBytes else { return }
            let scan = carry
            scan.withUnsafeBytes { decode(scans: $0, count: 1) }
            carry.removeAll(keepingCapacity: true)
        }
        let whole = (bytes.count - start) / scanBytes
        if whole > 0 {
            decode(scans: UnsafeRawBufferPointer(rebasing: bytes[start..<(start + whole * scanBytes)]), count: whole)
        }
        let rest = start + whole * scanBytes
        if rest < bytes.count { carry.append(contentsOf: bytes[rest...]) }
    }

    /// Decodes `count` whole scans starting at `chunk`'s first byte.
    mutating func decode(scans chunk: UnsafeRawBufferPointer, count: Int) {
        precondition(chunk.count >= count * scanBytes, "_IIOScanDecoder: chunk shorter than its scans")
        for c in plans.indices {
            var column: [Double] = []
            swap(&column, &columns[c])
            Self.decodeColumn(chunk, count: count, scanBytes: scanBytes, plan: plans[c], into: &column)
            swap(&column, &columns[c])
        }
        if let tp = timePlan {
            Self.decodeNanos(chunk, count: count, scanBytes: scanBytes, plan: tp, into: &nanos)
        }
        scans += count
    }

    /// Loads the word of scan `s` at `plan.byteOffset`, in the plan's byte order.
    @inline(__always)
    static func word<T: FixedWidthInteger & UnsignedInteger>(_: T.Type, _ chunk: UnsafeRawBufferPointer, _ at: Int, bigEndian: Bool) -> UInt64 {
        let w = chunk.loadUnaligned(fromByteOffset: at, as: T.self)
        return UInt64(bigEndian ? T(bigEndian: w) : T(littleEndian: w))
    }

    /// Appends the values of `plan`'s word in `count` scans of `chunk` to `out`.
    ///
    /// The array is grown once (zero-filled) and written through its buffer, so the loop has no
    /// per-element capacity or uniqueness check.
    /// - Complexity: O(count).
    static func decodeColumn(_ chunk: UnsafeRawBufferPointer, count: Int, scanBytes: Int, plan: _IIOColumnPlan, into out: inout [Double]) {
        guard count > 0 else { return }
        precondition((count - 1) * scanBytes + plan.byteOffset + plan.storageBytes <= chunk.count,
                     "_IIOScanDecoder: word outside the chunk")
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: count))
        out.withUnsafeMutableBufferPointer { whole in
            let dst = UnsafeMutableBufferPointer(rebasing: whole[start..<(start + count)])
            switch (plan.storageBytes, plan.bigEndian) {
            case (1, _): fill(dst, chunk, scanBytes, plan, UInt8.self, bigEndian: false)
            case (2, false): fill(dst, chunk, scanBytes, plan, UInt16.self, bigEndian: false)
            case (2, true): fill(dst, chunk, scanBytes, plan, UInt16.self, bigEndian: true)
            case (4, false): fill(dst, chunk, scanBytes, plan, UInt32.self, bigEndian: false)
            case (4, true): fill(dst, chunk, scanBytes, plan, UInt32.self, bigEndian: true)
            case (_, false): fill(dst, chunk, scanBytes, plan, UInt64.self, bigEndian: false)
            case (_, true): fill(dst, chunk, scanBytes, plan, UInt64.self, bigEndian: true)
            }
        }
    }

    /// The loop of `decodeColumn`, specialized per word type and byte order.
    @inline(__always)
    static func fill<T: FixedWidthInteger & UnsignedInteger>(_ dst: UnsafeMutableBufferPointer<Double>, _ chunk: UnsafeRawBufferPointer,
                                                            _ scanBytes: Int, _ plan: _IIOColumnPlan, _: T.Type, bigEndian: Bool) {
        var at = plan.byteOffset
        for i in 0..<dst.count {
            dst[i] = plan.value(word(T.self, chunk, at, bigEndian: bigEndian))
            at += scanBytes
        }
    }

    /// Appends the timestamps (ns) of `count` scans of `chunk` to `out`, as `decodeColumn` does.
    static func decodeNanos(_ chunk: UnsafeRawBufferPointer, count: Int, scanBytes: Int, plan: _IIOColumnPlan, into out: inout [Int64]) {
        guard count > 0 else { return }
        precondition((count - 1) * scanBytes + plan.byteOffset + plan.storageBytes <= chunk.count,
                     "_IIOScanDecoder: timestamp outside the chunk")
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: count))
        out.withUnsafeMutableBufferPointer { whole in
            var at = plan.byteOffset
            for i in start..<(start + count) {
                let w: UInt64
                switch plan.storageBytes {
                case 1: w = UInt64(chunk[at])
                case 2: w = word(UInt16.self, chunk, at, bigEndian: plan.bigEndian)
                case 4: w = word(UInt32.self, chunk, at, bigEndian: plan.bigEndian)
                default: w = word(UInt64.self, chunk, at, bigEndian: plan.bigEndian)
                }
                whole[i] = plan.nanos(w)
                at += scanBytes
            }
        }
    }

    /// Seconds of every timestamp (`_iioSeconds`).
    /// - Complexity: O(n).
    static func seconds(_ nanos: [Int64]) -> [Double] {
        [Double](unsafeUninitializedCapacity: nanos.count) { out, initialized in
            nanos.withUnsafeBufferPointer { src in
                for i in 0..<src.count { out[i] = _iioSeconds(nanos: src[i]) }
            }
            initialized = nanos.count
        }
    }
}

/// The safe reference of `_IIOScanDecoder`: the same rules written byte by byte on an array,
/// for tests to compare against.
enum _IIOReference {
    /// Decodes every whole scan of `bytes`: one array per output column, and the timestamps.
    static func decode(_ bytes: [UInt8], layout: IIOLayout, units: UnitSystem) -> (columns: [[Double]], nanos: [Int64]) {
        let n = bytes.count / layout.scanBytes
        func word(_ scan: Int, _ offset: Int, _ type: IIOScanType) -> UInt64 {
            var v: UInt64 = 0
            for i in 0..<type.storageBytes {
                let b = UInt64(bytes[scan * layout.scanBytes + offset + i])
                v |= type.byteOrder == .little ? b << UInt64(8 * i) : b << UInt64(8 * (type.storageBytes - 1 - i))
            }
            return v
        }
        func integer(_ w: UInt64, _ t: IIOScanType) -> Int64 {
            var v = w >> UInt64(t.shift)
            if t.realBits < 64 { v &= (UInt64(1) << UInt64(t.realBits)) - 1 }
            if t.isSigned && t.realBits < 64 && (v >> UInt64(t.realBits - 1)) & 1 == 1 {
                return Int64(v) - (Int64(1) << Int64(t.realBits))
            }
            return Int64(bitPattern: v)
        }
        var columns: [[Double]] = []
        for e in layout.elements {
            let factor = PhysicalUnit.conversion(from: IIOLayout.nativeUnit(e.name), to: units).factor
            for k in 0..<e.type.repeatCount {
                columns.append((0..<n).map { s in
                    let w = word(s, e.byteOffset + k * e.type.storageBytes, e.type)
                    let raw = e.type.isSigned ? Double(integer(w, e.type)) : Double(UInt64(bitPattern: integer(w, e.type)))
                    let scaled = (raw + (e.offset ?? 0)) * (e.scale ?? 1)
                    return factor == 1 ? scaled : scaled * factor
                })
            }
        }
        let nanos = layout.timestamp.map { t in (0..<n).map { integer(word($0, t.byteOffset, t.type), t.type) } } ?? []
        return (columns, nanos)
    }
}
