import Foundation
import MotionCore

/// The parts of a dataset's `manifest.json` (docs/dataset-format.md, "Manifest, checksums and commit") the report shows or checks against.
///
/// Read with Foundation's `JSONSerialization`; unknown keys are ignored so that newer manifests
/// still open. Missing required keys are an error naming the key.
public struct DatasetManifest: Sendable, Equatable {
    /// One channel of `x`: its name and unit (e.g. `acc_x`, `m/s^2`).
    public struct Channel: Sendable, Equatable {
        public var name: String
        public var unit: String
    }

    /// What the manifest says about one split.
    public struct Split: Sendable, Equatable {
        /// `train`, `validation` or `test`.
        public var name: String
        public var numWindows: Int
        /// Windows per class, indexed by class id.
        public var classCounts: [Int]
        /// The split's data files, relative to the dataset folder.
        public var files: [String]
        /// Windows per file (`files[i].num_windows`), `nil` where the manifest does not say.
        public var fileWindowCounts: [Int?] = []
    }

    public var storage: String
    public var pipelineName: String
    public var createdBy: String
    public var sampleRateHz: Double
    /// Window length and stride in samples.
    public var windowLength: Int
    public var windowStride: Int
    public var channels: [Channel]
    public var classes: [String]
    public var featureNames: [String]
    public var subjects: [String]
    public var recordings: [String]
    /// Splits in the order train, validation, test (those present).
    public var splits: [Split]
    /// Per-channel mean and standard deviation of `x` over the train split, or `nil` when the
    /// train split is empty.
    public var normalizationMean: [Double]?
    public var normalizationStd: [Double]?
    /// `counts` as flat `(key, value)` pairs sorted by key (nested objects as `rows_dropped.missing_value`).
    public var counts: [(key: String, value: Double)]
    public var splitBy: String

    public static func == (a: DatasetManifest, b: DatasetManifest) -> Bool {
        a.storage == b.storage && a.pipelineName == b.pipelineName && a.sampleRateHz == b.sampleRateHz
            && a.windowLength == b.windowLength && a.windowStride == b.windowStride && a.channels == b.channels
            && a.classes == b.classes && a.subjects == b.subjects && a.recordings == b.recordings && a.splits == b.splits
            && a.counts.map(\.key) == b.counts.map(\.key) && a.counts.map(\.value) == b.counts.map(\.value)
    }

    /// The canonical split order.
    public static let splitNames = ["train", "validation", "test"]

    /// Reads and decodes `path`.
    ///
    /// - Throws: ``ReportError``: `.noInput` when the file is missing, `.dataError` when it is not
    ///   JSON or lacks a key the report needs.
    public static func load(path: String) throws -> DatasetManifest {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ReportError.missing(path, what: "a dataset folder written by `motionprep run` (with manifest.json)")
        }
        return try decode(data, path: path)
    }

    /// Decodes manifest bytes; `path` is used in messages only.
    public static func decode(_ data: Data, path: String) throws -> DatasetManifest {
        let root: [String: Any]
        do {
            guard let r = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw ReportError.badManifest(path, "the top level is not a JSON object")
            }
            root = r
        } catch let e as ReportError {
            throw e
        } catch {
            throw ReportError.badManifest(path, "not valid JSON (\(error.localizedDescription))")
        }
        let reader = Reader(path: path)
        guard (root["format"] as? String) == "motionprep.dataset" else {
            throw ReportError.badManifest(path, "`format` is not \"motionprep.dataset\"")
        }
        let channelObjects = try reader.array(root, "channels")
        let channels = try channelObjects.enumerated().map { i, c -> Channel in
            guard let o = c as? [String: Any], let n = o["name"] as? String else {
                throw ReportError.badManifest(path, "`channels[\(i)]` has no `name`")
            }
            return Channel(name: n, unit: (o["unit"] as? String) ?? "")
        }
        let splitsObject = try reader.object(root, "splits")
        var splits: [Split] = []
        for name in splitNames {
            guard let s = splitsObject[name] as? [String: Any] else { continue }
            let fileObjects = ((s["files"] as? [Any]) ?? []).compactMap { $0 as? [String: Any] }.filter { $0["path"] is String }
            let files = fileObjects.map { $0["path"] as! String }
            let fileWindows = fileObjects.map { o in o["num_windows"].flatMap { reader.number($0) }.flatMap { $0 >= 0 && $0 == $0.rounded() && $0 < 1e15 ? Int($0) : nil } }
            splits.append(Split(name: name, numWindows: try reader.int(s, "num_windows", context: "splits.\(name)"),
                                classCounts: try reader.array(s, "class_counts", context: "splits.\(name)").map { reader.number($0).map { Int($0) } ?? 0 },
                                files: files, fileWindowCounts: fileWindows))
        }
        var mean: [Double]?, std: [Double]?
        if let n = root["normalization"] as? [String: Any], let x = n["x"] as? [String: Any] {
            mean = (x["mean"] as? [Any])?.map { reader.number($0) ?? .nan }
            std = (x["std"] as? [Any])?.map { reader.number($0) ?? .nan }
        }
        var counts: [(key: String, value: Double)] = []
        func flatten(_ prefix: String, _ v: Any) {
            if let o = v as? [String: Any] {
                for k in o.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                    flatten(prefix.isEmpty ? k : prefix + "." + k, o[k]!)
                }
            } else if let d = reader.number(v) {
                counts.append((prefix, d))
            }
        }
        flatten("", root["counts"] ?? [String: Any]())
        let policy = root["split_policy"] as? [String: Any]
        return DatasetManifest(
            storage: (root["storage"] as? String) ?? "hdf5",
            pipelineName: ((root["pipeline"] as? [String: Any])?["name"] as? String) ?? "",
            createdBy: (root["created_by"] as? String) ?? "",
            sampleRateHz: try reader.double(root, "sample_rate_hz"),
            windowLength: try reader.int(root, "window_length"),
            windowStride: try reader.int(root, "window_stride"),
            channels: channels,
            classes: try reader.strings(root, "classes"),
            featureNames: (try? reader.strings(root, "feature_names")) ?? [],
            subjects: try reader.strings(root, "subjects"),
            recordings: try reader.strings(root, "recordings"),
            splits: splits,
            normalizationMean: mean, normalizationStd: std,
            counts: counts,
            splitBy: (policy?["by"] as? String) ?? "subject")
    }

    /// Typed access with messages naming the key.
    private struct Reader {
        var path: String

        /// A JSON number. (On Linux `0 is Bool` holds for NSNumbers, so booleans are told apart
        /// by their Objective-C type code, "c", rather than with `is Bool`.)
        func number(_ v: Any) -> Double? {
            guard let n = v as? NSNumber else { return nil }
            if String(cString: n.objCType) == "c" { return nil }
            return n.doubleValue
        }
        func object(_ o: [String: Any], _ key: String, context: String = "") throws -> [String: Any] {
            guard let v = o[key] as? [String: Any] else { throw missing(key, context) }
            return v
        }
        func array(_ o: [String: Any], _ key: String, context: String = "") throws -> [Any] {
            guard let v = o[key] as? [Any] else { throw missing(key, context) }
            return v
        }
        func strings(_ o: [String: Any], _ key: String) throws -> [String] {
            try array(o, key).map { guard let s = $0 as? String else { throw missing(key, "") }; return s }
        }
        func double(_ o: [String: Any], _ key: String, context: String = "") throws -> Double {
            guard let v = o[key], let d = number(v) else { throw missing(key, context) }
            return d
        }
        func int(_ o: [String: Any], _ key: String, context: String = "") throws -> Int {
            let d = try double(o, key, context: context)
            guard d >= 0, d < 1e15, d == d.rounded() else { throw missing(key, context) }
            return Int(d)
        }
        private func missing(_ key: String, _ context: String) -> ReportError {
            ReportError.badManifest(path, "`\(context.isEmpty ? key : context + "." + key)` is missing or has the wrong type")
        }
    }
}
