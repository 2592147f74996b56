import MotionCore
import MotionDataset
import MotionSinks
import MotionInputs

/// One partition of a partitioned dataset (`output.partitioned`, docs/scale.md, "The
/// partitioned layout") as its writer finished it: its data files with their sizes, SHA-256 and
/// counts, the counters of its recordings and its normalisation moments (count, mean and M2 per
/// column, as exact shortest round-trip decimals), and its recordings' input files.
///
/// A `--worker I/N` part stores it in `part.json` (`partition_summary`); `merge` builds the
/// manifest from the parts' summaries without reading a window. `run --partitions N` passes its
/// own summaries through the same JSON text, so both give the same bytes.
struct PartitionSummary: JSONDecodable {
    var partition: Int
    var files: [(split: SplitName, file: WrittenFile)]
    var totals: Totals
    var inputs: [InputEntry]
    /// A `createml` part (not partitioned): per split, its files' labels, recordings, rows and
    /// time spans, the windows cut and kept, and the rows left out (`createml` in the JSON).
    var createml: [SplitName: CreateMLSplitRows]? = nil

    var json: JSONValue {
        func ints(_ d: [String: Int]) -> JSONValue { .object(d.mapValues { .int($0) }) }
        func moments(_ m: RunningMoments) -> JSONValue {
            .object(["count": .double(m.count), "mean": .array(m.mean.map { .double($0) }), "m2": .array(m.m2.map { .double($0) })])
        }
        var extra: [String: JSONValue] = [:]
        if let createml {
            var o: [String: JSONValue] = [:]
            for (split, r) in createml {
                o[split.rawValue] = .object([
                    "files": .array(r.files.map { f in
                        .object(["path": .string(f.path), "label": .string(f.label), "recording": .string(f.recording),
                                 "rows": .int(f.rows), "start_time": .double(f.startTime), "end_time": .double(f.endTime)])
                    }),
                    "window_count": .int(r.windowCount),
                    "window_class_counts": .array(r.windowClassCounts.map { .int($0) }),
                    "rows_unlabelled": .int(r.rowsUnlabelled),
                    "stretches_too_short": .int(r.stretchesTooShort),
                    "rows_too_short": .int(r.rowsTooShort),
                ])
            }
            extra["createml"] = .object(o)
        }
        return .object(extra.merging([
            "partition": .int(partition),
            "files": .array(files.map { f in
                .object(["split": .string(f.split.rawValue), "path": .string(f.file.path), "bytes": .int(f.file.bytes ?? 0),
                         "sha256": .string(f.file.sha256 ?? ""), "num_windows": .int(f.file.numWindows),
                         "class_counts": .array(f.file.classCounts.map { .int($0) })])
            }),
            "rows_read": .int(totals.rowsRead),
            "rows_dropped": ints(totals.rowsDropped),
            "windows_dropped": ints(totals.windowsDropped),
            "recordings_dropped": ints(totals.recordingsDropped),
            "skipped": .array(totals.skipped.map { .object(["recording": .string($0.0), "error": .string($0.1)]) }),
            "gaps": .int(totals.gaps),
            "invalid_points": .int(totals.invalidPoints),
            "short_recordings": .int(totals.shortRecordings),
            "label_rows_no_overlap": .array(totals.labelRowsNoOverlap.map { .int($0) }),
            "x_moments": moments(totals.xMoments),
            "feature_moments": moments(totals.featureMoments),
            "inputs": .array(inputs.map(\.json)),
        ]) { a, _ in a })
    }

    init(partition: Int, files: [(split: SplitName, file: WrittenFile)], totals: Totals, inputs: [InputEntry]) {
        self.partition = partition
        self.files = files
        self.totals = totals
        self.inputs = inputs
    }

    /// Decodes ``json``'s form, every problem naming its key path (`partition_summary.files[0].sha256`
    /// in `part.json`).
    init(json o: JSONNode) throws(JSONProblem) {
        func moments(_ m: JSONNode) throws(JSONProblem) -> RunningMoments {
            let count = try m["count"].double(), mean = try m["mean"].doubles(), m2 = try m["m2"].doubles()
            guard count >= 0 else { throw m["count"].problem("must be a number ≥ 0, not \(JSONValue.format(count))") }
            guard m2.count == mean.count else { throw m["m2"].problem("holds \(m2.count) values for \(mean.count) means") }
            var r = RunningMoments(columns: mean.count)
            r.count = count
            r.mean = mean
            r.m2 = m2
            return r
        }
        func ints(_ n: JSONNode) throws(JSONProblem) -> [Int] {
            var out: [Int] = []
            for item in try n.items() { out.append(try item.int(min: 0)) }
            return out
        }
        /// A path inside the part's folder (under `prefix`).
        func relativePath(_ n: JSONNode, under prefix: String = "") throws(JSONProblem) -> String {
            let path = try n.relativePath(inside: "the folder")
            guard path.hasPrefix(prefix) else { throw n.problem("must be under `\(prefix)`, not \"\(path)\"") }
            return path
        }
        func split(_ n: JSONNode, _ name: String) throws(JSONProblem) -> SplitName {
            guard let split = SplitName(rawValue: name), SplitName.datasetSplits.contains(split) else {
                throw n.problem("names split \"\(name)\"; the splits are train, validation and test")
            }
            return split
        }
        partition = try o["partition"].int(min: 0)
        files = []
        for f in try o["files"].items() {
            files.append((try split(f["split"], try f["split"].string()),
                          WrittenFile(path: try relativePath(f["path"]), numWindows: try f["num_windows"].int(min: 0),
                                      classCounts: try ints(f["class_counts"]), sha256: try f["sha256"].sha256(),
                                      bytes: try f["bytes"].int(min: 0))))
        }
        var t = Totals(channels: 0, features: 0)
        t.rowsRead = try o["rows_read"].int(min: 0)
        t.rowsDropped = try o["rows_dropped"].counts()
        t.windowsDropped = try o["windows_dropped"].counts()
        t.recordingsDropped = try o["recordings_dropped"].counts()
        t.skipped = []
        for r in try o["skipped"].items() { t.skipped.append((try r["recording"].string(), try r["error"].string())) }
        t.gaps = try o["gaps"].int(min: 0)
        t.invalidPoints = try o["invalid_points"].int(min: 0)
        t.shortRecordings = try o["short_recordings"].int(min: 0)
        t.labelRowsNoOverlap = try ints(o["label_rows_no_overlap"])
        t.xMoments = try moments(o["x_moments"])
        t.featureMoments = try moments(o["feature_moments"])
        totals = t
        inputs = []
        for n in try o["inputs"].items() { inputs.append(try n.decode()) }
        if !o["createml"].isMissing {
            var out: [SplitName: CreateMLSplitRows] = [:]
            for (name, v) in try o["createml"].members() {
                let splitName = try split(v, name)
                let wcc = try ints(v["window_class_counts"])
                var r = CreateMLSplitRows(classes: wcc.count)
                r.windowClassCounts = wcc
                r.windowCount = try v["window_count"].int(min: 0)
                r.rowsUnlabelled = try v["rows_unlabelled"].int(min: 0)
                r.stretchesTooShort = try v["stretches_too_short"].int(min: 0)
                r.rowsTooShort = try v["rows_too_short"].int(min: 0)
                for f in try v["files"].items() {
                    r.files.append(CreateMLFile(path: try relativePath(f["path"], under: name + "/"), split: name,
                                                label: try f["label"].string(), recording: try f["recording"].string(),
                                                rows: try f["rows"].int(min: 0), startTime: try f["start_time"].double(),
                                                endTime: try f["end_time"].double()))
                }
                out[splitName] = r
            }
            createml = out
        }
    }
}
