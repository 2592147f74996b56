import Foundation
import MotionConfig
import MotionCore
import MotionTestSupport
import Testing
@testable import MotionInputs
@testable import MotionJob

/// `motionprep apply`'s pure parts: which input reads a file, and the standardisation
/// (docs/commands.md, "apply"; docs/dataset-format.md, "Applied windows").
@Suite struct ApplyInputsTests {
    static func spec(_ inputs: String) throws -> PipelineSpec {
        try PipelineLoader.load(yaml: "version: 1\ninputs:\n\(inputs)resample: {rate_hz: 10}\nwindow: {length_samples: 2}\noutput: {path: out}\n",
                                file: "p.yaml", baseDirectory: "/tmp")
    }
    static let two = "  - {type: csv, paths: [\"d/*/*/Accelerometer.csv\"], time: {column: t}, channels: {ax: x}}\n"
        + "  - {type: csv, paths: [\"d/*/*/Barometer.csv\", \"old/**/Baro*.txt\"], time: {column: t}, channels: {p: p}}\n"

    func folder(_ files: [String]) throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory(label: "apply")
        for f in files {
            try FileManager.default.createDirectory(atPath: PathText.parent(dir.path(f)), withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: dir.path(f), contents: Data("t\n".utf8))
        }
        return dir
    }

    @Test func filesGoToTheInputWhoseFileNamePatternMatches() throws {
        let dir = try folder(["r/Accelerometer.csv", "r/Barometer.csv", "r/Baro-1.txt", "x/Other.csv"])
        defer { dir.remove() }
        let spec = try Self.spec(Self.two)
        let files = try ApplyInputs.assign([dir.path("r/Barometer.csv"), dir.path("r/Accelerometer.csv"), dir.path("r/Baro-1.txt")],
                                           spec: spec, inputIndex: nil)
        #expect(files == [[dir.path("r/Accelerometer.csv")], [dir.path("r/Barometer.csv"), dir.path("r/Baro-1.txt")]])
        // A folder: the files below it that an input's names match; others are left out.
        let byFolder = try ApplyInputs.assign([dir.url.path], spec: spec, inputIndex: nil)
        #expect(byFolder == [[dir.path("r/Accelerometer.csv")], [dir.path("r/Baro-1.txt"), dir.path("r/Barometer.csv")]])
        // `--input N` sends every file to that input.
        #expect(try ApplyInputs.assign([dir.path("x/Other.csv")], spec: spec, inputIndex: 1) == [[], [dir.path("x/Other.csv")]])
        // One input takes every file, whatever its name.
        let one = try Self.spec("  - {type: motioncollector, paths: [\"data/**/*.csv\"]}\n")
        #expect(try ApplyInputs.assign([dir.path("r/Baro-1.txt")], spec: one, inputIndex: nil) == [[dir.path("r/Baro-1.txt")]])
    }

    @Test func refusals() throws {
        let dir = try folder(["r/Other.csv", "both/x.csv"])
        defer { dir.remove() }
        let spec = try Self.spec(Self.two)
        func status(_ paths: [String], _ index: Int? = nil, spec s: PipelineSpec? = nil) -> (MotionCore.ExitStatus?, String) {
            do {
                _ = try ApplyInputs.assign(paths, spec: s ?? spec, inputIndex: index)
                return (nil, "")
            } catch let e as MotionError {
                return (e.exitStatus, e.message)
            } catch {
                return (nil, "\(error)")
            }
        }
        let none = status([dir.path("r/Other.csv")])
        #expect(none.0 == .usage && none.1.contains("matches none of the dataset's inputs")
                && none.1.contains("inputs[1] (`Baro*.txt`, `Barometer.csv`)"))
        #expect(status([dir.path("missing.csv")]).0 == .noInput)
        #expect(status([dir.path("r/Other.csv")], 2).1.contains("0 to 1, not 2"))
        #expect(status([dir.path("r")]).0 == .noInput)  // a folder without a file the inputs read
        let ambiguous = try Self.spec("  - {type: csv, paths: [\"a/*.csv\"], time: {column: t}, channels: {ax: x}}\n"
                                      + "  - {type: csv, paths: [\"b/*.csv\"], time: {column: t}, channels: {p: p}}\n")
        let both = status([dir.path("both/x.csv")], spec: ambiguous)
        #expect(both.0 == .usage && both.1.contains("matches inputs[0] (`*.csv`), inputs[1] (`*.csv`)") && both.1.contains("--input N"))
        let glob = try folder(["a[1]/Accelerometer.csv"])
        defer { glob.remove() }
        #expect(status([glob.path("a[1]")]).0 == .usage)
    }
}

@Suite struct StandardizationTests {
    @Test func float64ArithmeticThenFloat32AndZeroStdOnlyCentres() {
        let s = Standardization(mean: [1.5, -2, 0.1], std: [0.5, 0, 3])
        let x: [Float] = [2, -2, 0.4, 1.5, 7, Float.greatestFiniteMagnitude]
        let expected: [Float] = [Float((2.0 - 1.5) / 0.5), Float(-2.0 - -2.0), Float((Double(Float(0.4)) - 0.1) / 3),
                                 0, 9, Float((Double(Float.greatestFiniteMagnitude) - 0.1) / 3)]
        #expect(s.apply(x) == expected)
        #expect(s.apply(x[3...]) == Array(expected[3...]))
        #expect(Standardization(mean: [], std: []).apply([]) == [])
    }
}
