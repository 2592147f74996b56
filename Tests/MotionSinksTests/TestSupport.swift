import Foundation
import MotionCore
@testable import MotionSinks

/// A fresh temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("motionprep-sinks-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Collects everything written through an output closure.
final class ByteCollector {
    var bytes: [UInt8] = []
    func append(_ b: UnsafeRawBufferPointer) { bytes.append(contentsOf: b) }
}

/// The fixture's dataset shape: T = 4 time steps, C = 3 channels, F features, 3 classes.
func fixtureDescription(features: Int = 2, folds: Bool = true) -> DatasetDescription {
    DatasetDescription(sampleRateHz: 50, windowLength: 4, windowStride: 2, channelNames: ["acc_x", "acc_y", "acc_z"],
                       channelUnits: ["m/s^2", "m/s^2", "m/s^2"], classNames: ["walk", "turn", "sit"],
                       featureNames: (0..<features).map { "f\($0)" }, subjectNames: ["s1", "s2", "s3", "s4"],
                       recordingNames: ["s1/a", "s1/b", "s2/a", "s2/b", "s3/a", "s3/b", "s4/a", "s4/b"], hasFolds: folds)
}

/// A batch of `n` windows whose values encode their global position `first + i`, so that
/// order and cutting mistakes are visible.
func fixtureBatch(_ n: Int, first: Int, description d: DatasetDescription) -> WindowBatch {
    let T = d.windowLength, C = d.channelNames.count, F = d.featureNames.count
    var b = WindowBatch(length: T, channelCount: C, featureCount: F)
    for i in 0..<n {
        let w = first + i
        b.x += (0..<(T * C)).map { Float(w) + Float($0) / 100 }
        b.y.append(Int64(w % 4 == 3 ? -1 : w % 3))
        b.features += (0..<F).map { Float(w) * 10 + Float($0) }
        b.startTimes.append(1.7e9 + Double(w) * 0.04 + 1e-7)
    }
    return b
}

/// Reads a shard file back (through the public reader).
func readShard(_ directory: String, _ file: WrittenFile) throws -> ShardContents {
    try ShardReader.read(path: directory + "/" + file.path)
}
