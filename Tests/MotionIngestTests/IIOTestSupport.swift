import Foundation
import MotionCore
@testable import MotionIngest

/// A temporary copy of an IIO device's sysfs folder, built file by file and removed on `deinit`.
final class SysfsFolder {
    let path: String

    /// Creates an empty folder; `files` are (path relative to it, content) pairs, written as given.
    init(_ files: [(String, String)] = []) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("iio-sysfs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (name, text) in files { try write(name, text) }
    }

    /// Writes `text` to `relative`, creating folders as needed.
    func write(_ relative: String, _ text: String) throws {
        let url = URL(fileURLWithPath: path + "/" + relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// Writes the three scan-element files of one channel (values end in "\n", as sysfs's do).
    func channel(_ name: String, enabled: Bool = true, index: Int, type: String, folder: String = "scan_elements") throws {
        try write("\(folder)/\(name)_en", enabled ? "1\n" : "0\n")
        try write("\(folder)/\(name)_index", "\(index)\n")
        try write("\(folder)/\(name)_type", type + "\n")
    }

    /// Writes a dump file beside the folder and returns its path.
    func dump(_ bytes: [UInt8], name: String = "rec.bin") throws -> String {
        let file = path + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return file
    }

    func load() throws -> IIOLayout {
        try IIOLayout.load(folder: path, displayFolder: "dev")
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A channel declaration for inline layouts in tests.
func decl(_ name: String, _ index: Int, _ type: String, scale: Double? = nil, offset: Double? = nil) -> IIOLayout.ChannelDeclaration {
    IIOLayout.ChannelDeclaration(name: name, index: index, type: type, scale: scale, offset: offset, typeSource: "layout.\(name)")
}

/// An inline layout.
func inlineLayout(_ channels: [IIOLayout.ChannelDeclaration], timestampIndex: Int? = nil,
                  timestampType: String = "le:s64/64>>0", frequency: Double? = nil) throws -> IIOLayout {
    try IIOLayout(channels: channels,
                  timestamp: timestampIndex.map { IIOLayout.ChannelDeclaration(name: "in_timestamp", index: $0, type: timestampType, typeSource: "layout.ts") },
                  samplingFrequencyHz: frequency, clock: "monotonic", source: "layout")
}

/// Decodes bytes fed all at once.
func decodeBytes(_ bytes: [UInt8], _ layout: IIOLayout, units: UnitSystem = .native, strict: Bool = false) throws -> IIODump {
    try IIODecoder.decode(chunks: [bytes], displayPath: "rec.bin", layout: layout, units: units, strict: strict, sensor: "imu")
}

/// Bytes from a hex string such as "eb 0f | fc 0f xx"; `xx` is padding, written 0xA5 so that a
/// decoder reading padding shows up; `|` is ignored.
func hex(_ text: String) -> [UInt8] {
    text.split(whereSeparator: { $0 == " " || $0 == "\n" }).filter { $0 != "|" }.map { $0 == "xx" ? 0xA5 : UInt8($0, radix: 16)! }
}

/// The codes of warnings.
func codes(_ warnings: [IIOWarning]) -> [String] { warnings.map(\.code) }
