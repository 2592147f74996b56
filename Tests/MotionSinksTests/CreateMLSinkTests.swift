import Foundation
import MotionChecksum
import MotionCore
import Testing
@testable import MotionSinks

/// The `createml` output's rows → stretches → files (docs/dataset-format.md, "Create ML folders"),
/// against hand-worked cuts and bytes.
@Suite struct CreateMLSinkTests {
    /// Grid points 0…11 with a gap at 5 and 6 (missing from the list); classes per point.
    static let points = [0, 1, 2, 3, 4, 7, 8, 9, 10, 11]
    static func values(_ C: Int) -> [Float] { points.flatMap { p in (0..<C).map { Float(p) + Float($0) / 10 } } }

    @Test func stretchesAreRunsOfOneClassWithinASegment() {
        //              0  1  2  3  4  5  6  7  8  9 10 11
        let classes: [Int64] = [0, 0, 0, 1, 1, 0, 0, 0, 0, 0, -1, 1]
        let r = RowStretches(gridPoints: Self.points, values: Self.values(2), channels: 2, classes: classes, minRows: 3,
                             time: { 100 + Double($0) / 50 })
        // 0–2 class 0 (kept), 3–4 class 1 (too short), gap, 7–9 class 0 (kept), 10 none, 11 class 1 (too short).
        #expect(r.stretches.map(\.classId) == [0, 0])
        #expect(r.stretches[0].times == [100, 100.02, 100.04])
        #expect(r.stretches[0].endTime == 100 + 3.0 / 50)
        #expect(r.stretches[1].values == [7, 7.1, 8, 8.1, 9, 9.1])
        #expect(r.stretches[1].endTime == 100 + 10.0 / 50)
        #expect((r.rowsUnlabelled, r.stretchesTooShort, r.rowsTooShort) == (1, 2, 3))
    }

    @Test func edgeCases() {
        let none = RowStretches(gridPoints: [], values: [], channels: 1, classes: [], minRows: 1, time: { Double($0) })
        #expect(none == RowStretches())
        let one = RowStretches(gridPoints: [0], values: [1.5], channels: 1, classes: [2], minRows: 1, time: { Double($0) })
        #expect(one.stretches == [RowStretches.Stretch(classId: 2, times: [0], values: [1.5], endTime: 1)])
        let unlabelled = RowStretches(gridPoints: [0, 1], values: [1, 2], channels: 1, classes: [-1, -1], minRows: 1, time: { Double($0) })
        #expect(unlabelled.stretches.isEmpty && unlabelled.rowsUnlabelled == 2)
    }

    @Test func filesAndAnnotationsByteForByte() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let d = fixtureDescription()
        let folder = try WritableFolder(opening: dir.path)
        let sink = try CreateMLSplitSink(directory: folder, split: "train", description: d)
        var rows = RowStretches()
        rows.stretches = [
            .init(classId: 1, times: [1712345678.5, 1712345678.52], values: [0.1, -2.5e-05, 9.80665, 1, 0, -0.0], endTime: 1712345678.54),
        ]
        rows.rowsUnlabelled = 4
        try sink.append(rows: rows, recording: "s1/a")
        try sink.append(rows: RowStretches(), recording: "s1/b")
        let files = try sink.finish()
        #expect(files.map(\.path) == ["train/turn/s1__a__000.csv", "train/annotations.csv"])
        let csv = try String(contentsOfFile: dir.path + "/train/turn/s1__a__000.csv", encoding: .utf8)
        #expect(csv == "time,acc_x,acc_y,acc_z\n1712345678.5,0.1,-2.5e-05,9.80665\n1712345678.52,1.0,0.0,-0.0\n")
        let ann = try String(contentsOfFile: dir.path + "/train/annotations.csv", encoding: .utf8)
        #expect(ann == "file,label,start_time,end_time\nturn/s1__a__000.csv,turn,1712345678.5,1712345678.54\n")
        #expect(files[0].sha256 == SHA256.hex(of: Array(csv.utf8)) && files[0].bytes == csv.utf8.count)
        #expect(sink.rowsUnlabelled == 4 && sink.files.map(\.rows) == [2])
        // No temporary file is left.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path + "/train/turn") == ["s1__a__000.csv"])
    }

    @Test func twoRecordingsWithOneFileNameAreRefused() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let sink = try CreateMLSplitSink(directory: try WritableFolder(opening: dir.path), split: "test", description: fixtureDescription())
        try sink.append(rows: RowStretches(), recording: "a__b/c")
        #expect(throws: MotionError.self) { try sink.append(rows: RowStretches(), recording: "a/b__c") }
    }

    @Test func fieldsWithACommaAreQuoted() {
        #expect(CreateMLSplitSink.field("a,b") == "\"a,b\"")
        #expect(CreateMLSplitSink.field("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(CreateMLSplitSink.header(channels: ["x", "y,z"]) == "time,x,\"y,z\"\n")
    }
}
