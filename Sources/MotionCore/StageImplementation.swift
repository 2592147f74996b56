/// The implementation version of each stage of the chain (docs/dataset-format.md,
/// "Implementation versions"): the number goes up whenever a change to a stage's code changes the
/// bits it outputs for the same pipeline and input. A dataset records the versions that made it
/// (`chain.implementation` in its manifest); `apply` and the live library refuse a dataset made by
/// a version they do not implement, so an app that pins an older `MotionLive` is told, in one
/// sentence, that its preprocessing no longer matches the dataset's.
///
/// `Tests/MotionPipelineTests/StageGoldenTests.swift` holds each stage's golden output for its
/// current version and fails when a stage's bits change without a bump here.
public enum StageImplementation {
    /// Every stage, in the order it runs, with the version this build writes.
    ///
    /// - `ingest`: input readers, time rules and unit conversions (the live library's Core
    ///   Motion conversions use the readers' own factors);
    /// - `resample`: the grid, the methods, gaps and segments;
    /// - `antialias`: the low-pass filter's design and its streamed forward-backward run;
    /// - `magnitude`: the top-level `magnitude` channels;
    /// - `transforms`: the `transforms` steps;
    /// - `windows`: cutting, the short-segment drop;
    /// - `labels`: a window's label;
    /// - `features`: the feature catalogue;
    /// - `normalization`: the train statistics and `x_normalized`.
    public static let current: [(stage: String, version: Int)] = [
        ("ingest", 1), ("resample", 1), ("antialias", 1), ("magnitude", 1), ("transforms", 1),
        ("windows", 1), ("labels", 1), ("features", 1), ("normalization", 1),
    ]

    /// `current` as a table: `stage → version`.
    public static let versions: [String: Int] = Dictionary(uniqueKeysWithValues: current.map { ($0.stage, $0.version) })

    /// The versions of each stage this build can run. Today only the current ones; a stage that
    /// keeps an older implementation for old datasets lists both.
    public static let implemented: [String: [Int]] = {
        var out: [String: [Int]] = [:]
        for (stage, version) in current { out[stage] = [version] }
        return out
    }()

    /// The versions of a manifest written before datasets recorded them (no
    /// `chain.implementation`): every stage's first version, which is what ran then.
    public static let beforeVersions: [String: Int] = {
        var out: [String: Int] = [:]
        for (stage, _) in current { out[stage] = 1 }
        return out
    }()

    /// The record a manifest carries as `chain.implementation`: `{stage: version}`.
    public static var record: JSONValue {
        .object(Dictionary(uniqueKeysWithValues: current.map { ($0.stage, JSONValue.int(Int64($0.version))) }))
    }

    /// Why this build cannot reproduce a dataset made by `recorded` (`stage → version`), as the end
    /// of a sentence (`"it was made by resample version 2, and this motionprep implements version 1
    /// only"`), or nil when it implements every stage at its recorded version. A stage this build
    /// does not know at all is named the same way. Stages in `current` order, then unknown ones
    /// by name.
    public static func problem(_ recorded: [String: Int]) -> String? {
        let known = Set(current.map(\.stage))
        let unknown = recorded.keys.filter { !known.contains($0) }.sorted(by: Text.utf8Less)
        for (stage, _) in current {
            guard let v = recorded[stage] else { continue }
            let have = implemented[stage] ?? []
            if !have.contains(v) {
                let list = have.map(String.init).joined(separator: ", ")
                return "it was made by \(stage) version \(v), and this build implements \(stage) version \(list) only"
            }
        }
        if let s = unknown.first {
            return "it was made with a stage `\(s)` (version \(recorded[s]!)) that this build does not have"
        }
        return nil
    }

    /// Decodes a `chain.implementation` value: an object of positive whole numbers. A stage it
    /// does not name ran at its first version (it was written before that stage had a number).
    /// Returns the versions, or a problem (the end of a sentence naming the key) when it is malformed.
    public static func decode(_ value: JSONValue) -> Result<[String: Int], ImplementationRecordError> {
        guard case .object(let o) = value else {
            return .failure(.init("must be an object of stage names and version numbers"))
        }
        var out = beforeVersions
        for key in o.keys.sorted(by: Text.utf8Less) {
            switch o[key]! {
            case .int(let v) where v >= 1 && v <= Int64(Int32.max): out[key] = Int(v)
            default: return .failure(.init("`\(key)` must be a whole number of at least 1, not \(o[key]!.compact())"))
            }
        }
        return .success(out)
    }
}

/// A malformed `chain.implementation`, as the end of a sentence naming the key.
public struct ImplementationRecordError: Error, Sendable {
    public var problem: String
    public init(_ problem: String) { self.problem = problem }
}
