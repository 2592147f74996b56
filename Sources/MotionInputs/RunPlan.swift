import MotionConfig
import MotionCore
import MotionDataset
import MotionFeatures
import MotionSinks

/// Everything decided before any sample is read: the recordings in canonical order, their
/// subjects, splits and folds, the channels and the dataset's description.
package struct RunPlan: Sendable {
    package let spec: PipelineSpec
    package let layout: ChannelLayout
    /// Recordings sorted by (subject, name), the order windows are written in.
    package let sources: [RecordingSource]
    package let subjects: [String]
    package let recordingNames: [String]
    package let subjectIndex: [String: Int32]
    package let recordingIndex: [String: Int32]
    package let splitOf: [SplitName]
    /// Each recording's fold (−1 outside train) when folds are on.
    package let foldOf: [Int32?]
    /// The number of folds (`folds`, or the train subjects with `leave_one_out`).
    package let foldCount: Int?
    /// The subjects (or recordings, with `by: recording`) in the train split.
    package let trainKeyCount: Int
    package var description: DatasetDescription
    package let windowLength: Int
    package let pipelineSHA256: String
    /// The `intervals` file, read once (nil for other label sources, and in `merge`).
    package let intervals: IntervalLabels?
    /// Intervals rows that label nothing, by kind, and their warnings (docs/signal.md, "The label of each point").
    /// `merge` takes it from the parts (`part.json`), which recorded it: the labels file need not be there.
    package var ignoredLabelRows: IgnoredLabelRows?

    /// - Parameters:
    ///   - ledger: hears the files read (an IIO layout folder to learn the channels, the
    ///     intervals file).
    ///   - readLabels: read the intervals file and check `from: path` labels (false for
    ///     `merge`, which reads no input and takes what they gave from the parts).
    package init(spec: PipelineSpec, sources: [RecordingSource], ledger: InputLedger? = nil, readLabels: Bool = true) throws {
        self.spec = spec
        layout = try ChannelLayout.make(spec, ledger: ledger)
        self.sources = sources
        let rate = spec.resample.rateHz
        windowLength = spec.window.length.samples(atRateHz: rate)
        let stride = spec.window.stride.samples(atRateHz: rate)
        subjects = Array(Set(sources.map(\.subject))).sorted(by: Text.utf8Less)
        recordingNames = sources.map(\.name).sorted(by: Text.utf8Less)
        subjectIndex = Dictionary(uniqueKeysWithValues: subjects.enumerated().map { ($1, Int32($0)) })
        recordingIndex = Dictionary(uniqueKeysWithValues: recordingNames.enumerated().map { ($1, Int32($0)) })
        let splitter = SplitAssigner(spec.split)
        let keys = sources.map { splitter.key(subject: $0.subject, recording: $0.name) }
        let assignment = splitter.assign(keys, strata: try Self.strata(spec: spec, sources: sources, keys: keys))
        splitOf = keys.map { assignment.split[$0]! }
        foldOf = keys.map { key in assignment.foldCount == nil ? nil : (assignment.fold[key] ?? -1) }
        foldCount = assignment.foldCount
        trainKeyCount = assignment.split.values.filter { $0 == .train }.count
        let featureNames = spec.features.isEmpty ? [] :
            FeaturePlan(features: spec.features, channelNames: layout.channelNames, rateHz: rate, windowLength: windowLength).featureNames
        description = DatasetDescription(
            sampleRateHz: rate, windowLength: windowLength, windowStride: stride, channelNames: layout.channelNames,
            channelUnits: layout.channelUnits, classNames: spec.labels?.classes ?? [], featureNames: featureNames,
            subjectNames: subjects, recordingNames: recordingNames, hasFolds: assignment.foldCount != nil,
            hasYSeq: spec.labels?.perSample ?? false)
        if spec.qa != nil { description.qaColumns = QASpec.columns }
        pipelineSHA256 = SHA256Text.hex(spec.canonicalJSON())
        // `from: path`: every file of a recording must give it one label, checked before anything is read.
        if readLabels { for source in sources { _ = try LabelSources.pathLabel(source, spec: spec) } }
        if readLabels, let labels = spec.labels, labels.from == .intervals, let path = labels.path {
            let loaded = try IntervalLabels.load(path: PathText.join(spec.baseDirectory, path), ledger: ledger)
            intervals = loaded
            ignoredLabelRows = IgnoredLabelRows(loaded, recordings: Set(sources.map(\.name)), labels: labels)
        } else {
            intervals = nil
            ignoredLabelRows = nil
        }
    }

    /// With `split.stratify: label`, each split key's stratum: its recording's class (the
    /// `from: path` label after `labels.map`; "" when it is no class), or for a subject the
    /// classes of its recordings, sorted by bytes and joined by `+` (docs/pipeline.md, "Splits
    /// and folds"). Only paths are rendered: nothing is read, so `merge` gets the same.
    package static func strata(spec: PipelineSpec, sources: [RecordingSource], keys: [String]) throws -> [String: String] {
        guard spec.split.stratify != nil, spec.labels != nil else { return [:] }
        var byKey: [String: Set<String>] = [:]
        for (source, key) in zip(sources, keys) {
            byKey[key, default: []].insert(try LabelSources.pathClass(source, spec: spec) ?? "")
        }
        return byKey.mapValues { set in
            let named = set.filter { !$0.isEmpty }.sorted(by: Text.utf8Less)
            return named.isEmpty ? "" : named.joined(separator: "+")
        }
    }

    /// Warnings known before reading anything.
    package var planWarnings: [String] {
        var warnings: [String] = ignoredLabelRows?.warnings ?? []
        if spec.split.by == .subject && sources.count > 1 && subjects.count == sources.count && !spec.ignoreWarnings.contains(.subjectPerRecording) {
            warnings.append("every recording is its own subject while splitting by subject; check the `subject` template (default `{dir}`), or recordings of one person may leak across splits; " + PipelineSpec.WarningName.subjectPerRecording.silenceHint)
        }
        if let w = windowRounding, !spec.ignoreWarnings.contains(.windowRounding) {
            warnings.append(w + "; " + PipelineSpec.WarningName.windowRounding.silenceHint)
        }
        if let k = foldCount {
            let train = trainKeyCount
            if spec.split.leaveOneOut && train < 2 {
                warnings.append("`split.leave_one_out` needs at least 2 train \(spec.split.by.rawValue)s to cross-validate, and the train split has \(train)")
            } else if !spec.split.leaveOneOut && train < k {
                warnings.append("`split.folds: \(k)` but the train split has only \(train) \(spec.split.by.rawValue)(s), so \(k - train) fold(s) are empty; lower `folds` or use `leave_one_out: true`")
            }
        }
        return warnings
    }

    /// Says, once, what `window.length_s` and `stride_s` became when they are not whole numbers
    /// of samples at the rate (they round to the nearest sample, halves up: docs/signal.md,
    /// "Windows and labels"), e.g. 2.56 s at 2 Hz is 5.12 samples: 5 samples, 2.5 s.
    package var windowRounding: String? {
        let rate = spec.resample.rateHz
        var parts: [String] = []
        // A stride left out is the length: said once.
        let amounts = spec.window.stride == spec.window.length
            ? [("length_s", spec.window.length)] : [("length_s", spec.window.length), ("stride_s", spec.window.stride)]
        for (key, amount) in amounts {
            guard case .seconds(let seconds) = amount else { continue }
            let exact = seconds * rate
            let n = amount.samples(atRateHz: rate)
            guard abs(exact - Double(n)) > 1e-9 * Swift.max(1, abs(exact)) else { continue }
            parts.append(String(format: "`window.%@` %.6g s is %.6g samples at %.6g Hz, so %d samples (%.6g s)",
                                key, seconds, exact, rate, n, Double(n) / rate))
        }
        guard !parts.isEmpty else { return nil }
        return parts.joined(separator: "; ") + " are used"
    }

    /// The worker (of `count`) that owns recording `name` (docs/scale.md).
    package static func worker(of name: String, count: Int) -> Int {
        Int(StableHash.hash(name) % UInt64(count))
    }
}

import MotionChecksum

package enum SHA256Text {
    package static func hex(_ s: String) -> String { SHA256.hex(of: Array(s.utf8)) }
}
