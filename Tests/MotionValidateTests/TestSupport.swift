import Foundation
import MotionChecksum
import MotionCore
import MotionHDF5
@testable import MotionprepCLI
import MotionSynth
import MotionValidate

/// A dataset written once per test process by the real pipeline (synth → `motionprep run`), which
/// each test copies into its own folder before corrupting it.
enum Fixture {
    /// 4 subjects × 2 one-minute recordings, 2 features per channel, 3 folds; splits 50/25/25.
    static let pipeline = """
        version: 1
        name: validate-fixture
        inputs:
          - type: motioncollector
            paths: ["data/**/*.csv"]
        resample: {rate_hz: 50, max_gap_s: 0.2, antialias: false}
        window: {length_samples: 128, stride_samples: 64}
        labels: {from: rows, policy: majority, min_fraction: 0.8, map: {W: walk, T: turn}, classes: [walk, turn]}
        features: [mean, std]
        split: {seed: 42, folds: 3, fractions: {train: 0.5, validation: 0.25, test: 0.25}}
        output: {type: hdf5, path: out}
        """

    /// The pristine dataset folder (never modified by tests).
    static let dataset: String = {
        let root = makeTemporaryDirectory("fixture")
        do {
            _ = try Synth.write(SynthOptions(outDirectory: root + "/data", subjects: 4, minutes: 1, seed: 3))
            try pipeline.write(toFile: root + "/fixture.yaml", atomically: true, encoding: .utf8)
        } catch {
            fatalError("cannot write the fixture's inputs: \(error)")
        }
        let status = MotionprepCommand.run(["run", root + "/fixture.yaml", "--quiet"])
        precondition(status == .success, "the fixture pipeline failed with \(status)")
        return root + "/out"
    }()

    /// The same recordings written as shards of at most 50 windows (docs/dataset-format.md, "Shards").
    static let shardDataset: String = {
        let root = makeTemporaryDirectory("shard-fixture")
        do {
            _ = try Synth.write(SynthOptions(outDirectory: root + "/data", subjects: 4, minutes: 1, seed: 3))
            try pipeline.replacingOccurrences(of: "output: {type: hdf5, path: out}",
                                              with: "output: {type: shards, path: out, windows_per_shard: 50}")
                .write(toFile: root + "/fixture.yaml", atomically: true, encoding: .utf8)
        } catch {
            fatalError("cannot write the fixture's inputs: \(error)")
        }
        let status = MotionprepCommand.run(["run", root + "/fixture.yaml", "--quiet"])
        precondition(status == .success, "the shard fixture pipeline failed with \(status)")
        return root + "/out"
    }()

    /// A fresh copy of the dataset (HDF5, or shards), for one test to corrupt.
    static func copy(shards: Bool = false) -> String {
        let target = makeTemporaryDirectory("case") + "/dataset"
        try! FileManager.default.copyItem(atPath: shards ? shardDataset : dataset, toPath: target)
        return target
    }
}

func makeTemporaryDirectory(_ label: String) -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("motionprep-validate-\(label)-\(UUID().uuidString)")
    try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url.path
}

/// Runs `motionprep validate DIR` in-process; the exit status and the rendered report.
func validate(_ directory: String, expect: String? = nil, format: String? = nil) throws -> (status: ExitStatus, output: String) {
    try ValidateCommand.validateDataset(directory, expect: expect, format: format)
}

/// The library report, for asserting which checks failed.
func report(_ directory: String, expectations: Expectations? = nil, blockWindows: Int = 4096) -> ValidationReport {
    DatasetValidator.validate(directory: directory, options: ValidationOptions(expectations: expectations, blockWindows: blockWindows))
}

/// The ids of the failed checks.
func failedChecks(_ r: ValidationReport) -> [String] {
    r.checks.filter { $0.status == .failed }.map(\.id.rawValue)
}

// MARK: - Editing a dataset

/// Parses, edits and rewrites `manifest.json`.
func editManifest(_ directory: String, _ edit: (inout JSONValue) -> Void) throws {
    let path = directory + "/manifest.json"
    var value = try JSONParser.parse(text: String(contentsOfFile: path, encoding: .utf8))
    edit(&value)
    try (value.pretty() + "\n").write(toFile: path, atomically: true, encoding: .utf8)
}

extension JSONValue {
    /// The value at a path of object keys and array indices, for editing.
    subscript(_ path: [Any]) -> JSONValue {
        get {
            guard let first = path.first else { return self }
            let rest = Array(path.dropFirst())
            switch (self, first) {
            case (.object(let o), let k as String): return o[k]![rest]
            case (.array(let a), let i as Int): return a[i][rest]
            default: fatalError("no \(first) in \(self)")
            }
        }
        set {
            guard let first = path.first else { self = newValue; return }
            let rest = Array(path.dropFirst())
            switch (self, first) {
            case (.object(var o), let k as String):
                if rest.isEmpty { o[k] = newValue } else { var child = o[k]!; child[rest] = newValue; o[k] = child }
                self = .object(o)
            case (.array(var a), let i as Int):
                a[i][rest] = newValue
                self = .array(a)
            default: fatalError("no \(first) in \(self)")
            }
        }
    }

    /// Removes a key of the object at `path`.
    mutating func remove(_ key: String, at path: [Any] = []) {
        guard case .object(var o) = self[path] else { fatalError("not an object") }
        o[key] = nil
        self[path] = .object(o)
    }

    var intValue: Int64 { if case .int(let i) = self { return i }; fatalError("not an int: \(self)") }
}

/// Recomputes the size and SHA-256 of a data file and writes them into the manifest and
/// SHA256SUMS, so that only the content checks can notice an edit.
func refreshChecksums(_ directory: String, _ file: String) throws {
    let (hex, bytes) = try SHA256.hexOfFile(path: directory + "/" + file)
    try editManifest(directory) { m in
        for split in ["train", "validation", "test"] {
            guard case .array(let files) = m[["splits", split, "files"]] else { continue }
            for (i, f) in files.enumerated() where f[["path"]] == .string(file) {
                m[["splits", split, "files", i, "sha256"]] = .string(hex)
                m[["splits", split, "files", i, "bytes"]] = .int(bytes)
            }
        }
    }
    let sums = directory + "/SHA256SUMS"
    let lines = try String(contentsOfFile: sums, encoding: .utf8).split(separator: "\n").map { line in
        line.hasSuffix("  " + file) ? "\(hex)  \(file)" : String(line)
    }
    try (lines.joined(separator: "\n") + "\n").write(toFile: sums, atomically: true, encoding: .utf8)
}

/// Every array and root attribute of a split file, editable and writable again.
struct SplitFileContents {
    enum Values {
        case float32([Float]), float64([Double]), int32([Int32]), int64([Int64])
    }
    struct Array_ {
        var values: Values
        var rowShape: [Int]
    }
    enum Attribute {
        case string(String), strings([String]), int(Int64), double(Double)
    }
    var arrays: [String: Array_] = [:]
    var attributes: [(String, Attribute)] = []

    static let stringAttributes = ["format", "split"]
    static let intAttributes = ["format_version", "window_length", "window_stride"]
    static let doubleAttributes = ["sample_rate_hz"]

    init(path: String) throws {
        let file = try HDF5File.openReadOnly(path: path)
        defer { try? file.close() }
        for name in try file.datasetNames() {
            let d = try file.openDataset(name)
            let rows = try d.rowCount
            let values: Values = switch try d.elementType {
            case .float32?: .float32(try d.readFloats(start: 0, count: rows))
            case .float64?: .float64(try d.readDoubles(start: 0, count: rows))
            case .int32?: .int32(try d.readInt32s(start: 0, count: rows))
            default: .int64(try d.readInt64s(start: 0, count: rows))
            }
            arrays[name] = Array_(values: values, rowShape: d.rowShape)
        }
        for name in try file.attributeNames() {
            if Self.stringAttributes.contains(name) { attributes.append((name, .string(try file.stringAttribute(name)))) }
            else if Self.intAttributes.contains(name) { attributes.append((name, .int(try file.intAttribute(name)))) }
            else if Self.doubleAttributes.contains(name) { attributes.append((name, .double(try file.doubleAttribute(name)))) }
            else { attributes.append((name, .strings(try file.stringsAttribute(name)))) }
        }
    }

    func write(to path: String) throws {
        try? FileManager.default.removeItem(atPath: path)
        let file = try HDF5File.create(path: path)
        for name in arrays.keys.sorted() {
            let a = arrays[name]!
            let perRow = a.rowShape.reduce(1, *)
            switch a.values {
            case .float32(let v):
                let d = try file.createDataset(name, type: .float32, rowShape: a.rowShape, chunkRows: 64)
                try d.append(v, rows: v.count / perRow)
            case .float64(let v):
                let d = try file.createDataset(name, type: .float64, rowShape: a.rowShape, chunkRows: 64)
                try d.append(v, rows: v.count / perRow)
            case .int32(let v):
                let d = try file.createDataset(name, type: .int32, rowShape: a.rowShape, chunkRows: 64)
                try d.append(v, rows: v.count / perRow)
            case .int64(let v):
                let d = try file.createDataset(name, type: .int64, rowShape: a.rowShape, chunkRows: 64)
                try d.append(v, rows: v.count / perRow)
            }
        }
        for (name, value) in attributes {
            switch value {
            case .string(let s): try file.setAttribute(name, string: s)
            case .strings(let s): try file.setAttribute(name, strings: s)
            case .int(let i): try file.setAttribute(name, int: i)
            case .double(let d): try file.setAttribute(name, double: d)
            }
        }
        try file.close()
    }
}

/// Rewrites one split file through `edit`, then fixes its size and digest in the manifest and
/// SHA256SUMS.
func rewriteSplitFile(_ directory: String, _ file: String, _ edit: (inout SplitFileContents) -> Void) throws {
    var contents = try SplitFileContents(path: directory + "/" + file)
    edit(&contents)
    try contents.write(to: directory + "/" + file)
    try refreshChecksums(directory, file)
}
