import MotionCore
import Testing
@testable import MotionIngest

/// `GT3XFormat` and `GT3XReader` on archives and records built byte by byte here from ActiGraph's
/// published format (actigraph/GT3X-File-Format), with values worked out by hand: the 12-bit
/// ACTIVITY example of LogRecords/Activity.md, the PARAMETERS example of LogRecords/Parameters.md
/// (its checksum 0x9B), ACTIVITY2, idle sleep, damaged records, chunking and the errors.
@Suite struct GT3XReaderTests {
    static func bytes(_ hex: String) -> [UInt8] {
        hex.split(whereSeparator: { $0 == " " || $0 == "\n" }).map { UInt8($0, radix: 16)! }
    }

    /// A record with its checksum (one's complement of the XOR of every byte before it).
    static func record(_ type: UInt8, _ second: UInt32, _ payload: [UInt8], checksum: UInt8? = nil) -> [UInt8] {
        var r: [UInt8] = [0x1E, type] + (0..<4).map { UInt8((second >> (8 * UInt32($0))) & 0xff) }
            + [UInt8(payload.count & 0xff), UInt8(payload.count >> 8)] + payload
        r.append(checksum ?? ~r.reduce(0, ^))
        return r
    }

    /// ACTIVITY2 payload of int16 x, y, z per sample.
    static func activity2(_ samples: [[Int16]]) -> [UInt8] {
        samples.flatMap { $0.flatMap { v -> [UInt8] in let u = UInt16(bitPattern: v); return [UInt8(u & 0xff), UInt8(u >> 8)] } }
    }

    /// A ZIP archive of stored members (CRC-32 by bit, as the ZIP specification defines it).
    static func zip(_ members: [(String, [UInt8])]) -> [UInt8] {
        func crc(_ d: [UInt8]) -> UInt32 {
            var c: UInt32 = 0xffff_ffff
            for b in d { c ^= UInt32(b); for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0xEDB8_8320 : c >> 1 } }
            return ~c
        }
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8 & 0xff)] }
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * UInt32($0)) & 0xff) } }
        var out: [UInt8] = [], cd: [UInt8] = []
        for (name, data) in members {
            let n = Array(name.utf8), offset = out.count
            let common = le16(20) + le16(0) + le16(0) + le16(0) + le16(0x21) + le32(crc(data)) + le32(UInt32(data.count))
                + le32(UInt32(data.count)) + le16(n.count) + le16(0)
            out += le32(0x0403_4b50) + common + n + data
            cd += le32(0x0201_4b50) + le16(20) + common + le16(0) + le16(0) + le16(0) + le32(0) + le32(UInt32(offset)) + n
        }
        let at = out.count
        return out + cd + le32(0x0605_4b50) + le16(0) + le16(0) + le16(members.count) + le16(members.count)
            + le32(UInt32(cd.count)) + le32(UInt32(at)) + le16(0)
    }

    static let info = Array("Serial Number: MOS2E00000001\r\nSample Rate: 2\r\nAcceleration Scale: 256.0\r\n".utf8)

    static func file(_ log: [UInt8], info: [UInt8] = info) -> [UInt8] { zip([("info.txt", info), ("log.bin", log)]) }

    static func read(_ f: [UInt8], chunk: Int = 1 << 16, strict: Bool = false) throws -> GT3XFile {
        try #require(try GT3XReader.read(bytes: f, displayPath: "t.gt3x", keep: ["acc"], units: .native, strict: strict, chunkBytes: chunk))
    }

    @Test func activityUnpacksTheSpecExample() {
        // LogRecords/Activity.md: three samples y, x, z = (6, 8, −323), (7, 9, −321), (7, 8, −321).
        let p = Self.bytes("00 60 08 EB D0 07 00 9E BF 00 70 08 EB F0")
        let v = p.withUnsafeBytes { GT3XFormat.decodeActivity($0) }
        #expect(v == [8, 6, -323, 9, 7, -321, 8, 7, -321])
    }

    @Test func parametersExampleChecksumAndValues() throws {
        // LogRecords/Parameters.md's record: checksum 9B; ACCEL_SCALE 256, SAMPLE_RATE 30, sleep mode on.
        let r = Self.bytes("""
            1E 15 F2 24 D2 54 A8 01 00 00 06 00 02 00 00 00 00 00 07 00 81 95 41 03 00 00 08 00 03 00 00 00
            00 00 09 00 27 AA 0D 54 00 00 0D 00 25 00 01 01 00 00 10 00 00 00 80 E4 00 00 14 00 00 00 00 00
            00 00 15 00 00 00 00 00 00 00 16 00 00 00 00 00 00 00 17 00 00 00 00 00 00 00 1A 00 02 00 00 00
            00 00 1C 00 7D 01 00 00 00 00 1D 00 07 00 00 00 00 00 20 00 01 00 01 01 00 00 25 00 00 04 00 00
            00 00 26 00 00 00 00 00 00 00 31 00 00 00 40 0C 00 00 32 00 37 89 41 05 00 00 33 00 07 3A 6D 03
            00 00 37 00 00 00 40 09 00 00 39 00 AE 77 53 09 00 00 3A 00 00 00 54 05 01 00 00 00 00 00 00 00
            01 00 01 00 44 D4 12 AF 01 00 02 00 14 01 00 00 01 00 03 00 07 00 00 00 01 00 04 00 49 FF FF FF
            01 00 05 00 1A FF FF FF 01 00 06 00 52 FF FF FF 01 00 07 00 31 01 00 00 01 00 08 00 20 01 00 00
            01 00 09 00 24 01 00 00 01 00 0A 00 1E 00 00 00 01 00 0C 00 E0 25 D2 54 01 00 0D 00 70 85 D3 54
            01 00 0E 00 F2 24 D2 54 01 00 0F 00 44 00 00 00 01 00 10 00 1F 00 00 00 01 00 11 00 3F 00 00 00
            01 00 14 00 00 00 00 00 01 00 15 00 00 00 00 00 01 00 21 00 60 EA 00 00 01 00 22 00 1E F8 FF FF
            01 00 23 00 A7 F7 FF FF 01 00 24 00 DC F7 FF FF 01 00 25 00 1D 08 00 00 01 00 26 00 A4 07 00 00
            01 00 27 00 00 08 00 00 01 00 28 00 00 00 00 00 01 00 29 00 00 00 00 00 01 00 2A 00 FE FF FF FF
            01 00 2B 00 37 00 00 00 01 00 2C 00 00 00 00 00 9B
            """)
        #expect(r.count == 8 + 424 + 1)
        #expect(r.dropLast().withUnsafeBytes { GT3XFormat.checksum($0) } == 0x9B)
        let p = r[8..<(8 + 424)].withUnsafeBytes { GT3XFormat.parameters($0) }
        #expect(p.sampleRate == 30 && p.accelScale == 256 && p.sleepMode == true)
        // IMU_ACCEL_SCALE 0C400000 is 2048; BATTERY_VOLTAGE 03419581 is 0x419581 / 2^23 × 2^3 ≈ 4.099 V ("4.1 V").
        #expect(GT3XFormat.sspFloat(0x0C40_0000) == 2048)
        #expect(GT3XFormat.sspFloat(0x0341_9581) == 4_298_113.0 / 1_048_576)
    }

    @Test func activity2SamplesTimesAndValues() throws {
        let log = Self.record(0x1A, 1000, Self.activity2([[256, -512, 128], [0, 1, -1]]))
            + Self.record(0x1A, 1003, Self.activity2([[512, 0, 0]]))           // a gap of 2 s: times jump
        let f = try Self.read(Self.file(log))
        let acc = try #require(f.streams.first)
        #expect(acc.times == [1000, 1000.5, 1003])
        #expect(acc.channels[0] == [1, 0, 2] && acc.channels[1] == [-2, 1.0 / 256, 0] && acc.channels[2] == [0.5, -1.0 / 256, 0])
        #expect(acc.lines == [0, 0, 1])
        #expect(f.rowsRead == 3 && f.rowsDropped.isEmpty && f.warnings.isEmpty)
    }

    @Test func oneSampleIsAFile() throws {
        let f = try Self.read(Self.file(Self.record(0x1A, 5, Self.activity2([[1, 2, 3]]))))
        #expect(f.rowsRead == 1 && f.streams[0].times == [5])
    }

    @Test func idleSleepIsFilledWithTheLastSampleAndCounted() throws {
        let a = Self.activity2([[1, 2, 3], [4, 5, 6]])
        let log = Self.record(0x1A, 100, a) + Self.record(0x03, 101, [0x08]) + Self.record(0x03, 104, [0x09])
            + Self.record(0x1A, 104, a)
        for chunk in [1, 5, 1 << 16] {
            let f = try Self.read(Self.file(log), chunk: chunk)
            let acc = f.streams[0]
            #expect(acc.times == [100, 100.5, 101, 101.5, 102, 102.5, 103, 103.5, 104, 104.5])
            #expect(acc.channels[0] == [1, 4, 4, 4, 4, 4, 4, 4, 1, 4].map { $0 / 256 })
            #expect(f.rowsRead == 4 && f.rowsDropped == [GT3XFormat.idleSleepFilled: 6])
        }
        // Still asleep at the end of the file: filled to the last record's second.
        let open = Self.record(0x1A, 100, a) + Self.record(0x03, 101, [0x08]) + Self.record(0x02, 103, [0x68, 0x10])
        let g = try Self.read(Self.file(open))
        #expect(g.streams[0].times == [100, 100.5, 101, 101.5, 102, 102.5])
    }

    @Test func damagedRecordsAreDroppedAndCounted() throws {
        let r1 = Self.record(0x1A, 10, Self.activity2([[1, 1, 1]])), r2 = Self.record(0x1A, 11, Self.activity2([[2, 2, 2]]))
        var bad = Self.record(0x1A, 12, Self.activity2([[3, 3, 3]]))
        bad[9] ^= 1
        let log = r1 + [0, 0, 0] + r2 + bad + r2 + r1 + [0x55, 0x1E, 0x99] + Self.record(0x1A, 13, Self.activity2([[4, 4, 4]]))
            + Self.record(0x1A, 14, Self.activity2([[5, 5]] .map { $0 + [5] } + [[6, 6, 6], [7, 7, 7]]))   // 3 samples > rate 2
        let f = try Self.read(Self.file(log), chunk: 3)
        #expect(f.streams[0].times == [10, 11, 13])
        #expect(f.rowsDropped == ["gt3x_bad_checksum": 1, "gt3x_repeated_record": 1, "gt3x_backwards_record": 1,
                                  "gt3x_unreadable_bytes": 1, "gt3x_bad_record": 1])
        #expect(f.warnings.contains("t.gt3x: 1 record dropped (gt3x_bad_checksum: its checksum fails), the first at byte \(r1.count + 3 + r2.count) of `log.bin`"))
    }

    @Test func aCutRecordIsCountedOrAnErrorUnderStrict() throws {
        let log = Self.record(0x1A, 10, Self.activity2([[1, 1, 1]])) + Array(Self.record(0x1A, 11, Self.activity2([[2, 2, 2]])).prefix(9))
        #expect(try Self.read(Self.file(log)).rowsDropped == ["gt3x_partial_record": 1])
        #expect(throws: IngestError.self) { try Self.read(Self.file(log), strict: true) }
    }

    @Test func errorsNameTheFileAndOffset() {
        func message(_ f: [UInt8]) -> String {
            do { _ = try Self.read(f); return "" } catch let e as IngestError { #expect(e.exitStatus == .dataError); return e.message } catch { return "\(error)" }
        }
        #expect(message(Self.file([])) == "t.gt3x: no data rows: `log.bin` has 0 records and no activity record (a file without data is an error unless `on_error: skip`)")
        #expect(message(Array(Self.file([1]).dropLast(3))).hasPrefix("t.gt3x at byte "))
        #expect(message(Self.zip([("log.bin", [])])).contains("the archive has no `info.txt` (its members: `log.bin`)"))
        let noScale = Array("Serial Number: XYZ1\nSample Rate: 2\n".utf8)
        #expect(message(Self.file(Self.record(0x1A, 1, Self.activity2([[1, 1, 1]])), info: noScale))
                == "t.gt3x: byte 0 of `log.bin`: no acceleration scale: `info.txt` has no `Acceleration Scale`, no PARAMETERS record gives ACCEL_SCALE, and the serial number `XYZ1` is not one whose scale is known (NEO, CLE, MRA: 341; MOS: 256)")
        let bom = [0xEF, 0xBB, 0xBF] + Array("Serial Number: NEO1\nSample Rate: 2\n".utf8)
        #expect(message(Self.file(Self.record(0x1A, 1, Self.activity2([[341, 0, 0]])), info: bom)) == "")
    }

    @Test func sameResultForAnyChunking() throws {
        var log: [UInt8] = []
        for s in 0..<20 { log += Self.record(s % 3 == 0 ? 0x00 : 0x1A, UInt32(50 + s), s % 3 == 0 ? [0x00, 0x60, 0x08, 0xEB, 0xD0, 0x07, 0x00, 0x9E, 0xBF] : Self.activity2([[Int16(s), 1, 2], [3, Int16(-s), 5]])) }
        let whole = try Self.read(Self.file(log))
        for chunk in [1, 2, 7, 64, 333] { #expect(try Self.read(Self.file(log), chunk: chunk) == whole) }
        #expect(whole.rowsRead == 40)
    }
}
