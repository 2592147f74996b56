import Foundation
import MotionConfig
import MotionCore
import Testing
@testable import MotionInputs
@testable import MotionJob

/// Intervals files (RFC 4180, the inputs' number grammar), `clock: recording`, and the rows that
/// label nothing (docs/signal.md, "The label of each point").
@Suite struct LabelSourcesTests {
    func intervals(_ text: String) throws -> IntervalLabels {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("labels-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.path + "/l.csv"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        do {
            return try IntervalLabels.load(path: path)
        } catch let e as any UserFacingError {
            throw MotionError(.dataError, e.message.replacingOccurrences(of: dir.path + "/", with: ""))
        }
    }

    func message(_ text: String) -> String? {
        do { _ = try intervals(text); return nil } catch { return (error as? any UserFacingError)?.message }
    }

    @Test func quotedRecordingsAndLabels() throws {
        let l = try intervals("recording,start_s,end_s,label\r\n\"a, b\",1,2,\"x \"\"y\"\"\"\r\n")
        #expect(l.rows == [IntervalLabels.Row(recording: "a, b", start: 1, end: 2, label: "x \"y\"", line: 2)])
        #expect(l.tracks["a, b"] == LabelTrack(names: ["x \"y\""], times: [1, 2], labels: [0, -1]))
    }

    @Test func numbersFollowTheInputGrammar() {
        let tail = "is not a number of seconds (expected a decimal such as `12.5` or `1.2e3`; hex, `inf`, `nan` and empty values are not accepted)"
        #expect(message("recording,start_s,end_s,label\nr,0x1p3,9,w\n") == "l.csv:2:3: start_s `0x1p3` \(tail)")
        #expect(message("recording,start_s,end_s,label\nr,1,nan,w\n") == "l.csv:2:5: end_s `nan` \(tail)")
        #expect(message("recording,start_s,end_s,label\nr,1,,w\n") == "l.csv:2:5: end_s `` \(tail)")
        #expect(message("recording,start_s,end_s,label\nr,1,0.5,w\n") == "l.csv:2:5: end_s `0.5` must be a number of seconds greater than start_s 1")
        #expect(message("recording,start_s,end_s,label\nr,1,2,w,x\n") == "l.csv:2: expected 4 fields (recording,start_s,end_s,label), found 5 (a field that contains a comma must be quoted)")
        #expect(message("recording;start_s;end_s;label\n") == "l.csv:1:1: the header must be `recording,start_s,end_s,label`, not `recording;start_s;end_s;label`")
    }

    @Test func clockRecordingMovesTheTrackToT0() {
        let t = LabelTrack(names: ["w"], times: [1, 2.5], labels: [0, -1])
        #expect(t.onGrid(t0: 100, clock: .recording) == LabelTrack(names: ["w"], times: [101, 102.5], labels: [0, -1]))
        #expect(t.onGrid(t0: 100, clock: .input) == t)
        #expect(t.onGrid(t0: nil, clock: .recording) == t)
    }

    @Test func rowsThatLabelNothingAreCountedOnceEach() throws {
        let l = try intervals("recording,start_s,end_s,label\nr,0,1,W\nx,0,1,W\nr,1.01,1.015,W\nr,1.5,2,sit\nr,50,60,W\ny,0,1,sit\n")
        let labels = LabelsSpec(from: .intervals, path: "l.csv", map: [KeyValue("W", "walk")], classes: ["walk"])
        let ignored = IgnoredLabelRows(l, recordings: ["r"], labels: labels)
        #expect(ignored.counts == ["unknown_recording": 2, "label_not_in_classes": 1])
        #expect(ignored.warnings.count == 2)
        var spec = try PipelineLoader.load(yaml: "version: 1\ninputs: [{type: motioncollector, paths: [x.csv]}]\nresample: {rate_hz: 10}\nwindow: {length_samples: 2}\noutput: {path: out}\n", file: "p.yaml", baseDirectory: "/tmp")
        spec.labels = labels
        // Grid points 0, 0.1, …, 2.0: [50, 60) lies after them, [1.01, 1.015) between two of them.
        #expect(LabelSources.noOverlapLines(l, recording: "r", spec: spec, gridCount: 21, time: { Double($0) / 10 }) == [4, 6])
        // Grid points 49, 49.1, …, 51: on the input clock only [50, 60) meets them; from T0 = 49 the rows move there.
        #expect(LabelSources.noOverlapLines(l, recording: "r", spec: spec, gridCount: 21, time: { 49 + Double($0) / 10 }) == [2, 4])
        spec.labels?.clock = .recording
        #expect(LabelSources.noOverlapLines(l, recording: "r", spec: spec, gridCount: 21, time: { 49 + Double($0) / 10 }) == [4, 6])
        #expect(LabelSources.noOverlapLines(l, recording: "r", spec: spec, gridCount: 0, time: { _ in 0 }) == [2, 4, 6])
    }
}
