import Foundation
import MotionConfig
import MotionCore
import MotionTestSupport
import Testing
@testable import MotionInputs
@testable import MotionRecords
@testable import MotionEngine
@testable import MotionJob

/// Differential test of streamed recordings (issue 8, docs/streaming.md): random MotionCollector
/// files (interleaved sensors with jitter, gaps, duplicate times, missing values, blank lines,
/// label segments, sometimes a decreasing time or a bad number) under random pipelines (rates,
/// methods, gaps, antialias, window sizes, label policies, features, magnitudes), each streamed
/// by the engine with a random block size and in one block, and processed whole by the test
/// oracle (`WholeReference`). All must give the same record (counts, warnings, moments, every
/// window) or the same error.
@Suite struct StreamingDifferentialTests {
    struct Outcome: Equatable {
        var error: String?
        var summary: String = ""
        var x: [UInt32] = []
        var y: [Int64] = []
        var features: [UInt32] = []
        var starts: [UInt64] = []
    }

    static func outcome(_ body: () throws -> RecordingRecord) -> Outcome {
        do {
            let r = try body()
            let p = r.processed
            var o = Outcome()
            func moments(_ m: RunningMoments?) -> String {
                guard let m else { return "-" }
                return ([m.count] + m.mean + m.m2).map { String($0.bitPattern, radix: 16) }.joined(separator: ",")
            }
            o.summary = "rows \(p.rowsRead) dropped \(p.rowsDropped.sorted { $0.key < $1.key }) windowsDropped \(p.windowsDropped.sorted { $0.key < $1.key }) recording \(p.recordingDropped ?? "-") gaps \(p.gaps) invalid \(p.invalidPoints) warnings \(p.warnings) x \(moments(p.xMoments)) f \(moments(p.featureMoments)) n \(r.windowCount) longest \(p.longestRun)"
            try r.forEachBatch { b in
                o.x += b.x.map(\.bitPattern)
                o.y += b.y
                o.features += b.features.map(\.bitPattern)
                o.starts += b.startTimes.map(\.bitPattern)
            }
            return o
        } catch {
            return Outcome(error: "\(error)")
        }
    }

    /// A MotionCollector file of `rows` rows with the oddities docs/inputs.md, "Bad rows and time order" tolerates, and with
    /// probability `broken` one it does not.
    static func file(_ g: inout SeededGenerator, rows: Int) -> String {
        var out = "Source, Label, When, X, Y, Z, UA_X, UA_Y, UA_Z, Pitch, Roll, Yaw\n"
        let codes = ["A", "G", "M", "D"]
        let rates = [100.0, 100.0, 50.0, 60.0].map { $0 * Double.random(in: 0.8...1.2, using: &g) }
        var next = rates.map { _ in Double.random(in: 0...0.02, using: &g) }
        var label = ""
        var labelUntil = 0.0
        let gapAt = Double.random(in: 5...(rows > 20_000 ? 300 : 40), using: &g)
        let breakKind = Int.random(in: 0..<12, using: &g)
        let breakAt = Int.random(in: 1..<rows, using: &g)
        // Sometimes one sensor starts late (the others wait for T0), or never (an error).
        let late = Int.random(in: 0..<8, using: &g)
        let lateFrom = Double.random(in: 2...30, using: &g) * (Int.random(in: 0..<10, using: &g) == 0 ? 1e9 : 1)
        for i in 0..<rows {
            let s = next.indices.min { next[$0] < next[$1] }!
            var t = next[s]
            next[s] += (1 / rates[s]) * Double.random(in: 0.7...1.3, using: &g)
            if t > gapAt && t < gapAt + 0.6 { next[s] = gapAt + 0.6 + Double.random(in: 0...0.05, using: &g); continue }
            if s == late && t < lateFrom { continue }
            if t >= labelUntil {
                label = ["", "W", "T", "W"][Int.random(in: 0..<4, using: &g)]
                labelUntil = t + Double.random(in: 1...8, using: &g)
            }
            let r = Double.random(in: 0..<1, using: &g)
            if r < 0.01 { out += "\n" }                                  // blank line
            if i == breakAt && breakKind == 0 { t -= 0.5 }                // a decreasing time
            var values = (0..<(s == 3 ? 9 : 3)).map { _ in String(format: "%.6f", Double.random(in: -9...9, using: &g)) }
            if r > 0.995 { values[1] = "" }                              // a missing value
            if i == breakAt && breakKind == 1 { values[0] = "1.2.3" }     // not a number
            let rowLabel = (r > 0.3 || i % 3 == 0) ? label : ""
            out += "\(codes[s]),\(rowLabel),\(String(format: "%.6f", t)),\(values.joined(separator: ","))\n"
            if r > 0.99 {                                                // a duplicate time: the last one wins
                out += "\(codes[s]),\(rowLabel),\(String(format: "%.6f", t)),\(values.map { _ in "0.5" }.joined(separator: ","))\n"
            }
        }
        return out
    }

    static func pipeline(_ g: inout SeededGenerator) -> String {
        let sensors = [["A"], ["A", "G"], ["A", "G", "M"], ["G", "D"], ["A", "G", "M", "D"]].randomElement(using: &g)!
        let rate = [10, 25, 40, 50, 100].randomElement(using: &g)!
        let method = ["linear", "nearest", "previous", "{default: linear, G: nearest}"].randomElement(using: &g)!
        let gap = ["0.1", "0.25", "1.0", "{default: 0.2, M: 0.5}"].randomElement(using: &g)!
        let antialias = Bool.random(using: &g)
        let length = Int.random(in: 1...40, using: &g)
        let stride = Int.random(in: 1...length, using: &g)
        let policy = ["majority", "center", "pure"].randomElement(using: &g)!
        let labels = Int.random(in: 0..<4, using: &g) == 0 ? ""
            : "labels: {policy: \(policy), \(policy == "majority" ? "min_fraction: \(["0.0", "0.5", "0.9"].randomElement(using: &g)!), " : "")map: {W: walk, T: turn}\(Bool.random(using: &g) ? ", classes: [walk, turn]" : "")}\n"
        let features = Bool.random(using: &g) ? "features: [mean, std, dominant_freq_hz]\n" : ""
        let magnitude = sensors.contains("A") && Bool.random(using: &g) ? "magnitude: [acc]\n" : ""
        // A third of the cases: a chain of transforms (medians, filters, derivatives, magnitudes,
        // calibrations). Half of those have zero-phase filters, whose segments are held whole and
        // dropped when shorter than the padding (docs/streaming.md, docs/signal.md).
        var transforms = ""
        if Int.random(in: 0..<3, using: &g) == 0 {
            let zeroPhase = Bool.random(using: &g)
            let first = sensors[0]
            let prefix = ["A": "acc", "G": "gyro", "M": "mag", "D": "rot"][first]!
            var steps = ["  - median: {channels: [\(first)], samples: \([3, 5, 7].randomElement(using: &g)!)}"]
            steps.append("  - butterworth: {channels: [\(sensors.joined(separator: ", "))], type: \(["lowpass", "highpass"].randomElement(using: &g)!), order: \(Int.random(in: 1...4, using: &g)), cutoff_hz: \(Double(rate) * 0.2), zero_phase: \(zeroPhase)}")
            if sensors.contains("A") && Bool.random(using: &g) {
                steps.append("  - gravity: {channels: [A], cutoff_hz: 0.3, zero_phase: \(zeroPhase)}")
                steps.append("  - derivative: {channels: [acc_body]}")
                steps.append("  - magnitude: {channels: [acc_body_jerk, acc_gravity]}")
            } else {
                steps.append("  - derivative: {channels: [\(first)]}")
                steps.append("  - calibrate: {channels: [\(prefix)_jerk_x], scale: 2, offset: -1}")
            }
            transforms = "transforms:\n" + steps.joined(separator: "\n") + "\n"
        }
        // A third of the anti-aliased cases design the filter from the whole recording (datasets
        // made before `antialias_from`), the others from the leading intervals (the default).
        let from = antialias && Int.random(in: 0..<3, using: &g) == 0 ? ", antialias_from: recording" : ""
        return """
        version: 1
        name: diff
        inputs: [{type: motioncollector, paths: ["rec.csv"], sensors: [\(sensors.joined(separator: ", "))]}]
        resample: {rate_hz: \(rate), method: \(method), max_gap_s: \(gap), antialias: \(antialias)\(from)}
        window: {length_samples: \(length), stride_samples: \(stride)}
        \(labels)\(features)\(magnitude)\(transforms)output: {type: hdf5, path: out}

        """
    }

    @Test(arguments: 0..<100)
    func streamedEqualsWhole(seed: Int) throws {
        var g = SeededGenerator(seed: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1)
        let dir = try TemporaryDirectory(label: "stream-diff")
        defer { dir.remove() }
        // Every tenth case is long enough (~15,000 samples per stream) for the anti-aliasing
        // filter to send samples before a run ends (StreamingRunFilter's overlap + 4096).
        let rows = seed % 10 == 9 ? Int.random(in: 50_000...60_000, using: &g) : Int.random(in: 50...6000, using: &g)
        try Self.file(&g, rows: rows).write(toFile: dir.path("rec.csv"), atomically: true, encoding: .utf8)
        let text = Self.pipeline(&g)
        try text.write(toFile: dir.path("p.yaml"), atomically: true, encoding: .utf8)
        let spec = try PipelineLoader.load(path: dir.path("p.yaml"))
        let sources = try InputDiscovery.recordings(spec)
        let plan = try RunPlan(spec: spec, sources: sources)
        let source = sources[0]
        let block = Int.random(in: 1...3000, using: &g)
        let isTrain = Bool.random(using: &g)
        let whole = Self.outcome {
            RecordingRecord(processed: try WholeReference.process(source, spec: spec, layout: plan.layout, isTrain: isTrain,
                                                                  intervals: nil),
                            inputs: [], stored: nil)
        }
        func streamed(_ block: Int, _ name: String) -> Outcome {
            Self.outcome {
                try RecordingProcessor(spec: spec, layout: plan.layout, streamBlockBytes: block)
                    .processToRecord(source, isTrain: isTrain, intervals: nil, ledger: InputLedger(baseDirectory: spec.baseDirectory),
                                     recordPath: dir.path(name), pipelineSHA256: plan.pipelineSHA256, isCancelled: { false })
            }
        }
        // Random blocks, and the whole file in one block.
        for (b, o) in [(block, streamed(block, "streamed.mprec")), (Self.oneBlock, streamed(Self.oneBlock, "one.mprec"))] {
            #expect(whole.error == o.error, "block \(b)\n\(text)")
            #expect(whole.summary == o.summary, "block \(b)\n\(text)")
            #expect(whole.x == o.x && whole.y == o.y && whole.features == o.features
                    && whole.starts == o.starts, "windows differ; block \(b)\n\(text)")
        }
    }

    /// A block size that holds any test file: each file is read in one block.
    static let oneBlock = 1 << 40

    /// Zero-phase filters on a recording cut by many gaps: the streamed path holds each segment
    /// whole, drops those shorter than the filters' padding and counts their windows as
    /// `short_segment`, as whole processing does.
    @Test(arguments: [37, 900, 1 << 20])
    func zeroPhaseSegmentsStreamAsWhole(block: Int) throws {
        var g = SeededGenerator(seed: 77)
        var csv = "Source, Label, When, X, Y, Z\n"
        var t = 0.0
        var untilGap = Int.random(in: 20...400, using: &g)
        for i in 0..<12000 {
            t += 0.005 * Double.random(in: 0.8...1.2, using: &g)
            untilGap -= 1
            if untilGap == 0 {
                t += 0.3
                untilGap = Int.random(in: 20...400, using: &g)   // segments of 0.1 to 2 s: 5 to 100 points at 50 Hz
            }
            let label = (i / 500) % 2 == 0 ? "W" : "T"
            let values = (0..<3).map { _ in String(format: "%.5f", Double.random(in: -9...9, using: &g)) }.joined(separator: ",")
            csv += "\(i % 2 == 0 ? "A" : "G"),\(label),\(String(format: "%.6f", t)),\(values)\n"
        }
        let dir = try TemporaryDirectory(label: "stream-zp")
        defer { dir.remove() }
        try csv.write(toFile: dir.path("rec.csv"), atomically: true, encoding: .utf8)
        try """
        version: 1
        name: zp
        inputs: [{type: motioncollector, paths: ["rec.csv"], sensors: [A, G]}]
        resample: {rate_hz: 50, max_gap_s: 0.1, antialias: false}
        window: {length_samples: 4, stride_samples: 2}
        labels: {map: {W: walk, T: turn}}
        features: [mean, std]
        transforms:
          - butterworth: {channels: [A, G], type: lowpass, order: 4, cutoff_hz: 10}
          - gravity: {channels: [A], cutoff_hz: 0.3}
          - derivative: {channels: [acc_body]}
        output: {type: hdf5, path: out}

        """.write(toFile: dir.path("p.yaml"), atomically: true, encoding: .utf8)
        let spec = try PipelineLoader.load(path: dir.path("p.yaml"))
        let sources = try InputDiscovery.recordings(spec)
        let plan = try RunPlan(spec: spec, sources: sources)
        #expect(spec.transformsLookahead == .segment)
        let whole = Self.outcome {
            RecordingRecord(processed: try WholeReference.process(sources[0], spec: spec, layout: plan.layout, isTrain: true,
                                                                  intervals: nil),
                            inputs: [], stored: nil)
        }
        let streamed = Self.outcome {
            try RecordingProcessor(spec: spec, layout: plan.layout, streamBlockBytes: block)
                .processToRecord(sources[0], isTrain: true, intervals: nil, ledger: InputLedger(baseDirectory: spec.baseDirectory),
                                 recordPath: dir.path("streamed.mprec"), pipelineSHA256: plan.pipelineSHA256, isCancelled: { false })
        }
        #expect(whole.error == nil)
        #expect(whole.summary.contains("short_segment"), "the case must drop short segments: \(whole.summary)")
        #expect(whole.y.count > 100)
        #expect(whole.error == streamed.error && whole.summary == streamed.summary, "block \(block)")
        #expect(whole.x == streamed.x && whole.y == streamed.y && whole.features == streamed.features
                && whole.starts == streamed.starts, "windows differ; block \(block)")
    }

    /// `report --recordings`: the timeline through the streamed engine (`StreamingRecording.timeline`)
    /// equals the whole reading's, buckets bit for bit, under random files and pipelines.
    @Test(arguments: 0..<60)
    func streamedTimelineEqualsWhole(seed: Int) throws {
        var g = SeededGenerator(seed: UInt64(seed) &* 0x5851_F42D_4C95_7F2D &+ 7)
        let dir = try TemporaryDirectory(label: "timeline-diff")
        defer { dir.remove() }
        try Self.file(&g, rows: Int.random(in: 50...8000, using: &g)).write(toFile: dir.path("rec.csv"), atomically: true, encoding: .utf8)
        let text = Self.pipeline(&g)
        try text.write(toFile: dir.path("p.yaml"), atomically: true, encoding: .utf8)
        let spec = try PipelineLoader.load(path: dir.path("p.yaml"))
        let points = Int.random(in: 2...400, using: &g)
        let block = Int.random(in: 200...5000, using: &g)
        func describe(_ t: Timeline) -> String {
            "\(t.t0.bitPattern) \(t.count) \(t.bucketSize) \(t.minimum.map(\.bitPattern)) \(t.maximum.map(\.bitPattern)) \(t.gaps) \(t.gapIndices) \(t.labels) \(t.problem ?? "-") \(t.warnings)"
        }
        // The whole file in one block, against random blocks.
        let whole = try RecordingTimeline.load(spec: spec, maxRecordings: 1, maxPoints: points, blockBytes: Self.oneBlock)
        let streamed = try RecordingTimeline.load(spec: spec, maxRecordings: 1, maxPoints: points, blockBytes: block)
        try #require(whole.timelines.count == 1 && streamed.timelines.count == 1)
        let (a, b) = (whole.timelines[0], streamed.timelines[0])
        #expect(describe(a) == describe(b), "points \(points), block \(block)\n\(text)")
        if a.problem == nil { #expect(a.bucketCount <= max(1, points / 2) && a.bucketCount * a.bucketSize >= a.count) }
    }
}
