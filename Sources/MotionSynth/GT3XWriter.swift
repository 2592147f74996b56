import MotionCore

/// Writes an ActiGraph `.gt3x` file (docs/inputs.md, "ActiGraph GT3X (gt3x)") to ActiGraph's
/// published format (actigraph/GT3X-File-Format): a ZIP archive (members stored, with their
/// CRC-32, local headers and central directory, fixed 1980-01-01 dates) holding `log.bin` then
/// `info.txt`.
///
/// `info.txt` gives the serial number, `Sample Rate: 30`, `Acceleration Scale` and the dates in
/// .NET ticks. `log.bin` starts with a METADATA record and a PARAMETERS record (SAMPLE_RATE,
/// ACCEL_SCALE in ActiGraph's SSP float, FEATURE_ENABLE with sleep mode on), then one activity
/// record per second, of 30 samples at `timestamp + i / 30`, and a BATTERY record every minute.
///
/// - `activity2` (default): a wGT3X-BT (serial `MOS2…`), ACTIVITY2 records of int16 x, y, z at
///   256 LSB/g.
/// - `activity`: a GT3X+ (serial `NEO…`), ACTIVITY records of 12-bit y, x, z packed, 341 LSB/g.
///
/// `idleSeconds` > 0: one idle-sleep stretch in the middle of the recording: an EVENT record
/// with payload 08, `idleSeconds` seconds without activity records, an EVENT with payload 09,
/// and the records resume at that second. `damagedRecords` activity records are followed by a
/// damaged one, in turn: a copy with one flipped payload byte (its checksum fails), the record
/// itself again (a repeated second) and the record two before it again (back in time).
enum GT3XWriter {
    static let rateHz = 30

    static func serial(_ options: SynthOptions, subject: Int) -> String {
        (options.gt3xRecord == .activity ? "NEO1F" : "MOS2E") + String(22_180_000 + subject)
    }

    static func scale(_ options: SynthOptions) -> Int { options.gt3xRecord == .activity ? 341 : 256 }

    /// Writes the file to `path`; returns (bytes, samples).
    static func write(plan: RecordingPlan, options: SynthOptions, subject: Int, recording: Int,
                      to path: String) throws(MotionError) -> (bytes: Int, rows: Int) {
        let seconds = Swift.max(1, Int(plan.endTime.rounded(.down)))
        var rng = SeededGenerator(seed: SeededGenerator.derive(options.seed, [51, UInt64(subject), UInt64(recording)]))
        let t0 = Int64(1_704_067_200) + Int64(subject - 1) * 86_400 + Int64(recording - 1) * 7_200 + 9 * 3_600
            + Int64(rng.uniform(0, 600))
        let lsb = scale(options)
        var log: [UInt8] = []
        let metadata = Array("{\"MetadataType\":\"Bio\",\"SubjectName\":\"subject\(subject)\"}".utf8)
        log += record(0x06, t0, metadata)
        var params: [UInt8] = []
        func param(_ space: UInt16, _ id: UInt16, _ value: UInt32) {
            params += [UInt8(space & 0xff), UInt8(space >> 8), UInt8(id & 0xff), UInt8(id >> 8)]
            for i in 0..<4 { params.append(UInt8((value >> (8 * UInt32(i))) & 0xff)) }
        }
        param(0, 55, ssp(Double(lsb)))       // ACCEL_SCALE
        param(1, 2, 4)                       // FEATURE_ENABLE: sleep mode
        param(1, 10, UInt32(rateHz))         // SAMPLE_RATE
        log += record(0x15, t0, params)

        var damaged: [Int] = []
        if options.gt3xDamagedRecords > 0 && seconds > 4 {
            var chosen = Set<Int>()
            while chosen.count < Swift.min(options.gt3xDamagedRecords, seconds - 4) {
                chosen.insert(2 + Int(rng.next() % UInt64(seconds - 4)))
            }
            damaged = chosen.sorted()
        }
        let idle = options.gt3xIdleSeconds > 0 && seconds > options.gt3xIdleSeconds + 4
            ? (from: (seconds - options.gt3xIdleSeconds) / 2, count: options.gt3xIdleSeconds) : nil
        let model = MotionModel(plan: plan)
        var noise = SeededGenerator(seed: plan.streamSeed, tags: 231)
        var history: [[UInt8]] = []
        var rows = 0
        var k = 0
        while k < seconds {
            let second = t0 + Int64(k)
            if let idle, k == idle.from {
                log += record(0x03, second, [0x08])
                log += record(0x03, second + Int64(idle.count), [0x09])
                k += idle.count
                continue
            }
            if k % 60 == 30 { log += record(0x02, second, [0x68, 0x10]) }   // BATTERY, 4.2 V
            var values: [Int] = []
            for i in 0..<rateHz {
                let t = Double(k) + Double(i) / Double(rateHz)
                let g = model.sample(at: t).acceleration + MotionCollectorWriter.gaussian3(&noise, 0.004)
                let limit = options.gt3xRecord == .activity ? 2047 : 32767
                values += [g.x, g.y, g.z].map { Swift.max(-limit, Swift.min(limit, Int(($0 * Double(lsb)).rounded()))) }
            }
            let payload = options.gt3xRecord == .activity ? packed12(values) : values.flatMap { v -> [UInt8] in
                let u = UInt16(bitPattern: Int16(v))
                return [UInt8(u & 0xff), UInt8(u >> 8)]
            }
            let r = record(options.gt3xRecord == .activity ? 0x00 : 0x1A, second, payload)
            log += r
            rows += rateHz
            history.append(r)
            if history.count > 3 { history.removeFirst() }
            if let n = damaged.firstIndex(of: k) {
                switch n % 3 {
                case 0:
                    var bad = r
                    bad[8 + payload.count / 2] ^= 0x01
                    log += bad
                case 1: log += r
                default: log += history[history.count - 3]
                }
            }
            k += 1
        }
        let last = t0 + Int64(seconds)
        let info = """
            Serial Number: \(serial(options, subject: subject))
            Device Type: \(options.gt3xRecord == .activity ? "GT3XPlus" : "wGT3XBT")
            Firmware: 1.9.2
            Battery Voltage: 4.20
            Sample Rate: \(rateHz)
            Start Date: \(ticks(t0))
            Stop Date: 0
            Last Sample Time: \(ticks(last))
            TimeZone: 00:00:00
            Download Date: \(ticks(last + 600))
            Board Revision: 4
            Unexpected Resets: 0
            Acceleration Scale: \(lsb).0
            Acceleration Min: -8.0
            Acceleration Max: 8.0
            Subject Name: subject\(subject)

            """.replacingOccurrences(of: "\n", with: "\r\n")
        var file = try OutputFile(path: path)
        file.buffer += zip([("log.bin", log), ("info.txt", Array(info.utf8))])
        return (try file.finish(), rows)
    }

    /// One log record: separator, type, timestamp, payload size, payload, checksum.
    static func record(_ type: UInt8, _ second: Int64, _ payload: [UInt8]) -> [UInt8] {
        let t = UInt32(truncatingIfNeeded: second)
        var r: [UInt8] = [0x1E, type, UInt8(t & 0xff), UInt8((t >> 8) & 0xff), UInt8((t >> 16) & 0xff), UInt8(t >> 24),
                          UInt8(payload.count & 0xff), UInt8(payload.count >> 8)]
        r += payload
        var x: UInt8 = 0
        for b in r { x ^= b }
        r.append(~x)
        return r
    }

    /// Values y, x, z per sample written as x, y, z in `values`: 12 bits each, most significant
    /// first, in y, x, z order; an odd sample count leaves a zero half byte at the end.
    static func packed12(_ values: [Int]) -> [UInt8] {
        var nibbles: [UInt8] = []
        for s in 0..<(values.count / 3) {
            for v in [values[3 * s + 1], values[3 * s], values[3 * s + 2]] {
                let u = UInt16(bitPattern: Int16(v)) & 0x0fff
                nibbles += [UInt8(u >> 8), UInt8((u >> 4) & 0xf), UInt8(u & 0xf)]
            }
        }
        if nibbles.count % 2 == 1 { nibbles.append(0) }
        return stride(from: 0, to: nibbles.count, by: 2).map { nibbles[$0] << 4 | nibbles[$0 + 1] }
    }

    /// ActiGraph's SSP float (LogRecords/Parameters.md): significand × 2^23 in the low 24 bits,
    /// the exponent in the top 8.
    static func ssp(_ f: Double) -> UInt32 {
        var s = abs(f)
        if s < 1.0 / 8_388_608 { return 0 }
        var e = 0
        while s >= 1 { s /= 2; e += 1 }
        while s < 0.5 { s *= 2; e -= 1 }
        var code = UInt32(s * 8_388_608)
        if f < 0 { code = UInt32(bitPattern: -Int32(code)) }
        return (code & 0x00ff_ffff) | (UInt32(bitPattern: Int32(e)) << 24)
    }

    /// .NET ticks (100 ns since 0001-01-01) of a Unix second.
    static func ticks(_ second: Int64) -> Int64 { (second + 62_135_596_800) * 10_000_000 }

    /// A ZIP archive of stored members.
    static func zip(_ members: [(String, [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xff), UInt8((v >> 8) & 0xff)] }
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * UInt32($0))) & 0xff) } }
        for (name, data) in members {
            let crc = crc32(data), n = Array(name.utf8)
            let offset = out.count
            let common = le16(20) + le16(0) + le16(0) + le16(0) + le16(0x21) + le32(crc)
                + le32(UInt32(data.count)) + le32(UInt32(data.count)) + le16(n.count) + le16(0)
            out += le32(0x0403_4b50) + common + n + data
            central += le32(0x0201_4b50) + le16(20) + common + le16(0) + le16(0) + le16(0) + le32(0) + le32(UInt32(offset)) + n
        }
        let cdOffset = out.count
        out += central
        out += le32(0x0605_4b50) + le16(0) + le16(0) + le16(members.count) + le16(members.count)
            + le32(UInt32(central.count)) + le32(UInt32(cdOffset)) + le16(0)
        return out
    }

    /// ZIP's CRC-32 (reflected polynomial 0xEDB88320).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var table = [UInt32](repeating: 0, count: 256)
        for i in 0..<256 {
            var c = UInt32(i)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            table[i] = c
        }
        var crc: UInt32 = 0xffff_ffff
        for b in bytes { crc = table[Int((crc ^ UInt32(b)) & 0xff)] ^ (crc >> 8) }
        return crc ^ 0xffff_ffff
    }
}
