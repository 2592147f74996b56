import MotionCore
import MotionDataset
import MotionSinks

/// The `createml` output's manifest key (docs/dataset-format.md, "Create ML folders"): how
/// Create ML reads the folders, the files of every split and what was left out, summed over the
/// split sinks in split order.
struct CreateMLSummary {
    let sinks: [(split: SplitName, sink: CreateMLSplitRows)]

    init(_ sinks: [SplitName: CreateMLSplitRows]) {
        self.sinks = SplitName.datasetSplits.compactMap { s in sinks[s].map { (s, $0) } }
    }

    var files: [CreateMLFile] { sinks.flatMap { $0.sink.files } }
    var rowsUnlabelled: Int { sinks.reduce(0) { $0 + $1.sink.rowsUnlabelled } }
    var stretchesTooShort: Int { sinks.reduce(0) { $0 + $1.sink.stretchesTooShort } }
    var rowsTooShort: Int { sinks.reduce(0) { $0 + $1.sink.rowsTooShort } }

    /// What was left out, for the message of a run that wrote no stretch.
    var explanation: String {
        "\(stretchesTooShort) stretch(es) shorter than a window (\(rowsTooShort) rows) and \(rowsUnlabelled) row(s) without a class were left out"
    }

    func manifestValue(description d: DatasetDescription) -> JSONValue {
        var splits: [String: JSONValue] = [:]
        for (split, sink) in sinks {
            var stretches = [Int](repeating: 0, count: d.classNames.count)
            var rows = [Int](repeating: 0, count: d.classNames.count)
            for f in sink.files {
                let c = d.classNames.firstIndex(of: f.label)!
                stretches[c] += 1
                rows[c] += f.rows
            }
            splits[split.rawValue] = .object([
                "annotation_file": .string(split.rawValue + "/" + CreateMLSplitSink.annotationFileName),
                "stretches": .int(Int64(sink.files.count)),
                "rows": .int(Int64(sink.files.reduce(0) { $0 + $1.rows })),
                "class_stretches": .array(stretches.map { .int(Int64($0)) }),
                "class_rows": .array(rows.map { .int(Int64($0)) }),
            ])
        }
        let all = files
        return .object([
            "data_sources": .array([.string("labeledDirectories"), .string("directoryWithDataAndAnnotation")]),
            "time_column": .string(CreateMLSplitSink.timeColumn),
            "feature_columns": .array(d.channelNames.map { .string($0) }),
            "prediction_window_size": .int(Int64(d.windowLength)),
            "annotation_columns": .array(CreateMLSplitSink.annotationColumns.map { .string($0) }),
            "counts": .object([
                "stretches": .int(Int64(all.count)),
                "rows": .int(Int64(all.reduce(0) { $0 + $1.rows })),
                "stretches_too_short": .int(Int64(stretchesTooShort)),
                "rows_too_short": .int(Int64(rowsTooShort)),
                "rows_unlabelled": .int(Int64(rowsUnlabelled)),
            ]),
            "splits": .object(splits),
            "files": .array(all.map { f in
                .object([
                    "path": .string(f.path), "label": .string(f.label), "recording": .string(f.recording),
                    "rows": .int(Int64(f.rows)), "start_time": .double(f.startTime), "end_time": .double(f.endTime),
                ])
            }),
        ])
    }
}
