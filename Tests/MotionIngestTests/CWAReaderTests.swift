import MotionCore
import Testing
@testable import MotionIngest

/// `CWAFormat` and `CWAReader` on blocks built byte by byte here from cwa.h (OpenMovement's
/// `Docs/ax3/cwa.h`), with values worked out by hand: both packings, AX6's gyroscope, the
/// checksum, timestamps with their fraction, the counted bad blocks and the errors.
@Suite struct CWAReaderTests {
    /// 2024-03-01 09:00:00 packed: year 24, month 3, day 1, hour 9.
    static let packedNine: UInt32 = 24 << 26 | 3 << 22 | 1 << 17 | 9 << 12
    /// The same instant in seconds since 1970 (2024-03-01T00:00:00Z is 1 709 251 200).
    static let nine: Int64 = 1_709_283_600

    static func put16(_ b: inout [UInt8], _ at: Int, _ v: UInt16) { b[at] = UInt8(v & 0xff); b[at + 1] = UInt8(v >> 8) }
    static func put32(_ b: inout [UInt8], _ at: Int, _ v: UInt32) {
        for i in 0..<4 { b[at + i] = UInt8((v >> (8 * UInt32(i))) & 0xff) }
    }

    /// A 1024-byte header: AX3 (0x17) or AX6 (0x64), device 0x0002_0001 = 131073, session 77.
    static func header(ax6: Bool = false) -> [UInt8] {
        var h = [UInt8](repeating: 0, count: 1024)
        h[0] = 0x4d; h[1] = 0x44
        put16(&h, 2, 1020)
        h[4] = ax6 ? 0x64 : 0x17
        put16(&h, 5, 1)
        put32(&h, 7, 77)
        put16(&h, 11, 2)
        h[35] = ax6 ? 3 : 0
        h[36] = 0x4a
        return h
    }

    /// A data block: `samples` raw words (3 or 6 int16 each, or one packed word each when
    /// `packed`), with the checksum word set so that the 256 words sum to 0.
    static func block(sequence: UInt32, time timestamp: UInt32 = packedNine, fraction15: UInt16? = nil, offset: Int16 = 0,
                      axes: Int = 3, packed: Bool = false, lightScale: UInt16 = 0, temperature: UInt16 = 256,
                      samples: [[Int]]) -> [UInt8] {
        var b = [UInt8](repeating: 0, count: 512)
        b[0] = 0x41; b[1] = 0x58
        put16(&b, 2, 508)
        if let fraction15 { put16(&b, 4, 0x8000 | fraction15) }
        put32(&b, 6, 77)
        put32(&b, 10, sequence)
        put32(&b, 14, timestamp)
        put16(&b, 18, lightScale)
        put16(&b, 20, temperature)
        b[23] = 190
        b[24] = 0x4a
        b[25] = UInt8(axes << 4 | (packed ? 0 : 2))
        put16(&b, 26, UInt16(bitPattern: offset))
        put16(&b, 28, UInt16(samples.count))
        for (i, s) in samples.enumerated() {
            if packed {
                put32(&b, 30 + 4 * i, UInt32(s[0]))
            } else {
                for (a, v) in s.enumerated() { put16(&b, 30 + i * 2 * axes + 2 * a, UInt16(bitPattern: Int16(v))) }
            }
        }
        var sum: UInt16 = 0
        for i in stride(from: 0, to: 510, by: 2) { sum &+= UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
        put16(&b, 510, 0 &- sum)
        return b
    }

    static func read(_ bytes: [UInt8], keep: Set<String> = ["acc"], units: UnitSystem = .native, strict: Bool = false,
                     chunk: Int = 4096) throws -> CWAFile {
        let chunks = stride(from: 0, to: bytes.count, by: chunk).map { Array(bytes[$0..<Swift.min($0 + chunk, bytes.count)]) }
        return try CWAReader.read(chunks: chunks, displayPath: "rec.cwa", keep: keep, units: units, strict: strict)
    }

    @Test func packedWordsSignExtendThenShiftByTheExponent() throws {
        // 0x80d0fc15 = 10 000000 1101 0000 1111 1100 0001 0101: e = 2, x = 0x015 = 21, y = 0x03f = 63,
        // z = 0x00d = 13; shifted left by 2: 84, 252, 52 (1/256 g each).
        // 0xffffffff: every 10-bit field is 0x3ff = −1, e = 3: −8.
        // 0x00080200: x = 0x200 = −512, y = 0x200 >> … (bits 10–19 = 0x200) = −512, z = 0, e = 0.
        let bytes = Self.header() + Self.block(sequence: 0, packed: true, samples: [[0x80d0_fc15], [0xffff_ffff], [0x0008_0200]])
        let file = try Self.read(bytes)
        #expect(file.streams.map(\.name) == ["acc"])
        let x: [Double] = [84.0 / 256, -8.0 / 256, -2]
        let y: [Double] = [252.0 / 256, -8.0 / 256, -2]
        let z: [Double] = [52.0 / 256, -8.0 / 256, 0]
        #expect(file.streams[0].channels == [x, y, z])
        #expect(file.streams[0].channelUnits == ["g", "g", "g"])
        #expect(file.rowsRead == 3 && file.rowsDropped.isEmpty && file.warnings.isEmpty)
    }

    @Test func unpackedValuesUseTheBlocksAccelerometerScaleAndGravity() throws {
        // Scale code 0: 1/256 g; 256 → 1 g → 9.80665 m/s² under `units: si`.
        let bytes = Self.header() + Self.block(sequence: 0, samples: [[256, -512, 0], [1, 2, 3]])
        let si = try Self.read(bytes, units: .si)
        #expect(si.streams[0].channelUnits == ["m/s^2", "m/s^2", "m/s^2"])
        #expect(si.streams[0].channels[0] == [1 * 9.80665, 1.0 / 256 * 9.80665])
        #expect(si.streams[0].channels[1] == [-2 * 9.80665, 2.0 / 256 * 9.80665])
        // Scale code 3 (top three bits of offset 18): 1/2048 g.
        let coarse = try Self.read(Self.header() + Self.block(sequence: 0, lightScale: 3 << 13, samples: [[2048, -1024, 1]]))
        #expect(coarse.streams[0].channels.map { $0[0] } == [1, -0.5, 1.0 / 2048])
    }

    @Test func ax6GivesGyroscopeFirstThenAccelerometer() throws {
        // Accelerometer code 3 (1/2048 g), gyroscope code 3 (8000 / 8 = 1000 deg/s over 32768).
        let scale: UInt16 = 3 << 13 | 3 << 10 | 300
        let bytes = Self.header(ax6: true) + Self.block(sequence: 0, axes: 6, lightScale: scale,
                                                        samples: [[32768 / 2 - 1, -16384, 0, 2048, 0, -4096]])
        let file = try Self.read(bytes, keep: ["acc", "gyro"])
        #expect(file.header.model == "AX6" && file.header.recordsGyro)
        #expect(file.streams.map(\.name) == ["acc", "gyro"])
        #expect(file.streams[0].channels.map { $0[0] } == [1, 0, -2])
        #expect(file.streams[1].channels.map { $0[0] } == [16383 * 1000.0 / 32768, -500, 0])
        #expect(file.streams[1].channelUnits == ["deg/s", "deg/s", "deg/s"])
        let si = try Self.read(bytes, keep: ["gyro"], units: .si)
        #expect(si.streams[0].channels[1][0] == -500 * (Double.pi / 180))
        // An AX3 block has no gyroscope to keep.
        let got = ingestErrorMessage { _ = try Self.read(Self.header() + Self.block(sequence: 0, samples: [[1, 2, 3]]), keep: ["gyro"]) }
        #expect(got?.message == "rec.cwa at byte 1024: the input keeps `gyro`, but this block has no gyroscope (3 axes: an AX3, or an AX6 set to record the accelerometer only; keep `sensors: [acc]`)")
        #expect(got?.status == .dataError)
    }

    @Test func headerGivesDeviceAndSessionIDs() throws {
        let file = try Self.read(Self.header() + Self.block(sequence: 0, samples: [[1, 2, 3]]))
        #expect(file.header.deviceID == 0x0002_0001 && file.header.sessionID == 77 && file.header.model == "AX3")
        #expect(!file.header.recordsGyro && file.header.rateHz == 100)
        // An upper word of 0xffff reads as 0.
        var h = Self.header()
        h[11] = 0xff; h[12] = 0xff
        #expect(try Self.read(h + Self.block(sequence: 0, samples: [[1, 2, 3]])).header.deviceID == 1)
    }

    @Test func packedTimestampsAreUTCSecondsAndRejectImpossibleDates() {
        #expect(CWAFormat.seconds(packed: Self.packedNine) == Self.nine)
        // 2000-01-01 00:00:00 is 946 684 800.
        #expect(CWAFormat.seconds(packed: 1 << 22 | 1 << 17) == 946_684_800)
        // 2024-02-29 23:59:59 (a leap day) and the impossible 2023-02-29, month 0, 0 ("unknown").
        #expect(CWAFormat.seconds(packed: 24 << 26 | 2 << 22 | 29 << 17 | 23 << 12 | 59 << 6 | 59) == 1_709_251_199)
        #expect(CWAFormat.seconds(packed: 23 << 26 | 2 << 22 | 29 << 17) == nil)
        #expect(CWAFormat.seconds(packed: 24 << 26 | 1 << 17) == nil)
        #expect(CWAFormat.seconds(packed: 0) == nil)
    }

    @Test func theFractionAndOffsetPlaceTheTimestampOnItsSample() throws {
        // Fraction 0x4000 of 15 bits = 0x8000 / 65536 = 0.5 s; the stored offset 10 is shifted
        // back by (0x8000 × 100) >> 16 = 50 samples: the timestamp is sample 60's.
        let samples = (0..<80).map { [$0, 0, 0] }
        let file = try Self.read(Self.header() + Self.block(sequence: 0, fraction15: 0x4000, offset: 10, samples: samples))
        let t = file.streams[0].times
        #expect(t.count == 80)
        #expect(t[60] == 1_709_283_600.5)
        // One block alone: the nominal period, 1/100 s (2^5 / 3200).
        #expect(t[0] == Double(Self.nine) + (0.5 + Double(0 - 60) * 0.01))
        #expect(t[79] == Double(Self.nine) + (0.5 + Double(79 - 60) * 0.01))
        #expect(file.streams[0].lines == [Int32](repeating: 0, count: 80))
        // Without the top bit, offset 4 is a device id and the stored offset is used as it is.
        let old = try Self.read(Self.header() + Self.block(sequence: 0, offset: 10, samples: samples))
        #expect(old.streams[0].times[10] == Double(Self.nine))
    }

    @Test func timesAreInterpolatedTowardsTheNextBlocksTimestamp() throws {
        let samples = (0..<80).map { [$0, 0, 0] }
        // Block 0: sample 0 at 09:00:00.0; block 1: its sample 0 at 09:00:00.81 (fraction 0.81 s is
        // not a multiple of 1/32768; use 0.8125 = 26624/32768): 80 samples in 0.8125 s.
        let b0 = Self.block(sequence: 0, fraction15: 0, offset: 0, samples: samples)
        // The stored index is shifted back by (53248 × 100) >> 16 = 81 samples, so the reader gets 0.
        let b1 = Self.block(sequence: 1, fraction15: 26624, offset: -81, samples: samples)
        let file = try Self.read(Self.header() + b0 + b1)
        let t = file.streams[0].times
        let p = 0.8125 / 80
        #expect(t[1] == Double(Self.nine) + (0 + 1 * p))
        #expect(t[79] == Double(Self.nine) + (0 + 79 * p))
        // The last block: the nominal period from its own timestamp.
        #expect(t[80] == Double(Self.nine) + (0.8125 + 0 * 0.01))
        #expect(t[159] == Double(Self.nine) + (0.8125 + 79 * 0.01))
        #expect(zip(t, t.dropFirst()).allSatisfy { $0 < $1 })
        // A period more than 10 % off the nominal one (a break) is not used: nominal instead.
        let far = Self.block(sequence: 1, time: Self.packedNine + 5, fraction15: 0, samples: samples)
        let broken = try Self.read(Self.header() + b0 + far).streams[0].times
        #expect(broken[79] == Double(Self.nine) + (0 + 79 * 0.01) && broken[80] == Double(Self.nine + 5))
    }

    @Test func badBlocksAreCountedAndReportedNeverPassedOn() throws {
        let s = (0..<4).map { [$0, 0, 0] }
        let b0 = Self.block(sequence: 0, samples: s)
        var b1 = Self.block(sequence: 1, time: Self.packedNine + 1, samples: s)
        b1[40] ^= 0x04                                            // checksum fails
        let b2 = Self.block(sequence: 2, time: Self.packedNine + 2, samples: s)
        let repeated = b2
        let back = b0                                             // sequence 0 after 2
        var other = [UInt8](repeating: 0xff, count: 512)          // not `AX`
        other[0] = 0x55; other[1] = 0x42
        let badAxes = Self.block(sequence: 3, time: Self.packedNine + 3, axes: 9, samples: [])
        let badTime = Self.block(sequence: 4, time: 0, samples: s)
        let b5 = Self.block(sequence: 5, time: Self.packedNine + 5, samples: s)
        let bytes = Self.header() + b0 + b1 + b2 + repeated + back + other + badAxes + badTime + b5 + [1, 2, 3]
        for chunk in [1, 7, 512, 1000, 1 << 20] {
            let file = try Self.read(bytes, chunk: chunk)
            #expect(file.rowsRead == 12, "chunk \(chunk)")
            #expect(file.streams[0].lines == [0, 0, 0, 0, 2, 2, 2, 2, 8, 8, 8, 8], "chunk \(chunk)")
            #expect(file.rowsDropped == ["cwa_bad_checksum": 1, "cwa_repeated_block": 1, "cwa_backwards_block": 1,
                                         "cwa_not_data_block": 1, "cwa_bad_block": 2, "cwa_partial_block": 1], "chunk \(chunk)")
            #expect(file.warnings == [
                "rec.cwa: 1 block dropped (cwa_not_data_block: not a data block: it does not start `AX`), the first at byte 3584",
                "rec.cwa: 1 block dropped (cwa_bad_checksum: its checksum fails), the first at byte 1536",
                "rec.cwa: 2 blocks dropped (cwa_bad_block: impossible fields: axes, packing, sample count, rate code or timestamp), the first at byte 4096",
                "rec.cwa: 1 block dropped (cwa_repeated_block: the same sequence number as the block before), the first at byte 2560",
                "rec.cwa: 1 block dropped (cwa_backwards_block: back in sequence number or time), the first at byte 3072",
                "rec.cwa: the file ends with a partial block of 3 bytes at byte 5632, dropped (cwa_partial_block)",
            ], "chunk \(chunk)")
        }
        let got = ingestErrorMessage { _ = try Self.read(bytes, strict: true) }
        #expect(got?.message == "rec.cwa at byte 5632: the file ends with a partial block of 3 bytes (blocks are 512 bytes; the file was cut short; without `strict: true` the whole blocks are read and the tail is counted as `cwa_partial_block`)")
    }

    @Test func aBlockWhoseTimeGoesBackIsDropped() throws {
        let s = (0..<4).map { [$0, 0, 0] }
        let b0 = Self.block(sequence: 0, time: Self.packedNine + 10, samples: s)
        let b1 = Self.block(sequence: 1, time: Self.packedNine, samples: s)       // 10 s earlier
        let b2 = Self.block(sequence: 2, time: Self.packedNine + 11, samples: s)
        let file = try Self.read(Self.header() + b0 + b1 + b2)
        #expect(file.rowsDropped == ["cwa_backwards_block": 1])
        let first: [Double] = (0..<4).map { (i: Int) -> Double in Double(Self.nine + 10) + (0 + Double(i) * 0.01) }
        let last: [Double] = (0..<4).map { (i: Int) -> Double in Double(Self.nine + 11) + (0 + Double(i) * 0.01) }
        #expect(file.streams[0].times == first + last)
    }

    @Test func temperatureIsOneReadingPerBlock() throws {
        let s = (0..<4).map { [$0, 0, 0] }
        let bytes = Self.header() + Self.block(sequence: 0, temperature: 256, samples: s)
            + Self.block(sequence: 1, time: Self.packedNine + 1, temperature: 0, samples: s)
        let file = try Self.read(bytes, keep: ["acc", "temperature"], units: .si)
        #expect(file.streams.map(\.name) == ["acc", "temperature"])
        // 256 × 75 / 256 − 50 = 25 °C, at the block's first sample; raw 0 means no reading.
        #expect(file.streams[1].channels == [[25]] && file.streams[1].times == [Double(Self.nine)])
        #expect(file.streams[1].channelUnits == ["degC"])
        #expect(file.rowsDropped == ["missing_value": 1])
    }

    @Test func filesThatAreNotCWAAreOneSentenceWithTheByteOffset() {
        let cases: [([UInt8], String)] = [
            ([], "rec.cwa at byte 0: the file is empty (expected a 1024-byte header block starting `MD`, then 512-byte data blocks)"),
            (Array("time,x,y,z\n".utf8), "rec.cwa at byte 0: not an Axivity CWA file: it starts with 74 69 6d 65 2c 78 2c 79 (expected the header block's `MD`, 4d 44)"),
            ([0x4d], "rec.cwa at byte 0: not an Axivity CWA file: it starts with 4d (expected the header block's `MD`, 4d 44)"),
            (Array(Self.header().prefix(700)), "rec.cwa at byte 700: the file ends at byte 700, inside its 1024-byte header block (the file was cut short)"),
            (Self.header(), "rec.cwa at byte 1024: no data rows: the file has a header but no data block (a file without data is an error unless `on_error: skip`)"),
            (Self.header() + [UInt8](repeating: 0, count: 1024),
             "rec.cwa at byte 1024: no data rows: none of its 2 data blocks has a sample that could be used (cwa_not_data_block: 2) (a file without data is an error unless `on_error: skip`)"),
        ]
        for (bytes, message) in cases {
            for chunk in [1, 3, 4096] {
                let got = ingestErrorMessage { _ = try Self.read(bytes, chunk: chunk) }
                #expect(got?.message == message, "chunk \(chunk)")
                #expect(got?.status == .dataError)
            }
        }
    }

    @Test func checksumWordMakesTheSumZero() {
        var b = Self.block(sequence: 9, samples: [[1, 2, 3]])
        b.withUnsafeBytes { #expect(CWAFormat.checksumHolds($0)) }
        b[511] ^= 0x80
        b.withUnsafeBytes { #expect(!CWAFormat.checksumHolds($0)) }
        b.withUnsafeBytes { raw in
            let fixed = CWAFormat.checksum(raw)
            #expect(fixed == UInt16(b[510]) | (UInt16(b[511] ^ 0x80) << 8))
        }
    }
}
