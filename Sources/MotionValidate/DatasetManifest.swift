import MotionCore

/// The three splits, in the order the manifest and reports use.
public enum SplitName: String, Sendable, CaseIterable, Comparable {
    case train, validation, test

    public static func < (a: SplitName, b: SplitName) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// The dtype and per-row shape the manifest gives for one array (`"shape": [null, 128, 7]` →
/// `rowShape` `[128, 7]`).
struct ArraySchema: Equatable {
    var dtype: String
    var rowShape: [Int]
}

/// One data file as the manifest lists it under `splits.{split}.files`.
struct ManifestFile: Equatable {
    var split: SplitName
    /// Path relative to the dataset folder.
    var path: String
    var bytes: Int
    var sha256: String
    var numWindows: Int
    var classCounts: [Int]
}

/// One split's entry.
struct ManifestSplit: Equatable {
    var numWindows: Int
    var classCounts: [Int]
    var files: [ManifestFile]
}

/// Mean and std per channel (or feature) from `normalization`.
struct ManifestMoments: Equatable {
    var mean: [Double]
    var std: [Double]
}

/// The parts of `manifest.json` (docs/dataset-format.md, "Manifest, checksums and commit") the checks need, decoded from a parsed JSON value.
struct DatasetManifest {
    var storage: String
    var sampleRateHz: Double
    var windowLength: Int
    var windowStride: Int
    var channelNames: [String]
    var channelUnits: [String]
    var classes: [String]
    var featureNames: [String]
    var subjects: [String]
    var recordings: [String]
    /// Array name → schema, as listed under `arrays`.
    var arrays: [String: ArraySchema]
    /// `split_policy.by`: "subject" or "recording"; nil when the policy did not decode.
    var splitBy: String?
    /// `split_policy.folds`.
    var folds: Int?
    /// `normalization.x` / `.features`; `.some(nil)` for JSON null; nil when it did not decode.
    var xNormalization: ManifestMoments??
    var featureNormalization: ManifestMoments??
    /// `counts.windows_dropped`, reason → windows; nil when it did not decode.
    var windowsDropped: [String: Int]?
    var splits: [SplitName: ManifestSplit]

    /// Every listed file, split by split in manifest order.
    var files: [ManifestFile] { SplitName.allCases.flatMap { splits[$0]?.files ?? [] } }

    /// The arrays docs/dataset-format.md, "HDF5 files" prescribes for this manifest's channels, features and folds.
    var expectedArrays: [String: ArraySchema] {
        var a: [String: ArraySchema] = [
            "x": ArraySchema(dtype: "float32", rowShape: [windowLength, channelNames.count]),
            "y": ArraySchema(dtype: "int64", rowShape: []),
            "subject_index": ArraySchema(dtype: "int32", rowShape: []),
            "recording_index": ArraySchema(dtype: "int32", rowShape: []),
            "start_time_s": ArraySchema(dtype: "float64", rowShape: []),
        ]
        if !featureNames.isEmpty { a["features"] = ArraySchema(dtype: "float32", rowShape: [featureNames.count]) }
        if folds != nil { a["fold_index"] = ArraySchema(dtype: "int32", rowShape: []) }
        return a
    }

    /// Array names in the contract's (docs/dataset-format.md, "HDF5 files") table order (then any others by name).
    static func arrayOrder(_ names: some Sequence<String>) -> [String] {
        let canonical = ["x", "y", "features", "subject_index", "recording_index", "start_time_s", "fold_index"]
        return Array(names).sorted { a, b in
            let ia = canonical.firstIndex(of: a) ?? canonical.count, ib = canonical.firstIndex(of: b) ?? canonical.count
            return ia != ib ? ia < ib : a < b
        }
    }
}

/// Decodes a parsed manifest, collecting every schema problem as a message naming the key path
/// ("`splits.train.files[0].bytes` must be a whole number ≥ 0, not `-3`").
struct ManifestDecoder {
    private(set) var problems: [String] = []

    static let topLevelKeys = [
        "format", "format_version", "created_by", "storage", "pipeline", "sample_rate_hz", "window_length",
        "window_stride", "channels", "classes", "feature_names", "inputs", "subjects", "recordings", "arrays",
        "split_policy", "normalization", "counts", "splits",
    ]
    static let storages = ["hdf5", "shards"]
    /// The manifest `format_version` this build writes and reads (docs/dataset-format.md).
    static let formatVersion = 2

    /// The decoded manifest, or nil when a part every data check needs did not decode (the
    /// problems say which).
    mutating func decode(_ root: JSONValue) -> DatasetManifest? {
        guard case .object(let top) = root else {
            problems.append("the manifest must be a JSON object, not \(Self.kind(root))")
            return nil
        }
        if top["format"] == .string("motionprep.applied") {
            // The output of `motionprep apply` (docs/dataset-format.md, "Applied windows"): one
            // sentence rather than a schema error for each key it has differently.
            problems.append("this is the output of `motionprep apply` (`format` \"motionprep.applied\"), not a dataset; validate does not check it: check its files with `sha256sum -c SHA256SUMS` in its folder")
            return nil
        }
        checkKeys(top, path: "", allowed: Self.topLevelKeys, required: Self.topLevelKeys)

        if let f = string(top["format"], "format"), f != "motionprep.dataset" {
            problems.append("`format` must be \"motionprep.dataset\", not \"\(f)\"")
        }
        let version = int(top["format_version"], "format_version")
        if let v = version, v != Self.formatVersion {
            if (1..<Self.formatVersion).contains(v) {
                problems.append("`format_version` is \(v): the dataset was written by an older motionprep (format_version \(v)), whose shards and manifest this build no longer reads; rerun `motionprep run` to rewrite it in format_version \(Self.formatVersion)")
            } else {
                problems.append("`format_version` \(v) is not supported; this build reads version \(Self.formatVersion)")
            }
        }
        _ = string(top["created_by"], "created_by")
        if let p = object(top["pipeline"], "pipeline") {
            // Version 1 had no `resolved`; its absence is not reported on top of the version.
            let required = version == 1 ? ["name", "sha256"] : ["name", "sha256", "resolved"]
            checkKeys(p, path: "pipeline", allowed: ["name", "sha256", "resolved"], required: required)
            _ = string(p["name"], "pipeline.name")
            _ = sha256(p["sha256"], "pipeline.sha256")
            if version != 1, p["resolved"] != nil { _ = object(p["resolved"], "pipeline.resolved") }
        }
        var storage = string(top["storage"], "storage")
        if let s = storage, !Self.storages.contains(s) {
            problems.append("`storage` must be \"hdf5\" or \"shards\", not \"\(s)\"")
            storage = nil
        }
        let rate = number(top["sample_rate_hz"], "sample_rate_hz")
        if let r = rate, !(r > 0) { problems.append("`sample_rate_hz` must be positive, not \(r)") }
        let length = int(top["window_length"], "window_length", min: 1)
        let stride = int(top["window_stride"], "window_stride", min: 1)

        var channelNames: [String]?, channelUnits: [String]?
        if let list = array(top["channels"], "channels") {
            var names: [String] = [], units: [String] = []
            for (i, item) in list.enumerated() {
                let path = "channels[\(i)]"
                guard let c = object(item, path) else { continue }
                checkKeys(c, path: path, allowed: ["name", "unit"], required: ["name", "unit"])
                if let n = string(c["name"], path + ".name") { names.append(n) }
                if let u = string(c["unit"], path + ".unit") { units.append(u) }
            }
            if names.count == list.count, units.count == list.count {
                if list.isEmpty { problems.append("`channels` must list at least one channel") }
                unique(names, "channels")
                channelNames = names
                channelUnits = units
            }
        }
        let classes = strings(top["classes"], "classes")
        if let c = classes { unique(c, "classes") }
        let features = strings(top["feature_names"], "feature_names")
        if let f = features { unique(f, "feature_names") }
        let subjects = strings(top["subjects"], "subjects")
        if let s = subjects { unique(s, "subjects") }
        let recordings = strings(top["recordings"], "recordings")
        if let r = recordings { unique(r, "recordings") }
        if let inputs = array(top["inputs"], "inputs") {
            for (i, item) in inputs.enumerated() {
                let path = "inputs[\(i)]"
                guard let e = object(item, path) else { continue }
                checkKeys(e, path: path, allowed: ["path", "bytes", "sha256", "role"], required: ["path", "bytes", "sha256"])
                _ = string(e["path"], path + ".path")
                // `role` (absent in manifests written before it existed): what the file was to the run.
                if e["role"] != nil, let role = string(e["role"], path + ".role"), !["recording", "labels", "iio_layout"].contains(role) {
                    problems.append("`\(path).role` must be \"recording\", \"labels\" or \"iio_layout\", not \"\(role)\"")
                }
                _ = int(e["bytes"], path + ".bytes", min: 0)
                _ = sha256(e["sha256"], path + ".sha256")
            }
        }

        // split_policy
        var splitBy: String?, folds: Int?, foldsOK = true
        if let p = object(top["split_policy"], "split_policy") {
            checkKeys(p, path: "split_policy", allowed: ["by", "seed", "fractions", "folds", "assign", "allocation", "leave_one_out"],
                      required: ["by", "seed", "fractions"])
            if let by = string(p["by"], "split_policy.by") {
                if by == "subject" || by == "recording" { splitBy = by } else {
                    problems.append("`split_policy.by` must be \"subject\" or \"recording\", not \"\(by)\"")
                }
            }
            _ = int(p["seed"], "split_policy.seed")
            if let f = object(p["fractions"], "split_policy.fractions") {
                checkKeys(f, path: "split_policy.fractions", allowed: SplitName.allCases.map(\.rawValue),
                          required: SplitName.allCases.map(\.rawValue))
                var sum = 0.0
                for s in SplitName.allCases {
                    if let v = number(f[s.rawValue], "split_policy.fractions.\(s.rawValue)") {
                        if v < 0 || v > 1 { problems.append("`split_policy.fractions.\(s.rawValue)` must be from 0 to 1, not \(v)") }
                        sum += v
                    }
                }
                if abs(sum - 1) > 1e-9 { problems.append("`split_policy.fractions` must sum to 1, not \(sum)") }
            }
            if p["folds"] != nil {
                // `leave_one_out` gives one fold per train subject: 0 or 1 when there are that few.
                folds = int(p["folds"], "split_policy.folds", min: p["leave_one_out"] == .bool(true) ? 0 : 2)
                if folds == nil { foldsOK = false }
            }
            if let a = p["assign"], let assign = object(a, "split_policy.assign") {
                checkKeys(assign, path: "split_policy.assign", allowed: SplitName.allCases.map(\.rawValue), required: [])
                for (k, v) in assign { _ = strings(v, "split_policy.assign.\(k)") }
            }
        } else {
            foldsOK = false
        }

        // counts
        var windowsDropped: [String: Int]?
        var countedRecordings: Int?
        if let c = object(top["counts"], "counts") {
            checkKeys(c, path: "counts",
                      allowed: ["recordings", "rows_read", "rows_dropped", "windows_dropped", "gaps", "gap_seconds",
                                "recordings_dropped", "skipped_recordings", "label_rows_ignored"],
                      required: ["recordings", "rows_read", "rows_dropped", "windows_dropped", "gaps", "gap_seconds"])
            countedRecordings = int(c["recordings"], "counts.recordings", min: 0)
            _ = int(c["rows_read"], "counts.rows_read", min: 0)
            _ = int(c["gaps"], "counts.gaps", min: 0)
            if let g = number(c["gap_seconds"], "counts.gap_seconds"), g < 0 {
                problems.append("`counts.gap_seconds` must not be negative, not \(g)")
            }
            _ = counts(c["rows_dropped"], "counts.rows_dropped")
            windowsDropped = counts(c["windows_dropped"], "counts.windows_dropped")
            if c["recordings_dropped"] != nil { _ = counts(c["recordings_dropped"], "counts.recordings_dropped") }
            if c["label_rows_ignored"] != nil { _ = counts(c["label_rows_ignored"], "counts.label_rows_ignored") }
            if let s = c["skipped_recordings"], let list = array(s, "counts.skipped_recordings") {
                for (i, item) in list.enumerated() {
                    let path = "counts.skipped_recordings[\(i)]"
                    guard let e = object(item, path) else { continue }
                    checkKeys(e, path: path, allowed: ["recording", "error"], required: ["recording", "error"])
                    _ = string(e["recording"], path + ".recording")
                    _ = string(e["error"], path + ".error")
                }
            }
        }

        // A run counts every recording it planned, and lists each by name.
        if let countedRecordings, let recordings, countedRecordings != recordings.count {
            problems.append("`counts.recordings` is \(countedRecordings), but `recordings` lists \(recordings.count) recording(s)")
        }

        // arrays
        var arrays: [String: ArraySchema]?
        if let a = object(top["arrays"], "arrays") {
            var out: [String: ArraySchema] = [:]
            var ok = true
            for name in DatasetManifest.arrayOrder(a.keys) {
                let path = "arrays.\(name)"
                guard let e = object(a[name], path) else { ok = false; continue }
                checkKeys(e, path: path, allowed: ["dtype", "shape"], required: ["dtype", "shape"])
                let dtype = string(e["dtype"], path + ".dtype")
                var rowShape: [Int]?
                if let shape = array(e["shape"], path + ".shape") {
                    if shape.first != .null {
                        problems.append("`\(path).shape` must start with null (the number of windows varies by file)")
                    } else {
                        let dims = shape.dropFirst().enumerated().map { int($0.element, "\(path).shape[\($0.offset + 1)]", min: 1) }
                        if dims.allSatisfy({ $0 != nil }) { rowShape = dims.map { $0! } }
                    }
                }
                if let dtype, let rowShape { out[name] = ArraySchema(dtype: dtype, rowShape: rowShape) } else { ok = false }
            }
            if ok { arrays = out }
        }

        // splits
        var splits: [SplitName: ManifestSplit]?
        if let s = object(top["splits"], "splits") {
            checkKeys(s, path: "splits", allowed: SplitName.allCases.map(\.rawValue), required: SplitName.allCases.map(\.rawValue))
            var out: [SplitName: ManifestSplit] = [:]
            var ok = true
            var seenPaths: [String: String] = [:]
            for split in SplitName.allCases {
                let path = "splits.\(split.rawValue)"
                guard let e = object(s[split.rawValue], path) else { ok = false; continue }
                checkKeys(e, path: path, allowed: ["num_windows", "class_counts", "files"],
                          required: ["num_windows", "class_counts", "files"])
                let n = int(e["num_windows"], path + ".num_windows", min: 0)
                let cc = classCounts(e["class_counts"], path + ".class_counts", classes: classes)
                var files: [ManifestFile] = []
                if let list = array(e["files"], path + ".files") {
                    if list.isEmpty { problems.append("`\(path).files` must list at least one file (an empty split is still written)") }
                    for (i, item) in list.enumerated() {
                        let fp = "\(path).files[\(i)]"
                        guard let f = object(item, fp) else { ok = false; continue }
                        checkKeys(f, path: fp, allowed: ["path", "bytes", "sha256", "num_windows", "class_counts"],
                                  required: ["path", "bytes", "sha256", "num_windows", "class_counts"])
                        let p = relativePath(f["path"], fp + ".path")
                        let b = int(f["bytes"], fp + ".bytes", min: 0)
                        let h = sha256(f["sha256"], fp + ".sha256")
                        let fn = int(f["num_windows"], fp + ".num_windows", min: 0)
                        let fc = classCounts(f["class_counts"], fp + ".class_counts", classes: classes)
                        if let p {
                            if let other = seenPaths[p] {
                                problems.append("`\(fp).path` \"\(p)\" is also listed at `\(other)`")
                            }
                            seenPaths[p] = fp + ".path"
                        }
                        if let p, let b, let h, let fn, let fc {
                            files.append(ManifestFile(split: split, path: p, bytes: b, sha256: h, numWindows: fn, classCounts: fc))
                        } else { ok = false }
                    }
                } else { ok = false }
                if let n, let cc { out[split] = ManifestSplit(numWindows: n, classCounts: cc, files: files) } else { ok = false }
            }
            if ok { splits = out }
        }

        // Cross-field consistency: arrays against channels, window length, features and folds.
        if let arrays, let length, let channelNames, let features, foldsOK {
            var m = DatasetManifest(storage: "", sampleRateHz: 0, windowLength: length, windowStride: 0,
                                    channelNames: channelNames, channelUnits: [], classes: [], featureNames: features,
                                    subjects: [], recordings: [], arrays: [:], splitBy: nil, folds: folds, splits: [:])
            m.arrays = arrays
            let expected = m.expectedArrays
            for name in DatasetManifest.arrayOrder(Set(expected.keys).union(arrays.keys)) {
                switch (expected[name], arrays[name]) {
                case (let e?, nil):
                    problems.append("`arrays` lacks `\(name)` (\(e.dtype) \(Self.shape(e.rowShape)))")
                case (nil, _?):
                    problems.append("`arrays.\(name)` is not an array of this dataset (docs/dataset-format.md, \"HDF5 files\")")
                case (let e?, let a?):
                    if e.dtype != a.dtype { problems.append("`arrays.\(name).dtype` must be \"\(e.dtype)\", not \"\(a.dtype)\"") }
                    if e.rowShape != a.rowShape {
                        problems.append("`arrays.\(name).shape` must be \(Self.shape(e.rowShape)) (window_length, channels, feature_names), not \(Self.shape(a.rowShape))")
                    }
                case (nil, nil): break
                }
            }
        }

        // normalization
        var xNorm: ManifestMoments??, fNorm: ManifestMoments??
        if let n = object(top["normalization"], "normalization") {
            checkKeys(n, path: "normalization", allowed: ["x", "features"], required: ["x", "features"])
            xNorm = moments(n["x"], "normalization.x", count: channelNames?.count)
            fNorm = moments(n["features"], "normalization.features", count: features?.count)
            if let features, features.isEmpty, case .some(.some) = fNorm {
                problems.append("`normalization.features` must be null when there are no features")
            }
        }

        guard let storage, let rate, let length, let stride, let channelNames, let channelUnits, let classes,
              let features, let subjects, let recordings, let arrays, let splits, foldsOK,
              // Another version's files are not read as this one's: its data checks are skipped.
              version == nil || version == Self.formatVersion
        else { return nil }
        return DatasetManifest(storage: storage, sampleRateHz: rate, windowLength: length, windowStride: stride,
                               channelNames: channelNames, channelUnits: channelUnits, classes: classes,
                               featureNames: features, subjects: subjects, recordings: recordings, arrays: arrays,
                               splitBy: splitBy, folds: folds, xNormalization: xNorm, featureNormalization: fNorm,
                               windowsDropped: windowsDropped, splits: splits)
    }

    // MARK: - Typed accessors (each reports its problem and returns nil)

    static func kind(_ v: JSONValue?) -> String {
        switch v {
        case nil: return "missing"
        case .null?: return "null"
        case .bool(let b)?: return "`\(b)`"
        case .int(let i)?: return "`\(i)`"
        case .double(let d)?: return "`\(JSONValue.format(d))`"
        case .string(let s)?: return "\"\(s.count > 40 ? String(s.prefix(40)) + "…" : s)\""
        case .array?: return "a list"
        case .object?: return "an object"
        }
    }

    static func shape(_ rowShape: [Int]) -> String {
        "[" + (["null"] + rowShape.map(String.init)).joined(separator: ", ") + "]"
    }

    private mutating func mustBe(_ path: String, _ v: JSONValue?, _ what: String) {
        if v == nil { return }  // missing keys are reported by checkKeys
        problems.append("`\(path)` must be \(what), not \(Self.kind(v))")
    }

    private mutating func checkKeys(_ o: [String: JSONValue], path: String, allowed: [String], required: [String]) {
        let place = path.isEmpty ? "the manifest" : "`\(path)`"
        for key in o.keys.sorted() where !allowed.contains(key) {
            var m = "unknown key `\(key)` in \(place)"
            if let s = Text.suggestion(for: key, among: allowed) { m += "; did you mean `\(s)`?" }
            problems.append(m)
        }
        for key in required where o[key] == nil {
            problems.append("missing key `\(key)` in \(place)")
        }
    }

    private mutating func object(_ v: JSONValue?, _ path: String) -> [String: JSONValue]? {
        if case .object(let o)? = v { return o }
        mustBe(path, v, "an object")
        return nil
    }

    private mutating func array(_ v: JSONValue?, _ path: String) -> [JSONValue]? {
        if case .array(let a)? = v { return a }
        mustBe(path, v, "a list")
        return nil
    }

    private mutating func string(_ v: JSONValue?, _ path: String) -> String? {
        if case .string(let s)? = v { return s }
        mustBe(path, v, "a string")
        return nil
    }

    private mutating func int(_ v: JSONValue?, _ path: String, min: Int? = nil) -> Int? {
        if case .int(let i)? = v {
            if let min, i < min {
                problems.append("`\(path)` must be a whole number ≥ \(min), not \(i)")
                return nil
            }
            return Int(i)
        }
        mustBe(path, v, min.map { "a whole number ≥ \($0)" } ?? "a whole number")
        return nil
    }

    private mutating func number(_ v: JSONValue?, _ path: String) -> Double? {
        switch v {
        case .int(let i)?: return Double(i)
        case .double(let d)?: return d
        default: mustBe(path, v, "a number"); return nil
        }
    }

    private mutating func strings(_ v: JSONValue?, _ path: String) -> [String]? {
        guard let list = array(v, path) else { return nil }
        var out: [String] = []
        for (i, item) in list.enumerated() {
            if let s = string(item, "\(path)[\(i)]") { out.append(s) }
        }
        return out.count == list.count ? out : nil
    }

    private mutating func unique(_ names: [String], _ path: String) {
        var seen: Set<String> = []
        for n in names where !seen.insert(n).inserted {
            problems.append("`\(path)` lists \"\(n)\" twice")
        }
    }

    private mutating func sha256(_ v: JSONValue?, _ path: String) -> String? {
        guard let s = string(v, path) else { return nil }
        guard s.utf8.count == 64, s.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) else {
            problems.append("`\(path)` must be 64 lowercase hex digits, not \(Self.kind(v))")
            return nil
        }
        return s
    }

    /// A path relative to the dataset folder that stays inside it.
    private mutating func relativePath(_ v: JSONValue?, _ path: String) -> String? {
        guard let s = string(v, path) else { return nil }
        let parts = s.split(separator: "/", omittingEmptySubsequences: false)
        guard !s.isEmpty, !s.hasPrefix("/"), !parts.contains(where: { $0 == ".." || $0 == "." || $0.isEmpty }) else {
            problems.append("`\(path)` must be a path inside the dataset folder (relative, no `..`), not \"\(s)\"")
            return nil
        }
        return s
    }

    private mutating func classCounts(_ v: JSONValue?, _ path: String, classes: [String]?) -> [Int]? {
        guard let list = array(v, path) else { return nil }
        let counts = list.enumerated().map { int($0.element, "\(path)[\($0.offset)]", min: 0) }
        guard counts.allSatisfy({ $0 != nil }) else { return nil }
        if let classes, counts.count != classes.count {
            problems.append("`\(path)` must hold one count per class (\(classes.count)), not \(counts.count)")
            return nil
        }
        return counts.map { $0! }
    }

    private mutating func counts(_ v: JSONValue?, _ path: String) -> [String: Int]? {
        guard let o = object(v, path) else { return nil }
        var out: [String: Int] = [:]
        for (k, value) in o {
            if let n = int(value, "\(path).\(k)", min: 0) { out[k] = n }
        }
        return out.count == o.count ? out : nil
    }

    private mutating func moments(_ v: JSONValue?, _ path: String, count: Int?) -> ManifestMoments?? {
        if v == .null { return .some(nil) }
        guard let o = object(v, path) else { return nil }
        checkKeys(o, path: path, allowed: ["mean", "std"], required: ["mean", "std"])
        func list(_ key: String) -> [Double]? {
            guard case .array(let a)? = o[key] else { mustBe("\(path).\(key)", o[key], "a list of numbers"); return nil }
            var out: [Double] = []
            for (i, item) in a.enumerated() {
                if let d = number(item, "\(path).\(key)[\(i)]") { out.append(d) }
            }
            guard out.count == a.count else { return nil }
            if let count, a.count != count {
                problems.append("`\(path).\(key)` must hold \(count) values (one per column), not \(a.count)")
                return nil
            }
            if key == "std", let negative = out.first(where: { !($0 >= 0) }) {
                problems.append("`\(path).std` must not hold negative values, found \(negative)")
            }
            return out
        }
        guard let mean = list("mean"), let std = list("std") else { return nil }
        return .some(ManifestMoments(mean: mean, std: std))
    }
}
