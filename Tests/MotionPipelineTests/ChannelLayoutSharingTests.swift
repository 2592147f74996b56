import MotionConfig
import MotionCore
import Testing
@testable import MotionInputs
@testable import MotionJob

/// Inputs that share channels (issue 17 point 5, docs/inputs.md, "Recordings, subjects and channels").
@Suite struct ChannelLayoutSharingTests {
    static func spec(_ inputs: String, magnitude: String? = nil) throws -> PipelineSpec {
        try PipelineLoader.load(yaml: "version: 1\ninputs:\n\(inputs)resample: {rate_hz: 10}\nwindow: {length_samples: 2}\n\(magnitude.map { "magnitude: \($0)\n" } ?? "")output: {path: out}\n",
                                file: "p.yaml", baseDirectory: "/tmp")
    }

    static let mc = "  - {type: motioncollector, paths: [a/*.csv], sensors: [G, A]}\n"
    static func csv(_ dir: String, _ units: String = "g") -> String {
        "  - {type: csv, paths: [\(dir)/*.csv], time: {column: t}, channels: {acc_x: x, acc_y: y, acc_z: z}, units: {acc_x: \(units), acc_y: \(units), acc_z: \(units)}}\n"
    }

    @Test func sharedChannelsKeepTheFirstPlace() throws {
        let layout = try ChannelLayout.make(Self.spec(Self.mc + Self.csv("b") + "  - {type: csv, paths: [c/*.csv], time: {column: t}, channels: {baro: p}}\n" + Self.csv("d", "m/s^2"),
                                                      magnitude: "[acc]"))
        #expect(layout.channelNames == ["gyro_x", "gyro_y", "gyro_z", "acc_x", "acc_y", "acc_z", "baro", "acc_mag"])
        #expect(layout.sensors[1].sources.map(\.inputIndex) == [0, 1, 3])
        #expect(layout.sensors[1].sources.map(\.name) == ["A", "{stem}", "{stem}"])
        #expect(layout.keptNames(input: 1) == ["{stem}"])
        #expect(layout.magnitudes.map(\.axes) == [[3, 4, 5]])
    }

    @Test func withoutSharingTheLayoutIsAsBefore() throws {
        let layout = try ChannelLayout.make(Self.spec(Self.mc + "  - {type: csv, paths: [c/*.csv], time: {column: t}, channels: {baro: p}}\n"))
        #expect(layout.channelNames == ["gyro_x", "gyro_y", "gyro_z", "acc_x", "acc_y", "acc_z", "baro"])
        #expect(layout.sensors.allSatisfy { $0.sources.count == 1 })
    }

    @Test func partialOrDifferentSharingIsAPipelineError() throws {
        func message(_ inputs: String) -> String? {
            do { _ = try ChannelLayout.make(Self.spec(inputs)); return nil } catch { return (error as? MotionError)?.message ?? "\(error)" }
        }
        #expect(message(Self.mc + Self.csv("b", "deg/s")) == "channel `acc_x` occurs twice in p.yaml: inputs[0] gives it with acc_x [m/s^2], acc_y [m/s^2], acc_z [m/s^2] but inputs[1] with acc_x [rad/s], acc_y [rad/s], acc_z [rad/s]; inputs may share channels only when they give the same channels in the same order and units, and each channel name may occur only once per input")
        #expect(message(Self.mc + "  - {type: csv, paths: [c/*.csv], time: {column: t}, channels: {acc_x: x}}\n")?.hasPrefix("channel `acc_x` occurs twice in p.yaml: inputs[0] gives it with") == true)
        #expect(message("  - {type: csv, paths: [c/*.csv], time: {column: t}, sensor_column: s, sensor_channels: {A: {acc_x: x}, B: {acc_x: x}}}\n")
                == "channel `acc_x` occurs twice in p.yaml: inputs[0] gives it twice; inputs may share channels only when they give the same channels in the same order and units, and each channel name may occur only once per input")
    }
}
