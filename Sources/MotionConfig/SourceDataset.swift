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
/// The manifest is JSON, which is YAML's flow style, so it is read with the pipeline files'
/// parser: a problem in `pipeline.resolved` is reported at its `manifest.json:line:column`.
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
        let root: YAMLNode
        do {
            root = try YAMLParser.parse(bytes: bytes, file: path)
        } catch {
            throw MotionError(.config, "\(path) is not a motionprep manifest: it does not parse as JSON (\(error.message))")
        }
        let reader = _ManifestReader(file: path, root: root)
        let format = try reader.string(["format"])
        if format == appliedFormat {
            throw MotionError(.config, "\(directory) is the output of `motionprep apply`, not a dataset; give the dataset `motionprep run` wrote (its manifest's `source_dataset` names it)")
        }
        guard format == Self.format else {
            throw MotionError(.config, "\(path) is not a motionprep dataset manifest: its `format` is `\(format)`, not `\(Self.format)`")
        }
        let version = try reader.int(["format_version"])
        guard version == formatVersion else {
            if version == 1 {
                throw MotionError(.config, "\(directory) was written by an older motionprep (format_version 1), whose manifest has no `pipeline.resolved`; rerun `motionprep run` to rewrite it")
            }
            throw MotionError(.config, "\(path) has format_version \(version); this motionprep reads format_version \(formatVersion) (rerun `motionprep run` with this version, or use the motionprep that wrote it)")
        }
        let resolvedNode = try reader.node(["pipeline", "resolved"])
        let decoder = SpecDecoder(file: path, baseDirectory: ".", resolved: true)
        guard let spec = decoder.decodePipeline(resolvedNode), decoder.issues.isEmpty else {
            throw PipelineFileError(file: path, issues: decoder.sortedIssues())
        }
        var dataset = SourceDataset(
            directory: directory, manifestPath: path, manifestBytes: bytes, spec: spec,
            pipelineName: try reader.string(["pipeline", "name"]), pipelineSHA256: try reader.string(["pipeline", "sha256"]),
            channelNames: [], channelUnits: [], classes: try reader.strings(["classes"]),
            featureNames: try reader.strings(["feature_names"]), sampleRateHz: try reader.double(["sample_rate_hz"]),
            windowLength: try reader.int(["window_length"]), windowStride: try reader.int(["window_stride"]),
            xStatistics: nil, featureStatistics: nil)
        let channels = try reader.list(["channels"])
        for (i, c) in channels.enumerated() {
            dataset.channelNames.append(try reader.string(["channels", "\(i)", "name"], in: c, keys: ["name"]))
            dataset.channelUnits.append(try reader.string(["channels", "\(i)", "unit"], in: c, keys: ["unit"]))
        }
        dataset.xStatistics = try reader.statistics("x", columns: dataset.channelNames.count)
        dataset.featureStatistics = try reader.statistics("features", columns: dataset.featureNames.count)
        return dataset
    }
}

/// Typed access to a parsed manifest, each miss a sentence naming the key and `line:column`.
private struct _ManifestReader {
    let file: String
    let root: YAMLNode

    init(file: String, root: YAMLNode) {
        self.file = file
        self.root = root
    }

    func fail(_ keys: [String], _ node: YAMLNode?, _ expected: String) -> MotionError {
        let at = node.map { "\(file):\($0.mark.line):\($0.mark.column)" } ?? file
        return MotionError(.config, "\(at): `\(keys.joined(separator: "."))` of the manifest must be \(expected); this is not a manifest motionprep wrote")
    }

    /// The node at `keys` below `start` (the root by default); `keys` of `start` name it in messages.
    func node(_ path: [String], in start: YAMLNode? = nil, keys: [String]? = nil) throws -> YAMLNode {
        var node = start ?? root
        for key in keys ?? path {
            guard let pairs = node.mapping, let next = pairs.first(where: { $0.key.scalar?.value == key })?.value else {
                throw MotionError(.config, "\(file):\(node.mark.line):\(node.mark.column): the manifest has no `\(path.joined(separator: "."))`; this is not a manifest motionprep wrote")
            }
            node = next
        }
        return node
    }

    func string(_ path: [String], in start: YAMLNode? = nil, keys: [String]? = nil) throws -> String {
        let n = try node(path, in: start, keys: keys)
        guard let s = n.scalar, !s.isPlain else { throw fail(path, n, "a string") }
        return s.value
    }

    func int(_ path: [String]) throws -> Int {
        let n = try node(path)
        guard let i = n.scalar?.int else { throw fail(path, n, "a whole number") }
        return i
    }

    func double(_ path: [String]) throws -> Double {
        let n = try node(path)
        guard let d = n.scalar?.double, d.isFinite else { throw fail(path, n, "a number") }
        return d
    }

    func list(_ path: [String]) throws -> [YAMLNode] {
        let n = try node(path)
        guard let items = n.sequence else { throw fail(path, n, "a list") }
        return items
    }

    func strings(_ path: [String]) throws -> [String] {
        try list(path).map { item in
            guard let s = item.scalar, !s.isPlain else { throw fail(path, item, "a list of strings") }
            return s.value
        }
    }

    /// `normalization.{name}`: nil when null; else `mean` and `std`, `columns` finite numbers each
    /// (a std below 0 is refused).
    func statistics(_ name: String, columns: Int) throws -> SourceDataset.Statistics? {
        let path = ["normalization", name]
        let n = try node(path)
        if n.isNull { return nil }
        func numbers(_ key: String) throws -> [Double] {
            let p = path + [key]
            let l = try node(p)
            guard let items = l.sequence, items.count == columns else {
                throw fail(p, l, "a list of \(columns) numbers (one per column)")
            }
            return try items.map { item in
                guard let d = item.scalar?.double, d.isFinite else { throw fail(p, item, "a list of finite numbers") }
                return d
            }
        }
        let stats = SourceDataset.Statistics(mean: try numbers("mean"), std: try numbers("std"))
        if let bad = stats.std.firstIndex(where: { $0 < 0 }) {
            throw fail(path + ["std"], n, "a list of standard deviations of at least 0, not \(stats.std[bad]) at index \(bad)")
        }
        return stats
    }
}
