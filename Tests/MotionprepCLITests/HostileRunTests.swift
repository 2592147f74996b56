import Foundation
import MotionCore
import MotionprepCLI
import Testing

/// `motionprep run` in process on hostile inputs (issue 10): the exit status of docs/commands.md and no
/// manifest afterwards. The full table, with messages, runs the real binary in
/// tests/python/test_hostile.py; this one checks the statuses where they are decided.
struct HostileRunTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var files: [String: String]
        var pipeline: String
        var status: MotionCore.ExitStatus
        var testDescription: String { name }
    }

    static let header = "Source, Label, When, X, Y, Z, UA_X, UA_Y, UA_Z, Pitch, Roll, Yaw\n"

    static func rows(_ n: Int, from t0: Double = 0) -> String {
        (0..<n).map { "A,W,\(t0 + Double($0) / 100),0.01,-0.98,0.05\n" }.joined()
    }

    static func pipeline(rate: String = "50", window: String = "{length_s: 1, stride_s: 0.5}",
                         output: String = "out", gap: String = "0.25") -> String {
        """
        version: 1
        inputs:
          - type: motioncollector
            paths: ["data/*.csv"]
            sensors: [A]
        resample: {rate_hz: \(rate), max_gap_s: \(gap)}
        window: \(window)
        output: {type: hdf5, path: \(output)}

        """
    }

    static let cases: [Case] = [
        Case(name: "good", files: ["data/r.csv": header + rows(300)], pipeline: pipeline(), status: .success),
        Case(name: "empty file", files: ["data/r.csv": ""], pipeline: pipeline(), status: .dataError),
        Case(name: "header only", files: ["data/r.csv": header], pipeline: pipeline(), status: .dataError),
        Case(name: "1.2.3", files: ["data/r.csv": header + rows(10) + "A,W,0.2,1.2.3,1,1\n"], pipeline: pipeline(),
             status: .dataError),
        Case(name: "time backwards", files: ["data/r.csv": header + rows(300) + "A,W,0.5,1,1,1\n"], pipeline: pipeline(),
             status: .dataError),
        Case(name: "absurd time: grid over the limit", files: ["data/r.csv": header + rows(300) + "A,W,1e12,1,1,1\n"],
             pipeline: pipeline(), status: .dataError),
        Case(name: "windows over the limit",
             files: ["data/r.csv": header + "A,W,0,1,1,1\nA,W,0.01,1,1,1\nA,W,10004,1,1,1\n"],
             pipeline: pipeline(rate: "100", window: "{length_samples: 1000000, stride_samples: 1}", gap: "20000"),
             status: .dataError),
        Case(name: "window of 1e9 samples", files: ["data/r.csv": header + rows(300)],
             pipeline: pipeline(window: "{length_samples: 1000000000, stride_samples: 1}"), status: .config),
        Case(name: "rate zero", files: ["data/r.csv": header + rows(300)], pipeline: pipeline(rate: "0"), status: .config),
        Case(name: "window longer than every recording", files: ["data/r.csv": header + rows(300)],
             pipeline: pipeline(window: "{length_s: 3600, stride_s: 1}"), status: .dataError),
        Case(name: "paths match nothing", files: [:], pipeline: pipeline(), status: .noInput),
        Case(name: "output is a file", files: ["data/r.csv": header + rows(300), "out": "x"], pipeline: pipeline(),
             status: .cannotCreate),
        Case(name: "output under a file", files: ["data/r.csv": header + rows(300), "f": "x"],
             pipeline: pipeline(output: "f/out"), status: .cannotCreate),
    ]

    @Test(arguments: cases)
    func exitStatus(_ c: Case) throws {
        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("motionprep-hostile-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir + "/data", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (name, text) in c.files { try text.write(toFile: dir + "/" + name, atomically: false, encoding: .utf8) }
        try c.pipeline.write(toFile: dir + "/p.yaml", atomically: false, encoding: .utf8)
        let status = MotionprepCommand.run(["run", dir + "/p.yaml", "--quiet", "--jobs", "1"])
        #expect(status == c.status)
        #expect(FileManager.default.fileExists(atPath: dir + "/out/manifest.json") == (c.status == .success))
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.partial"))
    }
}
