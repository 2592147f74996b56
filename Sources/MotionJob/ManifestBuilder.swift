import MotionChain
import MotionChecksum
import MotionConfig
import MotionCore
import MotionDataset
import MotionSinks

/// Builds the run's ``DatasetManifest`` (docs/dataset-format.md, "Manifest, checksums and
/// commit"); MotionDataset writes it.
enum ManifestBuilder {
    static let createdBy = "motionprep 0.1.0"

    static func manifest(spec: PipelineSpec, pipelineSHA256: String, description d: DatasetDescription,
                         inputs: [DatasetManifest.Input], totals: Totals,
                         recordings: Int, files: [SplitName: [WrittenFile]],
                         checksums: [(path: String, sha256: String, bytes: Int)],
                         foldCount: Int? = nil, ignoredLabelRows: [String: Int]? = nil, chain: ProcessingChain? = nil,
                         createml: JSONValue? = nil, partitions: Int? = nil) -> DatasetManifest {
        var splits: [SplitName: DatasetManifest.Split] = [:]
        for split in SplitName.datasetSplits {
            let list = files[split] ?? []
            var counts = [Int](repeating: 0, count: d.classNames.count)
            for f in list { for (i, c) in f.classCounts.enumerated() { counts[i] += c } }
            splits[split] = DatasetManifest.Split(
                numWindows: list.reduce(0) { $0 + $1.numWindows }, classCounts: counts,
                files: list.map { f in
                    let sum = checksums.first { $0.path == f.path }!
                    return DatasetManifest.DataFile(split: split, path: f.path, bytes: sum.bytes, sha256: sum.sha256,
                                                    numWindows: f.numWindows, classCounts: f.classCounts,
                                                    partition: partitions == nil ? nil : DatasetPartition.of(path: f.path)?.index)
                })
        }
        // `createml` holds rows, which are not normalised: no statistics (docs/dataset-format.md, "Create ML folders").
        let trainEmpty = (files[.train] ?? []).reduce(0) { $0 + $1.numWindows } == 0 || createml != nil
        func stats(_ m: RunningMoments) -> DatasetManifest.Moments { DatasetManifest.Moments(mean: m.mean, std: m.std) }
        let F = d.featureNames.count
        var assign: [String: [String]]?
        if !spec.split.assign.isEmpty {
            assign = [:]
            for e in spec.split.assign { assign![e.key] = e.value }
        }
        let policy = DatasetManifest.SplitPolicy(
            by: spec.split.by.rawValue, seed: Int64(bitPattern: spec.split.seed),
            train: spec.split.train, validation: spec.split.validation, test: spec.split.test,
            folds: foldCount ?? spec.split.folds,
            allocation: spec.split.allocation != .hash ? spec.split.allocation.rawValue : nil,
            leaveOneOut: spec.split.leaveOneOut, assign: assign)
        let counts = DatasetManifest.Counts(
            recordings: recordings, rowsRead: totals.rowsRead, rowsDropped: totals.rowsDropped,
            windowsDropped: totals.windowsDropped, recordingsDropped: totals.recordingsDropped,
            skippedRecordings: totals.skipped.map { DatasetManifest.SkippedRecording(recording: $0.0, error: $0.1) },
            // `from: intervals` only: the file's rows that label nothing, by kind.
            labelRowsIgnored: ignoredLabelRows,
            gaps: totals.gaps, gapSeconds: Double(totals.invalidPoints) / d.sampleRateHz)
        var manifest = DatasetManifest(
            createdBy: createdBy, storage: spec.output.type.rawValue,
            pipeline: DatasetManifest.Pipeline(name: spec.name, sha256: pipelineSHA256, resolved: spec.canonicalValue()),
            sampleRateHz: d.sampleRateHz, windowLength: d.windowLength, windowStride: d.windowStride,
            channels: zip(d.channelNames, d.channelUnits).map { DatasetManifest.Channel(name: $0, unit: $1) },
            classes: d.classNames, featureNames: d.featureNames, inputs: inputs,
            subjects: d.subjectNames, recordings: d.recordingNames,
            arrays: DatasetSchema.arrays(windowLength: d.windowLength, channels: d.channelNames.count, features: F,
                                         hasFolds: d.hasFolds, hasYSeq: d.hasYSeq),
            splitPolicy: policy,
            normalization: DatasetManifest.Normalization(x: trainEmpty ? nil : stats(totals.xMoments),
                                                         features: trainEmpty || F == 0 ? nil : stats(totals.featureMoments)),
            counts: counts, splits: splits, chain: chain, createml: createml, partitions: partitions)
        // The pipeline's `qa`: the `qa` array, and each recording's report in canonical order.
        if !d.qaColumns.isEmpty {
            manifest.arrays["qa"] = ArraySchema(dtype: "float32", rowShape: [d.qaColumns.count])
            manifest.qa = .object(["columns": .array(d.qaColumns.map { .string($0) }), "recordings": .array(totals.qaReports)])
        }
        return manifest
    }
}
