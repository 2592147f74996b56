import MotionCore
import Testing
@testable import MotionIngest

/// A pipeline input's `units:` on iio channels (docs/pipeline.md; docs/inputs.md, "Units"): a declared unit replaces the IIO
/// ABI's for that output channel, in the unit strings and in the `units: si` conversion.
struct IIODeclaredUnitsTests {
    /// accel x/y (ABI m/s²), anglvel z (ABI rad/s), temp (ABI m°C); s16 each, no timestamp.
    static func layout(declaring units: [String: String]) throws -> IIOLayout {
        var layout = try inlineLayout([decl("in_accel_x", 0, "le:s16/16>>0", scale: 0.5),
                                       decl("in_accel_y", 1, "le:s16/16>>0", scale: 0.5),
                                       decl("in_anglvel_z", 2, "le:s16/16>>0"),
                                       decl("in_temp", 3, "le:s16/16>>0")], frequency: 100)
        layout.declaredUnits = units
        return layout
    }

    static let scan = hex("04 00 | fa ff | b4 00 | e8 03")  // 4, -6, 180, 1000

    struct Row: Sendable, CustomTestStringConvertible {
        var declared: [String: String]
        var system: UnitSystem
        var units: [String]
        var values: [Double]
        var testDescription: String { "\(declared) \(system)" }
    }

    static let rows: [Row] = [
        Row(declared: [:], system: .si, units: ["m/s^2", "m/s^2", "rad/s", "degC"], values: [2, -3, 180, 1]),
        Row(declared: [:], system: .native, units: ["m/s^2", "m/s^2", "rad/s", "mdegC"], values: [2, -3, 180, 1000]),
        Row(declared: ["acc_x": "g", "gyro_z": "deg/s"], system: .si, units: ["m/s^2", "m/s^2", "rad/s", "degC"],
            values: [2 * 9.80665, -3, 180 * Double.pi / 180, 1]),
        Row(declared: ["acc_x": "g", "gyro_z": "deg/s"], system: .native, units: ["g", "m/s^2", "deg/s", "mdegC"],
            values: [2, -3, 180, 1000]),
        // A declared unit replaces the ABI's even where the ABI's would be converted.
        Row(declared: ["temp": "degC"], system: .si, units: ["m/s^2", "m/s^2", "rad/s", "degC"], values: [2, -3, 180, 1000]),
        Row(declared: ["temp": "1"], system: .si, units: ["m/s^2", "m/s^2", "rad/s", "1"], values: [2, -3, 180, 1000]),
    ]

    @Test(arguments: rows)
    func declaredUnitsReplaceTheABIs(_ row: Row) throws {
        let layout = try Self.layout(declaring: row.declared)
        #expect(layout.channelNames == ["acc_x", "acc_y", "gyro_z", "temp"])
        #expect(layout.channelUnits(row.system) == row.units)
        let dump = try decodeBytes(Self.scan, layout, units: row.system)
        #expect(dump.stream.channelUnits == row.units)
        let values = dump.stream.channels.map { $0[0] }
        for (got, want) in zip(values, row.values) {
            #expect(abs(got - want) <= 1e-12 * max(1, abs(want)), "\(values) vs \(row.values)")
        }
    }

    @Test func repeatElementsTakeUnitsPerOutputChannel() throws {
        var layout = try inlineLayout([decl("in_rot_quaternion", 0, "le:s16/16X4>>0")], frequency: 10)
        layout.declaredUnits = ["rot_quaternion_2": "rad"]
        #expect(layout.channelUnits(.si) == ["1", "1", "rad", "1"])
    }
}
