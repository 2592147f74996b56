import MotionCore
@testable import MotionIngest

/// The wide format most tests use: `time,x,y,z,activity`.
let wideFormat = CSVFormat(timeColumn: "time",
                           channels: [.init(name: "acc_x", column: "x"), .init(name: "acc_y", column: "y"),
                                      .init(name: "acc_z", column: "z")],
                           labelColumn: "activity")

/// Reads a csv file held in a string, fed all at once.
func readCSV(_ text: String, format: CSVFormat = wideFormat, units: [String: String] = [:],
             unitSystem: UnitSystem = .native, name: String = "Accelerometer", keep: Set<String>? = nil,
             path: String = "rec.csv") throws -> CSVFile {
    try CSVReader.read(chunks: [Array(text.utf8)], displayPath: path, format: format, units: units,
                       unitSystem: unitSystem, wideSensorName: name, keep: keep)
}

/// Channels `prefix_x`, `prefix_y`, `prefix_z` read from columns x, y, z.
func xyz(_ prefix: String) -> [CSVFormat.Channel] {
    ["x", "y", "z"].map { CSVFormat.Channel(name: "\(prefix)_\($0)", column: $0) }
}
