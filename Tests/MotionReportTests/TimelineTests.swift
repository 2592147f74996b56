import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import MotionConfig
import MotionCore
import MotionprepCLI
import Testing
@testable import MotionReport
import MotionEngine
import MotionJob

/// `--recordings`: two tiny MotionCollector recordings with known labels and, in one, a known
/// gap, run into a dataset and drawn as timelines.
enum TimelineFixture {
    static let root: Result<String, any Error> = Result { try make() }

    static let pipeline = """
        version: 1
        name: tiny
        inputs:
          - type: motioncollector
            paths: ["data/*/*.csv"]
            subject: "{dir}"
            sensors: [A, G]
        resample:
          rate_hz: 50
          max_gap_s: 0.2
        window:
          length_s: 1
          stride_s: 0.5
        labels:
          from: rows
          policy: majority
          map: {W: walk, T: turn}
          classes: [walk, turn]
        magnitude: [acc]
        split:
          by: subject
          seed: 1
          assign: {train: [s1], test: [s2]}
        output:
          type: hdf5
          path: out

        """

    /// 10 s of A and G rows at 100 Hz: label W before 3 s, T from 3 s to 7 s, W after; with
    /// `gap`, no rows from 4.0 s (exclusive of 3.99) to 5.0 s.
    static func csv(gap: Bool) -> String {
        var s = "Source, Label, When, X, Y, Z, UA_X, UA_Y, UA_Z, Pitch, Roll, Yaw\n"
        for i in 0..<1000 {
            if gap && i >= 400 && i < 500 { continue }
            let t = Double(i) / 100
            let label = t < 3 ? "W" : t < 7 ? "T" : "W"
            let when = String(format: "%.2f", t)
            s += "A, \(label), \(when), \(sin(t)), \(cos(t)), 1.0\n"
            s += "G, \(label), \(when), 0.1, \(0.01 * Double(i % 7)), -0.2\n"
        }
        return s
    }

    private static func make() throws -> String {
        let dir = Fixture.temporaryDirectory("timeline")
        for (subject, gap) in [("s1", true), ("s2", false)] {
            try FileManager.default.createDirectory(atPath: "\(dir)/data/\(subject)", withIntermediateDirectories: true)
            try csv(gap: gap).write(toFile: "\(dir)/data/\(subject)/rec.csv", atomically: true, encoding: .utf8)
        }
        try pipeline.write(toFile: dir + "/tiny.yaml", atomically: true, encoding: .utf8)
        let status = MotionprepCommand.run(["run", dir + "/tiny.yaml", "--quiet"])
        guard status == .success else { throw MotionError(.ioError, "timeline fixture: `motionprep run` exited \(status.rawValue)") }
        return dir
    }
}

@Suite struct TimelineTests {
    let dir: String
    init() throws { dir = try TimelineFixture.root.get() }

    @Test func timelinesHaveTheKnownGapAndLabels() throws {
        let spec = try PipelineLoader.load(path: dir + "/tiny.yaml")
        let loaded = try RecordingTimeline.load(spec: spec, maxRecordings: 12)
        #expect(loaded.totalRecordings == 2)
        try #require(loaded.timelines.count == 2)
        let (a, b) = (loaded.timelines[0], loaded.timelines[1])
        #expect(a.subject == "s1" && b.subject == "s2")
        #expect(a.problem == nil && b.problem == nil)
        #expect(a.t0 == 0 && a.count == 500 && a.rateHz == 50)
        #expect(a.channelNames == ["acc_x", "acc_y", "acc_z", "gyro_x", "gyro_y", "gyro_z", "acc_mag"])
        // Samples 3.99 and 5.00 bracket grid points 4.00 … 4.98: 50 invalid points.
        #expect(a.gapIndices == [200..<250])
        #expect(a.gaps == [Timeline.Span(start: 4, end: 5)])
        #expect(b.gaps.isEmpty)
        for t in [a, b] {
            #expect(t.labels.map(\.label) == ["walk", "turn", "walk"])
            #expect(t.labels.map(\.classIndex) == [0, 1, 0])
            #expect(t.labels.map(\.start) == [0, 3, 7])
            #expect(t.labels.map(\.end) == [3, 7, 10])
            #expect(t.bucketCount * t.bucketSize >= t.count && t.bucketCount <= 600)
        }
        // Decimation: a bucket inside the gap has no value, one outside has min ≤ max.
        let C = a.channelNames.count
        let inGap = 225 / a.bucketSize
        #expect(a.minimum[inGap * C].isNaN)
        #expect(a.minimum[0] <= a.maximum[0])
    }

    @Test func thePageDrawsOneGroupPerRecordingWithBandsAndGaps() throws {
        let out = dir + "/r.html"
        let status = MotionprepCommand.run(["report", dir + "/out", "--recordings", dir + "/tiny.yaml", "-o", out, "--quiet"])
        try #require(status == .success)
        let page = try PageDocument(try String(contentsOfFile: out, encoding: .utf8))
        let sections = page.elements("section").compactMap { $0.attr("data-section") }
        #expect(sections.last == "timelines")
        let groups = page.elements("figure", where: "class", is: "timeline")
        #expect(groups.compactMap { $0.attr("data-recording") }.count == 2)
        #expect(groups.compactMap { $0.attr("data-subject") } == ["s1", "s2"])
        for (g, expectedGaps) in zip(groups, [[("4.0", "5.0", "50")], []]) {
            let charts = g.descendants("svg")
            #expect(charts.compactMap { $0.attr("data-sensor") } == ["acc", "gyro"])
            for chart in charts {
                let bands = chart.descendants("rect").filter { $0.attr("data-label") != nil }
                #expect(bands.compactMap { $0.attr("data-label") } == ["walk", "turn", "walk"])
                #expect(bands.map { $0.attr("class") ?? "" } == ["band f0", "band f1", "band f0"])
                let gaps = chart.descendants("g").filter { $0.attr("class") == "gap" }
                #expect(gaps.map { $0.attr("data-start") ?? "" } == expectedGaps.map(\.0))
                #expect(gaps.map { $0.attr("data-end") ?? "" } == expectedGaps.map(\.1))
                #expect(gaps.map { $0.attr("data-points") ?? "" } == expectedGaps.map(\.2))
                let lines = chart.descendants("path").compactMap { $0.attr("data-channel") }
                #expect(lines == (chart.attr("data-sensor") == "acc" ? ["acc_x", "acc_y", "acc_z", "acc_mag"] : ["gyro_x", "gyro_y", "gyro_z"]))
            }
            let legend = g.descendants("ul").first { $0.attr("data-legend") == "labels" }
            #expect(legend?.descendants("li").compactMap { $0.attr("data-name") } == ["walk", "turn", "gap"])
        }
        // A gap-free recording's line is one unbroken path; the gap breaks the other's in two.
        let moves = groups.map { g in (g.descendants("path").first { $0.attr("data-channel") == "acc_x" }?.attr("d") ?? "").filter { $0 == "M" }.count }
        #expect(moves == [2, 1])
    }

    @Test func theNumberOfRecordingsDrawnIsCappedAndSaidSo() throws {
        let out = dir + "/capped.html"
        let status = MotionprepCommand.run(["report", dir + "/out", "--recordings", dir + "/tiny.yaml", "--max-recordings", "1",
                                            "-o", out, "--quiet"])
        try #require(status == .success)
        let html = try String(contentsOfFile: out, encoding: .utf8)
        let page = try PageDocument(html)
        #expect(page.elements("figure", where: "class", is: "timeline").count == 1)
        let section = page.elements("section", where: "data-section", is: "timelines").first
        #expect(section?.attr("data-total-recordings") == "2")
        #expect(html.contains("Showing the first 1 of 2 recordings"))
    }

    @Test func aPipelineThatMatchesNothingIsMissingInput() throws {
        let yaml = TimelineFixture.pipeline.replacingOccurrences(of: "data/*/*.csv", with: "nothing/*.csv")
        let path = dir + "/nothing.yaml"
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(MotionprepCommand.run(["report", dir + "/out", "--recordings", path, "-o", dir + "/n.html"]) == .noInput)
    }
}
