import MotionCore
import Testing
@testable import MotionIngest

/// `IIOLayout.load(folder:)`: sysfs copies built in temp folders (docs/iio-format.md §1, §4.2, §5).
@Suite struct IIOSysfsTests {
    /// The synth's device: 3 × le:s16 accel + ts, in_accel_scale, 100 Hz, monotonic.
    static func accelFolder(folder: String = "scan_elements") throws -> SysfsFolder {
        let f = try SysfsFolder([("in_accel_scale", "0.000598205\n"), ("sampling_frequency", "100\n"),
                                 ("current_timestamp_clock", "monotonic\n"), ("name", "lsm6dsx\n")])
        for (i, axis) in ["x", "y", "z"].enumerated() { try f.channel("in_accel_\(axis)", index: i, type: "le:s16/16>>0", folder: folder) }
        try f.channel("in_timestamp", index: 3, type: "le:s64/64>>0", folder: folder)
        return f
    }

    @Test(arguments: ["scan_elements", "buffer0"])
    func readsScanElementsOrBuffer0(_ folder: String) throws {
        let f = try Self.accelFolder(folder: folder)
        let l = try f.load()
        #expect(l.elements.map(\.name) == ["in_accel_x", "in_accel_y", "in_accel_z"])
        #expect(l.elements.map(\.byteOffset) == [0, 2, 4])
        #expect(l.elements.map(\.scale) == [0.000598205, 0.000598205, 0.000598205])
        #expect(l.elements.map(\.offset) == [nil, nil, nil])
        #expect(l.timestamp?.byteOffset == 8)
        #expect(l.scanBytes == 16)
        #expect(l.samplingFrequencyHz == 100)
        #expect(l.clock == "monotonic")
        #expect(l.warnings.isEmpty)
        #expect(l.source == "dev")
        #expect(l.channelNames == ["acc_x", "acc_y", "acc_z"])
    }

    @Test func scanElementsWinsOverBuffer0() throws {
        let f = try Self.accelFolder()
        try f.channel("in_temp", index: 0, type: "le:s16/16>>0", folder: "buffer0")
        #expect(try f.load().channelNames == ["acc_x", "acc_y", "acc_z"])
    }

    @Test func disabledChannelsNeedNoOtherAttributesAndTakeNoSpace() throws {
        let f = try Self.accelFolder()
        try f.write("scan_elements/in_temp_en", "0\n")       // no _index, no _type: fine, it is disabled
        try f.channel("in_accel_y", enabled: false, index: 1, type: "le:s16/16>>0")
        let l = try f.load()
        #expect(l.elements.map(\.name) == ["in_accel_x", "in_accel_z"])
        #expect(l.elements.map(\.byteOffset) == [0, 2])
        #expect(l.timestamp?.byteOffset == 8)
        #expect(l.scanBytes == 16)
    }

    @Test func timestampDisabled() throws {
        let f = try Self.accelFolder()
        try f.channel("in_timestamp", enabled: false, index: 3, type: "le:s64/64>>0")
        let l = try f.load()
        #expect(l.timestamp == nil)
        #expect(l.scanBytes == 6)
    }

    @Test func scaleAndOffsetLookupPrecedence() throws {
        let f = try SysfsFolder([("sampling_frequency", "10\n"),
                                 ("in_accel_x_scale", "1.5\n"), ("in_accel_scale", "2.5\n"), ("in_scale", "3.5\n"), ("scale", "4.5\n"),
                                 ("in_accel_x_offset", "-1\n"), ("in_accel_offset", "-2\n"), ("in_offset", "-3\n"), ("offset", "-4\n"),
                                 ("in_voltage_scale", "0.25\n"), ("in_voltage-voltage_scale", "0.125\n")])
        try f.channel("in_accel_x", index: 0, type: "le:s16/16>>0")    // separate
        try f.channel("in_accel_y", index: 1, type: "le:s16/16>>0")    // by type
        try f.channel("in_anglvel_x", index: 2, type: "le:s16/16>>0")  // by direction
        try f.channel("out_voltage0", index: 3, type: "le:s16/16>>0")  // shared by all
        try f.channel("in_voltage3", index: 4, type: "le:s16/16>>0")   // type name drops digits
        try f.channel("in_voltage0-voltage1", index: 5, type: "le:s16/16>>0")
        let l = try f.load()
        #expect(l.elements.map(\.scale) == [1.5, 2.5, 3.5, 4.5, 0.25, 0.125])
        #expect(l.elements.map(\.offset) == [-1, -2, -3, -4, -3, -3])
    }

    @Test func missingScaleWarns() throws {
        let f = try SysfsFolder([("sampling_frequency", "10\n"), ("current_timestamp_clock", "realtime\n"), ("in_magn_scale", "0.0015\n")])
        try f.channel("in_magn_x", index: 0, type: "le:s16/16>>0")
        try f.channel("in_pressure", index: 1, type: "le:u24/32>>0")
        let l = try f.load()
        #expect(l.warnings.map(\.message) == ["dev: `in_pressure` has no scale; its values stay in raw counts (W_NO_SCALE)"])
    }

    @Test func missingClockWarnsOnlyWithATimestamp() throws {
        let g = try SysfsFolder([("in_accel_scale", "1\n")])
        try g.channel("in_accel_x", index: 0, type: "le:s16/16>>0")
        try g.channel("in_timestamp", index: 1, type: "le:s64/64>>0")
        #expect(codes(try g.load().warnings) == ["W_CLOCK_UNKNOWN"])
        #expect(try g.load().clock == nil)
    }

    @Test(arguments: [
        ([("sampling_frequency", "200\n"), ("in_accel_sampling_frequency", "100\n")], 200.0),
        ([("in_accel_sampling_frequency", "100.000000\n"), ("buffer/sampling_frequency", "50\n")], 100.0),
        ([("buffer/sampling_frequency", "50\n"), ("trigger0/sampling_frequency", "25\n")], 50.0),
        ([("buffer0/sampling_frequency", "40\n"), ("trigger0/sampling_frequency", "25\n")], 40.0),
        ([("trigger1/sampling_frequency", "12.5\n"), ("trigger0/sampling_frequency", "25\n")], 25.0),
    ] as [([(String, String)], Double)])
    func samplingFrequencyPlaces(_ files: [(String, String)], _ expected: Double) throws {
        let f = try SysfsFolder(files + [("in_accel_scale", "1\n")])
        try f.channel("in_accel_x", index: 0, type: "le:s16/16>>0")
        #expect(try f.load().samplingFrequencyHz == expected)
    }

    @Test func noSamplingFrequencyAnywhere() throws {
        let f = try SysfsFolder([("in_accel_scale", "1\n")])
        try f.channel("in_accel_x", index: 0, type: "le:s16/16>>0")
        #expect(try f.load().samplingFrequencyHz == nil)
    }

    struct Broken: Sendable, CustomTestStringConvertible {
        var title: String
        var files: [(String, String)]
        var message: String
        var testDescription: String { title }
    }

    static let broken: [Broken] = [
        Broken(title: "no scan_elements or buffer0", files: [("name", "x\n")],
               message: "dev: the layout folder has neither `scan_elements/` nor `buffer0/` (copy the device's sysfs folder, `/sys/bus/iio/devices/iio:deviceN/`) (E_MISSING_ATTR)"),
        Broken(title: "no enabled channel", files: [("scan_elements/in_accel_x_en", "0\n")],
               message: "dev: no scan element is enabled, so a scan holds nothing (enable at least one channel with `_en` = 1) (E_NO_CHANNELS)"),
        Broken(title: "enabled without index", files: [("scan_elements/in_accel_x_en", "1\n"), ("scan_elements/in_accel_x_type", "le:s16/16>>0\n")],
               message: "dev/scan_elements/in_accel_x_en: `in_accel_x` is enabled but has no `in_accel_x_index` (E_MISSING_ATTR)"),
        Broken(title: "enabled without type", files: [("scan_elements/in_accel_x_en", "1\n"), ("scan_elements/in_accel_x_index", "0\n")],
               message: "dev/scan_elements/in_accel_x_en: `in_accel_x` is enabled but has no `in_accel_x_type` (E_MISSING_ATTR)"),
        Broken(title: "_en not 0 or 1", files: [("scan_elements/in_accel_x_en", "yes\n")],
               message: "dev/scan_elements/in_accel_x_en: `yes` is not 0 or 1 (E_BAD_NUMBER)"),
        Broken(title: "negative index", files: [("scan_elements/in_accel_x_en", "1\n"), ("scan_elements/in_accel_x_index", "-1\n"), ("scan_elements/in_accel_x_type", "le:s16/16>>0\n")],
               message: "dev/scan_elements/in_accel_x_index: `-1` is not a scan index (expected a whole number such as `0`) (E_BAD_NUMBER)"),
        Broken(title: "bad scale", files: [("scan_elements/in_accel_x_en", "1\n"), ("scan_elements/in_accel_x_index", "0\n"), ("scan_elements/in_accel_x_type", "le:s16/16>>0\n"), ("in_accel_scale", "0x10\n")],
               message: "dev/in_accel_scale: `0x10` is not a number (expected a plain decimal such as `0.000598205` or `-40`) (E_BAD_NUMBER)"),
        Broken(title: "nan offset", files: [("scan_elements/in_accel_x_en", "1\n"), ("scan_elements/in_accel_x_index", "0\n"), ("scan_elements/in_accel_x_type", "le:s16/16>>0\n"), ("in_accel_x_offset", "nan\n")],
               message: "dev/in_accel_x_offset: `nan` is not a number (expected a plain decimal such as `0.000598205` or `-40`) (E_BAD_NUMBER)"),
        Broken(title: "bad sampling frequency", files: [("scan_elements/in_accel_x_en", "1\n"), ("scan_elements/in_accel_x_index", "0\n"), ("scan_elements/in_accel_x_type", "le:s16/16>>0\n"), ("sampling_frequency", "fast\n")],
               message: "dev/sampling_frequency: `fast` is not a number (expected a plain decimal such as `0.000598205` or `-40`) (E_BAD_NUMBER)"),
        Broken(title: "zero sampling frequency", files: [("scan_elements/in_accel_x_en", "1\n"), ("scan_elements/in_accel_x_index", "0\n"), ("scan_elements/in_accel_x_type", "le:s16/16>>0\n"), ("sampling_frequency", "0\n")],
               message: "dev/sampling_frequency: sampling frequency `0.0` is not above 0 (E_BAD_NUMBER)"),
        Broken(title: "bad type names the _type file", files: [("scan_elements/in_accel_x_en", "1\n"), ("scan_elements/in_accel_x_index", "0\n"), ("scan_elements/in_accel_x_type", "cpu:s16/16>>0\n")],
               message: "dev/scan_elements/in_accel_x_type: `in_accel_x` has type `cpu:s16/16>>0`: it does not follow the grammar (E_TYPE_MALFORMED; expected `[be|le]:[s|u]realbits/storagebits[Xrepeat][>>shift]` with storagebits 8, 16, 32 or 64, such as `le:s16/16>>0`)"),
        Broken(title: "duplicate index", files: [("scan_elements/in_accel_x_en", "1\n"), ("scan_elements/in_accel_x_index", "0\n"), ("scan_elements/in_accel_x_type", "le:s16/16>>0\n"),
                                                 ("scan_elements/in_accel_y_en", "1\n"), ("scan_elements/in_accel_y_index", "0\n"), ("scan_elements/in_accel_y_type", "le:s16/16>>0\n")],
               message: "dev: `in_accel_x` and `in_accel_y` are both enabled with scan index 0 (each enabled channel needs its own index) (E_DUP_INDEX)"),
    ]

    @Test(arguments: broken)
    func rejects(_ row: Broken) throws {
        let f = try SysfsFolder(row.files)
        let got = ingestErrorMessage { _ = try f.load() }
        #expect(got?.message == row.message)
        #expect(got?.status == .dataError)
    }

    @Test func missingFolderIsNoInput() {
        let got = ingestErrorMessage { _ = try IIOLayout.load(folder: "/nonexistent/iio-sysfs", displayFolder: "data/sysfs") }
        #expect(got?.message == "data/sysfs: cannot open the file: No such file or directory")
        #expect(got?.status == .noInput)
    }
}
