import MotionCore

/// The streaming core of the GT3X reader (docs/inputs.md, "ActiGraph GT3X (gt3x)"): `log.bin`'s
/// bytes in, in chunks of any size; each whole record checked (separator, checksum) and turned
/// into samples: one activity record is one second of `sampleRate` samples at
/// `timestamp + i / sampleRate`. Holds at most one record's bytes (≤ 65,544) between chunks.
struct _GT3XDecoder {
    let displayPath: String
    let rate: Int
    let info: GT3XFormat.Info
    let keepAcc: Bool
    let accFactor: Double
    private var clock: WallClockFold?

    /// The acceleration scale (LSB per g), settled at the first activity record.
    private(set) var scale: Double?
    private var parameterScale: Double?
    private var scaleSource = ""

    private var buffer: [UInt8] = []
    /// `log.bin`'s offset of `buffer[0]`.
    private var base = 0
    /// Records read (whole ones with a separator), good or bad.
    private(set) var records = 0
    private var synced = true
    private var unreadableFrom = 0

    private var lastSecond: Int64?
    private var lastRaw: (Int32, Int32, Int32)?
    private var lastRecordSecond: Int64?
    private var idleSince: (second: Int64, offset: Int)?
    /// An idle-sleep stretch being filled: emitted `drainFill` by `drainFill`, so that a long
    /// stretch never sits in memory whole; records after it wait in `buffer` (`stalled`).
    private(set) var fill: (next: Int64, end: Int64, raw: (Int32, Int32, Int32), line: Int32, offset: Int, scale: Double)?
    /// True when parsing stopped at a fill with bytes left to parse.
    private(set) var stalled = false
    /// True once `finish` has run (the end-of-file fill may still be draining).
    private(set) var finished = false

    private(set) var dropped: [GT3XFormat.RecordProblem: (count: Int, first: Int)] = [:]
    private(set) var filled = 0
    /// The spans of sample times the fill added since the streams were last taken.
    var filledSpans: [ClosedRange<Double>] = []
    private var fillStretches = 0
    private var fillFirst = 0
    private var partialBytes = 0

    // Samples decoded since the caller last took them.
    var times: [Double] = []
    var acc: [[Double]] = [[], [], []]
    var lines: [Int32] = []
    /// Samples of kept records so far (`rows_read`; filled samples are not read).
    private(set) var samples = 0

    init(displayPath: String, info: GT3XFormat.Info, keep: Set<String>, units: UnitSystem, zone: WallClockZone?) {
        self.displayPath = displayPath
        self.info = info
        rate = info.sampleRate
        keepAcc = keep.contains("acc")
        accFactor = PhysicalUnit.conversion(from: "g", to: units).factor
        self.clock = zone.map(WallClockFold.init)
        if let s = info.accelerationScale {
            scale = s
            scaleSource = "`info.txt`'s `Acceleration Scale`"
        }
    }

    private func fail(_ problem: String, at offset: Int) -> IngestError {
        IngestError(.gt3x(problem: "byte \(offset) of `log.bin`: \(problem)"), at: SourceLocation(file: displayPath))
    }

    mutating func feed(_ chunk: UnsafeRawBufferPointer) throws {
        buffer.append(contentsOf: chunk)
        if fill == nil { try parse(atEnd: false) } else { stalled = true }
    }

    private mutating func drop(_ problem: GT3XFormat.RecordProblem, at offset: Int) {
        if let d = dropped[problem] { dropped[problem] = (d.count + 1, d.first) } else { dropped[problem] = (1, offset) }
    }

    private func checksumHolds(_ p: Int, _ total: Int) -> Bool {
        buffer.withUnsafeBytes { b in
            GT3XFormat.checksum(UnsafeRawBufferPointer(rebasing: b[p..<(p + total - 1)])) == b[p + total - 1]
        }
    }

    /// Parses the whole records in `buffer`, up to the start of an idle-sleep fill.
    mutating func parse(atEnd: Bool) throws {
        var p = 0
        let n = buffer.count
        stalled = false
        scan: while p < n {
            if fill != nil { stalled = true; break scan }
            let b = buffer[p]
            if synced {
                if b == 0 { p += 1; continue }  // the zero padding README.md allows between records
                if b != 0x1E {
                    synced = false
                    unreadableFrom = base + p
                    continue
                }
                guard p + GT3XFormat.headerBytes <= n else { break scan }
                let total = GT3XFormat.headerBytes + Int(GT3XFormat.u16(buffer, p + 6)) + 1
                guard p + total <= n else { break scan }
                if checksumHolds(p, total) {
                    try take(p, total)
                    p += total
                    continue
                }
                // A failed checksum: the size is trusted when a record (or padding, or the end) follows.
                let after = p + total
                if after < n || atEnd {
                    if after == n || buffer[after] == 0x1E || buffer[after] == 0 {
                        records += 1
                        drop(.badChecksum, at: base + p)
                        p = after
                    } else {
                        synced = false
                        unreadableFrom = base + p
                        p += 1
                    }
                    continue
                }
                break scan
            } else {
                if b == 0x1E {
                    if p + GT3XFormat.headerBytes <= n {
                        let total = GT3XFormat.headerBytes + Int(GT3XFormat.u16(buffer, p + 6)) + 1
                        if p + total <= n {
                            if checksumHolds(p, total) {
                                drop(.unreadable, at: unreadableFrom)
                                synced = true
                                continue
                            }
                        } else if !atEnd {
                            break scan
                        }
                    } else if !atEnd {
                        break scan
                    }
                }
                p += 1
            }
        }
        if p > 0 {
            buffer.removeFirst(p)
            base += p
        }
    }

    /// The UTC second of the device's wall-clock second `s` (`time.zone`), at `offset` for notes.
    private mutating func utc(_ s: Int64, offset: Int) -> Double {
        clock == nil ? Double(s) : clock!.utc(wall: Double(s), line: offset)
    }

    private mutating func take(_ p: Int, _ total: Int) throws {
        let index = records
        records += 1
        let offset = base + p
        let type = buffer[p + 1]
        let second = Int64(GT3XFormat.u32(buffer, p + 2))
        let size = total - GT3XFormat.headerBytes - 1
        let payload = (p + GT3XFormat.headerBytes)..<(p + GT3XFormat.headerBytes + size)
        lastRecordSecond = second
        switch GT3XFormat.RecordType(rawValue: type) {
        case .parameters:
            let params = buffer.withUnsafeBytes { GT3XFormat.parameters(UnsafeRawBufferPointer(rebasing: $0[payload])) }
            if let r = params.sampleRate, r != rate {
                throw fail("the PARAMETERS record says SAMPLE_RATE \(r) Hz, but `info.txt` says `Sample Rate: \(rate)` (the file is inconsistent; which is right cannot be told)", at: offset)
            }
            if let s = params.accelScale {
                guard s.isFinite, s > 0 else {
                    throw fail("the PARAMETERS record's ACCEL_SCALE is \(s), not a scale (expected a positive number of LSB per g, such as 256 or 341)", at: offset)
                }
                if let settled = scale {
                    if abs(settled - s) > 1e-6 * settled {
                        throw fail("the PARAMETERS record's ACCEL_SCALE is \(Self.shortText(s)) LSB/g, but \(scaleSource) is \(Self.shortText(settled)) (the file is inconsistent; which is right cannot be told)", at: offset)
                    }
                } else {
                    parameterScale = s
                }
            }
        case .event:
            guard size == 1 else { return }
            let code = buffer[payload.lowerBound]
            if code == 0x08, lastSecond != nil {
                idleSince = (second, offset)
            } else if code == 0x09, let idle = idleSince {
                try fillIdle(upTo: second, line: Int32(clamping: index), offset: idle.offset)
                idleSince = nil
            }
        case .activity, .activity2:
            if size == 1 { return }  // a USB connection event, not samples (LogRecords/Activity2.md)
            let count: Int
            if type == GT3XFormat.RecordType.activity2.rawValue {
                count = size % 6 == 0 ? size / 6 : 0
            } else {
                count = size * 8 / 36
            }
            guard count > 0, count <= rate else { drop(.badRecord, at: offset); return }
            if let last = lastSecond {
                if second == last { drop(.repeated, at: offset); return }
                if second < last { drop(.backwards, at: offset); return }
            }
            let s = try settleScale(at: offset)
            let raw = buffer.withUnsafeBytes { b -> [Int32] in
                let r = UnsafeRawBufferPointer(rebasing: b[payload])
                return type == GT3XFormat.RecordType.activity2.rawValue ? GT3XFormat.decodeActivity2(r) : GT3XFormat.decodeActivity(r)
            }
            idleSince = nil
            emit(second: second, count: count, line: Int32(clamping: index), offset: offset, scale: s) { raw[$0 * 3 + $1] }
            samples += count
            lastSecond = second
            let l = (count - 1) * 3
            lastRaw = (raw[l], raw[l + 1], raw[l + 2])
        case nil:
            return
        }
    }

    private mutating func settleScale(at offset: Int) throws -> Double {
        if let scale { return scale }
        if let s = parameterScale {
            scale = s
            scaleSource = "the PARAMETERS record's ACCEL_SCALE"
        } else if let s = info.scaleFromSerial {
            scale = s
            scaleSource = "the scale of serial number \(info.serialNumber ?? "")"
        } else {
            throw fail("no acceleration scale: `info.txt` has no `Acceleration Scale`, no PARAMETERS record gives ACCEL_SCALE, and the serial number \(info.serialNumber.map { "`\($0)`" } ?? "(none)") is not one whose scale is known (NEO, CLE, MRA: 341; MOS: 256)", at: offset)
        }
        return scale!
    }

    private mutating func emit(second: Int64, count: Int, line: Int32, offset: Int, scale: Double, value: (Int, Int) -> Int32) {
        let t0 = utc(second, offset: offset)
        let r = Double(rate)
        for i in 0..<count {
            times.append(t0 + Double(i) / r)
            lines.append(line)
            if keepAcc {
                for a in 0..<3 { acc[a].append(Double(value(i, a)) / scale * accFactor) }
            }
        }
    }

    /// Idle sleep mode (README.md, EVENT): the device stopped sampling from the second after the
    /// last activity record until the exit event's second; ActiGraph's software (pygt3x) fills
    /// each of those seconds with `sampleRate` copies of the last sample. A stretch that would
    /// end after `info.txt`'s `Download Date` is refused: the device recorded nothing after it,
    /// so the event record is damaged, and filling to it could add samples without end.
    private mutating func fillIdle(upTo end: Int64, line: Int32, offset: Int) throws {
        guard let last = lastSecond, let raw = lastRaw, let s = scale, end > last + 1 else { return }
        if let download = info.downloadSecond, end > download + 1 {
            let text = { (t: Int64) in CivilTime(epochSeconds: t).text(between: "T") }
            throw fail("idle sleep mode from \(text(last + 1)) would be filled up to \(text(end)), \(Self.durationText(end - last - 1)) and after `info.txt`'s `Download Date` (\(text(download))): the device recorded nothing after it was downloaded, so the event record that ends the stretch is damaged (expected an exit event, or a record, at or before the download)", at: offset)
        }
        if fillStretches == 0 { fillFirst = offset }
        fillStretches += 1
        fill = (last + 1, end, raw, line, offset, s)
        lastSecond = end - 1
    }

    /// Emits the pending fill's next seconds, about `limit` samples (at least one second).
    mutating func drainFill(limit: Int) {
        guard var f = fill else { return }
        var budget = Swift.max(1, limit / rate)
        let first = times.count
        defer { if times.count > first { filledSpans.append(times[first]...times[times.count - 1]) } }
        while f.next < f.end && budget > 0 {
            let raw = f.raw
            emit(second: f.next, count: rate, line: f.line, offset: f.offset, scale: f.scale) { _, a in a == 0 ? raw.0 : a == 1 ? raw.1 : raw.2 }
            filled += rate
            f.next += 1
            budget -= 1
        }
        fill = f.next < f.end ? f : nil
    }

    /// Ends `log.bin` once every record is parsed (no fill pending, not stalled): a record cut
    /// short is counted (`gt3x_partial_record`), or an error under `strict`; an idle sleep mode
    /// still on is filled (by `drainFill`) to the last record's second.
    mutating func finish(strict: Bool) throws {
        finished = true
        if !synced {
            drop(.unreadable, at: unreadableFrom)
        } else if !buffer.isEmpty {
            if strict {
                throw fail("`log.bin` ends inside a record of which \(buffer.count) bytes are there (the file was cut short; without `strict: true` the whole records are read and the tail is counted as `gt3x_partial_record`)", at: base)
            }
            partialBytes = buffer.count
            drop(.partial, at: base)
        }
        buffer = []
        if let idle = idleSince, let end = lastRecordSecond {
            try fillIdle(upTo: end, line: Int32(clamping: records), offset: idle.offset)
            idleSince = nil
        }
    }

    /// `seconds` as days, hours or seconds, for messages.
    static func durationText(_ seconds: Int64) -> String {
        seconds >= 86_400 ? "\(seconds / 86_400) days" : seconds >= 3600 ? "\(seconds / 3600) h" : "\(seconds) s"
    }

    static func shortText(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }

    /// `rows_dropped` of the file: records by reason, and the samples idle sleep mode added.
    var rowsDropped: [String: Int] {
        var out: [String: Int] = [:]
        for (problem, d) in dropped { out[problem.rawValue] = d.count }
        if filled > 0 { out[GT3XFormat.idleSleepFilled] = filled }
        return out
    }

    /// One warning per reason a record was left out, in a fixed order, then the idle-sleep
    /// fill, then the seconds whose local time the clocks went back or forward over (`time.zone`).
    var warnings: [String] {
        var out: [String] = GT3XFormat.RecordProblem.allCases.compactMap { problem in
            guard let d = dropped[problem] else { return nil }
            let what: String
            switch problem {
            case .badChecksum: what = "its checksum fails"
            case .badRecord: what = "an activity record whose payload is not whole samples, or more samples than the sample rate"
            case .repeated: what = "the same second as the activity record before"
            case .backwards: what = "an earlier second than the activity record before"
            case .unreadable:
                return "\(displayPath): \(d.count) stretch\(d.count == 1 ? "" : "es") of `log.bin` that are not records skipped to the next record whose checksum holds (\(problem.rawValue)), the first at byte \(d.first) of `log.bin`"
            case .partial:
                return "\(displayPath): `log.bin` ends with \(partialBytes) bytes of a record cut short at byte \(d.first) of `log.bin`, dropped (\(problem.rawValue))"
            }
            return "\(displayPath): \(d.count) record\(d.count == 1 ? "" : "s") dropped (\(problem.rawValue): \(what)), the first at byte \(d.first) of `log.bin`"
        }
        if filled > 0 {
            out.append("\(displayPath): \(filled) samples added over \(filled / rate) s of idle sleep mode in \(fillStretches) stretch\(fillStretches == 1 ? "" : "es") (\(GT3XFormat.idleSleepFilled): the last sample repeated, as ActiGraph's software fills it), the first at byte \(fillFirst) of `log.bin`")
        }
        out += clock?.messages(file: displayPath, item: "record", at: "`log.bin` byte") ?? []
        return out
    }
}
