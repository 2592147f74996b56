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
struct PartitionSummary {
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

    /// Parses ``json``'s form.
    ///
    /// - Throws: `.dataError` (65) naming the first field that is missing or of the wrong type
    ///   (as `partition_summary.FIELD`).
    init(json o: JSONValue, channels: Int? = nil, features: Int? = nil, classes: Int? = nil) throws {
        func bad(_ field: String) -> MotionError {
            MotionError(.dataError, "`partition_summary.\(field)` is missing or not valid")
        }
        func int(_ field: String, _ v: JSONValue?) throws -> Int {
            guard let n = v?.intValue, n >= 0 else { throw bad(field) }
            return n
        }
        func counts(_ field: String) throws -> [String: Int] {
            guard let d = o[field]?.objectValue else { throw bad(field) }
            return try d.mapValues { try int(field, $0) }
        }
        func moments(_ field: String, columns: Int?) throws -> RunningMoments {
            guard let m = o[field], let count = m["count"]?.doubleValue, count >= 0,
                  let mean = m["mean"]?.arrayValue?.compactMap(\.doubleValue), let m2 = m["m2"]?.arrayValue?.compactMap(\.doubleValue),
                  mean.count == m["mean"]?.arrayValue?.count, m2.count == mean.count, columns == nil || mean.count == columns
            else { throw bad(field) }
            var r = RunningMoments(columns: mean.count)
            r.count = count
            r.mean = mean
            r.m2 = m2
            return r
        }
        partition = try int("partition", o["partition"])
        var files: [(split: SplitName, file: WrittenFile)] = []
        for (k, f) in (o["files"]?.arrayValue ?? []).enumerated() {
            let field = "files[\(k)]"
            guard let split = f["split"]?.stringValue.flatMap(SplitName.init(rawValue:)), SplitName.datasetSplits.contains(split),
                  let path = f["path"]?.stringValue, !path.isEmpty, !path.hasPrefix("/"), !path.split(separator: "/").contains(".."),
                  let sha = f["sha256"]?.stringValue, sha.utf8.count == 64,
                  let classCounts = f["class_counts"]?.arrayValue?.compactMap(\.intValue),
                  classes == nil || classCounts.count == classes else { throw bad(field) }
            files.append((split, WrittenFile(path: path, numWindows: try int(field + ".num_windows", f["num_windows"]),
                                             classCounts: classCounts, sha256: sha, bytes: try int(field + ".bytes", f["bytes"]))))
        }
        guard o["files"]?.arrayValue != nil else { throw bad("files") }
        self.files = files
        var t = Totals(channels: channels ?? 0, features: features ?? 0)
        t.rowsRead = try int("rows_read", o["rows_read"])
        t.rowsDropped = try counts("rows_dropped")
        t.windowsDropped = try counts("windows_dropped")
        t.recordingsDropped = try counts("recordings_dropped")
        guard let skipped = o["skipped"]?.arrayValue else { throw bad("skipped") }
        t.skipped = try skipped.map {
            guard let r = $0["recording"]?.stringValue, let e = $0["error"]?.stringValue else { throw bad("skipped") }
            return (r, e)
        }
        t.gaps = try int("gaps", o["gaps"])
        t.invalidPoints = try int("invalid_points", o["invalid_points"])
        t.shortRecordings = try int("short_recordings", o["short_recordings"])
        guard let lines = o["label_rows_no_overlap"]?.arrayValue else { throw bad("label_rows_no_overlap") }
        t.labelRowsNoOverlap = try lines.map { try int("label_rows_no_overlap", $0) }
        t.xMoments = try moments("x_moments", columns: channels)
        t.featureMoments = try moments("feature_moments", columns: features)
        totals = t
        guard let list = o["inputs"]?.arrayValue else { throw bad("inputs") }
        inputs = try list.map { guard let e = InputEntry(json: $0) else { throw bad("inputs") }; return e }
        if let c = o["createml"] {
            guard let splits = c.objectValue else { throw bad("createml") }
            var out: [SplitName: CreateMLSplitRows] = [:]
            for (name, v) in splits {
                let field = "createml.\(name)"
                guard let split = SplitName(rawValue: name), SplitName.datasetSplits.contains(split),
                      let list = v["files"]?.arrayValue,
                      let wcc = v["window_class_counts"]?.arrayValue?.compactMap(\.intValue),
                      wcc.count == v["window_class_counts"]?.arrayValue?.count, classes == nil || wcc.count == classes
                else { throw bad(field) }
                var r = CreateMLSplitRows(classes: wcc.count)
                r.windowClassCounts = wcc
                r.windowCount = try int(field + ".window_count", v["window_count"])
                r.rowsUnlabelled = try int(field + ".rows_unlabelled", v["rows_unlabelled"])
                r.stretchesTooShort = try int(field + ".stretches_too_short", v["stretches_too_short"])
                r.rowsTooShort = try int(field + ".rows_too_short", v["rows_too_short"])
                for (k, f) in list.enumerated() {
                    let ff = field + ".files[\(k)]"
                    guard let path = f["path"]?.stringValue, path.hasPrefix(name + "/"), !path.split(separator: "/").contains(".."),
                          let label = f["label"]?.stringValue, let recording = f["recording"]?.stringValue,
                          let start = f["start_time"]?.doubleValue, let end = f["end_time"]?.doubleValue
                    else { throw bad(ff) }
                    r.files.append(CreateMLFile(path: path, split: name, label: label, recording: recording,
                                                rows: try int(ff + ".rows", f["rows"]), startTime: start, endTime: end))
                }
                out[split] = r
            }
            createml = out
        }
    }
}
