import MotionChain
import MotionCore

extension DatasetManifest {
    // MARK: - Encoding

    /// The manifest as JSON: the object motionprep writes.
    public var json: JSONValue {
        func ints(_ d: [String: Int]) -> JSONValue { .object(d.mapValues { .int($0) }) }
        func moments(_ m: Moments?) -> JSONValue {
            guard let m else { return .null }
            return .object(["mean": .array(m.mean.map { .double($0) }), "std": .array(m.std.map { .double($0) })])
        }
        var policy: [String: JSONValue]?
        if let splitPolicy {
            var p: [String: JSONValue] = [
                "by": .string(splitPolicy.by), "seed": .int(splitPolicy.seed),
                "fractions": .object(["train": .double(splitPolicy.train), "validation": .double(splitPolicy.validation),
                                      "test": .double(splitPolicy.test)]),
            ]
            if let k = splitPolicy.folds { p["folds"] = .int(k) }
            if let a = splitPolicy.allocation { p["allocation"] = .string(a) }
            if splitPolicy.leaveOneOut { p["leave_one_out"] = .bool(true) }
            if let assign = splitPolicy.assign { p["assign"] = .object(assign.mapValues { .array($0.map { .string($0) }) }) }
            policy = p
        }
        var counts: [String: JSONValue] = [
            "recordings": .int(self.counts.recordings),
            "rows_read": .int(self.counts.rowsRead),
            "rows_dropped": ints(self.counts.rowsDropped),
            isApplied ? "windows_unlabelled" : "windows_dropped": ints(self.counts.windowsDropped),
            "gaps": .int(self.counts.gaps),
            "gap_seconds": .double(self.counts.gapSeconds),
        ]
        if let d = self.counts.recordingsDropped { counts["recordings_dropped"] = ints(d) }
        if let s = self.counts.skippedRecordings {
            counts["skipped_recordings"] = .array(s.map { .object(["recording": .string($0.recording), "error": .string($0.error)]) })
        }
        if let l = self.counts.labelRowsIgnored { counts["label_rows_ignored"] = ints(l) }
        var splits: [String: JSONValue] = [:]
        for (name, s) in self.splits {
            splits[name.rawValue] = .object([
                "num_windows": .int(s.numWindows),
                "class_counts": .array(s.classCounts.map { .int($0) }),
                "files": .array(s.files.map { f in
                    var o: [String: JSONValue] = ["path": .string(f.path), "bytes": .int(f.bytes), "sha256": .string(f.sha256),
                                                  "num_windows": .int(f.numWindows), "class_counts": .array(f.classCounts.map { .int($0) })]
                    if let p = f.partition { o["partition"] = .int(p) }
                    return .object(o)
                }),
            ])
        }
        var top: [String: JSONValue] = [
            "format": .string(isApplied ? DatasetSchema.appliedFormat : DatasetSchema.format),
            "format_version": .int(formatVersion),
            "created_by": .string(createdBy),
            "storage": .string(storage),
            "pipeline": .object(["name": .string(pipeline.name), "sha256": .string(pipeline.sha256), "resolved": pipeline.resolved]),
            "sample_rate_hz": .double(sampleRateHz),
            "window_length": .int(windowLength),
            "window_stride": .int(windowStride),
            "channels": .array(channels.map { .object(["name": .string($0.name), "unit": .string($0.unit)]) }),
            "classes": .array(classes.map { .string($0) }),
            "feature_names": .array(featureNames.map { .string($0) }),
            "inputs": .array(inputs.map { i in
                var o: [String: JSONValue] = ["path": .string(i.path), "bytes": .int(i.bytes), "sha256": .string(i.sha256)]
                if let r = i.role { o["role"] = .string(r) }
                return .object(o)
            }),
            "subjects": .array(subjects.map { .string($0) }),
            "recordings": .array(recordings.map { .string($0) }),
            "arrays": .object(arrays.mapValues { .object(["dtype": .string($0.dtype), "shape": .array([.null] + $0.rowShape.map { .int($0) })]) }),
            "normalization": .object(["x": moments(normalization.x), "features": moments(normalization.features)]),
            "counts": .object(counts),
            "splits": .object(splits),
        ]
        if let policy { top["split_policy"] = .object(policy) }
        if let applied {
            top["source_dataset"] = .object(["name": .string(applied.name), "manifest_sha256": .string(applied.manifestSHA256),
                                             "pipeline_sha256": .string(applied.pipelineSHA256)])
        }
        if let chain { top["chain"] = chain.json }
        if let createml { top["createml"] = createml }
        if let partitions { top["partitions"] = .int(partitions) }
        if let qa { top["qa"] = qa }
        return .object(top)
    }

    /// The text of `manifest.json`: ``json`` pretty-printed, with a final newline.
    public var text: String { json.pretty() + "\n" }
}
