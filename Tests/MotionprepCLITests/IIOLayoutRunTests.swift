import Foundation
import MotionCore
import MotionprepCLI
import Testing

/// Exit statuses of `run` and `validate` for iio layouts: an inline layout is part of the
/// pipeline file (78), a layout folder is input data (65); `units:` keys must name channels of
/// the layout (78 either way). The messages are checked in MotionConfigTests and
/// tests/python/test_hostile.py.
struct IIOLayoutRunTests {
    /// 300 scans of two s16 channels and a timestamp at 100 Hz: 2 + 2 + 4 padding + 8 bytes each.
    static let dump: [UInt8] = (0..<300).flatMap { (i: Int) -> [UInt8] in
        let x = UInt16(bitPattern: Int16(i)), y = UInt16(bitPattern: Int16(-i))
        let ns = UInt64(i) * 10_000_000
        return [UInt8(x & 0xFF), UInt8(x >> 8), UInt8(y & 0xFF), UInt8(y >> 8), 0, 0, 0, 0]
            + (0..<8).map { UInt8((ns >> (8 * UInt64($0))) & 0xFF) }
    }

    static let inlineLayout = """
        {channels: [{name: in_accel_x, index: 0, type: "le:s16/16>>0", scale: 0.01},
                          {name: in_accel_y, index: 1, type: "le:s16/16>>0", scale: 0.01}],
               timestamp: {index: 2, type: "le:s64/64>>0"}}
        """

    static let sysfs: [String: String] = [
        "data/sysfs/scan_elements/in_accel_x_en": "1\n", "data/sysfs/scan_elements/in_accel_x_index": "0\n",
        "data/sysfs/scan_elements/in_accel_x_type": "le:s16/16>>0\n",
        "data/sysfs/scan_elements/in_accel_y_en": "1\n", "data/sysfs/scan_elements/in_accel_y_index": "1\n",
        "data/sysfs/scan_elements/in_accel_y_type": "le:s16/16>>0\n",
        "data/sysfs/scan_elements/in_timestamp_en": "1\n", "data/sysfs/scan_elements/in_timestamp_index": "2\n",
        "data/sysfs/scan_elements/in_timestamp_type": "le:s64/64>>0\n",
        "data/sysfs/in_accel_scale": "0.01\n", "data/sysfs/current_timestamp_clock": "monotonic\n",
    ]

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var layout: String
        var extra: String = ""
        var files: [String: String] = [:]
        var run: MotionCore.ExitStatus
        var validate: MotionCore.ExitStatus
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "inline, good", layout: inlineLayout, run: .success, validate: .success),
        Case(name: "inline, units in g", layout: inlineLayout, extra: "    units: {acc_x: g}\n", run: .success, validate: .success),
        Case(name: "inline, invalid type", layout: inlineLayout.replacing("index: 0, type: \"le:s16", with: "index: 0, type: \"le:s17"),
             run: .config, validate: .config),
        Case(name: "inline, duplicate index", layout: inlineLayout.replacing("index: 1", with: "index: 0"), run: .config, validate: .config),
        Case(name: "inline, no time", layout: "{channels: [{name: in_accel_x, index: 0, type: \"le:s16/16>>0\"}]}", run: .config, validate: .config),
        Case(name: "inline, units naming no channel", layout: inlineLayout, extra: "    units: {acc_z: g}\n", run: .config, validate: .config),
        Case(name: "folder, good", layout: "\"{dirpath}/sysfs\"", files: sysfs, run: .success, validate: .success),
        Case(name: "folder, units naming no channel", layout: "\"{dirpath}/sysfs\"", extra: "    units: {acc_z: g}\n", files: sysfs,
             run: .config, validate: .config),
        Case(name: "folder, invalid type", layout: "\"{dirpath}/sysfs\"",
             files: sysfs.merging(["data/sysfs/scan_elements/in_accel_y_type": "le:s17/16>>0\n"]) { $1 },
             run: .dataError, validate: .dataError),
    ]

    static func pipeline(_ c: Case) -> String {
        """
        version: 1
        inputs:
          - type: iio
            paths: ["data/*.bin"]
            layout: \(c.layout)
        \(c.extra)resample: {rate_hz: 50}
        window: {length_s: 1, stride_s: 0.5}
        output: {type: hdf5, path: out}

        """
    }

    @Test(arguments: cases)
    func exitStatus(_ c: Case) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("motionprep-iio-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir + "/data", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(Self.dump).write(to: URL(fileURLWithPath: dir + "/data/rec.bin"))
        for (name, text) in c.files {
            let url = URL(fileURLWithPath: dir + "/" + name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        try Self.pipeline(c).write(toFile: dir + "/p.yaml", atomically: false, encoding: .utf8)
        #expect(MotionprepCommand.run(["validate", dir + "/p.yaml"]) == c.validate)
        #expect(MotionprepCommand.run(["run", dir + "/p.yaml", "--quiet", "--jobs", "1"]) == c.run)
        let manifest = dir + "/out/manifest.json"
        #expect(FileManager.default.fileExists(atPath: manifest) == (c.run == .success))
        if c.run == .success {
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifest))) as? [String: Any]
            let channels = try #require(json?["channels"] as? [[String: String]])
            #expect(channels == [["name": "acc_x", "unit": "m/s^2"], ["name": "acc_y", "unit": "m/s^2"]])
        }
    }
}
