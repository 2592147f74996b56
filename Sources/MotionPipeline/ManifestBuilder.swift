import MotionChecksum
import MotionConfig
import MotionCore
import MotionSinks

/// Builds `manifest.json` (docs/dataset-format.md, "Manifest, checksums and commit").
enum ManifestBuilder {
    static let createdBy = "motionprep 0.1.0"

    static func manifest(spec: PipelineSpec, pipelineSHA256: String, description d: DatasetDescription, inputs: [JSONValue], totals: Totals,
                         recordings: Int, files: [SplitName: [WrittenFile]],
                         checksums: [(path: String, sha256: String, bytes: Int)],
                         foldCount: Int? = nil, ignoredLabelRows: [String: Int]? = nil) -> JSONValue {
        let T = d.windowLength, C = d.channelNames.count, F = d.featureNames.count
        var arrays: [String: JSONValue] = [
            "x": array("float32", [.null, .int(T), .int(C)]),
            "y": array("int64", [.null]),
            "subject_index": array("int32", [.null]),
            "recording_index": array("int32", [.null]),
            "start_time_s": array("float64", [.null]),
        ]
        if F > 0 { arrays["features"] = array("float32", [.null, .int(F)]) }
        if d.hasFolds { arrays["fold_index"] = array("int32", [.null]) }
        var splits: [String: JSONValue] = [:]
        for split in SplitName.allCases {
            let list = files[split] ?? []
            var counts = [Int](repeating: 0, count: d.classNames.count)
            for f in list { for (i, c) in f.classCounts.enumerated() { counts[i] += c } }
            splits[split.rawValue] = .object([
                "num_windows": .int(list.reduce(0) { $0 + $1.numWindows }),
                "class_counts": .array(counts.map { .int($0) }),
                "files": .array(list.map { f in
                    let sum = checksums.first { $0.path == f.path }!
                    return .object(["path": .string(f.path), "bytes": .int(sum.bytes), "sha256": .string(sum.sha256),
                                    "num_windows": .int(f.numWindows), "class_counts": .array(f.classCounts.map { .int($0) })])
                }),
            ])
        }
        let trainEmpty = (files[.train] ?? []).reduce(0) { $0 + $1.numWindows } == 0
        func stats(_ m: RunningMoments) -> JSONValue {
            .object(["mean": .array(m.mean.map { .double($0) }), "std": .array(m.std.map { .double($0) })])
        }
        let normalization: JSONValue = .object([
            "x": trainEmpty ? .null : stats(totals.xMoments),
            "features": trainEmpty || F == 0 ? .null : stats(totals.featureMoments),
        ])
        var fractions: [String: JSONValue] = [
            "train": .double(spec.split.train), "validation": .double(spec.split.validation), "test": .double(spec.split.test),
        ]
        _ = fractions.removeValue(forKey: "")
        var policy: [String: JSONValue] = ["by": .string(spec.split.by.rawValue), "seed": .int(Int64(bitPattern: spec.split.seed)),
                                           "fractions": .object(fractions)]
        if let k = foldCount ?? spec.split.folds { policy["folds"] = .int(k) }
        if spec.split.allocation != .hash { policy["allocation"] = .string(spec.split.allocation.rawValue) }
        if spec.split.leaveOneOut { policy["leave_one_out"] = .bool(true) }
        if !spec.split.assign.isEmpty {
            var a: [String: JSONValue] = [:]
            for e in spec.split.assign { a[e.key] = .array(e.value.map { .string($0) }) }
            policy["assign"] = .object(a)
        }
        var dropped: [String: JSONValue] = [:]
        for (k, v) in totals.recordingsDropped { dropped[k] = .int(v) }
        var counts: [String: JSONValue] = [
            "recordings": .int(recordings),
            "rows_read": .int(totals.rowsRead),
            "rows_dropped": .object(totals.rowsDropped.mapValues { .int($0) }),
            "windows_dropped": .object(totals.windowsDropped.mapValues { .int($0) }),
            "recordings_dropped": .object(dropped),
            "skipped_recordings": .array(totals.skipped.map { .object(["recording": .string($0.0), "error": .string($0.1)]) }),
            "gaps": .int(totals.gaps),
            "gap_seconds": .double(Double(totals.invalidPoints) / d.sampleRateHz),
        ]
        // `from: intervals` only: the file's rows that label nothing, by kind.
        if let ignoredLabelRows { counts["label_rows_ignored"] = .object(ignoredLabelRows.mapValues { .int($0) }) }
        return .object([
            "format": .string("motionprep.dataset"),
            "format_version": .int(2),
            "created_by": .string(createdBy),
            "storage": .string(spec.output.type.rawValue),
            "pipeline": .object(["name": .string(spec.name), "sha256": .string(pipelineSHA256),
                                 "resolved": spec.canonicalValue()]),
            "sample_rate_hz": .double(d.sampleRateHz),
            "window_length": .int(T),
            "window_stride": .int(d.windowStride),
            "channels": .array(zip(d.channelNames, d.channelUnits).map { .object(["name": .string($0), "unit": .string($1)]) }),
            "classes": .array(d.classNames.map { .string($0) }),
            "feature_names": .array(d.featureNames.map { .string($0) }),
            "inputs": .array(inputs),
            "subjects": .array(d.subjectNames.map { .string($0) }),
            "recordings": .array(d.recordingNames.map { .string($0) }),
            "arrays": .object(arrays),
            "split_policy": .object(policy),
            "normalization": normalization,
            "counts": .object(counts),
            "splits": .object(splits),
        ])
    }

    private static func array(_ dtype: String, _ shape: [JSONValue]) -> JSONValue {
        .object(["dtype": .string(dtype), "shape": .array(shape)])
    }
}
