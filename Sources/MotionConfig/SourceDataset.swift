#if canImport(Glibc)
import Glibc
#endif
import MotionCore
import MotionYAML

/// A written dataset as `motionprep apply` needs it (docs/commands.md, "apply"): its fully
/// resolved pipeline, decoded from the manifest's `pipeline.resolved` by the same decoder as a
/// pipeline file (`SpecDecoder` in resolved mode), and what the manifest says the pipeline
/// gave: channels, classes, features, rate, window and the train split's normalisation.
///
/// The manifest is read with MotionCore's `JSONNode`, each problem naming the key path; its
/// `pipeline.resolved` also with the pipeline files' YAML parser (JSON is YAML's flow style), so
/// that a problem there is reported at its `manifest.json:line:column`.
public struct SourceDataset: Sendable {
    /// A normalisation's per-column mean and population standard deviation.
    public struct Statistics: Sendable, Equatable {
        public var mean: [Double]
        public var std: [Double]
        public init(mean: [Double], std: [Double]) {
            self.mean = mean
            self.std = std
        }
    }

    /// The dataset folder, as given.
    public var directory: String
    /// `DIR/manifest.json`, and its bytes (their SHA-256 identifies the dataset).
    public var manifestPath: String
    public var manifestBytes: [UInt8]
    /// The manifest parsed, once: `apply` decodes it as a dataset manifest (`ManifestDecoder`)
    /// from this, not from the bytes again.
    public var manifestJSON: JSONValue
    /// The pipeline decoded from `pipeline.resolved`; `file` is the manifest, `baseDirectory` `.`,
    /// `output.path` empty.
    public var spec: PipelineSpec
    /// `pipeline.name` and `pipeline.sha256`.
    public var pipelineName: String
    public var pipelineSHA256: String
    /// `channels`: names and units of x's channels, in order.
    public var channelNames: [String]
    public var channelUnits: [String]
    public var classes: [String]
    public var featureNames: [String]
    public var sampleRateHz: Double
    public var windowLength: Int
    public var windowStride: Int
    /// `normalization.x` and `normalization.features` (nil when null).
    public var xStatistics: Statistics?
    public var featureStatistics: Statistics?

    /// The manifest format this reads.
    public static let format = "motionprep.dataset"
    public static let formatVersion = 2
    /// The format of what `apply` writes (refused as a source).
    public static let appliedFormat = "motionprep.applied"
    /// Manifests larger than this are refused (a manifest lists every input file and recording:
    /// about 200 bytes each).
    public static let maxManifestBytes = 256 << 20

    /// Reads `directory/manifest.json`.
    ///
    /// - Throws: `MotionError(.noInput)` (66) when the folder does not exist; `.config` (78) when it
    ///   is not a motionprep dataset (no manifest, another format or format_version, a manifest
    ///   that does not parse or lacks a key), with one sentence naming the manifest and, where
    ///   there is one, `line:column`; `PipelineFileError` (78) when `pipeline.resolved` does not
    ///   decode; `.ioError` (74) when the manifest cannot be read.
    public static func load(directory: String) throws -> SourceDataset {
        var st = stat()
        guard stat(directory, &st) == 0 else {
            throw MotionError(.noInput, "cannot read dataset folder \(directory): no such folder")
        }
        guard (st.st_mode & S_IFMT) == S_IFDIR else {
            throw MotionError(.config, "\(directory) is not a dataset folder (it is not a folder); give the folder `motionprep run` wrote, holding manifest.json")
        }
        let path = directory.hasSuffix("/") ? directory + "manifest.json" : directory + "/manifest.json"
        guard lstat(path, &st) == 0 else {
            throw MotionError(.config, "\(directory) is not a motionprep dataset: it has no manifest.json; give the folder `motionprep run` wrote")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw MotionError(.config, "\(path) is not a regular file, so it is not opened; give the folder `motionprep run` wrote")
        }
        let bytes: [UInt8]
        do {
            bytes = try YAMLParser.readFile(path: path, maxBytes: maxManifestBytes)
        } catch {
            if error.tooLarge {
                throw MotionError(.config, "\(path) is larger than \(maxManifestBytes) bytes, more than any manifest motionprep writes")
            }
            throw MotionError(.ioError, "cannot read \(path): \(error.reason)")
        }
        let root: JSONNode
        do {
            root = JSONNode(try JSONParser.parse(bytes), document: "the manifest")
        } catch {
            throw MotionError(.config, "\(path) is not a motionprep manifest: it does not parse as JSON (line \(error.line), column \(error.column): \(error.problem))")
        }
        func read<T>(_ body: () throws(JSONProblem) -> T) throws -> T {
            do { return try body() } catch {
                throw MotionError(.config, "\(error.message(file: path)); this is not a manifest motionprep wrote")
            }
        }
        let format = try read { () throws(JSONProblem) in try root["format"].string() }
        if format == appliedFormat {
            throw MotionError(.config, "\(directory) is the output of `motionprep apply`, not a dataset; give the dataset `motionprep run` wrote (its manifest's `source_dataset` names it)")
        }
        guard format == Self.format else {
            throw MotionError(.config, "\(path) is not a motionprep dataset manifest: its `format` is `\(format)`, not `\(Self.format)`")
        }
        let version = try read { () throws(JSONProblem) in try root["format_version"].int() }
        guard version == formatVersion else {
            if version == 1 {
                throw MotionError(.config, "\(directory) was written by an older motionprep (format_version 1), whose manifest has no `pipeline.resolved`; rerun `motionprep run` to rewrite it")
            }
            throw MotionError(.config, "\(path) has format_version \(version); this motionprep reads format_version \(formatVersion) (rerun `motionprep run` with this version, or use the motionprep that wrote it)")
        }
        // `pipeline.resolved` through the pipeline files' own decoder, which reads YAML nodes (JSON
        // is YAML's flow style): a problem there is reported at its `manifest.json:line:column`.
        let yaml: YAMLNode
        do {
            yaml = try YAMLParser.parse(bytes: bytes, file: path)
        } catch {
            throw MotionError(.config, "\(path) is not a motionprep manifest: it does not parse as JSON (\(error.message))")
        }
        guard let resolvedNode = yaml.mapping?.first(where: { $0.key.scalar?.value == "pipeline" })?.value.mapping?
            .first(where: { $0.key.scalar?.value == "resolved" })?.value else {
            throw MotionError(.config, "\(path): missing key `resolved` in `pipeline`; this is not a manifest motionprep wrote")
        }
        let decoder = SpecDecoder(file: path, baseDirectory: ".", resolved: true)
        guard let spec = decoder.decodePipeline(resolvedNode), decoder.issues.isEmpty else {
            throw PipelineFileError(file: path, issues: decoder.sortedIssues())
        }
        return try read { () throws(JSONProblem) in
            let pipeline = root["pipeline"], channels = try root["channels"].items()
            let featureNames = try root["feature_names"].strings()
            return SourceDataset(
                directory: directory, manifestPath: path, manifestBytes: bytes, manifestJSON: root.value ?? .null, spec: spec,
                pipelineName: try pipeline["name"].string(), pipelineSHA256: try pipeline["sha256"].string(),
                channelNames: try channels.map { c throws(JSONProblem) in try c["name"].string() },
                channelUnits: try channels.map { c throws(JSONProblem) in try c["unit"].string() },
                classes: try root["classes"].strings(), featureNames: featureNames,
                sampleRateHz: try Self.finite(root["sample_rate_hz"]),
                windowLength: try root["window_length"].int(), windowStride: try root["window_stride"].int(),
                xStatistics: try Self.statistics(root["normalization"]["x"], columns: channels.count),
                featureStatistics: try Self.statistics(root["normalization"]["features"], columns: featureNames.count))
        }
    }

    /// A finite number.
    private static func finite(_ n: JSONNode) throws(JSONProblem) -> Double {
        let d = try n.double()
        guard d.isFinite else { throw n.problem("must be a finite number, not \(d)") }
        return d
    }

    /// `normalization.{x,features}`: nil when null; else `mean` and `std`, `columns` finite
    /// numbers each (a std below 0 is refused).
    private static func statistics(_ n: JSONNode, columns: Int) throws(JSONProblem) -> Statistics? {
        if n.value == .null { return nil }
        try n.object()
        func numbers(_ key: String) throws(JSONProblem) -> [Double] {
            let list = try n[key].items()
            guard list.count == columns else { throw n[key].problem("must hold \(columns) numbers (one per column), not \(list.count)") }
            return try list.map { v throws(JSONProblem) in try finite(v) }
        }
        let stats = Statistics(mean: try numbers("mean"), std: try numbers("std"))
        if let bad = stats.std.firstIndex(where: { $0 < 0 }) {
            throw n["std"][bad].problem("must be a standard deviation of at least 0, not \(stats.std[bad])")
        }
        return stats
    }
}
