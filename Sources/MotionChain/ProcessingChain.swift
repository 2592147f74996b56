import MotionCore
import MotionResample

/// The manifest's `chain` record (docs/dataset-format.md, "The processing chain"): the pipeline's
/// processing resolved to what runs on a recording's streams, so that the live library
/// (docs/live.md) can run it from the manifest alone. One type for every reader and the writer:
/// `run` builds it (`ChannelLayout.chain`), `DatasetManifest` holds it, the live library,
/// `validate` (rule C3), `apply` and `inspect` read it. Channels are named as in the manifest's
/// `channels`; resolving the names to indices is the reader's (it needs `channels`).
///
/// ``json`` writes exactly the bytes `run` has always written (keys sorted by the JSON writer);
/// ``init(json:)`` reads them back, every problem naming its key path (`chain.streams[0].method`).
public struct ProcessingChain: Sendable, Equatable, JSONDecodable {
    /// One kept stream, in channel order.
    public struct Stream: Sendable, Equatable {
        /// A MotionCollector code, a csv `sensor`, or the stem every file of the stream shares.
        public var name: String
        /// Its channels of `x`, in order.
        public var channels: [String]
        public var method: ResampleMethod
        /// `max_gap_s` in seconds; nil: no limit (JSON null, or absent).
        public var maxGapS: Double?

        public init(name: String, channels: [String], method: ResampleMethod, maxGapS: Double?) {
            self.name = name
            self.channels = channels
            self.method = method
            self.maxGapS = maxGapS
        }
    }

    /// A top-level `magnitude` channel and its axes.
    public struct Magnitude: Sendable, Equatable {
        public var name: String
        public var axes: [String]

        public init(name: String, axes: [String]) {
            self.name = name
            self.axes = axes
        }
    }

    /// A `transforms` step's operation and parameters (docs/signal.md, "Transforms"), channels by name.
    public enum Operation: Sendable, Equatable {
        case median(samples: Int)
        /// `sos`: the designed second-order sections, each `[b0, b1, b2, 1, a1, a2]`.
        case filter(sos: [[Double]], zeroPhase: Bool)
        case gravity(sos: [[Double]], zeroPhase: Bool)
        case derivative
        /// The channels of each output.
        case magnitude(groups: [[String]])
        /// Per input channel.
        case calibrate(scale: [Double], offset: [Double])

        /// The `op` the record writes.
        public var op: String {
            switch self {
            case .median: "median"
            case .filter: "filter"
            case .gravity: "gravity"
            case .derivative: "derivative"
            case .magnitude: "magnitude"
            case .calibrate: "calibrate"
            }
        }
    }

    public struct Step: Sendable, Equatable {
        /// The step for `TransformPlan`: each channel name through `index` (`(name, key)`, the key
        /// `inputs`, `outputs` or `groups[j]` naming where it was listed; it throws for a name
        /// that is not a channel), with its shortest segment.
        public func resolved<E: Error>(_ index: (String, String) throws(E) -> Int) throws(E) -> TransformPlan.Step {
            func channels(_ names: [String], _ key: String) throws(E) -> [Int] {
                var out: [Int] = []
                for n in names { out.append(try index(n, key)) }
                return out
            }
            let planned: TransformPlan.Operation
            var minimum = 1
            switch operation {
            case .median(let samples): planned = .median(samples: samples)
            case .filter(let sos, let zeroPhase): planned = .filter(sos: sos, zeroPhase: zeroPhase)
            case .gravity(let sos, let zeroPhase): planned = .gravity(sos: sos, zeroPhase: zeroPhase)
            case .derivative: planned = .derivative
            case .magnitude(let groups):
                var out: [[Int]] = []
                for (j, g) in groups.enumerated() { out.append(try channels(g, "groups[\(j)]")) }
                planned = .magnitude(groups: out)
            case .calibrate(let scale, let offset): planned = .calibrate(scale: scale, offset: offset)
            }
            switch operation {
            case .filter(let sos, true), .gravity(let sos, true): minimum = SignalFilters.padLength(sos) + 1
            default: break
            }
            return TransformPlan.Step(operation: planned, inputs: try channels(inputs, "inputs"),
                                      outputs: try channels(outputs, "outputs"), minimumSegment: minimum)
        }

        public var operation: Operation
        /// Channels read, and written (the inputs for in-place steps; for `gravity` the body
        /// channels, then the gravity channels).
        public var inputs: [String]
        public var outputs: [String]

        public init(operation: Operation, inputs: [String], outputs: [String]) {
            self.operation = operation
            self.inputs = inputs
            self.outputs = outputs
        }
    }

    /// The record of `TransformPlan`'s steps, channels named by `names` (the manifest's `channels`).
    public static func steps(_ plan: TransformPlan?, names: [String]) -> [Step] {
        func list(_ indices: [Int]) -> [String] { indices.map { names[$0] } }
        return (plan?.steps ?? []).map { step in
            let operation: Operation
            switch step.operation {
            case .median(let samples): operation = .median(samples: samples)
            case .filter(let sos, let zeroPhase): operation = .filter(sos: sos, zeroPhase: zeroPhase)
            case .gravity(let sos, let zeroPhase): operation = .gravity(sos: sos, zeroPhase: zeroPhase)
            case .derivative: operation = .derivative
            case .magnitude(let groups): operation = .magnitude(groups: groups.map(list))
            case .calibrate(let scale, let offset): operation = .calibrate(scale: scale, offset: offset)
            }
            return Step(operation: operation, inputs: list(step.inputs), outputs: list(step.outputs))
        }
    }

    /// Where the anti-aliasing filter's rate comes from (`antialias_from`).
    public enum AntialiasFrom: String, Sendable, Equatable {
        /// Each stream's first 256 intervals.
        case leading
        /// The whole recording's median (what an absent key means).
        case recording
    }

    public var streams: [Stream]
    public var magnitudes: [Magnitude]
    /// `resample.antialias`.
    public var antialias: Bool
    /// `antialias_from` as written: `run` writes `.leading` or nothing (nil: the recording's median,
    /// as in every dataset made before the key).
    public var antialiasFrom: AntialiasFrom?
    public var transforms: [Step]
    /// `implementation` as written (nil in manifests made before versions were recorded). Kept as
    /// the JSON value: a malformed record is rule C3's to report (`DatasetConsistency`), and
    /// `apply` and the live library refuse versions they do not implement before reading the rest
    /// (``implementationProblem(_:)``). ``versions`` decodes it.
    public var implementation: JSONValue?

    public init(streams: [Stream], magnitudes: [Magnitude], antialias: Bool, antialiasFrom: AntialiasFrom?,
                transforms: [Step], implementation: JSONValue? = StageImplementation.record) {
        self.streams = streams
        self.magnitudes = magnitudes
        self.antialias = antialias
        self.antialiasFrom = antialiasFrom
        self.transforms = transforms
        self.implementation = implementation
    }

    /// The filter is designed from each stream's leading intervals.
    public var antialiasFromLeading: Bool { antialias && antialiasFrom == .leading }

    /// `implementation` decoded (`StageImplementation.decode`): every stage's version, the first
    /// for a stage the record does not name (or without a record).
    public var versions: Result<[String: Int], ImplementationRecordError> {
        implementation.map(StageImplementation.decode) ?? .success(StageImplementation.beforeVersions)
    }

    // MARK: - JSON

    static let keys = ["streams", "magnitudes", "antialias", "antialias_from", "transforms", "implementation"]

    /// Decodes the record at `json` (an object), each problem naming its key path.
    public init(json: JSONNode) throws(JSONProblem) {
        try json.onlyKeys(Self.keys, required: ["streams", "magnitudes", "antialias", "transforms"])
        streams = []
        for s in try json["streams"].items() {
            try s.onlyKeys(["name", "channels", "method", "max_gap_s"], required: ["name", "channels", "method"])
            let methodName = try s["method"].string()
            guard let method = ResampleMethod(rawValue: methodName) else {
                throw s["method"].problem("is \"\(methodName)\"; the methods are linear, nearest and previous")
            }
            streams.append(Stream(name: try s["name"].string(), channels: try s["channels"].strings(), method: method,
                                  maxGapS: try s["max_gap_s"].optional { n throws(JSONProblem) in try n.double() }))
        }
        magnitudes = []
        for m in try json["magnitudes"].items() {
            try m.onlyKeys(["name", "axes"], required: ["name", "axes"])
            magnitudes.append(Magnitude(name: try m["name"].string(), axes: try m["axes"].strings()))
        }
        antialias = try json["antialias"].bool()
        antialiasFrom = nil
        if !json["antialias_from"].isMissing {
            let from = try json["antialias_from"].string()
            guard let value = AntialiasFrom(rawValue: from) else {
                throw json["antialias_from"].problem("is \"\(from)\"; this version of the library reads \"leading\" or \"recording\"")
            }
            antialiasFrom = value
        }
        transforms = []
        for s in try json["transforms"].items() { transforms.append(try Self.step(s)) }
        implementation = json["implementation"].value
    }

    private static func step(_ s: JSONNode) throws(JSONProblem) -> Step {
        try s.object()
        let op = try s["op"].string()
        func sos() throws(JSONProblem) -> [[Double]] {
            var out: [[Double]] = []
            for row in try s["sos"].items() {
                let r = try row.doubles()
                guard r.count == 6 else { throw row.problem("must have 6 coefficients") }
                out.append(r)
            }
            guard !out.isEmpty else { throw s["sos"].problem("lists no section") }
            return out
        }
        let operation: Operation
        var keys = ["op", "inputs", "outputs"]
        switch op {
        case "median":
            keys.append("samples")
            operation = .median(samples: try s["samples"].int(min: 1))
        case "filter", "gravity":
            keys += ["sos", "zero_phase"]
            let (sections, zeroPhase) = (try sos(), try s["zero_phase"].bool())
            operation = op == "filter" ? .filter(sos: sections, zeroPhase: zeroPhase) : .gravity(sos: sections, zeroPhase: zeroPhase)
        case "derivative":
            operation = .derivative
        case "magnitude":
            keys.append("groups")
            var groups: [[String]] = []
            for g in try s["groups"].items() { groups.append(try g.strings()) }
            operation = .magnitude(groups: groups)
        case "calibrate":
            keys += ["scale", "offset"]
            operation = .calibrate(scale: try s["scale"].doubles(), offset: try s["offset"].doubles())
        default:
            throw s["op"].problem("is \"\(op)\"; this version knows median, filter, gravity, derivative, magnitude and calibrate")
        }
        try s.onlyKeys(keys, required: keys)
        return Step(operation: operation, inputs: try s["inputs"].strings(), outputs: try s["outputs"].strings())
    }

    /// The record as `manifest.json` holds it.
    public var json: JSONValue {
        func strings(_ names: [String]) -> JSONValue { .array(names.map { .string($0) }) }
        func numbers(_ values: [Double]) -> JSONValue { .array(values.map { .double($0) }) }
        var steps: [JSONValue] = []
        for step in transforms {
            var o: [String: JSONValue] = ["op": .string(step.operation.op), "inputs": strings(step.inputs), "outputs": strings(step.outputs)]
            switch step.operation {
            case .median(let samples):
                o["samples"] = .int(Int64(samples))
            case .filter(let sos, let zeroPhase), .gravity(let sos, let zeroPhase):
                o["sos"] = .array(sos.map(numbers))
                o["zero_phase"] = .bool(zeroPhase)
            case .derivative:
                break
            case .magnitude(let groups):
                o["groups"] = .array(groups.map(strings))
            case .calibrate(let scale, let offset):
                o["scale"] = numbers(scale)
                o["offset"] = numbers(offset)
            }
            steps.append(.object(o))
        }
        var chain: [String: JSONValue] = [
            "streams": .array(streams.map { s in
                .object(["name": .string(s.name), "channels": strings(s.channels), "method": .string(s.method.rawValue),
                         "max_gap_s": s.maxGapS.map { .double($0) } ?? .null])
            }),
            "magnitudes": .array(magnitudes.map { .object(["name": .string($0.name), "axes": strings($0.axes)]) }),
            "antialias": .bool(antialias),
            "transforms": .array(steps),
        ]
        if let antialiasFrom { chain["antialias_from"] = .string(antialiasFrom.rawValue) }
        if let implementation { chain["implementation"] = implementation }
        return .object(chain)
    }

    /// Why this build cannot reproduce a dataset whose `chain` is `json`: the end of a sentence
    /// (`StageImplementation.problem`), or nil. Read before anything else of the record, whose
    /// other keys may mean something else in a later version; a malformed record gives its
    /// problem as an `ImplementationRecordError`.
    public static func implementationProblem(_ json: JSONNode) -> Result<String?, ImplementationRecordError> {
        guard let record = json["implementation"].value else { return .success(nil) }
        return StageImplementation.decode(record).map(StageImplementation.problem)
    }
}
