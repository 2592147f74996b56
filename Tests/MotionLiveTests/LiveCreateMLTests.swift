import Foundation
import MotionConfig
import MotionCore
import Testing
@testable import MotionLive
import MotionJob

/// The live library's rows against the `createml` output (issue #28 point 2; docs/live.md, "Rows"
/// and docs/dataset-format.md, "Create ML folders"): a recording replayed through `MotionLive`
/// gives, row for row, the rows of every Create ML CSV `motionprep run` wrote for it — the time as
/// the same double and each value as the same float32, once the CSV's text is parsed back — so
/// an app feeds its activity classifier exactly what it was trained on.
@Suite struct LiveCreateMLTests {
    static let labels = "labels: {from: rows, policy: majority, min_fraction: 0.8, map: {W: walk, T: turn}, classes: [walk, turn]}\n"

    /// Runs `run` with `output.type: createml` over the case's recording; the CSVs' rows
    /// (time, values) by file path, and the manifest's file list.
    static func createml(_ c: LiveReplayTests.Case, body: String) throws -> [(path: String, rows: [(Double, [Float])])] {
        let yaml = "version: 1\nname: live\ninputs:\n  - {type: motioncollector, paths: [\"data/**/*.csv\"], sensors: [A, G]}\n" + body
            + labels + "output: {type: createml, path: cml}\n"
        let spec = try PipelineLoader.load(yaml: yaml, file: c.dir.path("cml.yaml"), baseDirectory: c.dir.url.path)
        _ = try PipelineRunner.run(spec, options: RunOptions(jobs: 2))
        let manifest = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: c.dir.path("cml/manifest.json")))))
        guard case .object(let top) = manifest, case .object(let cml)? = top["createml"], case .array(let files)? = cml["files"] else {
            Issue.record("the manifest has no createml.files")
            return []
        }
        var out: [(path: String, rows: [(Double, [Float])])] = []
        for f in files {
            guard case .object(let o) = f, case .string(let p)? = o["path"] else { continue }
            let text = try String(contentsOfFile: c.dir.path("cml/" + p), encoding: .utf8)
            var rows: [(Double, [Float])] = []
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: ",")
                rows.append((Double(fields[0])!, fields.dropFirst().map { Float($0)! }))
            }
            out.append((p, rows))
        }
        return out
    }

    static func compare(_ body: String, seed: UInt64) throws {
        let c = try LiveReplayTests.make(body, seed: seed)
        defer { c.dir.remove() }
        let files = try createml(c, body: body)
        let (_, rows, _) = try LiveRowsTests.replayRows(c)
        var index: [UInt64: Int] = [:]
        for (i, r) in rows.enumerated() { index[r.time.bitPattern] = i }
        #expect(files.count >= 2, "the recording should give several stretches")
        var same = 0
        for (path, csv) in files {
            guard let first = csv.first, let i = index[first.0.bitPattern], i + csv.count <= rows.count else {
                Issue.record("\(path): its first time is not a live row's time")
                continue
            }
            let live = rows[i..<(i + csv.count)]
            let timesSame = zip(live, csv).allSatisfy { $0.time.bitPattern == $1.0.bitPattern }
            let valuesSame = zip(live, csv).allSatisfy { $0.values.map(\.bitPattern) == $1.1.map(\.bitPattern) }
            #expect(timesSame && valuesSame, "\(path): the live rows differ from the CSV's")
            #expect(live.first!.segment == live.last!.segment, "\(path): a stretch is within one gap-free segment")
            if timesSame && valuesSame { same += 1 }
        }
        #expect(same == files.count)
    }

    @Test func liveRowsAreTheCreateMLRowsWithoutTransforms() throws {
        try Self.compare(LiveReplayTests.walk, seed: 7)
    }

    @Test func liveRowsAreTheCreateMLRowsAfterTransforms() throws {
        try Self.compare(LiveReplayTests.walk + """
            transforms:
              - butterworth: {channels: [A, G], type: lowpass, order: 3, cutoff_hz: 20}
              - gravity: {channels: [A], cutoff_hz: 0.3, order: 3}
              - magnitude: {channels: [acc_body, gyro]}

            """, seed: 5)
    }
}
