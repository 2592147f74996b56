import MotionCore
import Testing
@testable import MotionIngest

/// docs/iio-format.md §7.1–§7.6, byte for byte, with the document's numbers. Padding (`xx`) is
/// 0xA5. Values are compared exactly: each doc number is the shortest decimal of
/// `(Double(raw) + offset) * scale`.
@Suite struct IIOWorkedExampleTests {
    /// §7.1: accelerometer, 3 × le:s16/16>>0 + timestamp, scale 0.000598205, monotonic clock.
    @Test func accelerometer71() throws {
        let f = try IIOSysfsTests.accelFolder()
        let layout = try f.load()
        #expect(layout.elements.map(\.byteOffset) == [0, 2, 4] && layout.timestamp?.byteOffset == 8 && layout.scanBytes == 16)
        let bytes = hex("eb 0f | fc 0f | e4 4f | xx xx | d5 00 34 e8 a8 04 00 00")
            + hex("00 80 | 00 80 | 00 80 | xx xx | d5 00 34 e8 a8 04 00 01")
        let path = try f.dump(bytes)
        let dump = try IIODecoder.decode(path: path, displayPath: "rec.bin", layout: layout, units: .si, strict: true, sensor: "imu")
        #expect(dump.stream.channelNames == ["acc_x", "acc_y", "acc_z"])
        #expect(dump.stream.channelUnits == ["m/s^2", "m/s^2", "m/s^2"])
        #expect(dump.stream.channels == [[2.437685375, -19.60198144], [2.44785486, -19.60198144], [12.23448866, -19.60198144]])
        #expect(dump.timestampNanos == [5123496739029, 5123496739029 + (1 << 56)])
        #expect(dump.stream.times[0] == 5123.0 + 496739029 * 1e-9)
        #expect(abs(dump.stream.times[0] - 5123.496739029) < 1e-12)
        #expect(dump.scans == 2 && dump.leftoverBytes == 0 && dump.warnings.isEmpty)
        #expect(dump.stream.name == "imu")
        #expect(dump.stream.lines == [0, 1])
    }

    /// §7.2: le:s12/16>>4 with junk in the low nibble, scale 0.0383, no timestamp.
    @Test func shiftedTwelveBit72() throws {
        let layout = try inlineLayout([decl("in_accel_x", 0, "le:s12/16>>4", scale: 0.038300),
                                       decl("in_accel_y", 1, "le:s12/16>>4", scale: 0.038300),
                                       decl("in_accel_z", 2, "le:s12/16>>4", scale: 0.038300)], frequency: 100)
        #expect(layout.scanBytes == 6)
        let dump = try decodeBytes(hex("53 10 25 10 fd 1f") + hex("01 80 ff 7f 00 00"), layout)
        #expect(dump.stream.channels[0] == [9.9963, -2048 * 0.0383])
        #expect(dump.stream.channels[2] == [19.5713, 0])
        // y: 0x1025 >> 4 = 0x102 = 258; 0x7fff >> 4 = 0x7ff = 2047 (bit 11 clear: positive).
        #expect(dump.stream.channels[1] == [258 * 0.0383, 2047 * 0.0383])
        #expect(dump.stream.times == [0, 0.01])
    }

    /// §7.3: big-endian gyroscope, a disabled channel, little-endian timestamp at index 4, boottime.
    @Test func bigEndianGyroWithDisabledTemp73() throws {
        let f = try SysfsFolder([("in_anglvel_scale", "0.001065264\n"), ("current_timestamp_clock", "boottime\n")])
        for (i, axis) in ["x", "y", "z"].enumerated() { try f.channel("in_anglvel_\(axis)", index: i, type: "be:s16/16>>0") }
        try f.channel("in_temp", enabled: false, index: 3, type: "be:s16/16>>0")
        try f.channel("in_timestamp", index: 4, type: "le:s64/64>>0")
        let layout = try f.load()
        #expect(layout.elements.map(\.byteOffset) == [0, 2, 4] && layout.timestamp?.byteOffset == 8 && layout.scanBytes == 16)
        #expect(layout.clock == "boottime" && layout.warnings.isEmpty)
        let dump = try decodeBytes(hex("0f f6 10 00 0f e1 xx xx 22 d5 fa f5 e5 00 00 00"), layout)
        #expect(dump.stream.channelNames == ["gyro_x", "gyro_y", "gyro_z"])
        #expect(dump.stream.channelUnits == ["rad/s", "rad/s", "rad/s"])
        #expect(dump.stream.channels == [[4.352668704], [4.363321344], [4065 * 0.001065264]])
        #expect(dump.timestampNanos == [987674367266])
    }

    /// §7.4: u8 with offset, 24-in-32 with a flag byte, alignment holes, a separate magn_x scale.
    static func mixedFolder() throws -> SysfsFolder {
        let f = try SysfsFolder([("in_temp_scale", "1000\n"), ("in_temp_offset", "-40\n"), ("in_pressure_scale", "0.00001\n"),
                                 ("in_magn_x_scale", "0.00147\n"), ("in_magn_scale", "0.0015\n"),
                                 ("in_scale", "7\n"), ("scale", "9\n"), ("current_timestamp_clock", "realtime\n")])
        try f.channel("in_temp", index: 0, type: "le:u8/8>>0")
        try f.channel("in_pressure", index: 1, type: "le:u24/32>>0")
        for (i, axis) in ["x", "y", "z"].enumerated() { try f.channel("in_magn_\(axis)", index: 2 + i, type: "le:s16/16>>0") }
        try f.channel("in_timestamp", index: 5, type: "le:s64/64>>0")
        return f
    }

    static let mixedScan = hex("4b xx xx xx | 5a 9b aa 8b | e3 0f 8f 0f 0f 0f | xx xx | f3 da 29 cc 09 00 00 00")

    @Test func mixed74Native() throws {
        let f = try Self.mixedFolder()
        let layout = try f.load()
        #expect(layout.elements.map(\.byteOffset) == [0, 4, 8, 10, 12] && layout.timestamp?.byteOffset == 16 && layout.scanBytes == 24)
        let dump = try decodeBytes(Self.mixedScan, layout)
        #expect(dump.stream.channelNames == ["temp", "pressure", "mag_x", "mag_y", "mag_z"])
        #expect(dump.stream.channelUnits == ["mdegC", "kPa", "gauss", "gauss", "gauss"])
        let expected: [[Double]] = [[35000], [111.80890000000001], [5.97849], [5.9745], [3855 * 0.0015]]
        #expect(dump.stream.channels == expected)
        #expect(dump.timestampNanos == [42080000755])
        #expect(dump.stream.times == [42.080000755])
    }

    @Test func mixed74SI() throws {
        let f = try Self.mixedFolder()
        let dump = try decodeBytes(Self.mixedScan, try f.load(), units: .si)
        #expect(dump.stream.channelUnits == ["degC", "kPa", "uT", "uT", "uT"])
        let expected: [[Double]] = [[35000 * 0.001], [111.80890000000001], [5.97849 * 100], [5.9745 * 100], [3855 * 0.0015 * 100]]
        #expect(dump.stream.channels == expected)
        #expect(dump.stream.channels[0] == [35])
    }

    /// §7.5: big-endian s32 + s16 without timestamp: the 8-byte scan (libiio 0.24 and pre-2023
    /// gbuf step 6 bytes and read −1515880449 for the second scan's accel).
    @Test func tailPadding75() throws {
        let f = try SysfsFolder([("in_accel_x_scale", "0.000000037\n"), ("in_temp_scale", "100\n"), ("in_temp_offset", "250\n"),
                                 ("sampling_frequency", "50\n")])
        try f.channel("in_accel_x", index: 0, type: "be:s32/32>>0")
        try f.channel("in_temp", index: 1, type: "be:s16/16>>0")
        try f.channel("in_timestamp", enabled: false, index: 2, type: "le:s64/64>>0")
        let layout = try f.load()
        #expect(layout.elements.map(\.byteOffset) == [0, 4] && layout.timestamp == nil && layout.scanBytes == 8)
        let dump = try decodeBytes(hex("1f 8f 20 c5 10 05 xx xx") + hex("7f ff ff ff 00 00 xx xx"), layout)
        #expect(dump.stream.channels[0] == [19.590528121000002, 2147483647 * 0.000000037])
        #expect(dump.stream.channels[0][1] != -1515880449 * 0.000000037)
        #expect(dump.stream.channels[1] == [435100, 250 * 100])
        #expect(dump.stream.times == [0, 0.02])
        #expect(dump.scans == 2 && dump.leftoverBytes == 0)
    }

    /// §7.6: quaternion le:s16/32X4>>0 + timestamp: one 16-byte element, ts at 16, scan 32.
    @Test func quaternion76() throws {
        let layout = try inlineLayout([decl("in_rot_quaternion", 0, "le:s16/32X4>>0", scale: 0.000030517)], timestampIndex: 1)
        #expect(layout.elements[0].byteOffset == 0 && layout.timestamp?.byteOffset == 16 && layout.scanBytes == 32)
        #expect(codes(layout.warnings) == ["W_TS_AFTER_LARGE_ELEMENT"])
        let scan = hex("ec 0f fa ff | a6 05 bc 79 | 1a f3 8c 33 | 6a f3 a3 f4 | 40 e2 01 00 00 00 00 00 | xx xx xx xx xx xx xx xx")
        let dump = try decodeBytes(scan, layout)
        #expect(dump.stream.channelNames == ["rot_quaternion_0", "rot_quaternion_1", "rot_quaternion_2", "rot_quaternion_3"])
        #expect(dump.stream.channelUnits == ["1", "1", "1", "1"])
        #expect(dump.stream.channels == [[0.124387292], [0.044127582], [-0.100767134], [-0.098325774]])
        #expect(dump.timestampNanos == [123456])
    }
}
