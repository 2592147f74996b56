import Foundation
import MotionChecksum
import MotionCore
import MotionDataset
import MotionSinks
import Testing
@testable import MotionInputs
@testable import MotionRecords
@testable import MotionEngine
@testable import MotionJob

/// Every JSON file motionprep reads back goes through MotionCore's `JSONNode`: a value of the
/// wrong type or a missing key is one sentence naming the file and the key path. One test per
/// file kind (the manifest, `state.json`, a record's header); the shard `.json` is in
/// MotionSinksTests, the live library's manifest in MotionLiveTests.
@Suite struct JSONReadingTests {
    static let sha = String(repeating: "ab", count: 32)

    // MARK: - The decoder itself

    @Test func nodesNameTheirKeyPathWhatWasExpectedAndWhatWasFound() throws {
        let root = JSONNode(try JSONParser.parse(text: #"{"a": {"b": [1, "2", 2.5, null]}, "s": "x"}"#), document: "the file")
        let b = try root["a"]["b"].items()
        #expect(try b[0].int() == 1)
        #expect(throws: JSONProblem(path: "a.b[1]", sentence: "`a.b[1]` must be a whole number, not \"2\"")) { try b[1].int() }
        #expect(throws: JSONProblem(path: "a.b[2]", sentence: "`a.b[2]` must be a whole number ≥ 0, not `2.5`")) { try b[2].int(min: 0) }
        #expect(try b[2].double() == 2.5)
        #expect(try b[3].optional { n throws(JSONProblem) in try n.string() } == nil)
        #expect(throws: JSONProblem(path: "a.c", sentence: "missing key `c` in `a`", isMissing: true)) { try root["a"]["c"].string() }
        #expect(throws: JSONProblem(path: "z", sentence: "missing key `z` in the file", isMissing: true)) { try root["z"].bool() }
        #expect(throws: JSONProblem(path: "s", sentence: "`s` must be a list, not \"x\"")) { try root["s"].items() }
        #expect(throws: JSONProblem(path: "s", sentence: "`s` must be 64 lowercase hex digits, not \"x\"")) { try root["s"].sha256() }
        try root.onlyKeys(["a", "s"], required: ["a"])
        #expect(throws: JSONProblem(path: "zzz", sentence: "unknown key `zzz` in the file")) { try JSONNode(.object(["zzz": .null]), document: "the file").onlyKeys(["a"]) }
        #expect(throws: JSONProblem(path: "", sentence: "the file must be an object, not a list")) { try JSONNode(.array([]), document: "the file").object() }
    }

    @Test func aFileThatIsNotJSONIsNamedWithLineAndColumn() {
        do {
            _ = try JSONFile.parse(Array("{\"a\":\n".utf8), file: "s.json", status: .config)
            Issue.record("not JSON, but parsed")
        } catch {
            #expect(error.exitStatus == .config && error.message.hasPrefix("s.json is not valid JSON at s.json:2:1: "), "\(error.message)")
        }
    }

    // MARK: - manifest.json

    @Test func aManifestValueOfTheWrongTypeOrAMissingKeyNamesTheFileAndTheKeyPath() throws {
        let m = Self.manifest()
        _ = try DatasetManifest.decode(bytes: Array(m.json.pretty().utf8), file: "out/manifest.json")
        var wrong = m.json
        wrong = Self.replacing(wrong, ["splits", "train", "num_windows"], with: .string("12"))
        #expect(throws: MotionError(.dataError, "out/manifest.json: `splits.train.num_windows` must be a whole number ≥ 0, not \"12\"")) {
            try DatasetManifest.decode(bytes: Array(wrong.pretty().utf8), file: "out/manifest.json")
        }
        let missing = Self.replacing(m.json, ["counts", "gaps"], with: nil)
        #expect(throws: MotionError(.dataError, "out/manifest.json: missing key `gaps` in `counts`")) {
            try DatasetManifest.decode(bytes: Array(missing.pretty().utf8), file: "out/manifest.json")
        }
    }

    // MARK: - part.json's partition_summary

    /// `partition_summary` (docs/scale.md, "The partitioned layout") decodes through `JSONNode`:
    /// back to the same JSON, and a forged value names its key path in `part.json`.
    @Test func aPartitionSummaryRoundTripsAndAWrongValueNamesItsKeyPath() throws {
        var totals = Totals(channels: 2, features: 0)
        totals.rowsRead = 10
        totals.rowsDropped = ["missing_value": 1]
        totals.skipped = [("s1/r2", "r2.csv:3:1: bad value")]
        totals.labelRowsNoOverlap = [4]
        totals.xMoments.count = 3
        totals.xMoments.mean = [0.5, -1.25]
        totals.xMoments.m2 = [2, 0.1]
        var summary = PartitionSummary(
            partition: 1, files: [(.train, WrittenFile(path: "train/part-00001-of-00002-train-00000.tar.zst", numWindows: 3,
                                                       classCounts: [2, 1], sha256: Self.sha, bytes: 99))],
            totals: totals, inputs: [InputEntry(inputIndex: 0, path: "d/r.csv", bytes: 10, sha256: Self.sha)])
        var rows = CreateMLSplitRows(classes: 2)
        rows.files = [CreateMLFile(path: "train/walk/r__000.csv", split: "train", label: "walk", recording: "r", rows: 5,
                                   startTime: 0, endTime: 0.08)]
        rows.windowCount = 1
        summary.createml = [.train: rows]
        func decode(_ value: JSONValue) throws(JSONProblem) -> PartitionSummary {
            try JSONNode(value, path: "partition_summary", document: "the part").decode()
        }
        let back = try decode(try JSONParser.parse(text: summary.json.compact()))
        #expect(back.json == summary.json)
        #expect(back.createml == summary.createml && back.inputs == summary.inputs)
        func problem(_ path: [String], _ new: JSONValue?) -> String? {
            do {
                _ = try decode(Self.replacing(summary.json, path, with: new))
                return nil
            } catch {
                return error.sentence
            }
        }
        #expect(problem(["gaps"], .string("0")) == "`partition_summary.gaps` must be a whole number ≥ 0, not \"0\"")
        #expect(problem(["rows_read"], nil) == "missing key `rows_read` in `partition_summary`")
        #expect(problem(["rows_dropped"], .object(["missing_value": .int(-1)]))
                == "`partition_summary.rows_dropped.missing_value` must be a whole number ≥ 0, not -1")
        #expect(problem(["x_moments", "m2"], .array([.double(1)])) == "`partition_summary.x_moments.m2` holds 1 values for 2 means")
        #expect(problem(["files"], .array([.object(["split": .string("train"), "path": .string("../x"), "bytes": .int(1),
                                                     "sha256": .string(Self.sha), "num_windows": .int(0), "class_counts": .array([])])]))
                == "`partition_summary.files[0].path` must be a path inside the folder (relative, no `..`), not \"../x\"")
        #expect(problem(["files"], .array([.object(["split": .string("windows"), "path": .string("x"), "bytes": .int(1),
                                                     "sha256": .string(Self.sha), "num_windows": .int(0), "class_counts": .array([])])]))
                == "`partition_summary.files[0].split` names split \"windows\"; the splits are train, validation and test")
        #expect(problem(["inputs"], .array([.object(["input_index": .int(0), "path": .string("d/r.csv"), "bytes": .int(10),
                                                      "sha256": .string("x"), "role": .string("recording")])]))
                == "`partition_summary.inputs[0].sha256` must be 64 lowercase hex digits, not \"x\"")
        #expect(problem(["createml", "train", "window_count"], .double(1.5))
                == "`partition_summary.createml.train.window_count` must be a whole number ≥ 0, not `1.5`")
        #expect(problem(["createml", "tests"], .object([:]))
                == "`partition_summary.createml.tests` names split \"tests\"; the splits are train, validation and test")
    }

    // MARK: - state.json

    @Test func resumeStateOfTheWrongTypeOrWithAMissingKeyNamesTheFileAndTheKeyPath() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("json-reading-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/state.json"
        let entry = InputEntry(inputIndex: 0, path: "data/a.csv", bytes: 10, sha256: Self.sha)
        let state = RunState(pipelineSHA256: Self.sha, worker: nil, inputs: [entry])
        try state.text.write(toFile: path, atomically: false, encoding: .utf8)
        let read = try RunState.load(path: path)
        #expect(read.pipelineSHA256 == Self.sha && read.worker == nil && read.inputs == [entry])

        let wrong = state.text.replacingOccurrences(of: "\"bytes\": 10", with: "\"bytes\": \"10\"")
        #expect(wrong != state.text)
        try wrong.write(toFile: path, atomically: false, encoding: .utf8)
        #expect(throws: MotionError(.dataError, "cannot resume: \(path): `inputs[0].bytes` must be a whole number ≥ 0, not \"10\"; run without `--resume` to start over")) {
            try RunState.load(path: path)
        }
        try JSONValue.object(["worker": .null]).pretty().write(toFile: path, atomically: false, encoding: .utf8)
        #expect(throws: MotionError(.dataError, "cannot resume: \(path): missing key `pipeline_sha256` in the resume state; run without `--resume` to start over")) {
            try RunState.load(path: path)
        }
        // An older motionprep's state has no `inputs`.
        try JSONValue.object(["pipeline_sha256": .string(Self.sha), "worker": .string("0/2")]).pretty().write(toFile: path, atomically: false, encoding: .utf8)
        let old = try RunState.load(path: path)
        #expect(old.inputs == nil && old.worker == "0/2")
    }

    @Test func inputEntriesNameTheKeyOfTheirProblem() throws {
        let entry = InputEntry(inputIndex: -1, path: "labels.csv", bytes: 3, sha256: Self.sha, role: .labels)
        #expect(try JSONNode(entry.json).decode(InputEntry.self) == entry)
        var o = entry.json.objectValue!
        o["role"] = .string("video")
        #expect(throws: JSONProblem(path: "inputs[2].role", sentence: "`inputs[2].role` must be \"recording\", \"labels\" or \"iio_layout\", not \"video\"")) {
            try JSONNode(.object(o), path: "inputs[2]").decode(InputEntry.self)
        }
        o["role"] = nil
        #expect(throws: JSONProblem(path: "inputs[2].role", sentence: "missing key `role` in `inputs[2]`", isMissing: true)) {
            try JSONNode(.object(o), path: "inputs[2]").decode(InputEntry.self)
        }
    }

    // MARK: - A record's header

    @Test func aRecordHeaderOfTheWrongTypeOrWithAMissingKeyNamesTheRecordAndTheKeyPath() throws {
        let dir = try StageGoldenTests.recording()
        defer { dir.remove() }
        let spec = try StageGoldenTests.spec(dir, StageGoldenTests.rungs[0].body)
        let layout = try ChannelLayout.make(spec)
        let source = try InputDiscovery.recordings(spec)[0]
        let path = dir.path("r.mprec")
        _ = try RecordingProcessor(spec: spec, layout: layout)
            .processToRecord(source, isTrain: true, intervals: nil, ledger: InputLedger(baseDirectory: spec.baseDirectory),
                             recordPath: path, pipelineSHA256: "0", isCancelled: { false })
        let original = try #require(try RegularFile.contents(atPath: path)).map { $0 }
        #expect(try RecordStore.load(path: path, source: source, verify: true) != nil)

        /// The record with its header text edited, its checksum and trailer written again.
        func edit(_ change: (String) -> String) throws -> String {
            var bytes = original
            func u64(_ at: Int) -> Int { Int(bytes[at..<(at + 8)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }) }
            let size = bytes.count, hoff = u64(size - 16), hlen = u64(size - 24)
            let header = String(decoding: bytes[hoff..<(hoff + hlen)], as: UTF8.self)
            let edited = Array(change(header).utf8)
            #expect(edited != Array(header.utf8))
            let moments = Array(bytes[(hoff + hlen)..<(size - 32)])
            bytes = Array(bytes[..<hoff]) + edited + moments
            let digest = XXH3Hasher.hash(Array(bytes[hoff...]))
            for v in [digest, UInt64(edited.count), UInt64(hoff)] { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
            bytes += RecordStore.endMagic
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            do {
                _ = try RecordStore.load(path: path, source: source)
                Issue.record("an edited header was read")
                return ""
            } catch let e as RecordDamaged {
                #expect(e.exitStatus == .dataError)
                return e.message
            }
        }
        let wrong = try edit { $0.replacingOccurrences(of: #""gaps":"#, with: #""gaps":"x","was_gaps":"#) }
        #expect(wrong == "the record \(path) is damaged or unusable: its header is not valid: `gaps` must be a whole number ≥ 0, not \"x\"")
        let missing = try edit { h in
            let start = h.range(of: #""recording":""#)!
            let end = h[start.upperBound...].range(of: #"","#)!
            return String(h[..<start.lowerBound] + h[end.upperBound...])
        }
        #expect(missing == "the record \(path) is damaged or unusable: its header is not valid: missing key `recording` in the header")
        let entry = try edit { $0.replacingOccurrences(of: #""input_index":0"#, with: #""input_index":0.5"#) }
        #expect(entry == "the record \(path) is damaged or unusable: its header is not valid: `inputs[0].input_index` must be a whole number, not `0.5`")
    }

    // MARK: - Helpers

    static func manifest() -> DatasetManifest {
        let file = DatasetManifest.DataFile(split: .train, path: "train.h5", bytes: 10, sha256: sha, numWindows: 0, classCounts: [0])
        func split(_ s: SplitName) -> DatasetManifest.Split {
            var f = file
            f.split = s
            f.path = "\(s.rawValue).h5"
            return DatasetManifest.Split(numWindows: 0, classCounts: [0], files: [f])
        }
        return DatasetManifest(
            formatVersion: DatasetSchema.formatVersion, createdBy: "motionprep test", storage: "hdf5",
            pipeline: DatasetManifest.Pipeline(name: "p", sha256: sha, resolved: .object([:])),
            sampleRateHz: 50, windowLength: 4, windowStride: 2, channels: [DatasetManifest.Channel(name: "ax", unit: "g")],
            classes: ["walk"], featureNames: [], inputs: [], subjects: [], recordings: [],
            arrays: DatasetSchema.arrays(windowLength: 4, channels: 1, features: 0, hasFolds: false),
            splitPolicy: DatasetManifest.SplitPolicy(by: "subject", seed: 1, train: 1, validation: 0, test: 0, folds: nil),
            normalization: DatasetManifest.Normalization(x: nil, features: nil),
            counts: DatasetManifest.Counts(recordings: 0, rowsRead: 0, rowsDropped: [:], windowsDropped: [:], recordingsDropped: nil,
                                           skippedRecordings: nil, labelRowsIgnored: nil, gaps: 0, gapSeconds: 0),
            splits: Dictionary(uniqueKeysWithValues: SplitName.datasetSplits.map { ($0, split($0)) }))
    }

    /// `value` with the member at `path` replaced (nil: removed).
    static func replacing(_ value: JSONValue, _ path: [String], with new: JSONValue?) -> JSONValue {
        guard let key = path.first, case .object(var o) = value else { return new ?? value }
        if path.count == 1 { o[key] = new } else { o[key] = replacing(o[key] ?? .null, Array(path.dropFirst()), with: new) }
        return .object(o)
    }
}
