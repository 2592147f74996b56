import MotionChain
import MotionCore

/// Decodes a parsed manifest, collecting every schema problem as a message naming the key path
/// ("`splits.train.files[0].bytes` must be a whole number ≥ 0, not `-3`").
public struct ManifestDecoder {
    /// Every schema problem found, one sentence each, in manifest order.
    public internal(set) var problems: [String] = []
    /// Parts that did not decode.
    public internal(set) var undecoded: Set<ManifestPart> = []

    public init() {}

    static let topLevelKeys = [
        "format", "format_version", "created_by", "storage", "pipeline", "sample_rate_hz", "window_length",
        "window_stride", "channels", "classes", "feature_names", "inputs", "subjects", "recordings", "arrays",
        "split_policy", "normalization", "counts", "splits",
    ]

    /// An applied output's top-level keys: a dataset's without `split_policy`, with `source_dataset`.
    static let appliedTopLevelKeys = topLevelKeys.filter { $0 != "split_policy" } + ["source_dataset"]

    /// The sentence for an applied output's `format_version` this build does not read, or nil.
    public static func appliedVersionProblem(_ v: Int) -> String? {
        let current = DatasetSchema.appliedFormatVersion
        guard v != current else { return nil }
        let who = v > current ? "a newer motionprep" : "another motionprep"
        return "`format_version` is \(v): this applied output was written by \(who) than this one, which reads applied outputs of format_version \(current) only; run `motionprep apply` again with this version"
    }

    /// The sentence for a `format_version` this build does not read, or nil for the one it reads.
    /// `createdBy` is the manifest's `created_by`, when it says.
    public static func versionProblem(_ v: Int, createdBy: String?) -> String? {
        let current = DatasetSchema.formatVersion
        guard !DatasetSchema.readableVersions.contains(v) else { return nil }
        if (1..<current).contains(v) {
            return "`format_version` is \(v): the dataset was written by an older motionprep (format_version \(v)), whose shards and manifest this build no longer reads; rerun `motionprep run` to rewrite it in format_version \(current)"
        }
        if v > current {
            let writer = createdBy.map { " (`created_by` is \"\($0)\")" } ?? ""
            return "`format_version` is \(v): the dataset was written by a newer motionprep\(writer) than this one, which reads format_version \(current) only; check it with the motionprep that wrote it, or a newer one"
        }
        return "`format_version` is \(v), which no motionprep writes; this build reads format_version \(current) only"
    }

    /// The decoded manifest, or nil when a part every data check needs did not decode (the
    /// problems say which). A manifest of a `format_version` this build does not read gives one
    /// problem, the version's, and nil: its other keys are another format's.
    public mutating func decode(_ root: JSONValue) -> DecodedManifest? {
        guard case .object(let top) = root else {
            problems.append("the manifest must be a JSON object, not \(Self.kind(root))")
            return nil
        }
        // The output of `motionprep apply` (docs/dataset-format.md, "Applied windows"): the same
        // model, with `source_dataset` for `split_policy` and one split, `windows`.
        let applied = top["format"] == .string(DatasetSchema.appliedFormat)
        if applied, case .int(let v)? = top["format_version"], let problem = Self.appliedVersionProblem(Int(clamping: v)) {
            problems.append(problem)
            return nil
        }
        if case .int(let v)? = top["format_version"], case .string(let f)? = top["format"], f == DatasetSchema.format {
            var createdBy: String?
            if case .string(let c)? = top["created_by"] { createdBy = c }
            if let problem = Self.versionProblem(Int(clamping: v), createdBy: createdBy) {
                problems.append(problem)
                return nil
            }
        }
        if applied {
            checkKeys(top, path: "", allowed: Self.appliedTopLevelKeys, required: Self.appliedTopLevelKeys)
        } else {
            checkKeys(top, path: "", allowed: Self.topLevelKeys + ["chain", "createml", "partitions", "qa"], required: Self.topLevelKeys)
        }
        // `createml` (only with `storage: "createml"`, and then required) is kept as written;
        // `validate` checks the files against it.
        let createml = top["createml"]
        switch (createml, top["storage"]) {
        case (nil, .string("createml")?): problems.append("`createml` is missing: a dataset of `storage: \"createml\"` lists its files and counts there")
        case (.object?, .string("createml")?), (nil, _): break
        case (.object?, _): problems.append("`createml` is only for `storage: \"createml\"`")
        default: problems.append("`createml` must be an object, not \(Self.kind(createml))")
        }
        // `partitions` (optional: only a partitioned dataset has it, docs/dataset-format.md).
        var partitions: Int?
        if top["partitions"] != nil, !applied {
            partitions = int(top["partitions"], "partitions", min: 1)
        }
        // `chain` (optional: manifests before it have none), the typed record the live library
        // also reads; its `implementation` is rule C3's (`DatasetConsistency`).
        var chain: ProcessingChain?
        if top["chain"] != nil {
            do { chain = try Self.node(top["chain"], "chain").decode(ProcessingChain.self) } catch {
                problems.append(error.sentence)  // a key missing in `chain` too: no `checkKeys` reports it
                undecoded.insert(.chain)
            }
        }

        if let f = string(top["format"], "format"), f != DatasetSchema.format, f != DatasetSchema.appliedFormat {
            problems.append("`format` must be \"motionprep.dataset\" (or \"motionprep.applied\", the output of `motionprep apply`), not \"\(f)\"")
        }
        let version = int(top["format_version"], "format_version")
        if !applied, let v = version, let problem = Self.versionProblem(v, createdBy: nil) { problems.append(problem) }
        let source = applied ? decodeSource(top) : nil
        if version == nil { undecoded.insert(.formatVersion) }
        let createdBy = string(top["created_by"], "created_by")
        if createdBy == nil { undecoded.insert(.createdBy) }
        let pipeline = decodePipeline(top)
        var storage = string(top["storage"], "storage")
        if let s = storage, !DatasetSchema.storages.contains(s) {
            problems.append("`storage` must be \"hdf5\", \"shards\" or \"createml\", not \"\(s)\"")
            storage = nil
        }
        let rate = number(top["sample_rate_hz"], "sample_rate_hz")
        if let r = rate, !(r > 0) { problems.append("`sample_rate_hz` must be positive, not \(r)") }
        let length = int(top["window_length"], "window_length", min: 1)
        let stride = int(top["window_stride"], "window_stride", min: 1)

        let (channelNames, channelUnits) = decodeChannels(top)
        let classes = strings(top["classes"], "classes")
        if let c = classes { unique(c, "classes") }
        let features = strings(top["feature_names"], "feature_names")
        if let f = features { unique(f, "feature_names") }
        let subjects = strings(top["subjects"], "subjects")
        if let s = subjects { unique(s, "subjects") }
        let recordings = strings(top["recordings"], "recordings")
        if let r = recordings { unique(r, "recordings") }
        let inputs = decodeInputs(top)

        // split_policy
        var splitBy: String?, folds: Int?, foldsOK = true
        var policy: DatasetManifest.SplitPolicy?
        if applied {
            // No split assignment: nothing to decode.
        } else if let p = object(top["split_policy"], "split_policy") {
            let before = problems.count
            checkKeys(p, path: "split_policy", allowed: ["by", "seed", "fractions", "folds", "assign", "allocation", "leave_one_out"],
                      required: ["by", "seed", "fractions"])
            if let by = string(p["by"], "split_policy.by") {
                if by == "subject" || by == "recording" { splitBy = by } else {
                    problems.append("`split_policy.by` must be \"subject\" or \"recording\", not \"\(by)\"")
                }
            }
            let seed = int64(p["seed"], "split_policy.seed")
            var fractions: [SplitName: Double] = [:]
            if let f = object(p["fractions"], "split_policy.fractions") {
                checkKeys(f, path: "split_policy.fractions", allowed: SplitName.datasetSplits.map(\.rawValue),
                          required: SplitName.datasetSplits.map(\.rawValue))
                var sum = 0.0
                for s in SplitName.datasetSplits {
                    if let v = number(f[s.rawValue], "split_policy.fractions.\(s.rawValue)") {
                        if v < 0 || v > 1 { problems.append("`split_policy.fractions.\(s.rawValue)` must be from 0 to 1, not \(v)") }
                        sum += v
                        fractions[s] = v
                    }
                }
                if abs(sum - 1) > 1e-9 { problems.append("`split_policy.fractions` must sum to 1, not \(sum)") }
            }
            if p["folds"] != nil {
                // `leave_one_out` gives one fold per train subject: 0 or 1 when there are that few.
                folds = int(p["folds"], "split_policy.folds", min: p["leave_one_out"] == .bool(true) ? 0 : 2)
                if folds == nil { foldsOK = false }
            }
            var allocation: String?
            if p["allocation"] != nil, let a = string(p["allocation"], "split_policy.allocation") {
                if a == "hash" || a == "exact" { allocation = a } else {
                    problems.append("`split_policy.allocation` must be \"hash\" or \"exact\", not \"\(a)\"")
                }
            }
            var leaveOneOut = false
            if let l = p["leave_one_out"] {
                if case .bool(let b) = l { leaveOneOut = b } else { mustBe("split_policy.leave_one_out", l, "true or false") }
            }
            var assign: [String: [String]]?
            if let a = p["assign"], let o = object(a, "split_policy.assign") {
                checkKeys(o, path: "split_policy.assign", allowed: SplitName.datasetSplits.map(\.rawValue), required: [])
                var out: [String: [String]] = [:]
                for (k, v) in o { if let list = strings(v, "split_policy.assign.\(k)") { out[k] = list } }
                assign = out
            }
            if let splitBy, let seed, fractions.count == 3, problems.count == before {
                policy = DatasetManifest.SplitPolicy(by: splitBy, seed: seed, train: fractions[.train]!, validation: fractions[.validation]!,
                                                     test: fractions[.test]!, folds: folds, allocation: allocation,
                                                     leaveOneOut: leaveOneOut, assign: assign)
            }
        } else {
            foldsOK = false
        }
        if !applied, splitBy == nil { undecoded.insert(.splitBy) }
        if !applied, policy == nil { undecoded.insert(.splitPolicy) }

        // counts
        var windowsDropped: [String: Int]?
        var countedRecordings: Int?
        var counts: DatasetManifest.Counts?
        // An applied output keeps, as `windows_unlabelled`, the windows a dataset would have dropped.
        let windowsKey = applied ? "windows_unlabelled" : "windows_dropped"
        if let c = object(top["counts"], "counts") {
            let before = problems.count
            checkKeys(c, path: "counts",
                      allowed: ["recordings", "rows_read", "rows_dropped", windowsKey, "gaps", "gap_seconds",
                                "recordings_dropped", "skipped_recordings", "label_rows_ignored"],
                      required: ["recordings", "rows_read", "rows_dropped", windowsKey, "gaps", "gap_seconds"])
            countedRecordings = int(c["recordings"], "counts.recordings", min: 0)
            let rowsRead = int(c["rows_read"], "counts.rows_read", min: 0)
            let gaps = int(c["gaps"], "counts.gaps", min: 0)
            let gapSeconds = number(c["gap_seconds"], "counts.gap_seconds")
            if let g = gapSeconds, g < 0 {
                problems.append("`counts.gap_seconds` must not be negative, not \(g)")
            }
            let rowsDropped = self.counts(c["rows_dropped"], "counts.rows_dropped")
            windowsDropped = self.counts(c[windowsKey], "counts." + windowsKey)
            var recordingsDropped: [String: Int]?, labelRowsIgnored: [String: Int]?
            var skipped: [DatasetManifest.SkippedRecording]?
            if c["recordings_dropped"] != nil { recordingsDropped = self.counts(c["recordings_dropped"], "counts.recordings_dropped") }
            if c["label_rows_ignored"] != nil { labelRowsIgnored = self.counts(c["label_rows_ignored"], "counts.label_rows_ignored") }
            if let s = c["skipped_recordings"], let list = array(s, "counts.skipped_recordings") {
                var out: [DatasetManifest.SkippedRecording] = []
                for (i, item) in list.enumerated() {
                    let path = "counts.skipped_recordings[\(i)]"
                    guard let e = object(item, path) else { continue }
                    checkKeys(e, path: path, allowed: ["recording", "error"], required: ["recording", "error"])
                    let r = string(e["recording"], path + ".recording")
                    let m = string(e["error"], path + ".error")
                    if let r, let m { out.append(DatasetManifest.SkippedRecording(recording: r, error: m)) }
                }
                skipped = out
            }
            if let countedRecordings, let rowsRead, let gaps, let gapSeconds, let rowsDropped, let windowsDropped,
               problems.count == before {
                counts = DatasetManifest.Counts(recordings: countedRecordings, rowsRead: rowsRead, rowsDropped: rowsDropped,
                                                windowsDropped: windowsDropped, recordingsDropped: recordingsDropped,
                                                skippedRecordings: skipped, labelRowsIgnored: labelRowsIgnored, gaps: gaps,
                                                gapSeconds: gapSeconds)
            }
        }
        if windowsDropped == nil { undecoded.insert(.windowsDropped) }
        if counts == nil { undecoded.insert(.counts) }

        // A run counts every recording it planned, and lists each by name.
        if let countedRecordings, let recordings, countedRecordings != recordings.count {
            problems.append("`counts.recordings` is \(countedRecordings), but `recordings` lists \(recordings.count) recording(s)")
        }

        // arrays
        var arrays: [String: ArraySchema]?
        if let a = object(top["arrays"], "arrays") {
            var out: [String: ArraySchema] = [:]
            var ok = true
            for name in DatasetSchema.arrayOrder(a.keys) {
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
        var splits: [SplitName: DatasetManifest.Split]?
        let splitNames = applied ? [SplitName.windows] : SplitName.datasetSplits
        if let s = object(top["splits"], "splits") {
            checkKeys(s, path: "splits", allowed: splitNames.map(\.rawValue), required: splitNames.map(\.rawValue))
            var out: [SplitName: DatasetManifest.Split] = [:]
            var ok = true
            var seenPaths: [String: String] = [:]
            for split in splitNames {
                let path = "splits.\(split.rawValue)"
                guard let e = object(s[split.rawValue], path) else { ok = false; continue }
                checkKeys(e, path: path, allowed: ["num_windows", "class_counts", "files"],
                          required: ["num_windows", "class_counts", "files"])
                let n = int(e["num_windows"], path + ".num_windows", min: 0)
                let cc = classCounts(e["class_counts"], path + ".class_counts", classes: classes)
                var files: [DatasetManifest.DataFile] = []
                if let list = array(e["files"], path + ".files") {
                    if list.isEmpty { problems.append("`\(path).files` must list at least one file (an empty split is still written)") }
                    for (i, item) in list.enumerated() {
                        let fp = "\(path).files[\(i)]"
                        guard let f = object(item, fp) else { ok = false; continue }
                        checkKeys(f, path: fp, allowed: ["path", "bytes", "sha256", "num_windows", "class_counts"] + (partitions != nil ? ["partition"] : []),
                                  required: ["path", "bytes", "sha256", "num_windows", "class_counts"] + (partitions != nil ? ["partition"] : []))
                        var partition: Int?
                        if let count = partitions, f["partition"] != nil {
                            partition = int(f["partition"], fp + ".partition", min: 0)
                            if let q = partition, q >= count {
                                problems.append("`\(fp).partition` is \(q), but `partitions` is \(count): partitions are numbered 0 to \(count - 1)")
                                partition = nil
                            }
                            if partition == nil { ok = false }
                        }
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
                            files.append(DatasetManifest.DataFile(split: split, path: p, bytes: b, sha256: h, numWindows: fn, classCounts: fc,
                                                                  partition: partition))
                        } else { ok = false }
                    }
                } else { ok = false }
                if let n, let cc { out[split] = DatasetManifest.Split(numWindows: n, classCounts: cc, files: files) } else { ok = false }
            }
            if ok { splits = out }
        }

        // Cross-field consistency: arrays against channels, window length, features and folds.
        if let arrays, let length, let channelNames, let features, foldsOK {
            // `y_seq` with `pipeline.resolved.labels.per_sample: true`.
            let ySeq = pipeline.map { DatasetSchema.hasYSeq(resolved: $0.resolved) } ?? (arrays["y_seq"] != nil)
            // `qa` [Q] with `pipeline.resolved.qa`.
            let qa = pipeline.map { DatasetSchema.qaColumns(resolved: $0.resolved).count } ?? (arrays["qa"]?.rowShape.first ?? 0)
            let expected = applied
                ? DatasetSchema.appliedArrays(windowLength: length, channels: channelNames.count, features: features.count, hasYSeq: ySeq,
                                              qaColumns: qa)
                : DatasetSchema.arrays(windowLength: length, channels: channelNames.count, features: features.count,
                                       hasFolds: folds != nil, hasYSeq: ySeq, qaColumns: qa)
            for name in DatasetSchema.arrayOrder(Set(expected.keys).union(arrays.keys)) {
                switch (expected[name], arrays[name]) {
                case (let e?, nil):
                    problems.append("`arrays` lacks `\(name)` (\(e.dtype) \(e.shapeText))")
                case (nil, _?):
                    problems.append("`arrays.\(name)` is not an array of this \(applied ? "applied output (docs/dataset-format.md, \"Applied windows\")" : "dataset (docs/dataset-format.md, \"HDF5 files\")")")
                case (let e?, let a?):
                    if e.dtype != a.dtype { problems.append("`arrays.\(name).dtype` must be \"\(e.dtype)\", not \"\(a.dtype)\"") }
                    if e.rowShape != a.rowShape {
                        problems.append("`arrays.\(name).shape` must be \(e.shapeText) (window_length, channels, feature_names), not \(a.shapeText)")
                    }
                case (nil, nil): break
                }
            }
        }

        // normalization
        var xNorm: DatasetManifest.Moments??, fNorm: DatasetManifest.Moments??
        if let n = object(top["normalization"], "normalization") {
            checkKeys(n, path: "normalization", allowed: ["x", "features"], required: ["x", "features"])
            xNorm = moments(n["x"], "normalization.x", count: channelNames?.count)
            fNorm = moments(n["features"], "normalization.features", count: features?.count)
            if let features, features.isEmpty, case .some(.some) = fNorm {
                problems.append("`normalization.features` must be null when there are no features")
            }
        }
        if xNorm == nil { undecoded.insert(.normalizationX) }
        if fNorm == nil { undecoded.insert(.normalizationFeatures) }

        guard let storage, let rate, let length, let stride, let channelNames, let channelUnits, let classes,
              let features, let subjects, let recordings, let arrays, let splits, foldsOK,
              // Another version's files are not read as this one's: its data checks are skipped.
              version == nil || (applied ? version == DatasetSchema.appliedFormatVersion : DatasetSchema.readableVersions.contains(version!))
        else { return nil }
        let placeholderPolicy = applied ? nil : DatasetManifest.SplitPolicy(by: splitBy ?? "subject", seed: 0, train: 0, validation: 0,
                                                                            test: 0, folds: folds)
        var manifest = DatasetManifest(
            formatVersion: version ?? (applied ? DatasetSchema.appliedFormatVersion : DatasetSchema.formatVersion), createdBy: createdBy ?? "", storage: storage,
            pipeline: pipeline ?? DatasetManifest.Pipeline(name: "", sha256: "", resolved: .null),
            sampleRateHz: rate, windowLength: length, windowStride: stride,
            channels: zip(channelNames, channelUnits).map { DatasetManifest.Channel(name: $0, unit: $1) },
            classes: classes, featureNames: features, inputs: inputs ?? [], subjects: subjects, recordings: recordings,
            arrays: arrays,
            splitPolicy: policy ?? placeholderPolicy,
            normalization: DatasetManifest.Normalization(x: xNorm ?? nil, features: fNorm ?? nil),
            counts: counts ?? DatasetManifest.Counts(recordings: countedRecordings ?? 0, rowsRead: 0, rowsDropped: [:],
                                                     windowsDropped: windowsDropped ?? [:], recordingsDropped: nil,
                                                     skippedRecordings: nil, labelRowsIgnored: nil, gaps: 0, gapSeconds: 0),
            splits: splits, chain: chain, createml: createml,
            applied: applied ? (source ?? DatasetManifest.Applied(name: "", manifestSHA256: "", pipelineSHA256: "")) : nil,
            partitions: partitions)
        manifest.qa = top["qa"]
        return DecodedManifest(manifest: manifest, undecoded: undecoded)
    }
}
