import MotionCore

/// Writes an Axivity `.cwa` file (docs/inputs.md, "Axivity CWA (cwa)") to OpenMovement's
/// published format (`Docs/ax3/cwa.h`): a 1024-byte header block, then 512-byte data blocks at
/// 100 Hz (rate code 10, ±8 g), each with its sequence number, packed timestamp, 15-bit fraction
/// and the firmware's backwards-compatible `timestampOffset`, temperature, light and battery, and
/// a checksum that makes the block's 16-bit word sum 0.
///
/// - `ax3-packed`: AX3 (hardware type 0x00), 120 samples per block, 10-bit values with a 2-bit
///   exponent, 1/256 g.
/// - `ax3-unpacked`: AX3, 80 samples per block, three int16 per sample, 1/256 g.
/// - `ax6`: AX6 (0x64) with the gyroscope at ±1000 deg/s, 40 samples per block: gyro x y z
///   (1000 / 32768 deg/s) then acc x y z (1/2048 g).
///
/// Sample j is at exactly T0 + j / 100 s (a device's steady clock); each block's timestamp is
/// the time of its last sample, whole seconds packed and the fraction truncated to 1/32768 s.
/// The acceleration is `MotionModel`'s (g, Core Motion's sign), the gyroscope its rotation
/// rate in deg/s, plus seeded noise. `damagedBlocks` blocks are followed by a damaged one, in
/// turn: a copy with one flipped sample byte (its checksum fails), the block itself again
/// (a repeated sequence number) and the block two before it again (back in time).
enum CWAWriter {
    static let rateHz = 100
    static let rateCode: UInt8 = 0x4a   // 100 Hz, ±8 g
    static let gyroRangeCode = 3        // 8000 / 2^3 = 1000 deg/s
    static let ax6AccelCode = 3         // 1/2^(8+3) g = 1/2048 g

    /// The device id synth writes for `subject` (one device per subject).
    static func deviceID(subject: Int) -> UInt32 { 30_000 + UInt32(subject) }

    /// The session id of a recording, from the seed.
    static func sessionID(_ options: SynthOptions, subject: Int, recording: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: SeededGenerator.derive(options.seed, [40, UInt64(subject), UInt64(recording)]) >> 33)
    }

    static func header(options: SynthOptions, subject: Int, recording: Int) -> [UInt8] {
        var h = [UInt8](repeating: 0, count: 1024)
        h[0] = 0x4d; h[1] = 0x44
        put16(&h, 2, 1020)
        let ax6 = options.cwaDevice == .ax6
        h[4] = ax6 ? 0x64 : 0x00               // AX3: 0x00, 0xff or 0x17 (cwa.h); 0x00 is what most readers know
        let device = deviceID(subject: subject)
        put16(&h, 5, UInt16(device & 0xffff))
        put32(&h, 7, sessionID(options, subject: subject, recording: recording))
        put16(&h, 11, UInt16(device >> 16))
        h[26] = 1                                   // flash the LED
        h[35] = ax6 ? UInt8(gyroRangeCode) : 0      // AX6: the gyroscope's range code
        h[36] = rateCode
        h[41] = ax6 ? 54 : 48                       // firmware revision
        put16(&h, 42, 0xffff)                       // time zone unknown
        for i in 64..<1024 { h[i] = 0x20 }          // empty metadata
        return h
    }

    /// Writes the file to `path`; returns (bytes, samples).
    static func write(plan: RecordingPlan, options: SynthOptions, subject: Int, recording: Int,
                      to path: String) throws(MotionError) -> (bytes: Int, rows: Int) {
        var file = try OutputFile(path: path)
        file.buffer += header(options: options, subject: subject, recording: recording)
        let device = options.cwaDevice
        let perBlock = device == .ax3Packed ? 120 : device == .ax3Unpacked ? 80 : 40
        let samples = Swift.max(1, Int((plan.endTime * Double(rateHz)).rounded(.down)))
        let blocks = (samples + perBlock - 1) / perBlock
        var rng = SeededGenerator(seed: SeededGenerator.derive(options.seed, [41, UInt64(subject), UInt64(recording)]))
        // Wall clock of sample 0: a morning in 2024, from the seed.
        let t0 = Int64(1_704_067_200) + Int64(subject - 1) * 86_400 + Int64(recording - 1) * 7_200 + 9 * 3_600
            + Int64(rng.uniform(0, 600))
        var damaged: [Int] = []
        if options.cwaDamagedBlocks > 0 && blocks > 4 {
            var chosen = Set<Int>()
            while chosen.count < Swift.min(options.cwaDamagedBlocks, blocks - 4) {
                chosen.insert(2 + Int(rng.next() % UInt64(blocks - 4)))
            }
            damaged = chosen.sorted()
        }
        let model = MotionModel(plan: plan)
        var noise = SeededGenerator(seed: plan.streamSeed, tags: 230)
        var history: [[UInt8]] = []
        for k in 0..<blocks {
            let first = k * perBlock
            let count = Swift.min(perBlock, samples - first)
            var b = [UInt8](repeating: 0, count: 512)
            b[0] = 0x41; b[1] = 0x58
            put16(&b, 2, 508)
            // The timestamp of the block's last sample: whole seconds and a 15-bit fraction.
            let anchor = count - 1
            let j = Int64(first + anchor)
            let whole = t0 + j / Int64(rateHz)
            let fraction16 = Int((j % Int64(rateHz)) * 32_768 / Int64(rateHz)) << 1
            put16(&b, 4, UInt16(0x8000 | (fraction16 >> 1)))
            put32(&b, 6, sessionID(options, subject: subject, recording: recording))
            put32(&b, 10, UInt32(k))
            put32(&b, 14, packedTime(whole))
            let light = 200 + Int(rng.next() % 300)
            let accelCode = device == .ax6 ? ax6AccelCode : 0
            put16(&b, 18, UInt16(accelCode << 13 | (device == .ax6 ? gyroRangeCode << 10 : 0) | light))
            put16(&b, 20, UInt16(256 + Int(rng.next() % 16)))      // ≈ 25 °C
            b[22] = 0
            b[23] = UInt8(190 - Swift.min(60, k / 500))              // battery, slowly down
            b[24] = rateCode
            b[25] = device == .ax3Packed ? 0x30 : device == .ax3Unpacked ? 0x32 : 0x62
            // The firmware's shift for readers without the fraction (undone by readers with it).
            let shifted = anchor - ((fraction16 * rateHz) >> 16)
            put16(&b, 26, UInt16(bitPattern: Int16(shifted)))
            put16(&b, 28, UInt16(count))
            for i in 0..<count {
                let t = Double(first + i) / Double(rateHz)
                let m = model.sample(at: t)
                let g = m.acceleration + MotionCollectorWriter.gaussian3(&noise, 0.004)
                let at = 30 + i * (device == .ax3Packed ? 4 : device == .ax3Unpacked ? 6 : 12)
                switch device {
                case .ax3Packed:
                    put32(&b, at, packed([g.x, g.y, g.z].map { clamp($0 * 256, 511 << 3) }))
                case .ax3Unpacked:
                    for (a, v) in [g.x, g.y, g.z].enumerated() { put16(&b, at + 2 * a, UInt16(bitPattern: Int16(clamp(v * 256, 32767)))) }
                case .ax6:
                    let dps = (m.rotationRate + MotionCollectorWriter.gaussian3(&noise, 0.002)) * (180 / Double.pi)
                    let perDps = 32_768.0 / 1000
                    for (a, v) in [dps.x, dps.y, dps.z].enumerated() { put16(&b, at + 2 * a, UInt16(bitPattern: Int16(clamp(v * perDps, 32767)))) }
                    for (a, v) in [g.x, g.y, g.z].enumerated() { put16(&b, at + 6 + 2 * a, UInt16(bitPattern: Int16(clamp(v * 2048, 32767)))) }
                }
            }
            put16(&b, 510, checksum(b))
            file.buffer += b
            history.append(b)
            if history.count > 3 { history.removeFirst() }
            if let n = damaged.firstIndex(of: k) {
                switch n % 3 {
                case 0:
                    var bad = b
                    bad[100] ^= 0x01
                    file.buffer += bad
                case 1: file.buffer += b
                default: file.buffer += history[history.count - 3]
                }
            }
            try file.flushIfFull()
        }
        return (try file.finish(), samples)
    }

    /// A rounded value clamped to ±limit.
    static func clamp(_ v: Double, _ limit: Int) -> Int {
        Swift.max(-limit, Swift.min(limit, Int(v.rounded())))
    }

    /// Packs three values in 1/256 g into one word: the smallest exponent e that fits all three
    /// in 10 signed bits, each value shifted right by e (cwa.h: `eezzzzzz zzzzyyyy yyyyyyxx xxxxxxxx`).
    static func packed(_ v: [Int]) -> UInt32 {
        var e = 0
        while e < 3 && v.contains(where: { ($0 >> e) < -512 || ($0 >> e) > 511 }) { e += 1 }
        var w = UInt32(e) << 30
        for (a, x) in v.enumerated() { w |= UInt32((x >> e) & 0x3ff) << (10 * UInt32(a)) }
        return w
    }

    /// The word that makes the block's 256 little-endian 16-bit words sum to 0 (mod 2^16).
    static func checksum(_ b: [UInt8]) -> UInt16 {
        var sum: UInt16 = 0
        for i in stride(from: 0, to: 510, by: 2) { sum &+= UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
        return 0 &- sum
    }

    /// Seconds since 1970 (UTC, years 2000–2063) packed as (MSB) `YYYYYYMM MMDDDDDh hhhhmmmm
    /// mmssssss` (LSB), the year from 2000 (the civil date by Howard Hinnant's `civil_from_days`).
    static func packedTime(_ seconds: Int64) -> UInt32 {
        let c = CivilTime(epochSeconds: seconds)
        return UInt32(c.year - 2000) << 26 | UInt32(c.month) << 22 | UInt32(c.day) << 17
            | UInt32(c.hour) << 12 | UInt32(c.minute) << 6 | UInt32(c.second)
    }

    static func put16(_ b: inout [UInt8], _ at: Int, _ v: UInt16) {
        b[at] = UInt8(v & 0xff); b[at + 1] = UInt8(v >> 8)
    }

    static func put32(_ b: inout [UInt8], _ at: Int, _ v: UInt32) {
        for i in 0..<4 { b[at + i] = UInt8((v >> (8 * UInt32(i))) & 0xff) }
    }
}
