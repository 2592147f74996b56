import Foundation
import MotionSynth

/// A fresh temporary folder, removed after `body`.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("motionsynth-tests-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

func readBytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

func readText(_ path: String) throws -> String {
    String(decoding: try readBytes(path), as: UTF8.self)
}

/// Lines of a text file without the trailing empty line.
func lines(_ text: String) -> [Substring] {
    var result = text.split(separator: "\n", omittingEmptySubsequences: false)
    if result.last == "" { result.removeLast() }
    return result
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
}

func differences(_ values: [Double]) -> [Double] {
    zip(values.dropFirst(), values).map { $0 - $1 }
}

/// One row of a current-variant MotionCollector file, split on ",".
struct CollectorRow: Sendable {
    var source: String
    var label: String
    var timeText: String
    var time: Double
    var values: [Double]
    var fieldCount: Int
}

/// A minimal test-local MotionCollector reader: header line, then rows split on ",".
struct CollectorFile: Sendable {
    var header: String
    var rows: [CollectorRow]

    init(text: String) {
        let all = lines(text)
        header = String(all[0])
        rows = all.dropFirst().map { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            return CollectorRow(source: String(fields[0]), label: String(fields[1]), timeText: String(fields[2]),
                                time: Double(fields[2])!, values: fields.dropFirst(3).map { Double($0)! },
                                fieldCount: fields.count)
        }
    }

    func rows(of source: String) -> [CollectorRow] { rows.filter { $0.source == source } }
}

typealias Vector = SIMD3<Double>

func norm(_ v: Vector) -> Double { (v * v).sum().squareRoot() }

func vector(_ values: [Double], from offset: Int = 0) -> Vector {
    Vector(values[offset], values[offset + 1], values[offset + 2])
}

/// Frequency in [lowHz, highHz] (step `stepHz`) where |Σ (v − mean) e^{−2πi f t}| is largest:
/// a DFT evaluated at the samples' own (jittered) times.
func dominantFrequency(times: [Double], values: [Double], lowHz: Double, highHz: Double, stepHz: Double) -> Double {
    let mean = values.reduce(0, +) / Double(values.count)
    var best = (frequency: lowHz, power: -1.0)
    var f = lowHz
    while f <= highHz {
        var re = 0.0, im = 0.0
        for (t, v) in zip(times, values) {
            let angle = 2 * Double.pi * f * t
            re += (v - mean) * cos(angle)
            im -= (v - mean) * sin(angle)
        }
        let power = re * re + im * im
        if power > best.power { best = (f, power) }
        f += stepHz
    }
    return best.frequency
}
