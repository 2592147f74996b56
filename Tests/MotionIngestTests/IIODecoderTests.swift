import MotionCore
import Testing
@testable import MotionIngest

/// `IIODecoder`: tails, empty dumps, time sources, time order, chunk boundaries, and the kernel
/// against its safe reference.
@Suite struct IIODecoderTests {
    static func accel() throws -> IIOLayout {
        try inlineLayout([decl("in_accel_x", 0, "le:s16/16>>0", scale: 0.5), decl("in_accel_y", 1, "le:s16/16>>0", scale: 0.5),
                          decl("in_accel_z", 2, "le:s16/16>>0", scale: 0.5)], timestampIndex: 3)
    }

    /// A 16-byte accel scan: x, y, z counts, padding 0xA5, timestamp ns.
    static func scan(_ x: Int16, _ y: Int16, _ z: Int16, ns: Int64) -> [UInt8] {
        var b: [UInt8] = []
        for v in [x, y, z] { b += [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }
        b += [0xA5, 0xA5]
        for k in 0..<8 { b.append(UInt8(truncatingIfNeeded: ns >> (8 * k))) }
        return b
    }

    @Test func truncatedTailWarnsAndCountsOnePartialScan() throws {
        let bytes = Self.scan(1, 2, 3, ns: 1_000_000_000) + Self.scan(4, 5, 6, ns: 1_010_000_000) + [1, 2, 3, 4, 5]
        let dump = try decodeBytes(bytes, Self.accel())
        #expect(dump.scans == 2 && dump.leftoverBytes == 5 && dump.fileBytes == 37)
        #expect(dump.stream.channels == [[0.5, 2], [1, 2.5], [1.5, 3]])
        #expect(dump.rowsDropped == ["partial_scan": 1])
        #expect(dump.warnings.map(\.message) == ["rec.bin: the dump ends with a partial scan: 5 bytes at byte 32 (scans are 16 bytes) were dropped (W_TRUNCATED_TAIL:5B)"])
    }

    @Test func truncatedTailIsAnErrorUnderStrict() throws {
        let bytes = Self.scan(1, 2, 3, ns: 1) + Self.scan(4, 5, 6, ns: 2) + [1, 2, 3, 4, 5]
        let got = ingestErrorMessage { _ = try decodeBytes(bytes, Self.accel(), strict: true) }
        #expect(got?.message == "rec.bin at byte 32: the dump ends with a partial scan of 5 bytes (scans are 16 bytes; the capture was cut short; without `strict: true` the whole scans are decoded and the tail is dropped)")
        #expect(got?.status == .dataError)
        // A whole dump passes under strict.
        #expect(try decodeBytes(Self.scan(1, 2, 3, ns: 1), Self.accel(), strict: true).scans == 1)
    }

    @Test func emptyDumpWarnsAndHasNoSamples() throws {
        let dump = try decodeBytes([], Self.accel())
        #expect(dump.scans == 0 && dump.stream.count == 0 && dump.stream.channels == [[], [], []])
        #expect(dump.warnings.map(\.message) == ["rec.bin: the dump is empty (W_EMPTY_DUMP)"])
        #expect(dump.rowsDropped.isEmpty)
        // What the pipeline then throws (docs/inputs.md, "Bad rows and time order": no data rows).
        let e = IngestError(.iioNoScans(fileBytes: 0, scanBytes: 16), at: SourceLocation(file: "rec.bin"))
        #expect(e.message == "rec.bin: no data rows: the dump is empty (a file without data is an error unless `on_error: skip`)")
        let short = IngestError(.iioNoScans(fileBytes: 5, scanBytes: 16), at: SourceLocation(file: "rec.bin"))
        #expect(short.message == "rec.bin: no data rows: the dump's 5 bytes are less than one 16-byte scan (a file without data is an error unless `on_error: skip`)")
    }

    @Test func shorterThanOneScan() throws {
        let dump = try decodeBytes([1, 2, 3], Self.accel())
        #expect(dump.scans == 0 && dump.leftoverBytes == 3)
        #expect(codes(dump.warnings) == ["W_TRUNCATED_TAIL"])
    }

    @Test func missingSamplingFrequencyWithoutTimestamp() throws {
        let layout = try inlineLayout([decl("in_accel_x", 0, "le:s16/16>>0", scale: 1)])
        let got = ingestErrorMessage { _ = try decodeBytes([0, 0], layout) }
        #expect(got?.message == "layout: `in_timestamp` is not enabled and there is no sampling frequency, so scan times are unknown (enable the timestamp, or give `sampling_frequency` in the layout folder or `sampling_frequency_hz` inline) (E_NO_TIME)")
    }

    @Test func timesFromSamplingFrequency() throws {
        let layout = try inlineLayout([decl("in_accel_x", 0, "le:s16/16>>0", scale: 1)], frequency: 3)
        let dump = try decodeBytes([UInt8](repeating: 0, count: 8), layout)
        #expect(dump.stream.times == [0, 1.0 / 3, 2.0 / 3, 1])
        #expect(dump.timestampNanos.isEmpty)
    }

    @Test func timestampSecondsKeepRealtimePrecision() throws {
        // 2025-ish realtime stamp, beyond 2^53 ns: whole seconds exact, the fraction added once.
        let ns: Int64 = 1_735_689_600_123_456_789
        let dump = try decodeBytes(Self.scan(0, 0, 0, ns: ns) + Self.scan(0, 0, 0, ns: -1_500_000_000), Self.accel(), strict: true)
        #expect(dump.stream.times[0] == 1_735_689_600.0 + 123_456_789 * 1e-9)
        #expect(dump.stream.times[1] == -1.0 + -500_000_000 * 1e-9)
    }

    @Test func decreasingTimestampsKeepFileOrderWarnAndFailTheTimeCheck() throws {
        let bytes = Self.scan(1, 1, 1, ns: 3_000_000_000) + Self.scan(2, 2, 2, ns: 3_010_000_000)
            + Self.scan(3, 3, 3, ns: 3_005_000_000) + Self.scan(4, 4, 4, ns: 3_020_000_000)
        let dump = try decodeBytes(bytes, Self.accel())
        #expect(dump.stream.times == [3, 3.01, 3.005, 3.02])
        #expect(dump.stream.channels[0] == [0.5, 1, 1.5, 2])
        #expect(dump.warnings.map(\.message) == ["rec.bin: the timestamp of scan 2 at byte offset 32 is not after the previous scan's (3005000000 ns after 3010000000 ns) (W_TS_NON_MONOTONIC)"])
        let got = ingestErrorMessage { try IIODecoder.checkTimeOrder(dump, displayPath: "rec.bin") }
        #expect(got?.message == "rec.bin: scan 2 at byte offset 32: `imu` timestamp 3.005 s is earlier than the previous scan's 3.01 s (times in a stream must not decrease; `sort: true` on the input sorts them)")
        // Equal stamps warn but pass the check (TimeOrder keeps the last and counts it).
        let equal = try decodeBytes(Self.scan(1, 1, 1, ns: 5) + Self.scan(2, 2, 2, ns: 5), Self.accel())
        #expect(codes(equal.warnings) == ["W_TS_NON_MONOTONIC"])
        #expect(throws: Never.self) { try IIODecoder.checkTimeOrder(equal, displayPath: "rec.bin") }
    }

    @Test func paddingIsNeverRead() throws {
        // Same values with 0xA5 and 0x00 padding decode the same.
        let a = Self.scan(-7, 300, 32767, ns: 9)
        var b = a
        b[6] = 0; b[7] = 0
        #expect(try decodeBytes(a, Self.accel()) == decodeBytes(b, Self.accel()))
    }

    @Test func fileErrors() throws {
        let f = try SysfsFolder()
        let layout = try Self.accel()
        let missing = ingestErrorMessage { _ = try IIODecoder.decode(path: f.path + "/none.bin", displayPath: "none.bin", layout: layout, units: .native, strict: false, sensor: "s") }
        #expect(missing?.message == "none.bin: cannot open the file: No such file or directory")
        #expect(missing?.status == .noInput)
        let folder = ingestErrorMessage { _ = try IIODecoder.decode(path: f.path, displayPath: "dir", layout: layout, units: .native, strict: false, sensor: "s") }
        #expect(folder?.message == "dir: cannot open the file: Is a directory")
    }

    @Test func readingAFileLargerThanOneReadMatchesChunks() throws {
        // 3 MiB + a partial scan: reads of 1 MiB rounded down to whole scans (3 and 24 bytes do
        // not divide 1 MiB, 8 does).
        let layouts = [
            try inlineLayout([decl("in_a", 0, "le:u8/8>>0"), decl("in_b", 1, "le:s8/8>>0"), decl("in_c", 2, "le:u8/8>>0")], frequency: 1000),
            try inlineLayout([decl("in_a", 0, "be:s16/16>>0", scale: 0.25), decl("in_b", 1, "le:u32/32>>0")], frequency: 1000),
            try IIOWorkedExampleTests.mixedFolder().load(),
        ]
        var rng = SeededGenerator(seed: 11)
        let bytes = (0..<(3 << 20) + 5).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let f = try SysfsFolder()
        let path = try f.dump(bytes)
        for layout in layouts {
            let fromFile = try IIODecoder.decode(path: path, displayPath: "rec.bin", layout: layout, units: .native, strict: false, sensor: "imu")
            let fromChunks = try decodeBytes(bytes, layout)
            #expect(fromFile == fromChunks)
            #expect(fromFile.scans == bytes.count / layout.scanBytes && fromFile.leftoverBytes == bytes.count % layout.scanBytes)
        }
    }

    // MARK: - Chunk boundaries and the safe reference

    /// Layouts covering every word size, both byte orders, shifts, signs, repeats, offsets and
    /// timestamps in either byte order.
    static func layouts() throws -> [IIOLayout] {
        [
            try accel(),
            try inlineLayout([decl("in_temp", 0, "le:u8/8>>0", scale: 1000, offset: -40), decl("in_pressure", 1, "le:u24/32>>0", scale: 0.00001),
                              decl("in_magn_x", 2, "le:s16/16>>0", scale: 0.00147), decl("in_magn_y", 3, "be:s12/16>>4", scale: 0.0015)],
                             timestampIndex: 5),
            try inlineLayout([decl("in_accel_x", 0, "be:s32/32>>0", scale: 0.000000037), decl("in_temp", 1, "be:s16/16>>0", scale: 100, offset: 250)],
                             frequency: 50),
            try inlineLayout([decl("in_rot_quaternion", 0, "le:s16/32X4>>0", scale: 0.000030517)], timestampIndex: 1, timestampType: "be:s64/64>>0"),
            try inlineLayout([decl("in_a", 0, "le:u8/8>>0"), decl("in_b", 1, "le:s3/8>>2"), decl("in_c", 2, "be:u64/64>>0"),
                              decl("in_d", 3, "le:s64/64>>0", scale: 1e-9), decl("in_e", 4, "be:s48/64>>8", offset: 0.5)], frequency: 7),
            try inlineLayout([decl("in_a", 0, "le:u8/8>>0"), decl("in_b", 1, "le:u8/8>>0"), decl("in_c", 2, "le:s7/8>>1")], frequency: 1),
        ]
    }

    @Test func chunkBoundaryVerifier() throws {
        var rng = SeededGenerator(seed: 5)
        for layout in try Self.layouts() {
            let scans = 37
            let bytes = (0..<(scans * layout.scanBytes + layout.scanBytes / 2)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            for units in [UnitSystem.native, .si] {
                let once = try decodeBytes(bytes, layout, units: units)
                #expect(once.scans == scans)
                for size in 1...64 {
                    var chunks: [[UInt8]] = []
                    var i = 0
                    while i < bytes.count { chunks.append(Array(bytes[i..<min(i + size, bytes.count)])); i += size }
                    let cut = try IIODecoder.decode(chunks: chunks, displayPath: "rec.bin", layout: layout, units: units, strict: false, sensor: "imu")
                    #expect(cut == once, "scan \(layout.scanBytes) B, chunks of \(size)")
                }
                // Uneven cuts, empty chunks included.
                var uneven: [[UInt8]] = [[]]
                var i = 0
                while i < bytes.count {
                    let n = Int.random(in: 0...(3 * layout.scanBytes), using: &rng)
                    uneven.append(Array(bytes[i..<min(i + n, bytes.count)]))
                    i += n
                }
                #expect(try IIODecoder.decode(chunks: uneven, displayPath: "rec.bin", layout: layout, units: units, strict: false, sensor: "imu") == once)
            }
        }
    }

    @Test func kernelMatchesSafeReferenceAtEverySize() throws {
        var rng = SeededGenerator(seed: 9)
        for layout in try Self.layouts() {
            for scans in 0...40 {
                let bytes = (0..<(scans * layout.scanBytes)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                for units in [UnitSystem.native, .si] {
                    let dump = try decodeBytes(bytes, layout, units: units)
                    let ref = _IIOReference.decode(bytes, layout: layout, units: units)
                    #expect(dump.stream.channels.count == ref.columns.count)
                    for (a, b) in zip(dump.stream.channels, ref.columns) {
                        #expect(a.map(\.bitPattern) == b.map(\.bitPattern), "\(layout.channelNames) at \(scans) scans")
                    }
                    #expect(dump.timestampNanos == ref.nanos)
                }
            }
        }
    }

    @Test func extremesOfEveryWordSize() throws {
        let layout = try inlineLayout([decl("in_a", 0, "le:s8/8>>0"), decl("in_b", 1, "le:u8/8>>0"), decl("in_c", 2, "be:s16/16>>0"),
                                       decl("in_d", 3, "le:u16/16>>0"), decl("in_e", 4, "be:s32/32>>0"), decl("in_f", 5, "le:u32/32>>0"),
                                       decl("in_g", 6, "le:s64/64>>0"), decl("in_h", 7, "be:u64/64>>0")], frequency: 1)
        #expect(layout.elements.map(\.byteOffset) == [0, 1, 2, 4, 8, 12, 16, 24] && layout.scanBytes == 32)
        let minimum = hex("80 | 00 | 80 00 | 00 00 | xx xx | 80 00 00 00 | 00 00 00 00 | 00 00 00 00 00 00 00 80 | 00 00 00 00 00 00 00 00")
        let maximum = hex("7f | ff | 7f ff | ff ff | xx xx | 7f ff ff ff | ff ff ff ff | ff ff ff ff ff ff ff 7f | ff ff ff ff ff ff ff ff")
        let dump = try decodeBytes(minimum + maximum, layout)
        let expected: [[Double]] = [[-128, 127], [0, 255], [-32768, 32767], [0, 65535], [-2147483648, 2147483647],
                                    [0, 4294967295], [Double(Int64.min), Double(Int64.max)], [0, Double(UInt64.max)]]
        #expect(dump.stream.channels == expected)
    }
}
