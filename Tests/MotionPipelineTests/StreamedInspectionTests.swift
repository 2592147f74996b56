import Foundation
import MotionConfig
import MotionCore
import MotionIngest
import MotionTestSupport
import Testing
@testable import MotionOutput
@testable import MotionInputs
@testable import MotionInspect
@testable import MotionJob
import MotionEngine

/// `inspect` in bounded memory (`StreamedInspection`): the same report as the whole reading, and
/// the whole reading where the scan cannot follow.
@Suite struct StreamedInspectionTests {
    /// A MotionCollector file: A and G rows, G stamped `gBehind` s before A (label events go
    /// slightly back), labels W/T, a duplicate A time; `goBack` appends an A row earlier than the last.
    static func file(rows: Int, seed: UInt64, gBehind: Double = 0.001, labels: Bool = true, goBack: Bool = false) -> String {
        var g = SeededGenerator(seed: seed)
        var s = "Source, Label, When, X, Y, Z\n"
        var t = 5.0
        for i in 0..<rows {
            t += 0.01 * Double.random(in: 0.8...1.2, using: &g)
            if i == rows / 2 { t += 0.7 }
            let label = labels ? (i < rows / 5 ? "" : (i / 400) % 2 == 0 ? "W" : "T") : ""
            s += "A,\(label),\(t),\(Double.random(in: -5...5, using: &g)),1,2\n"
            if i == rows / 3 { s += "A,\(label),\(t),7,7,7\n" }
            if i % 2 == 0 { s += "G,\(label),\(t - gBehind),\(Double.random(in: -1...1, using: &g)),0,0\n" }
        }
        if goBack { s += "A,T,\(t - 3),1,1,1\n" }
        return s
    }

    @Test(arguments: [300, 4000, 1 << 23])
    func aBareFileStreamsToTheWholeReport(block: Int) throws {
        let dir = try TemporaryDirectory(label: "inspect-stream")
        defer { dir.remove() }
        let path = dir.path("rec.csv")
        try Self.file(rows: 6000, seed: 1).write(toFile: path, atomically: true, encoding: .utf8)
        let streamed = try Inspector.inspect(motionCollectorFile: path, streamBytes: 0, blockBytes: block)
        let whole = try Inspector.inspect(motionCollectorFile: path, streamBytes: .max)
        #expect(streamed.json == whole.json)
        #expect(whole.streams.first?.duplicates == 1 && whole.labels.count > 5)
        let scan = try StreamedInspection.scan([{
            try MotionCollectorBlockReader(path: path, displayPath: path, units: .si, keep: nil, blockBytes: block)
        }], maxGap: { _ in 0.25 })
        // No whole reading to fall back to any more (the scan is not optional): it found the streams.
        #expect(scan.streams.map(\.samples) == whole.streams.map(\.samples))
    }

    /// A stream whose times go back streams too: its times are sorted on disk after the read,
    /// and the report is the whole reading's (which sorts them in memory).
    @Test func timesGoingBackAreSortedOnDisk() throws {
        let dir = try TemporaryDirectory(label: "inspect-back")
        defer { dir.remove() }
        let path = dir.path("rec.csv")
        try Self.file(rows: 3000, seed: 2, goBack: true).write(toFile: path, atomically: true, encoding: .utf8)
        let scan = try StreamedInspection.scan([{
            try MotionCollectorBlockReader(path: path, displayPath: path, units: .si, keep: nil, blockBytes: 1000)
        }], maxGap: { _ in 0.25 })
        #expect(scan.streams.first?.outOfOrder == 1)
        let streamed = try Inspector.inspect(motionCollectorFile: path, streamBytes: 0, blockBytes: 1000)
        #expect(streamed.json == (try Inspector.inspect(motionCollectorFile: path, streamBytes: .max)).json)
        #expect(streamed.streams.first?.outOfOrder == 1)
    }

    /// Two files of one recording, labelled in one or both: read interleaved by time, their label
    /// events come nearly in order, so both cases stream. A label row far back in time (of a
    /// sensor the pipeline does not keep, so no kept time goes back) makes the scan read again,
    /// keeping every event: the same report.
    @Test(arguments: [(true, false), (false, false), (true, true)])
    func labelsInTwoFilesStream(bothLabelled: Bool, farBack: Bool) throws {
        let dir = try TemporaryDirectory(label: "inspect-two")
        defer { dir.remove() }
        try FileManager.default.createDirectory(atPath: dir.path("s1/r1"), withIntermediateDirectories: true)
        try Self.file(rows: 2000, seed: 3).write(toFile: dir.path("s1/r1/a.csv"), atomically: true, encoding: .utf8)
        try (Self.file(rows: 2000, seed: 4, labels: bothLabelled) + (farBack ? "M,T,1.0,1,1,1\n" : ""))
            .write(toFile: dir.path("s1/r1/b.csv"), atomically: true, encoding: .utf8)
        let yaml = "version: 1\ninputs: [{type: motioncollector, paths: [\"s1/*/*.csv\"], recording: \"{dir}\", sensors: [A, G]}]\nresample: {rate_hz: 50}\nwindow: {length_s: 1}\nlabels: {from: rows, map: {W: walk, T: turn}}\noutput: {path: out}\n"
        try yaml.write(toFile: dir.path("p.yaml"), atomically: true, encoding: .utf8)
        let spec = try PipelineLoader.load(path: dir.path("p.yaml"))
        let streamed = try Inspector.inspect(pipeline: spec, streamBytes: 0, blockBytes: 2000)
        let whole = try Inspector.inspect(pipeline: spec, streamBytes: .max)
        #expect(streamed.map(\.json) == whole.map(\.json))
        #expect(whole.count == 1 && whole[0].files.count == 2 && whole[0].error == nil)
        let source = try InputDiscovery.recordings(spec)[0]
        let scan = try StreamedInspection.scan(source, spec: spec, layout: try ChannelLayout.make(spec),
                                               maxGap: { spec.resample.maxGapS.value(for: $0) }, blockBytes: 2000)
        #expect(scan.streams.map(\.samples) == whole[0].streams.map(\.samples))
    }

    /// The external sort of `inspect`'s spilled times: runs far shorter than the data, merged,
    /// give `Array.sorted()` (duplicates, negative zero and equal runs included).
    @Test(arguments: [(1, 1), (97, 10_000), (4096, 4096), (4096, 4097), (1 << 22, 50_000)])
    func spilledTimesComeBackSorted(run: Int, count: Int) throws {
        var g = SeededGenerator(seed: UInt64(run &* 31 &+ count))
        var values = (0..<count).map { _ in Double(Int.random(in: -500...500, using: &g)) * 0.25 }
        if count > 3 { values[1] = -0.0; values[2] = 0.0 }
        let spill = try StreamedInspection.Spill(what: "test values", runLength: run)
        var i = 0
        while i < values.count {
            let j = Swift.min(values.count, i + Int.random(in: 1...3000, using: &g))
            try spill.append(Array(values[i..<j]))
            i = j
        }
        var out: [Double] = []
        try spill.sorted { out += $0 }
        #expect(out.elementsEqual(values.sorted()), "run \(run), \(count) values")
        #expect(spill.count == count)
    }

    /// `inspect --samples`: written as the blocks come, the files of the whole reading.
    @Test(arguments: [500, 1 << 23])
    func samplesStreamToTheWholeFiles(block: Int) throws {
        let dir = try TemporaryDirectory(label: "samples-stream")
        defer { dir.remove() }
        try FileManager.default.createDirectory(atPath: dir.path("data/s1"), withIntermediateDirectories: true)
        try Self.file(rows: 3000, seed: 5).write(toFile: dir.path("data/s1/r1.csv"), atomically: true, encoding: .utf8)
        let yaml = "version: 1\ninputs: [{type: motioncollector, paths: [\"data/*/*.csv\"], sensors: [A, G]}]\nresample: {rate_hz: 50}\nwindow: {length_s: 1}\nlabels: {from: rows, map: {W: walk, T: turn}}\noutput: {path: out}\n"
        try yaml.write(toFile: dir.path("p.yaml"), atomically: true, encoding: .utf8)
        let spec = try PipelineLoader.load(path: dir.path("p.yaml"))
        let streamedFiles = try Inspector.writeSamples(pipeline: spec, to: dir.path("streamed"), streamBytes: 0, blockBytes: block)
        let wholeFiles = try Inspector.writeSamples(pipeline: spec, to: dir.path("whole"), streamBytes: .max)
        #expect(streamedFiles == wholeFiles && wholeFiles.count == 3)
        for f in wholeFiles {
            let a = try Data(contentsOf: URL(fileURLWithPath: dir.path("whole/" + f)))
            let b = try Data(contentsOf: URL(fileURLWithPath: dir.path("streamed/" + f)))
            #expect(a == b, "\(f)")
        }
        let source = try InputDiscovery.recordings(spec)[0]
        try FileManager.default.createDirectory(atPath: dir.path("direct"), withIntermediateDirectories: true)
        let folder = try SamplesFolder.makeFolders(dir.path("direct"), recording: source.name)
        let direct = try StreamedInspection.writeSamples(source, spec: spec, layout: try ChannelLayout.make(spec), intervals: nil,
                                                         folder: folder, directory: dir.path("direct"), blockBytes: block)
        #expect(direct.map { source.name + "/" + $0 } == wholeFiles, "the recording's files, written from its blocks")
    }

    /// Two files with label rows at the very same times: the whole reading concatenates the
    /// files, so at each time the second file's label wins; read interleaved, the fold orders
    /// ties by file the same way.
    @Test(arguments: [300, 5000])
    func equalTimesInTwoFilesKeepTheWholeOrder(block: Int) throws {
        let dir = try TemporaryDirectory(label: "inspect-ties")
        defer { dir.remove() }
        try FileManager.default.createDirectory(atPath: dir.path("s1/r1"), withIntermediateDirectories: true)
        for (name, label) in [("a", "W"), ("b", "T")] {
            var csv = "Source, Label, When, X, Y, Z\n"
            // b has every other row of a: its blocks reach further in time, so that at some
            // times b's rows are read before a's.
            for i in stride(from: 0, to: 1500, by: name == "a" ? 1 : 2) {
                csv += "A,\(i % 300 < 150 ? label : "W"),\(5 + Double(i) / 100),1,2,3\n"
            }
            try csv.write(toFile: dir.path("s1/r1/\(name).csv"), atomically: true, encoding: .utf8)
        }
        let yaml = "version: 1\ninputs: [{type: motioncollector, paths: [\"s1/*/*.csv\"], recording: \"{dir}\", sensors: [A]}]\nresample: {rate_hz: 50}\nwindow: {length_s: 1}\nlabels: {from: rows, map: {W: walk, T: turn}}\noutput: {path: out}\n"
        try yaml.write(toFile: dir.path("p.yaml"), atomically: true, encoding: .utf8)
        let spec = try PipelineLoader.load(path: dir.path("p.yaml"))
        let whole = try Inspector.inspect(pipeline: spec, streamBytes: .max)
        #expect(try Inspector.inspect(pipeline: spec, streamBytes: 0, blockBytes: block).map(\.json) == whole.map(\.json))
        #expect(whole[0].labels.compactMap(\.label).prefix(2) == ["T", "W"], "the second file's label wins at equal times")
        let source = try InputDiscovery.recordings(spec)[0]
        let scan = try StreamedInspection.scan(source, spec: spec, layout: try ChannelLayout.make(spec),
                                               maxGap: { _ in 0.25 }, blockBytes: block)
        #expect(scan.streams.map(\.samples) == whole[0].streams.map(\.samples) && scan.rowEvents > 0)
    }

    /// `inspect FILE.csv`: the gap limit comes from each stream's median interval (zeros
    /// included), known only after the read; streamed, the same report as the whole reading.
    /// A 5 Hz stream: its limit is 2.5 × 0.2 s, unless duplicate times (zero intervals) are the
    /// majority, which pull the median to 0 and the limit to 0.25 s.
    @Test(arguments: [(400, 0), (5000, 0), (400, 5000)])
    func aSniffedCSVStreamsToTheWholeReport(block: Int, duplicates: Int) throws {
        let dir = try TemporaryDirectory(label: "inspect-csv")
        defer { dir.remove() }
        var g = SeededGenerator(seed: 9)
        var csv = "time,x,y,z,activity\n"
        var t = 100.0
        for i in 0..<4000 {
            t += 0.2 * Double.random(in: 0.9...1.4, using: &g)
            if i % 700 == 0 { t += 1 }
            let label = i < 2000 ? "walk" : "stairs"
            csv += "\(t),\(Double.random(in: -1...1, using: &g)),0.5,\(i),\(label)\n"
            if i < duplicates / 2 { csv += "\(t),1,2,3,\(label)\n\(t),1,2,3,\(label)\n" }
        }
        let path = dir.path("Accelerometer.csv")
        try csv.write(toFile: path, atomically: true, encoding: .utf8)
        let streamed = try Inspector.inspect(csvFile: path, streamBytes: 0, blockBytes: block)
        let whole = try Inspector.inspect(csvFile: path, streamBytes: .max)
        let a = try #require(streamed.recording), b = try #require(whole.recording)
        #expect(a.json == b.json)
        let stream = try #require(b.streams.first)
        #expect(stream.duplicates == duplicates)
        #expect(stream.maxGapS == (duplicates > 4000 ? 0.25 : stream.maxGapS) && stream.gaps > 0)
        if duplicates == 0 { #expect(stream.maxGapS > 0.45) }
    }
}
