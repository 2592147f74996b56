import MotionConfig
import MotionCore
import MotionFeatures
import MotionSinks

/// Everything decided before any sample is read: the recordings in canonical order, their
/// subjects, splits and folds, the channels and the dataset's description.
struct RunPlan: Sendable {
    let spec: PipelineSpec
    let layout: ChannelLayout
    /// Recordings sorted by (subject, name), the order windows are written in.
    let sources: [RecordingSource]
    let subjects: [String]
    let recordingNames: [String]
    let subjectIndex: [String: Int32]
    let recordingIndex: [String: Int32]
    let splitOf: [SplitName]
    let foldOf: [Int32?]
    let description: DatasetDescription
    let windowLength: Int
    let pipelineSHA256: String

    /// - Parameter ledger: hears the files read to learn the channels (an IIO layout folder).
    init(spec: PipelineSpec, sources: [RecordingSource], ledger: InputLedger? = nil) throws {
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
        splitOf = sources.map { splitter.split(of: splitter.key(subject: $0.subject, recording: $0.name)) }
        foldOf = sources.map { splitter.fold(of: splitter.key(subject: $0.subject, recording: $0.name)) }
        let featureNames = spec.features.isEmpty ? [] :
            FeaturePlan(features: spec.features, channelNames: layout.channelNames, rateHz: rate, windowLength: windowLength).featureNames
        description = DatasetDescription(
            sampleRateHz: rate, windowLength: windowLength, windowStride: stride, channelNames: layout.channelNames,
            channelUnits: layout.channelUnits, classNames: spec.labels?.classes ?? [], featureNames: featureNames,
            subjectNames: subjects, recordingNames: recordingNames, hasFolds: spec.split.folds != nil)
        pipelineSHA256 = SHA256Text.hex(spec.canonicalJSON())
    }

    /// Warnings known before reading anything.
    var planWarnings: [String] {
        if spec.split.by == .subject && sources.count > 1 && subjects.count == sources.count {
            return ["every recording is its own subject while splitting by subject; check the `subject` template (default `{dir}`), or recordings of one person may leak across splits"]
        }
        return []
    }

    /// The worker (of `count`) that owns recording `name` (SPEC §10).
    static func worker(of name: String, count: Int) -> Int {
        Int(StableHash.hash(name) % UInt64(count))
    }
}

import MotionChecksum

enum SHA256Text {
    static func hex(_ s: String) -> String { SHA256.hex(of: Array(s.utf8)) }
}
