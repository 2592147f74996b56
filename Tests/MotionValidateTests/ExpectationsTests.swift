import Foundation
import MotionCore
import MotionprepCLI
@testable import MotionValidate
import Testing

/// `--expect FILE`: the file is strict like a pipeline file, and each rule fails when broken.
@Suite struct ExpectationsTests {
    func write(_ yaml: String) throws -> String {
        let path = makeTemporaryDirectory("expect") + "/expect.yaml"
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func shippedExampleLoads() throws {
        // The documented example must stay valid (CI validates the sample with it).
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("expectations/walk.yaml").path
        let e = try ExpectationsLoader.load(path: path)
        #expect(e.requiredClasses == ["walk", "turn"])
        #expect(e.minWindowsPerClass?.values[.train] == 15)
        #expect(e.valueRanges.first?.channels == "acc_*")
        #expect(e.valueRanges.first?.max == 156.9)
    }

    @Test func everyProblemIsReportedWithItsPosition() throws {
        let yaml = """
            version: 2
            min_windows_per_clas: 5
            max_imbalance_ratio: {train: 0.5, tset: 3}
            required_channels: acc_x
            value_ranges:
              acc_x: {min: 5, max: 1}
              gyro_x: {max: abc}
            max_dropped_fraction: 1.5
            """
        #expect {
            try ExpectationsLoader.load(yaml: yaml, file: "e.yaml")
        } throws: { error in
            guard let e = error as? ExpectationsFileError else { return false }
            return e.exitStatus == .config && e.issues == [
                "`version` at e.yaml:1:10 must be 1, not `2`",
                "unknown key `min_windows_per_clas` in the expectations file at e.yaml:2:1; did you mean `min_windows_per_class`?",
                "`max_imbalance_ratio.train` at e.yaml:3:30 must be a number ≥ 1 (largest class count / smallest), not `0.5`",
                "unknown key `tset` in `max_imbalance_ratio` at e.yaml:3:35; did you mean `test`?",
                "`required_channels` at e.yaml:4:20 must be a list of names, not `acc_x`",
                "`value_ranges.acc_x` at e.yaml:6:10 has `min` 5.0 above `max` 1.0",
                "`value_ranges.gyro_x.max` at e.yaml:7:17 must be a finite number, not `abc`",
                "`max_dropped_fraction` at e.yaml:8:23 must be a number from 0 to 1, not `1.5`",
            ]
        }
    }

    @Test(arguments: [
        ("min_windows: -1", "`min_windows` at e.yaml:2:14 must be a whole number ≥ 0 for every split, or a mapping from `train`, `validation`, `test` to one, not `-1`"),
        ("min_windows: {train: \"5\"}", "`min_windows.train` at e.yaml:2:22 must be a whole number ≥ 0, not the string `\"5\"`"),
        ("required_classes: [walk, walk]", "`required_classes[1]` at e.yaml:2:26 repeats `walk`"),
        ("value_ranges: {acc_x: {}}", "`value_ranges.acc_x` at e.yaml:2:23 must give `min`, `max` or both"),
        ("value_ranges: [acc_x]", "`value_ranges` at e.yaml:2:15 must be a mapping, not a list"),
        ("lenght: 3", "unknown key `lenght` in the expectations file at e.yaml:2:1; the keys are `version`, `min_windows`, `min_windows_per_class`, `max_imbalance_ratio`, `required_channels`, `required_classes`, `value_ranges` or `max_dropped_fraction`"),
    ])
    func badValueMessages(_ line: String, _ message: String) throws {
        #expect {
            try ExpectationsLoader.load(yaml: "version: 1\n" + line + "\n", file: "e.yaml")
        } throws: { error in
            (error as? ExpectationsFileError)?.issues == [message]
        }
    }

    @Test func missingVersionIsAnError() {
        #expect(throws: ExpectationsFileError.self) { try ExpectationsLoader.load(yaml: "min_windows: 1\n", file: "e.yaml") }
    }

    @Test func cliExitCodes() throws {
        let dir = Fixture.copy()
        #expect(throws: ExpectationsFileError.self) { try validate(dir, expect: try write("version: 1\nmin_windws: 3\n")) }
        do {
            _ = try validate(dir, expect: dir + "/nope.yaml")
            Issue.record("a missing expectations file must fail")
        } catch let e as UserFacingError {
            #expect(e.exitStatus == .noInput)
        }
        #expect(MotionprepCommand.run(["validate", dir, "--expect", try write("version: 1\nmin_windws: 3\n")]) == .config)
        #expect(MotionprepCommand.run(["validate", dir, "--expect", dir + "/nope.yaml"]) == .noInput)
    }

    @Test func satisfiedExpectationsPass() throws {
        let dir = Fixture.copy()
        let path = try write("""
            version: 1
            min_windows: 10
            min_windows_per_class: 1
            max_imbalance_ratio: 50
            required_channels: [acc_x, gyro_z]
            required_classes: [turn]
            value_ranges: {"acc_*": {min: -156.9, max: 156.9}, pitch: {min: -4, max: 4}}
            max_dropped_fraction: 0.5
            """)
        let (status, output) = try validate(dir, expect: path)
        #expect(status == .success, "\(output)")
        #expect(report(dir, expectations: try ExpectationsLoader.load(path: path)).checks.count == 33)
    }

    @Test func brokenExpectationsFailWithTheirCheck() throws {
        let dir = Fixture.copy()
        let path = try write("""
            version: 1
            min_windows: {train: 100000}
            min_windows_per_class: {test: 100000}
            max_imbalance_ratio: 1
            required_channels: [acc_x, baro]
            required_classes: [walk, run]
            value_ranges:
              acc_z: {max: 0}
              "magnet_*": {min: 0}
            max_dropped_fraction: 0
            """)
        let (status, output) = try validate(dir, expect: path)
        #expect(status == .checkFailed)
        for expected in [
            "manifest.json: expect.channels: channel `baro` required by \(path) is not in the dataset",
            "manifest.json: expect.classes: class `run` required by \(path) is not in the dataset (its classes are `walk` or `turn`)",
            "manifest.json: expect.min_windows: split `train` holds ",
            " windows, fewer than the 100000 required by \(path):2:14",
            "manifest.json: expect.min_windows_per_class: split `test`: class `walk` has ",
            "manifest.json: expect.min_windows_per_class: split `test`: class `turn` has ",
            "manifest.json: expect.max_imbalance_ratio: split `train`: class `walk` has ",
            ".h5: expect.value_ranges: channel `acc_z` has ",
            " value(s) outside ≤ 0.0 (\(path):8:3); range found [",
            "manifest.json: expect.value_ranges: `value_ranges` entry `magnet_*` (\(path):9:3) matches no channel of the dataset",
            "manifest.json: expect.max_dropped_fraction: the run dropped ",
        ] {
            #expect(output.contains(expected), "missing: \(expected)\n\(output)")
        }
        let r = report(dir, expectations: try ExpectationsLoader.load(path: path))
        #expect(Set(failedChecks(r)) == ["expect.channels", "expect.classes", "expect.min_windows", "expect.min_windows_per_class",
                                         "expect.max_imbalance_ratio", "expect.value_ranges", "expect.max_dropped_fraction"])
    }

    @Test(arguments: [("acc_*", "acc_x", true), ("acc_*", "uacc_x", false), ("*acc_?", "uacc_x", true),
                      ("gyro_x", "gyro_x", true), ("gyro_x", "gyro_xy", false), ("*", "", true), ("a*b*c", "aXbYc", true),
                      ("a*b*c", "aXbY", false)])
    func channelPatterns(_ pattern: String, _ name: String, _ matches: Bool) {
        #expect(channelPatternMatches(pattern, name) == matches)
    }
}

