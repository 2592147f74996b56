import Foundation
import MotionConfig
import MotionCore
import MotionFeatures
import MotionIngest
import MotionResample
import MotionSynth
import MotionTestSupport
import Testing
@testable import MotionLive
@testable import MotionInputs
@testable import MotionRecords
@testable import MotionEngine
@testable import MotionJob

/// A recording replayed sample by sample through the live library gives the windows whole
/// processing gives (what the dataset stores), bit for bit: x, start times and features.
@Suite struct LiveReplayTests {
    /// A synthesized MotionCollector recording (with app pauses, i.e. gaps), its pipeline, and
    /// what whole processing makes of it.
    struct Case {
        let dir: TemporaryDirectory
        let spec: PipelineSpec
        let layout: ChannelLayout
        let source: RecordingSource
        let expected: ProcessedRecording
        /// Each layout stream's samples in file order (duplicates included), values converted.
        let streams: [RawStream]
        /// For a dataset of `antialias_from: recording`, each layout stream's median sampling
        /// interval after the time rules (what its anti-aliasing filter is designed from); empty
        /// otherwise: a dataset of `leading` needs none.
        let intervals: [String: Double]
        let configuration: LiveConfiguration
    }

    /// `edit` rewrites the recording's file (its lines, the header first).
    static func make(_ body: String, seed: UInt64 = 7, minutes: Double = 1.5, gapsPerMinute: Double = 2,
                     edit: (([String]) -> [String])? = nil) throws -> Case {
        let dir = try TemporaryDirectory(label: "live")
        var options = SynthOptions(outDirectory: dir.path("data"), subjects: 1, minutes: minutes, seed: seed, recordingsPerSubject: 1,
                                   gapsPerMinute: gapsPerMinute, dropFraction: 0.01)
        options.sensors = ["A", "G", "M"]
        _ = try Synth.write(options)
        if let edit {
            let files = FileManager.default.enumerator(atPath: dir.path("data"))!.compactMap { $0 as? String }.filter { $0.hasSuffix(".csv") }
            #expect(files.count == 1)
            let path = dir.path("data") + "/" + files[0]
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            try edit(lines).joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        }
        let yaml = "version: 1\nname: live\ninputs:\n  - {type: motioncollector, paths: [\"data/**/*.csv\"], sensors: [A, G]}\n" + body
            + "output: {path: out}\n"
        let spec = try PipelineLoader.load(yaml: yaml, file: dir.path("p.yaml"), baseDirectory: dir.url.path)
        let layout = try ChannelLayout.make(spec)
        let source = try InputDiscovery.recordings(spec)[0]
        // The dataset's windows: what `run` writes to the recording's record file.
        let record = try RecordingProcessor(spec: spec, layout: layout)
            .processToRecord(source, isTrain: true, intervals: nil, ledger: InputLedger(baseDirectory: spec.baseDirectory),
                             recordPath: dir.path("expected.mprec"), pipelineSHA256: "0", isCancelled: { false })
        var expected = record.processed
        try record.forEachBatch { b in
            expected.windows.x += b.x
            expected.windows.y += b.y
            expected.windows.features += b.features
            expected.windows.startTimes += b.startTimes
        }
        let raw = try RecordingLoader.loadRaw(source, spec: spec, layout: layout, checkOrder: false).raw[0] ?? []
        let streams = layout.sensors.map { sensor in raw.first { $0.stream.name == sensor.name }!.stream }
        var intervals: [String: Double] = [:]
        for s in streams where spec.resample.antialias && spec.resample.antialiasFrom == .recording {
            // After the time rules (docs/inputs.md, "Bad rows and time order"), as the dataset's filter is designed.
            intervals[s.name] = Antialias.medianInterval(try TimeOrder.finalize(s, sort: false, displayPath: "").stream.times)
        }
        let configuration = try LiveConfiguration(manifestBytes: Array(manifest(spec: spec, layout: layout).compact().utf8))
        return Case(dir: dir, spec: spec, layout: layout, source: source, expected: expected, streams: streams,
                    intervals: intervals, configuration: configuration)
    }

    /// The manifest fields the live library reads, as `motionprep run` writes them.
    static func manifest(spec: PipelineSpec, layout: ChannelLayout, xMoments: DatasetMomentsStub? = nil) -> JSONValue {
        let rate = spec.resample.rateHz
        let T = spec.window.length.samples(atRateHz: rate)
        let features = spec.features.isEmpty ? [] : MotionFeatures_names(spec: spec, layout: layout, T: T)
        return .object([
            "format": .string("motionprep.dataset"),
            "created_by": .string("test"),
            "channels": .array(zip(layout.channelNames, layout.channelUnits).map { .object(["name": .string($0), "unit": .string($1)]) }),
            "chain": layout.chain(spec: spec, sources: []).json,
            "sample_rate_hz": .double(rate),
            "window_length": .int(T),
            "window_stride": .int(spec.window.stride.samples(atRateHz: rate)),
            "feature_names": .array(features.map { .string($0) }),
            "pipeline": .object(["name": .string(spec.name), "sha256": .string("0"), "resolved": spec.canonicalValue()]),
            "normalization": .object(["x": xMoments?.json ?? .null, "features": .null]),
        ])
    }

    struct DatasetMomentsStub {
        var mean: [Double], std: [Double]
        var json: JSONValue { .object(["mean": .array(mean.map { .double($0) }), "std": .array(std.map { .double($0) })]) }
    }

    /// Samples in the order an app would get them: each stream in bursts of 1–24 samples that
    /// arrive 0–80 ms after their last sample's time, the streams interleaved by arrival.
    static func arrivals(_ streams: [RawStream], seed: UInt64) -> [(stream: Int, sample: Int)] {
        var rng = SeededGenerator(seed: seed)
        var events: [(arrival: Double, stream: Int, sample: Int)] = []
        for (s, stream) in streams.enumerated() {
            var j = 0
            var last = -Double.infinity
            while j < stream.count {
                let n = Int.random(in: 1...24, using: &rng)
                let end = Swift.min(stream.count, j + n)
                // A stream's bursts come in order.
                let arrival = Swift.max(last, stream.times[end - 1] + Double.random(in: 0..<0.08, using: &rng))
                last = arrival
                for k in j..<end { events.append((arrival, s, k)) }
                j = end
            }
        }
        // Stable: a burst's samples stay in order, as do a stream's bursts.
        return events.enumerated().sorted { ($0.element.arrival, $0.offset) < ($1.element.arrival, $1.offset) }
            .map { ($0.element.stream, $0.element.sample) }
    }

    /// Replays the case; `latency` is, for each window returned before `finish()`, the recording
    /// time between its last point and the newest sample pushed when it came.
    static func replay(_ c: Case, seed: UInt64 = 1, batches: Bool = false, intervals: [String: Double]? = nil) throws
        -> (windows: [LiveWindow], counts: LiveCounts, beforeFinish: Int, latency: [Double], lookahead: Double) {
        let live = try LiveProcessor(configuration: c.configuration, sampleIntervals: intervals ?? c.intervals)
        var out: [LiveWindow] = []
        var newest = -Double.infinity, latency: [Double] = []
        let span = Double(c.configuration.windowLength - 1) / c.configuration.rateHz
        for (s, j) in arrivals(c.streams, seed: seed) {
            let stream = c.streams[s]
            let values = stream.channels.map { $0[j] }
            newest = Swift.max(newest, stream.times[j])
            let got = batches ? try live.push(stream: s, times: [stream.times[j]], values: values)
                              : try live.push(stream.name, time: stream.times[j], values: values)
            for w in got { latency.append(newest - (w.startTime + span)) }
            out += got
        }
        let beforeFinish = out.count
        out += live.finish()
        return (out, live.counts, beforeFinish, latency, live.lookaheadSeconds)
    }

    static func check(_ c: Case, _ windows: [LiveWindow], sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let e = c.expected.windows
        #expect(windows.count == e.count, sourceLocation: sourceLocation)
        #expect(e.count > 3, "the case should have windows", sourceLocation: sourceLocation)
        guard windows.count == e.count else { return }
        let T = e.length, C = e.channelCount, F = e.featureCount
        var xSame = 0, fSame = 0, tSame = 0
        for (i, w) in windows.enumerated() {
            if w.x.map(\.bitPattern) == e.x[(i * T * C)..<((i + 1) * T * C)].map(\.bitPattern) { xSame += 1 }
            if w.features.map(\.bitPattern) == e.features[(i * F)..<((i + 1) * F)].map(\.bitPattern) { fSame += 1 }
            if w.startTime.bitPattern == e.startTimes[i].bitPattern { tSame += 1 }
        }
        #expect(xSame == e.count, sourceLocation: sourceLocation)
        #expect(fSame == e.count, sourceLocation: sourceLocation)
        #expect(tSame == e.count, sourceLocation: sourceLocation)
    }

    static let walk = """
        resample: {rate_hz: 50, method: linear, max_gap_s: 0.2, antialias: true}
        window: {length_samples: 64, stride_samples: 32}
        magnitude: [acc]
        features: [mean, std, min, max, rms, dominant_freq_hz]

        """

    @Test func walkPipelineBitForBit() throws {
        let c = try Self.make(Self.walk)
        defer { c.dir.remove() }
        #expect(c.expected.gaps > 0, "the recording should have gaps")
        let (windows, counts, beforeFinish, latency, lookahead) = try Self.replay(c)
        Self.check(c, windows)
        // Windows come as the samples do: all but the last few before the end, most within the
        // anti-aliasing filter's lookahead plus the arrival delay (bursts of up to 24 samples,
        // 80 ms late); a window just before an app pause (up to 1.5 s without samples) waits
        // for the next sample.
        #expect(beforeFinish >= windows.count - 3)
        #expect(lookahead > 0.5 && lookahead < 2)
        let sorted = latency.sorted()
        #expect(sorted[sorted.count / 2] < lookahead + 0.35)
        #expect(sorted.last! < lookahead + 0.35 + 1.5)
        #expect(counts.gaps == c.expected.gaps)
        #expect(counts.invalidPoints == c.expected.invalidPoints)
        #expect(counts.duplicateSamples == (c.expected.rowsDropped["duplicate_time"] ?? 0))
        // Another arrival order and batches of one: the same windows.
        let again = try Self.replay(c, seed: 99, batches: true)
        #expect(again.windows == windows)
        // No interval was given: the filter was designed from each stream's first 256.
        #expect(c.intervals.isEmpty && c.configuration.antialiasFromLeading)
    }

    /// A dataset made before `antialias_from` (a chain without the key: the whole recording's
    /// median) still replays bit for bit given the recording's median intervals, and the filter
    /// is designed from them: another interval gives other values (so the comparison can fail).
    @Test func recordingMedianDatasetWithIntervals() throws {
        let c = try Self.make(Self.walk.replacingOccurrences(of: "antialias: true", with: "antialias: true, antialias_from: recording"))
        defer { c.dir.remove() }
        #expect(!c.configuration.antialiasFromLeading && c.intervals.count == 2)
        guard case .object(let chain) = c.layout.chain(spec: c.spec, sources: []).json else { Issue.record("no chain"); return }
        #expect(chain["antialias_from"] == nil)
        let (windows, _, _, _, _) = try Self.replay(c)
        Self.check(c, windows)
        let other = try Self.replay(c, intervals: c.intervals.mapValues { $0 * 1.01 })
        #expect(other.windows.count == windows.count && other.windows != windows)
        // The leading dataset of the same recording differs from it (the median of the first
        // 256 intervals is not the recording's), and replays without intervals.
        let leading = try Self.make(Self.walk)
        defer { leading.dir.remove() }
        #expect(leading.expected.windows.x != c.expected.windows.x)
    }

    /// Duplicate times (a later value) among a stream's first samples and a gap longer than
    /// `max_gap_s` inside its first 256 intervals: the live processor holds the same distinct
    /// times the dataset's head read counts, and both replace a duplicate's values.
    @Test func duplicatesAndAGapAtTheHead() throws {
        let c = try Self.make("""
            resample: {rate_hz: 50, method: linear, max_gap_s: 0.2, antialias: true}
            window: {length_samples: 32, stride_samples: 16}
            features: [mean]

            """, seed: 12, minutes: 0.5, gapsPerMinute: 0) { lines in
            var out = [lines[0]]
            var seen = ["A": 0, "G": 0]
            for line in lines.dropFirst() {
                let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                guard f.count >= 6, let code = seen.keys.first(where: { $0 == f[0] }), let t = Double(f[2]) else {
                    out.append(line)
                    continue
                }
                if t > 0.6 && t < 1.0 { continue }  // a 0.4 s gap among the first 256 intervals
                seen[code]! += 1
                out.append(line)
                if seen[code]! % 7 == 3 && seen[code]! < 200 {
                    var d = f
                    d[3] = String((Double(f[3]) ?? 0) + 0.5)
                    out.append(d.joined(separator: ","))  // the same time again, another value
                }
            }
            return out
        }
        defer { c.dir.remove() }
        #expect((c.expected.rowsDropped["duplicate_time"] ?? 0) > 40)
        #expect(c.expected.gaps > 0)
        let (windows, counts, _, _, _) = try Self.replay(c)
        Self.check(c, windows)
        #expect(counts.duplicateSamples == (c.expected.rowsDropped["duplicate_time"] ?? 0))
        #expect(counts.gaps == c.expected.gaps)
    }

    /// Streams shorter than the leading span, duplicate times and a gap among the first 256
    /// intervals, jitter: the processor designs the filter from what it holds, as the dataset.
    @Test(arguments: [(0.025, 2.0, 3 as UInt64), (0.3, 30.0, 4), (1.0, 6.0, 8)])
    func leadingSpanEdgeCases(minutes: Double, gapsPerMinute: Double, seed: UInt64) throws {
        let c = try Self.make("""
            resample: {rate_hz: 50, method: linear, max_gap_s: 0.2, antialias: true}
            window: {length_samples: 16, stride_samples: 8}
            features: [mean, std]

            """, seed: seed, minutes: minutes, gapsPerMinute: gapsPerMinute)
        defer { c.dir.remove() }
        let (windows, counts, _, _, _) = try Self.replay(c, seed: seed)
        Self.check(c, windows)
        #expect(counts.duplicateSamples == (c.expected.rowsDropped["duplicate_time"] ?? 0))
        if minutes < 0.05 {
            // Fewer than 256 intervals in every stream.
            #expect(c.streams.allSatisfy { $0.times.count < 257 })
        }
    }

    @Test func otherMethodsWithoutAntialias() throws {
        let c = try Self.make("""
            resample: {rate_hz: 25, method: {default: nearest, G: previous}, max_gap_s: {default: 0.3, A: 0.15}, antialias: false}
            window: {length_samples: 50, stride_samples: 7}
            features: [mean, zero_crossings]

            """, seed: 11)
        defer { c.dir.remove() }
        Self.check(c, try Self.replay(c).windows)
    }

    @Test func transformsChainBitForBit() throws {
        let c = try Self.make(Self.walk + """
            transforms:
              - median: {channels: [A, G], samples: 3}
              - butterworth: {channels: [A, G], type: lowpass, order: 3, cutoff_hz: 20}
              - gravity: {channels: [A], cutoff_hz: 0.3, order: 3}
              - derivative: {channels: [acc_body, gyro]}
              - magnitude: {channels: [acc_body, acc_gravity, acc_body_jerk, gyro, gyro_jerk]}
              - calibrate: {channels: [acc_mag], scale: 2, offset: -1}

            """, seed: 5)
        defer { c.dir.remove() }
        let (windows, counts, _, _, lookahead) = try Self.replay(c)
        #expect(lookahead == .infinity)
        Self.check(c, windows)
        #expect(counts.shortSegmentWindows == (c.expected.windowsDropped["short_segment"] ?? 0))
    }

    @Test func causalTransformsComeWithinTheirLookahead() throws {
        let c = try Self.make(Self.walk + """
            transforms:
              - median: {channels: [A, G], samples: 5}
              - butterworth: {channels: [A], type: highpass, order: 2, cutoff_hz: 0.5, zero_phase: false}
              - gravity: {channels: [A], cutoff_hz: 0.3, order: 3, zero_phase: false}
              - derivative: {channels: [acc_body, gyro]}
              - magnitude: {channels: [acc_body_jerk, gyro]}
              - calibrate: {channels: [gyro_x], scale: 0.5, offset: 2}

            """, seed: 9)
        defer { c.dir.remove() }
        let (windows, _, beforeFinish, latency, lookahead) = try Self.replay(c)
        Self.check(c, windows)
        // Median 5 (2 samples) + derivative (1) on the 50 Hz grid, after the anti-aliasing's.
        #expect(c.configuration.transforms?.lookahead == 3)
        #expect(lookahead < 2)
        #expect(beforeFinish >= windows.count - 3)
        let sorted = latency.sorted()
        #expect(sorted[sorted.count / 2] < lookahead + 0.35)
    }

    /// Rows fed in stretches of any size give the whole segment's values, bit for bit, and a
    /// chain without zero-phase steps settles each row its lookahead after it.
    @Test(arguments: [true, false]) func segmentTransformerRowByRowEqualsWholeSegment(zeroPhase: Bool) throws {
        let c = try Self.make(Self.walk + """
            transforms:
              - median: {channels: [A], samples: 5}
              - median: {channels: [G], samples: 3}
              - butterworth: {channels: [A, G], type: bandpass, order: 2, cutoff_hz: [0.5, 15], zero_phase: false}
              - gravity: {channels: [A], cutoff_hz: 0.3, order: 3, zero_phase: \(zeroPhase)}
              - derivative: {channels: [acc_body, gyro]}
              - magnitude: {channels: [acc_body, acc_body_jerk]}
              - calibrate: {channels: [acc_body_jerk_mag], scale: 3, offset: 0.25}

            """, seed: 2, minutes: 0.3, gapsPerMinute: 0)
        defer { c.dir.remove() }
        let plan = c.configuration.transforms!
        // The declared lookahead adds up the steps' (2 + 1 + 1); the rows settle sooner, as the
        // medians run on different channels and a derivative needs a sample ahead only at the
        // segment's start: 2 rows behind.
        #expect(plan.lookahead == (zeroPhase ? nil : 4))
        var rng = SeededGenerator(seed: 3)
        let n = 700, C0 = plan.inputChannels, C = plan.channelCount
        let input = (0..<(n * C0)).map { _ in Float.random(in: -20...20, using: &rng) }
        let whole = input.withUnsafeBufferPointer { plan.applySegment($0, count: n, rateHz: 50) }
        let t = SegmentTransformer(plan: plan, rateHz: 50)
        var k = 0
        var out = [Float](repeating: 0, count: n * C)
        while k < n {
            let m = Swift.min(n - k, Int.random(in: 1...40, using: &rng))
            input.withUnsafeBufferPointer { t.append(rows: UnsafeBufferPointer(rebasing: $0[(k * C0)..<((k + m) * C0)]), count: m) }
            k += m
            let ready = t.advance()
            #expect(ready == (zeroPhase || k - 2 < 2 ? 0 : k - 2))
            if ready > 0 {
                // What is settled is final.
                var part = [Float](repeating: 0, count: ready * C)
                part.withUnsafeMutableBufferPointer { t.rows(0..<ready, into: $0) }
                #expect(part.map(\.bitPattern) == whole[0..<(ready * C)].map(\.bitPattern))
            }
        }
        t.end()
        #expect(t.advance() == n)
        out.withUnsafeMutableBufferPointer { t.rows(0..<n, into: $0) }
        #expect(out.map(\.bitPattern) == whole.map(\.bitPattern))
    }

    @Test func normalisationUsesTheTrainStatistics() throws {
        let c = try Self.make(Self.walk, seed: 3, minutes: 0.5, gapsPerMinute: 0)
        defer { c.dir.remove() }
        let C = c.layout.channelNames.count
        let stats = DatasetMomentsStub(mean: (0..<C).map { Double($0) * 0.5 - 1 }, std: (0..<C).map { $0 == 2 ? 0 : 0.25 + Double($0) })
        let configuration = try LiveConfiguration(manifestBytes: Array(Self.manifest(spec: c.spec, layout: c.layout, xMoments: stats).compact().utf8))
        let live = try LiveProcessor(configuration: configuration, sampleIntervals: c.intervals)
        var windows: [LiveWindow] = []
        for (s, j) in Self.arrivals(c.streams, seed: 4) {
            windows += try live.push(stream: s, time: c.streams[s].times[j], values: c.streams[s].channels.map { $0[j] })
        }
        windows += live.finish()
        #expect(!windows.isEmpty)
        let norm = Standardization(mean: stats.mean, std: stats.std)
        for w in windows { #expect(w.xNormalized == norm.apply(w.x[...])) }
        // A std of 0 divides by 1 (the dataset's rule).
        #expect(windows[0].xNormalized[2] == Float(Double(windows[0].x[2]) - stats.mean[2]))
    }
}

/// The feature column names the dataset would list.
func MotionFeatures_names(spec: PipelineSpec, layout: ChannelLayout, T: Int) -> [String] {
    FeaturePlan(features: spec.features, channelNames: layout.channelNames, rateHz: spec.resample.rateHz, windowLength: T).featureNames
}
