import MotionCore

/// The four MotionCollector sensors (docs/inputs.md, "MotionCollector"), in output order A, G, M, D.
struct MotionCollectorSensor: Sendable {
    /// `A`, `G`, `M` or `D`.
    var code: String
    /// Legacy `Type` value (0 A, 1 D, 2 G, 3 M).
    var legacyType: Int
    /// Channel names in documented order.
    var channelNames: [String]
    /// Units as MotionCollector writes them.
    var nativeUnits: [String]

    /// The sensors by index: 0 A, 1 G, 2 M, 3 D.
    static let all: [MotionCollectorSensor] = [
        MotionCollectorSensor(code: "A", legacyType: 0, channelNames: ["acc_x", "acc_y", "acc_z"],
                              nativeUnits: ["g", "g", "g"]),
        MotionCollectorSensor(code: "G", legacyType: 2, channelNames: ["gyro_x", "gyro_y", "gyro_z"],
                              nativeUnits: ["rad/s", "rad/s", "rad/s"]),
        MotionCollectorSensor(code: "M", legacyType: 3, channelNames: ["mag_x", "mag_y", "mag_z"],
                              nativeUnits: ["uT", "uT", "uT"]),
        MotionCollectorSensor(code: "D", legacyType: 1,
                              channelNames: ["rot_x", "rot_y", "rot_z", "uacc_x", "uacc_y", "uacc_z",
                                             "pitch", "roll", "yaw"],
                              nativeUnits: ["rad/s", "rad/s", "rad/s", "g", "g", "g", "rad", "rad", "rad"]),
    ]

    /// Index into `all` of a legacy `Type` value 0…3.
    static let indexOfLegacyType: [Int] = [0, 3, 1, 2]

    /// Number of fields a row of this sensor has: Source/Type, (Label), When, the channels.
    func fieldCount(_ variant: MotionCollectorFile.Variant) -> Int {
        channelNames.count + (variant == .current ? 3 : 2)
    }

    /// The output units and multiplication factors under `units`.
    func conversion(_ units: UnitSystem) -> (units: [String], factors: [Double]) {
        let c = nativeUnits.map { PhysicalUnit.conversion(from: $0, to: units) }
        return (c.map(\.unit), c.map(\.factor))
    }
}

/// Header recognition (docs/inputs.md, "MotionCollector").
enum MotionCollectorHeader {
    static let current = ["source", "label", "when", "x", "y", "z", "ua_x", "ua_y", "ua_z", "pitch", "roll", "yaw"]
    static let legacy = ["type", "when", "x", "y", "z", "ua_x", "ua_y", "ua_z", "pitch", "roll", "yaw"]

    /// The variant whose header `text` is: its comma-separated names, blanks trimmed, any case,
    /// must be the documented list or a prefix of it through `Z` (trailing empty names ignored).
    static func variant(of text: String) -> MotionCollectorFile.Variant? {
        var names = text.split(separator: ",", omittingEmptySubsequences: false).map {
            String($0.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()).lowercased()
        }
        while names.count > 1 && names.last == "" { names.removeLast() }
        if names.count >= 6 && names.count <= current.count && Array(current.prefix(names.count)) == names {
            return .current
        }
        if names.count >= 5 && names.count <= legacy.count && Array(legacy.prefix(names.count)) == names {
            return .legacy
        }
        return nil
    }
}
