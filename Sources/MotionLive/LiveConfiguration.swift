import MotionChain
import MotionCore
import MotionFeatures
import MotionResample

/// What a dataset's `manifest.json` says about its processing, enough to run the same chain on
/// samples as they arrive (docs/live.md): the streams and their channels, units and resampling
/// settings, the magnitudes, the anti-aliasing rule, the `transforms`, the grid rate, the window,
/// the features and the train statistics for normalisation.
///
/// It reads the manifest's `chain` record (docs/dataset-format.md, "The processing chain"),
/// which `motionprep run` writes from the pipeline's resolved channel layout: the live library
/// needs no pipeline file, no YAML and no knowledge of input formats.
public struct LiveConfiguration: Sendable {
    /// One sensor stream: its channels of `x`, in order, the unit its values must be given in,
    /// and how it is resampled.
    public struct Stream: Sendable, Equatable {
        /// The name the dataset gives the stream: a MotionCollector code (`A`, `G`), a csv
        /// `sensor` or an IIO device's name.
        public var name: String
        public var channelNames: [String]
        public var channelUnits: [String]
        public var method: ResampleMethod
        /// The largest interval between the two samples around a grid point, in seconds
        /// (infinity: no limit).
        public var maxGapS: Double
    }

    public var streams: [Stream]
    /// Magnitude channels: their names and the indices of their axes among the streams' channels.
    public var magnitudes: [(name: String, axes: [Int])]
    /// The `transforms` steps, resolved (channel indices of `x`, filters designed); nil without.
    public var transforms: TransformPlan?
    /// `resample.antialias`: streams sampled faster than 0.9 / rate are low-passed before resampling.
    public var antialias: Bool
    /// `chain.antialias_from` is `"leading"` (the default since 2026-12-07): each stream's filter
    /// is designed from the median of its first 256 sampling intervals, which the processor
    /// buffers before it emits anything, so it needs no `sampleIntervals`. False with
    /// `antialias` (a dataset made before): from the recording's median, given in `sampleIntervals`.
    public var antialiasFromLeading: Bool
    public var rateHz: Double
    /// Window length and stride, in grid samples.
    public var windowLength: Int
    public var windowStride: Int
    /// Every channel of `x`, in order, and its unit.
    public var channelNames: [String]
    public var channelUnits: [String]
    /// The feature catalogue entries (`mean`, `std`, …) and the feature columns they give.
    public var features: [String]
    public var featureNames: [String]
    /// The train split's statistics (nil when the dataset has none).
    public var xNormalization: Standardization?
    public var featureNormalization: Standardization?
    /// The pipeline's name and the SHA-256 of its canonical form, to tell which dataset a model
    /// belongs to.
    public var pipelineName: String
    public var pipelineSHA256: String
    /// The version of each stage's code that made the dataset (`chain.implementation`;
    /// docs/dataset-format.md, "Implementation versions"), every one of which this library
    /// implements: reading a manifest made by another one throws.
    public var implementation: [String: Int] = StageImplementation.beforeVersions

    /// Reads the manifest of a dataset folder (`DIR/manifest.json`) or the file itself.
    public init(contentsOf path: String) throws(LiveError) {
        let file = path.hasSuffix(".json") ? path : (path.hasSuffix("/") ? path : path + "/") + "manifest.json"
        guard let bytes = LiveFile.read(file) else {
            throw LiveError("cannot read \(file): give the folder of a dataset written by `motionprep run`, or its manifest.json")
        }
        try self.init(manifestBytes: bytes, name: file)
    }

    /// Reads a manifest's text; `name` names it in messages.
    public init(manifestBytes bytes: [UInt8], name: String = "manifest.json") throws(LiveError) {
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            throw LiveError("\(name):\(error.line):\(error.column): \(error.problem) (the manifest is not valid JSON)")
        }
        var r = _ManifestReader(name: name)
        self = try r.configuration(root)
    }

    init(streams: [Stream], magnitudes: [(name: String, axes: [Int])], transforms: TransformPlan?, antialias: Bool,
         antialiasFromLeading: Bool = false, rateHz: Double, windowLength: Int, windowStride: Int, channelNames: [String], channelUnits: [String],
         features: [String], featureNames: [String], xNormalization: Standardization?,
         featureNormalization: Standardization?, pipelineName: String, pipelineSHA256: String) {
        self.streams = streams
        self.magnitudes = magnitudes
        self.transforms = transforms
        self.antialias = antialias
        self.antialiasFromLeading = antialias && antialiasFromLeading
        self.rateHz = rateHz
        self.windowLength = windowLength
        self.windowStride = windowStride
        self.channelNames = channelNames
        self.channelUnits = channelUnits
        self.features = features
        self.featureNames = featureNames
        self.xNormalization = xNormalization
        self.featureNormalization = featureNormalization
        self.pipelineName = pipelineName
        self.pipelineSHA256 = pipelineSHA256
    }

    /// The index of the stream named `name`, or of the stream that has a channel `name`.
    public func streamIndex(_ name: String) -> Int? {
        streams.firstIndex { $0.name == name } ?? streams.firstIndex { $0.channelNames.contains(name) }
    }
}

/// Reads the manifest's fields, each problem one sentence naming the key.
struct _ManifestReader {
    let name: String

    func fail(_ key: String, _ what: String) -> LiveError {
        LiveError("\(name): `\(key)` \(what)")
    }

    // Each value through MotionCore's `JSONNode`: one sentence naming the key path.
    func node(_ v: JSONValue?, _ key: String) -> JSONNode { JSONNode(v, path: key, document: "the manifest") }

    func read<T>(_ body: () throws(JSONProblem) -> T) throws(LiveError) -> T {
        do { return try body() } catch { throw LiveError(error.message(file: name)) }
    }

    func object(_ v: JSONValue?, _ key: String) throws(LiveError) -> [String: JSONValue] {
        try read { () throws(JSONProblem) in try node(v, key).object() }.value?.objectValue ?? [:]
    }

    func array(_ v: JSONValue?, _ key: String) throws(LiveError) -> [JSONValue] {
        try read { () throws(JSONProblem) in try node(v, key).items() }.compactMap(\.value)
    }

    func string(_ v: JSONValue?, _ key: String) throws(LiveError) -> String { try read { () throws(JSONProblem) in try node(v, key).string() } }
    func number(_ v: JSONValue?, _ key: String) throws(LiveError) -> Double { try read { () throws(JSONProblem) in try node(v, key).double() } }
    func int(_ v: JSONValue?, _ key: String) throws(LiveError) -> Int { try read { () throws(JSONProblem) in try node(v, key).int() } }
    func strings(_ v: JSONValue?, _ key: String) throws(LiveError) -> [String] { try read { () throws(JSONProblem) in try node(v, key).strings() } }
    func numbers(_ v: JSONValue?, _ key: String) throws(LiveError) -> [Double] { try read { () throws(JSONProblem) in try node(v, key).doubles() } }

    func moments(_ v: JSONValue?, _ key: String, columns: Int) throws(LiveError) -> Standardization? {
        if case .null? = v { return nil }
        let o = try object(v, key)
        let mean = try numbers(o["mean"], "\(key).mean"), std = try numbers(o["std"], "\(key).std")
        guard mean.count == columns, std.count == columns else {
            throw fail(key, "has \(mean.count) means and \(std.count) standard deviations for \(columns) columns")
        }
        return Standardization(mean: mean, std: std)
    }

    mutating func configuration(_ root: JSONValue) throws(LiveError) -> LiveConfiguration {
        let top = try object(root, "")
        let format = try string(top["format"], "format")
        guard format == "motionprep.dataset" else {
            throw fail("format", "is \"\(format)\"; the live library reads the manifest of a dataset written by `motionprep run` (motionprep.dataset)")
        }
        guard let chainValue = top["chain"] else {
            let by = (try? string(top["created_by"], "created_by")) ?? "an earlier motionprep"
            throw LiveError("\(name) has no `chain` record (it was written by \(by), before datasets recorded their processing chain); run `motionprep run` on its pipeline again with this version to write one")
        }
        let chainNode = node(chainValue, "chain")
        // The versions first: a dataset made by stage code this library does not have is refused
        // before anything else of it is read (its other keys may mean something else there).
        var implementation = StageImplementation.beforeVersions
        if let record = chainNode["implementation"].value {
            switch StageImplementation.decode(record) {
            case .success(let versions): implementation = versions
            case .failure(let e): throw fail("chain.implementation", e.problem)
            }
        }
        if let problem = StageImplementation.problem(implementation) {
            throw LiveError("\(name): this MotionLive cannot reproduce the dataset's processing: \(problem) (`chain.implementation`); use the MotionLive of the motionprep that wrote the dataset, or write the dataset again with the motionprep this MotionLive comes with")
        }
        let chain = try read { () throws(JSONProblem) in try chainNode.decode(ProcessingChain.self) }
        let channelList = try array(top["channels"], "channels")
        var channelNames: [String] = [], channelUnits: [String] = []
        for (i, c) in channelList.enumerated() {
            let o = try object(c, "channels[\(i)]")
            channelNames.append(try string(o["name"], "channels[\(i)].name"))
            channelUnits.append(try string(o["unit"], "channels[\(i)].unit"))
        }
        func index(_ channel: String, _ key: String) throws(LiveError) -> Int {
            guard let i = channelNames.firstIndex(of: channel) else {
                throw fail(key, "names channel `\(channel)`, which is not in `channels`")
            }
            return i
        }
        var streams: [LiveConfiguration.Stream] = []
        var next = 0
        for (i, s) in chain.streams.enumerated() {
            let key = "chain.streams[\(i)]"
            for (j, n) in s.channels.enumerated() where try index(n, "\(key).channels") != next + j {
                throw fail("\(key).channels", "lists `\(n)` out of the order of `channels`")
            }
            next += s.channels.count
            streams.append(.init(name: s.name, channelNames: s.channels,
                                 channelUnits: s.channels.map { channelUnits[channelNames.firstIndex(of: $0)!] },
                                 method: s.method, maxGapS: s.maxGapS ?? .infinity))
        }
        guard !streams.isEmpty else { throw fail("chain.streams", "lists no stream") }
        var magnitudes: [(name: String, axes: [Int])] = []
        for (i, m) in chain.magnitudes.enumerated() {
            let key = "chain.magnitudes[\(i)]"
            guard try index(m.name, "\(key).name") == next + i else { throw fail("\(key).name", "is `\(m.name)`, out of the order of `channels`") }
            var axes: [Int] = []
            for a in m.axes {
                let k = try index(a, "\(key).axes")
                guard k < next else { throw fail("\(key).axes", "names `\(a)`, which is not a stream channel") }
                axes.append(k)
            }
            magnitudes.append((m.name, axes))
        }
        let resampled = next + magnitudes.count
        let transforms = try transformPlan(chain.transforms, channelNames: channelNames, channelUnits: channelUnits,
                                           resampled: resampled)
        guard (transforms?.channelCount ?? resampled) == channelNames.count else {
            throw fail("chain", "accounts for \(transforms?.channelCount ?? resampled) channels, but `channels` lists \(channelNames.count)")
        }
        let rate = try number(top["sample_rate_hz"], "sample_rate_hz")
        guard rate.isFinite && rate > 0 else { throw fail("sample_rate_hz", "must be a positive number") }
        let length = try int(top["window_length"], "window_length"), stride = try int(top["window_stride"], "window_stride")
        guard length >= 1, stride >= 1 else { throw fail("window_length", "and `window_stride` must be at least 1") }
        let featureNames = try strings(top["feature_names"], "feature_names")
        let pipeline = try object(top["pipeline"], "pipeline")
        var features: [String] = []
        if case .object(let resolved)? = pipeline["resolved"], let f = resolved["features"] {
            features = try strings(f, "pipeline.resolved.features")
        }
        if !features.isEmpty {
            let plan = FeaturePlan(features: features, channelNames: channelNames, rateHz: rate, windowLength: length)
            guard plan.featureNames == featureNames else {
                throw fail("feature_names", "does not match the features \(features.joined(separator: ", ")) of the channels; the manifest was edited or comes from another version")
            }
        } else if !featureNames.isEmpty {
            throw fail("pipeline.resolved.features", "is missing, but the dataset has features")
        }
        let norm = try object(top["normalization"], "normalization")
        var configuration = LiveConfiguration(
            streams: streams, magnitudes: magnitudes, transforms: transforms, antialias: chain.antialias,
            antialiasFromLeading: chain.antialiasFrom == .leading, rateHz: rate,
            windowLength: length, windowStride: stride, channelNames: channelNames, channelUnits: channelUnits,
            features: features, featureNames: featureNames,
            xNormalization: try moments(norm["x"], "normalization.x", columns: channelNames.count),
            featureNormalization: featureNames.isEmpty ? nil : try moments(norm["features"], "normalization.features", columns: featureNames.count),
            pipelineName: try string(pipeline["name"], "pipeline.name"), pipelineSHA256: try string(pipeline["sha256"], "pipeline.sha256"))
        configuration.implementation = implementation
        return configuration
    }

    /// `chain.transforms` resolved against `channels`: each step's channels as indices of `x`.
    func transformPlan(_ list: [ProcessingChain.Step], channelNames: [String], channelUnits: [String],
                       resampled: Int) throws(LiveError) -> TransformPlan? {
        guard !list.isEmpty else { return nil }
        var steps: [TransformPlan.Step] = []
        for (i, s) in list.enumerated() {
            steps.append(try s.resolved { (n: String, key: String) throws(LiveError) -> Int in
                guard let c = channelNames.firstIndex(of: n) else {
                    throw fail("chain.transforms[\(i)].\(key)", "names channel `\(n)`, which is not in `channels`")
                }
                return c
            })
        }
        return TransformPlan(steps: steps, inputChannels: resampled, names: Array(channelNames[resampled...]),
                             units: Array(channelUnits[resampled...]))
    }
}
