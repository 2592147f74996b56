// Helpers shared by the test targets: temporary folders, a seeded generator, running a child
// process, and finding the project's Python venv. Not part of the product; only tests import it.
import Foundation

/// A fresh temporary directory; call `remove()` when done.
public struct TemporaryDirectory: Sendable {
    public let url: URL

    /// Creates `…/motionprep-{label}-{uuid}` in the system's temporary folder.
    public init(label: String = "tests") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("motionprep-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of `name` inside the directory.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}

/// SplitMix64: a small seeded generator, so every random test input is repeatable.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Runs an executable and returns its status, stdout and stderr (stderr goes through a
/// temporary file, so neither stream can fill a pipe and block the child).
public func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
    let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("motionprep-stderr-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: errURL) }
    let errHandle = try FileHandle(forWritingTo: errURL)
    defer { try? errHandle.close() }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let outPipe = Pipe()
    process.standardOutput = outPipe
    process.standardError = errHandle
    try process.run()
    let outData = outPipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let errData = (try? Data(contentsOf: errURL)) ?? Data()
    return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
}

/// The project's Python venv (numpy, scipy, h5py): `$MOTIONPREP_PYTHON` (set by `make test`),
/// else `.venv/bin/python` in this package's checkout (`make venv` creates it).
public enum TestPython {
    public static var path: String? {
        if let p = ProcessInfo.processInfo.environment["MOTIONPREP_PYTHON"], FileManager.default.isExecutableFile(atPath: p) {
            return p
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let p = root.appendingPathComponent(".venv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: p) ? p : nil
    }

    public static var available: Bool { path != nil }
}
