import MotionCore
import Testing
@testable import MotionIngest

/// docs/iio-format.md §3: offsets and scan sizes, layout errors and warnings, names and units.
@Suite struct IIOLayoutTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var title: String
        var channels: [IIOLayout.ChannelDeclaration]
        var timestampIndex: Int?
        var offsets: [Int]
        var timestampOffset: Int?
        var scanBytes: Int
        var testDescription: String { title }
    }

    /// Every row of the §3.2 table (the libiio 0.24 column is what we must NOT produce).
    static let rows: [Row] = [
        Row(title: "devbuf: be:u16, be:u32, be:u32, be:u64",
            channels: [decl("in_voltage0", 0, "be:u16/16>>0"), decl("in_voltage1", 1, "be:u32/32>>0"),
                       decl("in_voltage2", 2, "be:u32/32>>0"), decl("in_voltage3", 3, "be:u64/64>>0")],
            offsets: [0, 4, 8, 16], scanBytes: 24),
        Row(title: "devbuf: be:u16, be:u64 (channels 1, 2 disabled)",
            channels: [decl("in_voltage0", 0, "be:u16/16>>0"), decl("in_voltage3", 3, "be:u64/64>>0")],
            offsets: [0, 8], scanBytes: 16),
        Row(title: "accel x,y,z le:s16 + ts",
            channels: [decl("in_accel_x", 0, "le:s16/16>>0"), decl("in_accel_y", 1, "le:s16/16>>0"), decl("in_accel_z", 2, "le:s16/16>>0")],
            timestampIndex: 3, offsets: [0, 2, 4], timestampOffset: 8, scanBytes: 16),
        Row(title: "accel xyz, temp, gyro xyz be:s16 + ts",
            channels: [decl("in_accel_x", 0, "be:s16/16>>0"), decl("in_accel_y", 1, "be:s16/16>>0"), decl("in_accel_z", 2, "be:s16/16>>0"),
                       decl("in_temp", 3, "be:s16/16>>0"),
                       decl("in_anglvel_x", 4, "be:s16/16>>0"), decl("in_anglvel_y", 5, "be:s16/16>>0"), decl("in_anglvel_z", 6, "be:s16/16>>0")],
            timestampIndex: 7, offsets: [0, 2, 4, 6, 8, 10, 12], timestampOffset: 16, scanBytes: 24),
        Row(title: "u8, u32",
            channels: [decl("in_voltage0", 0, "le:u8/8>>0"), decl("in_voltage1", 1, "le:u32/32>>0")],
            offsets: [0, 4], scanBytes: 8),
        Row(title: "s32, s16 without ts: tail padding (libiio 0.24: 6)",
            channels: [decl("in_accel_x", 0, "be:s32/32>>0"), decl("in_temp", 1, "be:s16/16>>0")],
            offsets: [0, 4], scanBytes: 8),
        Row(title: "3 × u8",
            channels: [decl("in_voltage0", 0, "le:u8/8>>0"), decl("in_voltage1", 1, "le:u8/8>>0"), decl("in_voltage2", 2, "le:u8/8>>0")],
            offsets: [0, 1, 2], scanBytes: 3),
        Row(title: "accel_x idx 0, accel_z idx 5, ts idx 9 (index gaps)",
            channels: [decl("in_accel_z", 5, "le:s16/16>>0"), decl("in_accel_x", 0, "le:s16/16>>0")],
            timestampIndex: 9, offsets: [0, 2], timestampOffset: 8, scanBytes: 16),
        Row(title: "in_rot_quaternion le:s32/32X4 + ts (libiio 0.24: 24)",
            channels: [decl("in_rot_quaternion", 0, "le:s32/32X4>>0")],
            timestampIndex: 1, offsets: [0], timestampOffset: 16, scanBytes: 32),
        Row(title: "ts only", channels: [], timestampIndex: 0, offsets: [], timestampOffset: 0, scanBytes: 8),
    ]

    @Test(arguments: rows)
    func workedLayouts(_ row: Row) throws {
        let layout = try inlineLayout(row.channels, timestampIndex: row.timestampIndex)
        #expect(layout.elements.map(\.byteOffset) == row.offsets)
        #expect(layout.elements.map(\.index) == layout.elements.map(\.index).sorted())
        #expect(layout.timestamp?.byteOffset == row.timestampOffset)
        #expect(layout.scanBytes == row.scanBytes)
    }

    @Test func moreAlignmentCases() throws {
        // A repeat element is aligned to its whole size (kernel), not its word size (libiio).
        let l = try inlineLayout([decl("in_voltage0", 0, "le:u16/16>>0"), decl("in_rot_quaternion", 1, "le:s16/32X4>>0")])
        #expect(l.elements.map(\.byteOffset) == [0, 16])
        #expect(l.scanBytes == 32)
        // u8 then u16 then u8: 0, 2, 4; scan padded to 6.
        let m = try inlineLayout([decl("in_a", 0, "le:u8/8>>0"), decl("in_b", 1, "le:u16/16>>0"), decl("in_c", 2, "le:u8/8>>0")])
        #expect(m.elements.map(\.byteOffset) == [0, 2, 4])
        #expect(m.scanBytes == 6)
        // u8 + ts: ts at 8, scan 16.
        let n = try inlineLayout([decl("in_a", 0, "le:u8/8>>0")], timestampIndex: 1)
        #expect(n.timestamp?.byteOffset == 8)
        #expect(n.scanBytes == 16)
    }

    @Test func timestampNotLastIsPlacedLastWithAWarning() throws {
        let l = try inlineLayout([decl("in_accel_x", 1, "le:s16/16>>0", scale: 1), decl("in_accel_y", 2, "le:s16/16>>0", scale: 1)],
                                 timestampIndex: 0)
        #expect(l.elements.map(\.byteOffset) == [0, 2])
        #expect(l.timestamp?.byteOffset == 8)
        #expect(l.scanBytes == 16)
        #expect(l.warnings.map(\.message) == ["layout: `in_timestamp` has scan index 0, below `in_accel_y`'s 2; the kernel still places it after every channel (W_TS_NOT_LAST)"])
    }

    @Test func timestampTypeWarning() throws {
        let l = try inlineLayout([decl("in_accel_x", 0, "le:s16/16>>0", scale: 1)], timestampIndex: 1, timestampType: "le:u64/64>>0")
        #expect(l.warnings.map(\.message) == ["layout: `in_timestamp` has type `le:u64/64>>0`, not the usual `s64/64>>0`; it is read as declared from its 8 bytes (W_TS_TYPE)"])
        #expect(l.scanBytes == 16)
        let be = try inlineLayout([decl("in_accel_x", 0, "be:s16/16>>0", scale: 1)], timestampIndex: 1, timestampType: "be:s64/64>>0")
        #expect(be.warnings.isEmpty)
    }

    @Test func timestampAfterLargeElementWarning() throws {
        let l = try inlineLayout([decl("in_rot_quaternion", 0, "le:s16/32X4>>0", scale: 1)], timestampIndex: 1)
        #expect(codes(l.warnings) == ["W_TS_AFTER_LARGE_ELEMENT"])
        #expect(l.warnings[0].message == "layout: `in_timestamp` follows `in_rot_quaternion`, an element of 16 bytes; it is read at the ABI position, byte 16, though kernels before 6.19 wrote it in the scan's last 8 bytes (W_TS_AFTER_LARGE_ELEMENT)")
    }

    @Test func noScaleAndClockWarnings() throws {
        let l = try IIOLayout(channels: [decl("in_accel_x", 0, "le:s16/16>>0"), decl("in_accel_y", 1, "le:s16/16", scale: 2)],
                              timestamp: decl("in_timestamp", 2, "le:s64/64>>0"), samplingFrequencyHz: nil, clock: nil, source: "dev")
        #expect(codes(l.warnings) == ["W_NO_SCALE", "W_TYPE_NO_SHIFT", "W_CLOCK_UNKNOWN"])
        #expect(l.warnings[0].message == "dev: `in_accel_x` has no scale; its values stay in raw counts (W_NO_SCALE)")
        #expect(l.warnings[2].message == "dev: no `current_timestamp_clock`; assuming `realtime`, the kernel's default (W_CLOCK_UNKNOWN)")
        // Inline layouts have no clock attribute: no warning. Without a timestamp the clock does not matter.
        let inline = try IIOLayout(channels: [decl("in_accel_x", 0, "le:s16/16>>0", scale: 1)], timestamp: decl("in_timestamp", 1, "le:s64/64>>0"),
                                   samplingFrequencyHz: nil, clock: nil, warnAboutClock: false, source: "dev")
        #expect(inline.warnings.isEmpty)
        let noTS = try IIOLayout(channels: [decl("in_accel_x", 0, "le:s16/16>>0", scale: 1)], timestamp: nil,
                                 samplingFrequencyHz: 10, clock: nil, source: "dev")
        #expect(noTS.warnings.isEmpty)
    }

    struct Failure: Sendable, CustomTestStringConvertible {
        var title: String
        var channels: [IIOLayout.ChannelDeclaration]
        var timestampIndex: Int?
        var message: String
        var testDescription: String { title }
    }

    static let failures: [Failure] = [
        Failure(title: "no channels", channels: [], timestampIndex: nil,
                message: "layout: no scan element is enabled, so a scan holds nothing (enable at least one channel with `_en` = 1) (E_NO_CHANNELS)"),
        Failure(title: "duplicate index", channels: [decl("in_accel_y", 1, "le:s16/16>>0"), decl("in_accel_x", 1, "le:s16/16>>0")], timestampIndex: nil,
                message: "layout: `in_accel_x` and `in_accel_y` are both enabled with scan index 1 (each enabled channel needs its own index) (E_DUP_INDEX)"),
        Failure(title: "timestamp shares an index", channels: [decl("in_accel_x", 0, "le:s16/16>>0")], timestampIndex: 0,
                message: "layout: `in_accel_x` and `in_timestamp` are both enabled with scan index 0 (each enabled channel needs its own index) (E_DUP_INDEX)"),
        Failure(title: "bad type names its source", channels: [decl("in_accel_x", 0, "le:s16/16>>0"), decl("in_accel_y", 1, "le:s24/24>>0")], timestampIndex: nil,
                message: "layout.in_accel_y: `in_accel_y` has type `le:s24/24>>0`: storagebits 24 is not 8, 16, 32 or 64 (E_STORAGEBITS; expected `[be|le]:[s|u]realbits/storagebits[Xrepeat][>>shift]` with storagebits 8, 16, 32 or 64, such as `le:s16/16>>0`)"),
        Failure(title: "too many channels", channels: (0...4096).map { decl("in_voltage\($0)", $0, "le:u8/8>>0") }, timestampIndex: nil,
                message: "layout: the layout has more than 4096 channels or a scan over 1048576 bytes (at `in_voltage4096`), more than motionprep accepts (E_LIMIT)"),
        Failure(title: "too many repeat sub-channels", channels: [decl("in_rot_quaternion", 0, "le:u8/8X8192>>0")], timestampIndex: nil,
                message: "layout: the layout has more than 4096 channels or a scan over 1048576 bytes (at `in_rot_quaternion`), more than motionprep accepts (E_LIMIT)"),
        Failure(title: "huge repeat element", channels: [decl("in_rot_quaternion", 0, "le:u64/64X1099511627776>>0")], timestampIndex: nil,
                message: "layout: the layout has more than 4096 channels or a scan over 1048576 bytes (at `in_rot_quaternion`), more than motionprep accepts (E_LIMIT)"),
        Failure(title: "repeat columns over the limit", channels: (0..<300).map { decl("in_v\($0)", $0, "le:u32/32X1024>>0") }, timestampIndex: nil,
                message: "layout: the layout has more than 4096 channels or a scan over 1048576 bytes (at `in_v4`), more than motionprep accepts (E_LIMIT)"),
    ]

    @Test(arguments: failures)
    func rejects(_ row: Failure) {
        let got = ingestErrorMessage { _ = try inlineLayout(row.channels, timestampIndex: row.timestampIndex) }
        #expect(got?.message == row.message)
        #expect(got?.status == .dataError)
    }

    @Test func exactlyTheChannelLimitIsAccepted() throws {
        // 4096 output columns of 8 bytes: the largest scan the column limit allows (32 KiB), so
        // the 1 MiB scan limit is a second fence that only a bug in the first could reach.
        let l = try inlineLayout((0..<64).map { decl("in_v\($0)", $0, "le:u64/64X64>>0") })
        #expect(l.channelNames.count == 4096)
        #expect(l.scanBytes == 4096 * 8)
    }

    @Test func missingTimeSource() throws {
        let l = try inlineLayout([decl("in_accel_x", 0, "le:s16/16>>0")])
        let got = ingestErrorMessage { try l.checkTimeSource() }
        #expect(got?.message == "layout: `in_timestamp` is not enabled and there is no sampling frequency, so scan times are unknown (enable the timestamp, or give `sampling_frequency` in the layout folder or `sampling_frequency_hz` inline) (E_NO_TIME)")
        #expect(throws: Never.self) { try inlineLayout([decl("in_accel_x", 0, "le:s16/16>>0")], frequency: 100).checkTimeSource() }
        #expect(throws: Never.self) { try inlineLayout([decl("in_accel_x", 0, "le:s16/16>>0")], timestampIndex: 1).checkTimeSource() }
    }

    @Test(arguments: [
        ("in_accel_x", "acc_x", "m/s^2"), ("in_anglvel_z", "gyro_z", "rad/s"), ("in_magn_y", "mag_y", "gauss"),
        ("in_pressure", "pressure", "kPa"), ("in_temp", "temp", "mdegC"), ("in_voltage0", "voltage0", "1"),
        ("in_accel0_x", "acc0_x", "m/s^2"), ("in_incli_x", "incli_x", "1"), ("in_humidityrelative", "humidityrelative", "1"),
        ("in_voltage0-voltage1", "voltage0-voltage1", "1"), ("in_rot_quaternion", "rot_quaternion", "1"),
        ("in_magn_x_raw_thing", "mag_x_raw_thing", "gauss"), ("accel_x", "acc_x", "m/s^2"),
    ])
    func namesAndUnits(_ sysfs: String, _ name: String, _ unit: String) {
        #expect(IIOLayout.outputName(sysfs) == name)
        #expect(IIOLayout.nativeUnit(sysfs) == unit)
    }

    @Test(arguments: [
        ("in_accel_x", "in_accel"), ("in_voltage0", "in_voltage"), ("in_rot_quaternion", "in_rot"),
        ("in_voltage0-voltage1", "in_voltage-voltage"), ("in_temp", "in_temp"), ("in_magn_y", "in_magn"),
    ])
    func typeNames(_ sysfs: String, _ type: String) {
        #expect(IIOLayout.typeName(sysfs) == type)
    }

    @Test func channelNamesUnitsAndRepeatSubChannels() throws {
        let l = try inlineLayout([decl("in_temp", 4, "le:s16/16>>0"), decl("in_magn_x", 2, "le:s16/16>>0"),
                                  decl("in_rot_quaternion", 3, "le:s16/32X4>>0"), decl("in_accel_x", 0, "le:s16/16>>0")])
        #expect(l.channelNames == ["acc_x", "mag_x", "rot_quaternion_0", "rot_quaternion_1", "rot_quaternion_2", "rot_quaternion_3", "temp"])
        #expect(l.nativeUnits == ["m/s^2", "gauss", "1", "1", "1", "1", "mdegC"])
        #expect(l.channelUnits(.si) == ["m/s^2", "uT", "1", "1", "1", "1", "degC"])
        #expect(l.channelUnits(.native) == l.nativeUnits)
    }
}
