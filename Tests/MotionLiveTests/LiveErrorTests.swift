import Foundation
import MotionCore
import MotionTestSupport
import Testing
@testable import MotionLive

/// Every refusal of the live library: one sentence naming the value and what is accepted, and
/// the processor left as it was.
@Suite struct LiveErrorTests {
    /// A small manifest: two streams (a: ax, ay; b: p), 10 Hz, windows of 4, stride 2, mean.
    static func manifest(antialias: Bool = false, antialiasFrom: String? = nil, chain: JSONValue? = nil,
                         format: String = "motionprep.dataset", features: [String] = ["mean"]) -> JSONValue {
        var top: [String: JSONValue] = [
            "format": .string(format),
            "created_by": .string("motionprep 0.1.0"),
            "channels": .array([["ax", "g"], ["ay", "g"], ["p", "hPa"]].map { .object(["name": .string($0[0]), "unit": .string($0[1])]) }),
            "sample_rate_hz": .double(10),
            "window_length": .int(4),
            "window_stride": .int(2),
            "feature_names": .array(features.isEmpty ? [] : ["ax_mean", "ay_mean", "p_mean"].map { .string($0) }),
            "pipeline": .object(["name": .string("t"), "sha256": .string("abc"),
                                 "resolved": .object(["features": .array(features.map { .string($0) })])]),
            "normalization": .object(["x": .null, "features": .null]),
        ]
        top["chain"] = chain ?? .object([
            "streams": .array([
                .object(["name": .string("a"), "channels": .array([.string("ax"), .string("ay")]), "method": .string("linear"),
                         "max_gap_s": .double(0.5)]),
                .object(["name": .string("b"), "channels": .array([.string("p")]), "method": .string("previous"), "max_gap_s": .null]),
            ]),
            "magnitudes": .array([]),
            "antialias": .bool(antialias),
            "transforms": .array([]),
        ])
        if let antialiasFrom, case .object(var c)? = top["chain"] {
            c["antialias_from"] = .string(antialiasFrom)
            top["chain"] = .object(c)
        }
        return .object(top)
    }

    static func configuration(_ m: JSONValue = manifest()) throws -> LiveConfiguration {
        try LiveConfiguration(manifestBytes: Array(m.compact().utf8), name: "m.json")
    }

    static func message(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func aSmallChainByHand() throws {
        let live = try LiveProcessor(configuration: Self.configuration())
        var windows: [LiveWindow] = []
        // a at 20 Hz (ax = t, ay = −t), b at 5 Hz (p = 1000 + t), interleaved.
        for k in 0..<40 {
            let t = Double(k) * 0.05
            windows += try live.push("a", time: t, values: [t, -t])
            if k % 4 == 0 { windows += try live.push("b", time: t, values: [1000 + t]) }
        }
        windows += live.finish()
        // Grid: 0, 0.1, …; T1 = min(1.95, 1.8) = 1.8 → 19 points, windows at 0, 2, …, 14 (8).
        #expect(windows.map(\.startTime) == (0..<8).map { Double($0 * 2) / 10 })
        let w = windows[1]  // points 2…5: t = 0.2 … 0.5
        let t = (2...5).map { 0 + Double($0) / 10 }
        // ax, ay linear; p the last sample at or before t (b at 0, 0.2, 0.4 …).
        let expected: [Float] = t.flatMap { [Float($0), Float(-$0), Float(1000 + (($0 * 5).rounded(.down) / 5))] }
        #expect(w.x.count == 12)
        for (a, b) in zip(w.x, expected) { #expect(abs(a - b) <= 1e-6 * max(1, abs(b))) }
        #expect(w.features.count == 3)
        #expect(abs(w.features[0] - 0.35) < 1e-6)
        #expect(w.xNormalized.isEmpty && w.featuresNormalized.isEmpty)
    }

    /// A dataset made by stage code this library does not implement (docs/live.md, "Parity that
    /// an app can check"): refused, naming the stage and both versions.
    @Test func aDatasetOfAnotherStageVersionIsRefused() throws {
        func chain(_ implementation: JSONValue?) -> JSONValue {
            guard case .object(var c) = Self.manifest()["chain"]! else { fatalError() }
            c["implementation"] = implementation
            return .object(c)
        }
        // Absent (a manifest from before the record) and the current versions: read.
        #expect(try Self.configuration(Self.manifest(chain: chain(nil))).implementation == StageImplementation.beforeVersions)
        #expect(try Self.configuration(Self.manifest(chain: chain(StageImplementation.record))).implementation
                == StageImplementation.beforeVersions)
        #expect(Self.message { _ = try Self.configuration(Self.manifest(chain: chain(.object(["features": .int(3)])))) }
                == "m.json: this MotionLive cannot reproduce the dataset's processing: it was made by features version 3, and this build implements features version 1 only (`chain.implementation`); use the MotionLive of the motionprep that wrote the dataset, or write the dataset again with the motionprep this MotionLive comes with")
        #expect(Self.message { _ = try Self.configuration(Self.manifest(chain: chain(.object(["qa": .int(1)])))) }?
                .contains("it was made with a stage `qa` (version 1) that this build does not have") == true)
        #expect(Self.message { _ = try Self.configuration(Self.manifest(chain: chain(.array([])))) }
                == "m.json: `chain.implementation` must be an object of stage names and version numbers")
    }

    @Test func refusedSamplesLeaveTheProcessorAsItWas() throws {
        let configuration = try Self.configuration()
        let live = try LiveProcessor(configuration: configuration)
        let reference = try LiveProcessor(configuration: configuration)
        var a: [LiveWindow] = [], b: [LiveWindow] = []
        for k in 0..<30 {
            let t = Double(k) * 0.05
            a += try live.push(stream: 0, time: t, values: [t, 1])
            b += try reference.push(stream: 0, time: t, values: [t, 1])
            a += try live.push(stream: 1, time: t, values: [2])
            b += try reference.push(stream: 1, time: t, values: [2])
            if k == 10 {
                let back = Self.message { _ = try live.push(stream: 0, time: 0.2, values: [9, 9]) }
                #expect(back == "a sample of stream `a` at 0.2 s comes after one at 0.5 s; each stream's samples must come in time order (equal times replace the previous sample)")
                #expect(Self.message { _ = try live.push(stream: 0, time: .nan, values: [9, 9]) }?.contains("has time nan; times must be finite seconds") == true)
                #expect(Self.message { _ = try live.push(stream: 0, time: 0.6, values: [9]) }
                        == "a sample of stream `a` has 2 values (ax, ay), not 1")
                #expect(Self.message { _ = try live.push(stream: 2, time: 0.6, values: [9]) }?.hasPrefix("unknown stream 2; the dataset has 2 streams, 0 to 1 (`a`, `b`)") == true)
                #expect(Self.message { _ = try live.push("gyro", time: 0.6, values: [9]) } == "unknown stream `gyro`; the dataset's streams are `a`, `b`")
                #expect(Self.message { _ = try live.push(stream: 0, times: [0.6, 0.7], values: [1, 2, 3]) }
                        == "a batch of 2 samples of stream `a` needs 4 values (2 per sample), not 3")
            }
        }
        #expect(live.counts.refusedSamples == 1)
        a += live.finish()
        b += reference.finish()
        #expect(a == b && !a.isEmpty)
        #expect(Self.message { _ = try live.push(stream: 0, time: 9, values: [1, 1]) } == "stream `a` was finished; it takes no more samples")
    }

    @Test func equalTimesReplaceThePreviousSample() throws {
        let live = try LiveProcessor(configuration: Self.configuration())
        var windows: [LiveWindow] = []
        for k in 0..<12 {
            let t = Double(k) * 0.1
            windows += try live.push(stream: 0, time: t, values: [99, 99])
            windows += try live.push(stream: 0, time: t, values: [t, 0])  // replaces the one before
            windows += try live.push(stream: 1, time: t, values: [1])
        }
        windows += live.finish()
        #expect(live.counts.duplicateSamples == 12)
        #expect(!windows.isEmpty && windows.allSatisfy { w in (0..<4).allSatisfy { w.x[$0 * 3 + 1] == 0 } })
    }

    @Test func missingValuesAreDroppedAndShortStreamsGiveNoGrid() throws {
        let configuration = try Self.configuration()
        let live = try LiveProcessor(configuration: configuration)
        let reference = try LiveProcessor(configuration: configuration)
        var a: [LiveWindow] = [], b: [LiveWindow] = []
        for k in 0..<30 {
            let t = Double(k) * 0.05
            a += try live.push(stream: 0, time: t, values: [t, 1])
            b += try reference.push(stream: 0, time: t, values: [t, 1])
            if k % 7 == 3 { a += try live.push(stream: 0, time: t + 0.01, values: [.nan, 1]) }
            if k % 9 == 4 { a += try live.push(stream: 1, time: t + 0.02, values: [.infinity]) }
            a += try live.push(stream: 1, time: t, values: [2])
            b += try reference.push(stream: 1, time: t, values: [2])
        }
        a += live.finish()
        b += reference.finish()
        #expect(a == b && !a.isEmpty)
        #expect(live.counts.missingValueSamples == 4 + 3)
        // One sample of a stream: no grid, no window, no crash; none at all: the same.
        let one = try LiveProcessor(configuration: configuration)
        for k in 0..<30 { _ = try one.push(stream: 0, time: Double(k) * 0.05, values: [1, 1]) }
        _ = try one.push(stream: 1, time: 1.45, values: [1])
        #expect(one.finish().isEmpty)
        let none = try LiveProcessor(configuration: configuration)
        _ = try none.push(stream: 0, time: 0, values: [1, 1])
        #expect(none.finish().isEmpty)
    }

    /// A chain without `antialias_from` (a dataset made before the key) designed the filter from
    /// each recording's median interval: the processor needs it.
    @Test func antialiasFromTheRecordingNeedsEachStreamsInterval() throws {
        let configuration = try Self.configuration(Self.manifest(antialias: true))
        #expect(!configuration.antialiasFromLeading)
        #expect(try Self.configuration(Self.manifest(antialias: true, antialiasFrom: "recording")).antialiasFromLeading == false)
        #expect(Self.message { _ = try LiveProcessor(configuration: configuration, sampleIntervals: ["a": 0.01]) }
                == "the dataset low-passes its streams before resampling (antialias: true) with a filter designed from each recording's median sampling interval (it was made before antialias_from: leading); give stream `b`'s interval in seconds in sampleIntervals (0.01 for 100 Hz)")
        #expect(Self.message { _ = try LiveProcessor(configuration: configuration, sampleIntervals: ["a": 0.01, "b": -1]) }
                == "sampleIntervals gives stream `b` an interval of -1.0 s; it must be a positive number of seconds")
        #expect(Self.message { _ = try LiveProcessor(configuration: configuration, sampleIntervals: ["a": 0.01, "b": 1, "c": 1]) }?
                .hasPrefix("sampleIntervals names stream `c`, but the dataset's streams are `a`, `b`") == true)
        _ = try LiveProcessor(configuration: configuration, sampleIntervals: ["a": 0.01, "b": 1])
    }

    /// `antialias_from: leading`: the processor measures the intervals; it takes none, and an
    /// unknown value of the key is refused.
    @Test func antialiasFromTheLeadingIntervalsTakesNoInterval() throws {
        let configuration = try Self.configuration(Self.manifest(antialias: true, antialiasFrom: "leading"))
        #expect(configuration.antialiasFromLeading)
        _ = try LiveProcessor(configuration: configuration)
        #expect(Self.message { _ = try LiveProcessor(configuration: configuration, sampleIntervals: ["b": 1]) }
                == "sampleIntervals gives stream `b` an interval, but the dataset designs its anti-aliasing filter from each stream's first 256 sampling intervals (antialias_from: leading), which the processor measures itself; give no sampleIntervals")
        #expect(Self.message { _ = try Self.configuration(Self.manifest(antialias: true, antialiasFrom: "first")) }
                == "m.json: `chain.antialias_from` is \"first\"; this version of the library reads \"leading\" or \"recording\"")
        #expect(Self.message { _ = try Self.configuration(Self.manifest(antialias: true, antialiasFrom: "")) }?.hasPrefix("m.json: `chain.antialias_from` is \"\"") == true)
        // Without anti-aliasing the key means nothing.
        #expect(try Self.configuration(Self.manifest(antialias: false, antialiasFrom: "leading")).antialiasFromLeading == false)
    }

    /// A stream of 1 sample and one of 3 (fewer than 256 intervals): held until they finish,
    /// then the grid; a time before a held sample is refused as before.
    @Test func heldSamplesAreRefusedAndReleasedAsOthers() throws {
        let configuration = try Self.configuration(Self.manifest(antialias: true, antialiasFrom: "leading"))
        let live = try LiveProcessor(configuration: configuration)
        #expect(try live.push(stream: 0, times: [0, 0.1, 0.1, 0.2], values: [1, 1, 2, 2, 3, 3, 4, 4]).isEmpty)
        #expect(live.counts.duplicateSamples == 1)
        #expect(Self.message { _ = try live.push(stream: 0, time: 0.15, values: [1, 1]) }?
                .hasPrefix("a sample of stream `a` at 0.15 s comes after one at 0.2 s") == true)
        #expect(live.counts.refusedSamples == 1)
        #expect(try live.push(stream: 1, time: 0.05, values: [7]).isEmpty)
        #expect(live.finish().isEmpty)  // b has one sample: no grid (too_few_samples)
    }

    @Test func manifestsItCannotRun() throws {
        func problem(_ m: JSONValue) -> String? { Self.message { _ = try Self.configuration(m) } }
        guard case .object(var noChain) = Self.manifest() else { return }
        noChain["chain"] = nil
        #expect(problem(.object(noChain)) == "m.json has no `chain` record (it was written by motionprep 0.1.0, before datasets recorded their processing chain); run `motionprep run` on its pipeline again with this version to write one")
        #expect(problem(Self.manifest(format: "motionprep.applied"))?.contains("the live library reads the manifest of a dataset written by `motionprep run`") == true)
        let badStream = JSONValue.object(["streams": .array([.object(["name": .string("a"), "channels": .array([.string("ax"), .string("zz")]),
                                                                      "method": .string("linear")])]),
                                          "magnitudes": .array([]), "antialias": .bool(false), "transforms": .array([])])
        #expect(problem(Self.manifest(chain: badStream)) == "m.json: `chain.streams[0].channels` names channel `zz`, which is not in `channels`")
        let badMethod = JSONValue.object(["streams": .array([.object(["name": .string("a"), "channels": .array([.string("ax"), .string("ay"), .string("p")]),
                                                                      "method": .string("cubic")])]),
                                          "magnitudes": .array([]), "antialias": .bool(false), "transforms": .array([])])
        #expect(problem(Self.manifest(chain: badMethod)) == "m.json: `chain.streams[0].method` is \"cubic\"; the methods are linear, nearest and previous")
        #expect(Self.message { _ = try LiveConfiguration(manifestBytes: Array("{\"format\": ".utf8), name: "m.json") }?.hasPrefix("m.json:1:12: ") == true)
        let dir = try TemporaryDirectory(label: "live-errors")
        defer { dir.remove() }
        #expect(Self.message { _ = try LiveConfiguration(contentsOf: dir.path("nothing")) }
                == "cannot read \(dir.path("nothing"))/manifest.json: give the folder of a dataset written by `motionprep run`, or its manifest.json")
    }

    /// The manifest is read through MotionCore's `JSONNode`, as motionprep reads it: a value of
    /// the wrong type or a missing key names the file and the key path.
    @Test func aWrongTypedOrMissingKeyNamesTheManifestAndTheKeyPath() {
        func problem(_ edit: (inout [String: JSONValue]) -> Void) -> String? {
            guard case .object(var top) = Self.manifest() else { return "no manifest" }
            edit(&top)
            return Self.message { _ = try Self.configuration(.object(top)) }
        }
        #expect(problem { $0["window_length"] = .string("12") } == "m.json: `window_length` must be a whole number, not \"12\"")
        #expect(problem { $0["sample_rate_hz"] = nil } == "m.json: missing key `sample_rate_hz` in the manifest")
        #expect(problem {
            guard case .object(var chain)? = $0["chain"] else { return }
            chain["antialias"] = .int(1)
            $0["chain"] = .object(chain)
        } == "m.json: `chain.antialias` must be true or false, not `1`")
        #expect(problem {
            guard case .object(var chain)? = $0["chain"] else { return }
            chain["magnitudes"] = nil
            $0["chain"] = .object(chain)
        } == "m.json: missing key `magnitudes` in `chain`")
        #expect(Self.message { _ = try Self.configuration(.array([])) } == "m.json: the manifest must be an object, not a list")
    }
    /// The test vectors (docs/live.md, "Test vectors") are read through `JSONNode` too: a value of
    /// the wrong form names the file and its key path.
    @Test func testVectorsOfTheWrongFormNameTheKeyPath() throws {
        let one = String(1.0.bitPattern, radix: 16), x = String(Float(2).bitPattern, radix: 16)
        func vectors(_ samples: JSONValue, rows: JSONValue? = nil) -> [UInt8] {
            var o: [String: JSONValue] = [
                "format": .string("motionprep.live-vectors"), "format_version": .int(1), "pipeline_sha256": .string("abc"),
                "recording": .string("r"), "sample_intervals": .object(["a": .string(one)]), "samples": samples,
                "windows": .array([.object(["start_time": .string(one), "x": .string(x + x)])]),
            ]
            o["rows"] = rows
            return Array(JSONValue.object(o).compact().utf8)
        }
        let good = try LiveVectors(bytes: vectors(.array([.array([.string("a"), .string(one), .string(one)])])), name: "v.json")
        #expect(good.samples.count == 1 && good.samples[0].stream == "a" && good.samples[0].time == 1 && good.samples[0].values == [1])
        #expect(good.windows.count == 1 && good.windows[0].x == [2, 2] && good.sampleIntervals == ["a": 1] && good.rows.isEmpty)
        let tail = "; it is not a test vectors file written by `motionprep live-vectors` (format motionprep.live-vectors, version 1)"
        #expect(Self.message { _ = try LiveVectors(bytes: vectors(.array([.array([.string("a"), .string("1.0")])])), name: "v.json") }
                == "v.json: `samples[0][1]` must be 16 hex digits (a float64's bits), not \"1.0\"" + tail)
        #expect(Self.message { _ = try LiveVectors(bytes: vectors(.array([.array([.string("a")])])), name: "v.json") }
                == "v.json: `samples[0]` must be [stream, time, values…]" + tail)
        #expect(Self.message { _ = try LiveVectors(bytes: vectors(.array([]), rows: .array([.array([.string(one), .string("xyz")])])), name: "v.json") }
                == "v.json: `rows[0][1]` must be 8 lowercase hex digits per float32" + tail)
        #expect(Self.message { _ = try LiveVectors(bytes: vectors(.object([:])), name: "v.json") }
                == "v.json: `samples` must be a list, not an object" + tail)
    }
}
