/// Unit handling per docs/inputs.md, "Units".
public enum UnitSystem: String, Sendable, CaseIterable {
    /// Convert to m/s², rad/s, µT, kPa, °C.
    case si
    /// Keep what was read.
    case native
}

/// The unit strings docs/inputs.md, "Units" accepts, and their SI conversions.
public enum PhysicalUnit {
    /// Every accepted unit string.
    public static let accepted: [String] = ["g", "m/s^2", "rad/s", "deg/s", "uT", "gauss", "kPa", "hPa", "Pa",
                                            "m", "degC", "mdegC", "rad", "%", "1"]

    /// Standard gravity, m/s² per g.
    public static let standardGravity = 9.80665

    /// How a channel read in `unit` is written under `system`: the output unit and the
    /// factor to multiply values by (docs/inputs.md, "Units").
    public static func conversion(from unit: String, to system: UnitSystem) -> (unit: String, factor: Double) {
        guard system == .si else { return (unit, 1) }
        switch unit {
        case "g": return ("m/s^2", standardGravity)
        case "deg/s": return ("rad/s", Double.pi / 180)
        case "gauss": return ("uT", 100)
        case "hPa": return ("kPa", 0.1)
        case "Pa": return ("kPa", 0.001)
        case "mdegC": return ("degC", 0.001)
        default: return (unit, 1)
        }
    }
}
