import Foundation
import MotionChecksum
import MotionConfig
import MotionCore
import MotionIngest
import MotionSynth
import MotionTestSupport
import Testing
@testable import MotionInputs
@testable import MotionRecords
@testable import MotionEngine
@testable import MotionJob

/// Golden outputs per stage (docs/dataset-format.md, "Implementation versions"): each stage's
/// output bits on a fixed recording, as a SHA-256 recorded next to the stage's version in
/// `StageImplementation`. A change to a stage's code that changes its bits fails here until the
/// stage's version goes up and the new digest is recorded, so an app's `MotionLive` or `apply`
/// can never silently compute other bits than the dataset under the same version.
///
/// The rungs add one stage at a time to the one before (resampling alone, then anti-aliasing,
/// then magnitude, …), so the first rung that fails names the stage that changed. The recording
/// is `synth`'s (seed 5, one minute, 17-digit values, gaps, dropped rows, duplicate times): a
/// change to `synth` itself also changes the digests, and says so.
@Suite struct StageGoldenTests {
    struct Rung: Sendable {
        var stage: String
        /// The stage's version the digest was recorded with.
        var version: Int
        var body: String
        var digest: String
    }

    static let base = """
        window: {length_samples: 64, stride_samples: 24}
        labels: {from: rows, policy: majority, min_fraction: 0.6, map: {W: walk, T: turn}, classes: [walk, turn]}

        """

    /// Rungs in the order the stages run; each one's body holds the rung before it.
    static let rungs: [Rung] = [
        Rung(stage: "resample", version: 1, body: """
            resample: {rate_hz: 40, method: {default: linear, G: nearest}, max_gap_s: {default: 0.2, G: 0.15}, antialias: false}
            """, digest: "74aa6c6a7718d36ffedad82e056722936fe961498a62180e622667785c73849c"),
        Rung(stage: "antialias", version: 1, body: """
            resample: {rate_hz: 40, method: {default: linear, G: nearest}, max_gap_s: {default: 0.2, G: 0.15}, antialias: true, antialias_from: recording}
            """, digest: "01cf845376f4590b1090f237434333866ccadf8680a9099acdaa709917c72b1d"),
        // The filter designed from each stream's first 256 intervals (the default since
        // `antialias_from` exists); the rungs around it keep the whole-recording median.
        Rung(stage: "antialias", version: 1, body: """
            resample: {rate_hz: 40, method: {default: linear, G: nearest}, max_gap_s: {default: 0.2, G: 0.15}, antialias: true, antialias_from: leading}
            """, digest: "bcbf11368e6eb03b8a05cbe82f637cdccaafe0726441af7c6b308eb0039982ec"),
        Rung(stage: "magnitude", version: 1, body: """
            resample: {rate_hz: 40, method: {default: linear, G: nearest}, max_gap_s: {default: 0.2, G: 0.15}, antialias: true, antialias_from: recording}
            magnitude: [acc, gyro]
            """, digest: "821177642a15c21cca6112e7fff2208eedf889670188d1515de18d58595cab8a"),
        Rung(stage: "transforms", version: 1, body: """
            resample: {rate_hz: 40, method: {default: linear, G: nearest}, max_gap_s: {default: 0.2, G: 0.15}, antialias: true, antialias_from: recording}
            magnitude: [acc]
            transforms:
              - median: {channels: [A, G], samples: 3}
              - butterworth: {channels: [A, G], type: lowpass, order: 3, cutoff_hz: 12}
              - gravity: {channels: [A], cutoff_hz: 0.3, order: 3}
              - derivative: {channels: [acc_body, gyro]}
              - magnitude: {channels: [acc_body, acc_gravity, acc_body_jerk, gyro, gyro_jerk]}
            """, digest: "2073864a78f0a2c50ba343e8bc838a407df7f2b0218318fba65d1334215b857f"),
        Rung(stage: "features", version: 1, body: """
            resample: {rate_hz: 40, method: {default: linear, G: nearest}, max_gap_s: {default: 0.2, G: 0.15}, antialias: true, antialias_from: recording}
            magnitude: [acc, gyro]
            features: [mean, std, var, min, max, range, median, iqr, rms, mad, skew, kurtosis, zero_crossings, energy, dominant_freq_hz, spectral_entropy, spectral_centroid_hz]
            """, digest: "9b807a26197ba8aaa2dc8013875bef1fe2d17b885dd8ea04224227c7516e1f3f"),
    ]

    /// Ingest (its own rung: the samples as read, after the time rules), windows and labels
    /// (part of every rung: the first one's digest covers them), normalization (the train
    /// moments of the features rung and `x_normalized` of its first window).
    static let ingestDigest = "5787ba98aca485b68f2022cd7634560901597c599c279df7410a61b443721ef9"
    static let normalizationDigest = "3f10a6f3349aed5ebd2af2664dcc888e9a52fdbdb0c9c73eb3473796646c1416"

    static func recording() throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory(label: "golden")
        var options = SynthOptions(outDirectory: dir.path("data"), subjects: 1, minutes: 1, seed: 5, recordingsPerSubject: 1,
                                   gapsPerMinute: 3, dropFraction: 0.02)
        options.sensors = ["A", "G"]
        options.precision = .full
        _ = try Synth.write(options)
        return dir
    }

    static func spec(_ dir: TemporaryDirectory, _ body: String) throws -> PipelineSpec {
        let yaml = "version: 1\nname: golden\ninputs:\n  - {type: motioncollector, paths: [\"data/**/*.csv\"], sensors: [A, G]}\n"
            + base + body + "\noutput: {path: out}\n"
        return try PipelineLoader.load(yaml: yaml, file: dir.path("p.yaml"), baseDirectory: dir.url.path)
    }

    /// The windows of the recording under `body`: x, y, features and start times, and the
    /// processed record (counts, moments).
    static func run(_ dir: TemporaryDirectory, _ body: String) throws -> ProcessedRecording {
        let spec = try spec(dir, body)
        let layout = try ChannelLayout.make(spec)
        let source = try InputDiscovery.recordings(spec)[0]
        let record = try RecordingProcessor(spec: spec, layout: layout)
            .processToRecord(source, isTrain: true, intervals: nil, ledger: InputLedger(baseDirectory: spec.baseDirectory),
                             recordPath: dir.path("r-\(UInt32(truncatingIfNeeded: body.hashValue)).mprec"), pipelineSHA256: "0",
                             isCancelled: { false })
        var out = record.processed
        try record.forEachBatch { b in
            out.windows.x += b.x
            out.windows.y += b.y
            out.windows.features += b.features
            out.windows.startTimes += b.startTimes
        }
        return out
    }

    /// SHA-256 over the little-endian bits of everything a rung outputs, and the counts.
    struct Digest {
        var bytes: [UInt8] = []
        mutating func add(_ v: [Float]) { for f in v { withUnsafeBytes(of: f.bitPattern.littleEndian) { bytes += $0 } } }
        mutating func add(_ v: [Double]) { for d in v { withUnsafeBytes(of: d.bitPattern.littleEndian) { bytes += $0 } } }
        mutating func add(_ v: [Int64]) { for i in v { withUnsafeBytes(of: i.littleEndian) { bytes += $0 } } }
        mutating func add(_ s: String) { bytes += Array(s.utf8) + [0] }
        var hex: String { SHA256.hex(of: bytes) }
    }

    static func digest(_ p: ProcessedRecording) -> String {
        var d = Digest()
        d.add(p.windows.x)
        d.add(p.windows.y)
        d.add(p.windows.features)
        d.add(p.windows.startTimes)
        d.add(p.rowsDropped.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ","))
        d.add(p.windowsDropped.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ","))
        d.add("gaps=\(p.gaps) invalid=\(p.invalidPoints)")
        return d.hex
    }

    static func failure(_ stage: String, version: Int, recorded: String, now: String) -> String {
        let current = StageImplementation.current.first { $0.stage == stage }?.version ?? 0
        if current == version {
            return "stage `\(stage)` (version \(version)) now outputs other bits (digest \(now), recorded \(recorded)): a change that alters a stage's output must bump its version in StageImplementation (Sources/MotionCore/StageImplementation.swift) and record the new digest here, so that apps and `apply` refuse datasets of the other version. (If MotionSynth changed, every digest changes: record them all.)"
        }
        return "stage `\(stage)` is at version \(current) but its golden digest was recorded at version \(version): record the new digest \(now) with version \(current)"
    }

    @Test func everyStageGivesItsRecordedBits() throws {
        let dir = try Self.recording()
        defer { dir.remove() }
        // Ingest: the samples as the readers give them, after the time rules.
        let spec = try Self.spec(dir, Self.rungs[0].body)
        let layout = try ChannelLayout.make(spec)
        let source = try InputDiscovery.recordings(spec)[0]
        let raw = try RecordingLoader.loadRaw(source, spec: spec, layout: layout, checkOrder: false).raw[0] ?? []
        var ingest = Digest()
        for r in raw.sorted(by: { $0.stream.name < $1.stream.name }) {
            let s = try TimeOrder.finalize(r.stream, sort: false, displayPath: "").stream
            ingest.add(s.name)
            ingest.add(s.times)
            for c in s.channels { ingest.add(c) }
        }
        #expect(ingest.hex == Self.ingestDigest, Comment(rawValue: Self.failure("ingest", version: 1, recorded: Self.ingestDigest, now: ingest.hex)))

        var failed = false
        var last: ProcessedRecording?
        for rung in Self.rungs {
            let p = try Self.run(dir, rung.body)
            #expect(p.windows.count > 20, "rung \(rung.stage): the golden recording should give windows")
            let now = Self.digest(p)
            // The first rung that fails names the stage; the ones after it change with it.
            if !failed && now != rung.digest {
                failed = true
                Issue.record(Comment(rawValue: Self.failure(rung.stage, version: rung.version, recorded: rung.digest, now: now)))
            }
            last = p
        }
        // Normalization: the train moments and the standardized first window.
        let p = try #require(last)
        var norm = Digest()
        let xm = try #require(p.xMoments), fm = try #require(p.featureMoments)
        for m in [xm, fm] {
            norm.add([m.count] + m.mean + m.m2)
        }
        let C = p.windows.channelCount
        let T = p.windows.length
        let standard = Standardization(mean: xm.mean, std: xm.std)
        norm.add(standard.apply(Array(p.windows.x[0..<(T * C)])))
        #expect(norm.hex == Self.normalizationDigest,
                Comment(rawValue: Self.failure("normalization", version: 1, recorded: Self.normalizationDigest, now: norm.hex)))
    }

    /// Every stage has a rung or a digest here, so none can change unseen.
    @Test func everyStageIsCovered() {
        let covered = Set(Self.rungs.map(\.stage) + ["ingest", "normalization", "windows", "labels"])
        for (stage, _) in StageImplementation.current {
            #expect(covered.contains(stage), "stage `\(stage)` has no golden output in StageGoldenTests")
        }
    }

    /// A record file (`--resume`, `merge`) of other stage code is never used: it is damaged for
    /// this run, so a resumed run redoes the recording and `merge` refuses the part.
    @Test func aRecordOfOtherStageCodeIsNotUsed() throws {
        let dir = try Self.recording()
        defer { dir.remove() }
        let spec = try Self.spec(dir, Self.rungs[0].body)
        let layout = try ChannelLayout.make(spec)
        let source = try InputDiscovery.recordings(spec)[0]
        let path = dir.path("r.mprec")
        _ = try RecordingProcessor(spec: spec, layout: layout)
            .processToRecord(source, isTrain: true, intervals: nil, ledger: InputLedger(baseDirectory: spec.baseDirectory),
                             recordPath: path, pipelineSHA256: "0", isCancelled: { false })
        #expect(try RecordStore.load(path: path, source: source, verify: true) != nil)
        // The header's `"antialias":1` becomes 2 (same length), its checksum recomputed.
        var bytes = try #require(try RegularFile.contents(atPath: path)).map { $0 }
        func u64(_ at: Int) -> Int { Int(bytes[at..<(at + 8)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }) }
        let size = bytes.count, hoff = u64(size - 16), hlen = u64(size - 24)
        let header = String(decoding: bytes[hoff..<(hoff + hlen)], as: UTF8.self)
        let edited = header.replacingOccurrences(of: "\"antialias\":1", with: "\"antialias\":2")
        #expect(edited != header && edited.utf8.count == header.utf8.count)
        bytes.replaceSubrange(hoff..<(hoff + hlen), with: Array(edited.utf8))
        let digest = XXH3Hasher.hash(Array(bytes[hoff..<(size - 32)]))
        withUnsafeBytes(of: digest.littleEndian) { bytes.replaceSubrange((size - 32)..<(size - 24), with: $0) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        do {
            _ = try RecordStore.load(path: path, source: source)
            Issue.record("a record of antialias version 2 should not load")
        } catch let e as RecordDamaged {
            #expect(e.reason == "it was made by other stage code (it was made by antialias version 2, and this build implements antialias version 1 only)")
        }
    }

    /// The versions a dataset records, checked the way `apply` and the live library check them.
    @Test func recordsOfOtherVersionsAreRefused() throws {
        #expect(StageImplementation.problem(StageImplementation.beforeVersions) == nil)
        var newer = StageImplementation.beforeVersions
        newer["antialias"] = 2
        #expect(StageImplementation.problem(newer) == "it was made by antialias version 2, and this build implements antialias version 1 only")
        var unknown = StageImplementation.beforeVersions
        unknown["qa"] = 1
        #expect(StageImplementation.problem(unknown) == "it was made with a stage `qa` (version 1) that this build does not have")
        // A record without a stage: that stage ran at its first version.
        guard case .success(let partial) = StageImplementation.decode(.object(["resample": .int(1)])) else {
            Issue.record("a record naming one stage should decode"); return
        }
        #expect(partial == StageImplementation.beforeVersions)
        for bad: JSONValue in [.array([]), .object(["resample": .int(0)]), .object(["resample": .double(1.5)]),
                               .object(["resample": .string("1")])] {
            if case .success = StageImplementation.decode(bad) { Issue.record("\(bad.compact()) should not decode") }
        }
    }
}
