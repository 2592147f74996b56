import MotionChain
import MotionCore

/// The rules that tie the manifest's descriptive keys to `pipeline.resolved`, the pipeline that
/// wrote the dataset (docs/validate.md, "Consistency rules"): a hand edit or a tool bug that
/// changes one side and recomputes the checksums is found here. Used by `validate`
/// (`manifest.consistency`) and by `apply` on its source dataset, so both apply one rule set.
///
/// Each problem is one sentence naming the key paths of `manifest.json`, the value found and
/// the value expected.
public enum DatasetConsistency {
    /// Every disagreement between `split_policy` (or an applied output's `source_dataset`), `classes`,
    /// `chain` and `pipeline.resolved`.
    /// A manifest without `pipeline.resolved` (an object) or without `chain` is not compared on
    /// that part (`manifest.schema` reports a missing `pipeline.resolved`).
    /// Parts that did not decode (``DecodedManifest/undecoded``) are not compared: their
    /// problems are `manifest.schema`'s.
    public static func manifestProblems(_ decoded: DecodedManifest) -> [String] {
        let m = decoded.manifest
        guard !decoded.undecoded.contains(.pipeline), case .object(let resolved) = m.pipeline.resolved else { return [] }
        var problems: [String] = []
        if let policy = m.splitPolicy, decoded.undecoded.isDisjoint(with: [.splitPolicy, .splitBy]) {
            problems += splitPolicyProblems(policy, resolved["split"])
        }
        // An applied output names the pipeline it was made with twice.
        if let source = m.applied, !decoded.undecoded.contains(.sourceDataset), source.pipelineSHA256 != m.pipeline.sha256 {
            problems.append("`source_dataset.pipeline_sha256` is \(source.pipelineSHA256.prefix(12))…, but `pipeline.sha256` is \(m.pipeline.sha256.prefix(12))…: an applied output is made with its source dataset's pipeline")
        }
        problems += classProblems(m.classes, resolved["labels"])
        if let chain = m.chain { problems += chainProblems(chain, resolved) }
        return problems
    }

    // MARK: split_policy

    static func splitPolicyProblems(_ p: DatasetManifest.SplitPolicy, _ split: JSONValue?) -> [String] {
        guard case .object(let s)? = split else {
            return ["`pipeline.resolved.split` is missing or not an object, so `split_policy` cannot be traced to the pipeline"]
        }
        var out: [String] = []
        func differ(_ key: String, _ policy: String, _ resolved: String) {
            out.append("`split_policy.\(key)` is \(policy), but `pipeline.resolved.split.\(key)` is \(resolved): the split policy must be the pipeline's")
        }
        if case .string(let by)? = s["by"], by != p.by { differ("by", quote(p.by), quote(by)) }
        if let seed = s["seed"].flatMap(integer) {
            // The resolved pipeline clamps a seed above Int64.max; split_policy keeps its bit pattern.
            let same = seed == p.seed || (seed == Int64.max && p.seed < 0)
            if !same { differ("seed", "\(p.seed)", "\(seed)") }
        }
        if case .object(let f)? = s["fractions"] {
            for (name, value) in [("train", p.train), ("validation", p.validation), ("test", p.test)] {
                if let r = f[name].flatMap(number), r != value {
                    differ("fractions.\(name)", JSONValue.format(value), JSONValue.format(r))
                }
            }
        }
        if case .string(let a)? = s["allocation"] {
            let policy = p.allocation ?? "hash"
            if a != policy { differ("allocation", quote(policy), quote(a)) }
        }
        if case .bool(let loo)? = s["leave_one_out"], loo != p.leaveOneOut {
            differ("leave_one_out", "\(p.leaveOneOut)", "\(loo)")
        }
        // With leave_one_out the manifest's folds is the number of train subjects, not the pipeline's.
        if !p.leaveOneOut, let folds = s["folds"] {
            let r = integer(folds).map(Int.init)
            if case .null = folds, p.folds != nil { differ("folds", "\(p.folds!)", "null") }
            else if let r, r != p.folds { differ("folds", p.folds.map(String.init) ?? "absent", "\(r)") }
        }
        if case .object(let assign)? = s["assign"] {
            var resolvedAssign: [String: [String]] = [:]
            for (k, v) in assign {
                if case .array(let names) = v { resolvedAssign[k] = names.compactMap { if case .string(let n) = $0 { n } else { nil } } }
            }
            let policy = (p.assign ?? [:]).mapValues { $0.sorted(by: Text.utf8Less) }
            if resolvedAssign.mapValues({ $0.sorted(by: Text.utf8Less) }) != policy {
                differ("assign", showAssign(policy), showAssign(resolvedAssign))
            }
        }
        return out
    }

    private static func showAssign(_ a: [String: [String]]) -> String {
        if a.isEmpty { return "empty" }
        return "{" + a.keys.sorted(by: Text.utf8Less).map { "\($0): [\(a[$0]!.joined(separator: ", "))]" }.joined(separator: "; ") + "}"
    }

    // MARK: classes

    static func classProblems(_ classes: [String], _ labels: JSONValue?) -> [String] {
        switch labels {
        case .object(let l)?:
            guard case .array(let items)? = l["classes"] else { return [] }
            let names = items.compactMap { if case .string(let n) = $0 { n } else { nil } }
            if names != classes {
                return ["`classes` is \(list(classes)), but `pipeline.resolved.labels.classes` is \(list(names)): the classes must be the pipeline's, in its order"]
            }
        case .null?, nil:
            if !classes.isEmpty {
                return ["`classes` is \(list(classes)), but `pipeline.resolved.labels` is null (no labels): an unlabelled dataset has no classes"]
            }
        default:
            break
        }
        return []
    }

    // MARK: chain

    /// `pipeline.resolved` step kind → the `op` it becomes in `chain.transforms`.
    static let chainOp = ["median": "median", "butterworth": "filter", "gravity": "gravity", "derivative": "derivative",
                          "magnitude": "magnitude", "calibrate": "calibrate"]

    static func chainProblems(_ c: ProcessingChain, _ resolved: [String: JSONValue]) -> [String] {
        var out: [String] = []
        if case .failure(let e) = c.versions {
            out.append("`chain.implementation` \(e.problem) (docs/dataset-format.md, \"Implementation versions\")")
        }
        let resample: [String: JSONValue]
        if case .object(let r)? = resolved["resample"] { resample = r } else { resample = [:] }
        if case .bool(let r)? = resample["antialias"], c.antialias != r {
            out.append("`chain.antialias` is \(c.antialias), but `pipeline.resolved.resample.antialias` is \(r): the chain must be the pipeline's")
        }
        // `antialias_from`: absent is `recording` in both (a dataset written before the key).
        if c.antialias {
            let a = JSONValue.string((c.antialiasFrom ?? .recording).rawValue), r = resample["antialias_from"] ?? .string("recording")
            if !sameValue(a, r) {
                out.append("`chain.antialias_from` is \(show(a)), but `pipeline.resolved.resample.antialias_from` is \(show(r)) (absent: \"recording\"): the chain must be the pipeline's")
            }
        }
        // Each stream's method and max_gap_s: the resolved pipeline's override for its name, else the default.
        for (i, stream) in c.streams.enumerated() {
            let found: [(key: String, value: JSONValue)] = [("method", .string(stream.method.rawValue)),
                                                            ("max_gap_s", stream.maxGapS.map { .double($0) } ?? .null)]
            for (key, value) in found {
                guard case .object(let per)? = resample[key], let expected = per[stream.name] ?? per["default"] else { continue }
                if !sameValue(value, expected) {
                    out.append("`chain.streams[\(i)].\(key)` (stream `\(stream.name)`) is \(show(value)), but `pipeline.resolved.resample.\(key)` gives \(show(expected)) for it: the chain must be the pipeline's")
                }
            }
        }
        var steps: [(op: String, body: [String: JSONValue])] = []
        if case .array(let items)? = resolved["transforms"] {
            for item in items {
                guard case .object(let o) = item, o.count == 1, let (kind, body) = o.first else { continue }
                let b: [String: JSONValue]
                if case .object(let x) = body { b = x } else { b = [:] }
                steps.append((chainOp[kind] ?? kind, b))
            }
        }
        let ops = c.transforms.map(\.operation.op)
        if ops != steps.map(\.op) {
            out.append("`chain.transforms` runs \(list(ops)), but `pipeline.resolved.transforms` gives \(list(steps.map(\.op))): the chain must be the pipeline's")
        } else {
            for (i, (s, step)) in zip(c.transforms, steps).enumerated() {
                var found: [(key: String, value: JSONValue)] = []
                switch s.operation {
                case .filter(_, let z), .gravity(_, let z): found.append(("zero_phase", .bool(z)))
                case .median(let n): found.append(("samples", .int(Int64(n))))
                default: break
                }
                for (key, value) in found {
                    guard let expected = step.body[key], !sameValue(value, expected) else { continue }
                    out.append("`chain.transforms[\(i)].\(key)` is \(show(value)), but `pipeline.resolved.transforms[\(i)]` gives \(show(expected)): the chain must be the pipeline's")
                }
            }
        }
        return out
    }

    // MARK: Helpers

    private static func integer(_ v: JSONValue) -> Int64? {
        switch v {
        case .int(let i): return i
        case .double(let d) where d == d.rounded() && abs(d) < 9.2e18: return Int64(d)
        default: return nil
        }
    }

    private static func number(_ v: JSONValue) -> Double? {
        switch v {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    private static func sameValue(_ a: JSONValue, _ b: JSONValue) -> Bool {
        if let x = number(a), let y = number(b) { return x == y }
        return a == b
    }

    private static func show(_ v: JSONValue) -> String {
        switch v {
        case .string(let s): return quote(s)
        case .null: return "null"
        default: return v.compact()
        }
    }

    private static func quote(_ s: String) -> String { "\"\(s)\"" }

    static func list(_ items: [String]) -> String { "[" + items.map(quote).joined(separator: ", ") + "]" }
}

// MARK: - C8: `y` and `y_seq`

/// Rule C8 (docs/validate.md, "Consistency rules"): a window's `y` is what the pipeline's label
/// policy gives from its `y_seq` (`labels.per_sample`), the class of each of its points.
///
/// `y_seq` shows a point's class, or −1 for a point with no label *or* a label not in `classes`,
/// so the rule checks what `y_seq` can show: `center` and `pure` are decided by it entirely;
/// `majority` only for a labelled window (its winner must have the most points of any class,
/// a tie going to the class seen first, and reach `min_fraction`), since a label outside
/// `classes` that is hidden among the −1s may have won a window kept unlabelled (`apply`).
public struct PerSampleRule: Sendable, Equatable {
    public var policy: String
    public var minFraction: Double
    public var classes: Int

    public init(policy: String, minFraction: Double, classes: Int) {
        self.policy = policy
        self.minFraction = minFraction
        self.classes = classes
    }

    /// The rule of a resolved pipeline (`pipeline.resolved.labels`), nil without `per_sample`.
    public init?(resolved: JSONValue, classes: Int) {
        guard DatasetSchema.hasYSeq(resolved: resolved), case .object(let o) = resolved, case .object(let l)? = o["labels"],
              case .string(let policy)? = l["policy"] else { return nil }
        var minFraction = 0.5
        switch l["min_fraction"] {
        case .double(let d)?: minFraction = d
        case .int(let i)?: minFraction = Double(i)
        default: break
        }
        self.init(policy: policy, minFraction: minFraction, classes: classes)
    }

    /// The first value of `ySeq` that is not a class id or −1, with its time step.
    public func badValue(_ ySeq: ArraySlice<Int64>) -> (step: Int, value: Int64)? {
        for (k, v) in ySeq.enumerated() where v < -1 || v >= Int64(classes) { return (k, v) }
        return nil
    }

    /// Why `y` is not what the policy gives from `ySeq` (a clause for a sentence), or nil when
    /// it is. `ySeq` must hold only class ids and −1 (``badValue(_:)`` first).
    public func problem(y: Int64, ySeq: ArraySlice<Int64>) -> String? {
        let T = ySeq.count
        guard T > 0 else { return nil }
        let s = Array(ySeq)
        switch policy {
        case "center":
            let c = s[T / 2]
            if c != y { return "`policy: center` gives the class of point \(T / 2), which `y_seq` holds as \(c)" }
        case "pure":
            let expected: Int64 = s.allSatisfy { $0 == s[0] } ? s[0] : -1
            if expected != y {
                return expected < 0 ? "`policy: pure` keeps a window only when every point has one class, and its `y_seq` holds \(Set(s).count) different values"
                    : "`policy: pure` gives \(expected), the class of every point of its `y_seq`"
            }
        default:  // majority
            guard y >= 0 else { return nil }
            var count = [Int](repeating: 0, count: classes), first = [Int](repeating: T, count: classes)
            for (k, v) in s.enumerated() where v >= 0 {
                if count[Int(v)] == 0 { first[Int(v)] = k }
                count[Int(v)] += 1
            }
            let n = count[Int(y)]
            if n == 0 { return "no point of its `y_seq` has class \(y)" }
            for c in 0..<classes where c != Int(y) && (count[c] > n || (count[c] == n && first[c] < first[Int(y)])) {
                return "`policy: majority` gives \(c) (\(count[c]) point(s)\(count[c] == n ? ", the first seen of a tie" : "")), not \(y) (\(n) point(s))"
            }
            if Double(n) / Double(T) < minFraction {
                return "class \(y) has \(n) of \(T) points in its `y_seq`, below `min_fraction` \(JSONValue.format(minFraction))"
            }
        }
        return nil
    }
}
