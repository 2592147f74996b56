import MotionChain
import MotionCore

extension ManifestDecoder {
    // MARK: - Typed accessors: MotionCore's JSONNode, each problem collected and nil returned

    public static func kind(_ v: JSONValue?) -> String { JSONNode.shown(v) }

    /// `[null, 128, 7]`.
    public static func shape(_ rowShape: [Int]) -> String {
        ArraySchema(dtype: "", rowShape: rowShape).shapeText
    }

    /// `body`'s value, or nil with its problem collected (a missing key is `checkKeys`' to report).
    mutating func take<T>(_ body: () throws(JSONProblem) -> T) -> T? {
        do { return try body() } catch {
            if !error.isMissing { problems.append(error.sentence) }
            return nil
        }
    }

    static func node(_ v: JSONValue?, _ path: String) -> JSONNode { JSONNode(v, path: path, document: "the manifest") }

    mutating func mustBe(_ path: String, _ v: JSONValue?, _ what: String) {
        let p = Self.node(v, path).mustBe(what)
        if !p.isMissing { problems.append(p.sentence) }
    }

    mutating func checkKeys(_ o: [String: JSONValue], path: String, allowed: [String], required: [String]) {
        problems += Self.node(.object(o), path).keyProblems(allowed: allowed, required: required).map(\.sentence)
    }

    mutating func object(_ v: JSONValue?, _ path: String) -> [String: JSONValue]? {
        if case .object(let o)? = v { return o }
        mustBe(path, v, "an object")
        return nil
    }

    mutating func array(_ v: JSONValue?, _ path: String) -> [JSONValue]? {
        if case .array(let a)? = v { return a }
        mustBe(path, v, "a list")
        return nil
    }

    mutating func string(_ v: JSONValue?, _ path: String) -> String? { take { () throws(JSONProblem) in try Self.node(v, path).string() } }
    mutating func int(_ v: JSONValue?, _ path: String, min: Int? = nil) -> Int? { take { () throws(JSONProblem) in try Self.node(v, path).int(min: min) } }
    mutating func int64(_ v: JSONValue?, _ path: String) -> Int64? { take { () throws(JSONProblem) in try Self.node(v, path).int64() } }
    mutating func number(_ v: JSONValue?, _ path: String) -> Double? { take { () throws(JSONProblem) in try Self.node(v, path).double() } }
    mutating func sha256(_ v: JSONValue?, _ path: String) -> String? { take { () throws(JSONProblem) in try Self.node(v, path).sha256() } }

    mutating func strings(_ v: JSONValue?, _ path: String) -> [String]? {
        guard let list = array(v, path) else { return nil }
        var out: [String] = []
        for (i, item) in list.enumerated() {
            if let s = string(item, "\(path)[\(i)]") { out.append(s) }
        }
        return out.count == list.count ? out : nil
    }

    mutating func unique(_ names: [String], _ path: String) {
        var seen: Set<String> = []
        for n in names where !seen.insert(n).inserted {
            problems.append("`\(path)` lists \"\(n)\" twice")
        }
    }

    /// A path relative to the dataset folder that stays inside it.
    mutating func relativePath(_ v: JSONValue?, _ path: String) -> String? {
        take { () throws(JSONProblem) in try Self.node(v, path).relativePath(inside: "the dataset folder") }
    }

    mutating func classCounts(_ v: JSONValue?, _ path: String, classes: [String]?) -> [Int]? {
        guard let list = array(v, path) else { return nil }
        let counts = list.enumerated().map { int($0.element, "\(path)[\($0.offset)]", min: 0) }
        guard counts.allSatisfy({ $0 != nil }) else { return nil }
        if let classes, counts.count != classes.count {
            problems.append("`\(path)` must hold one count per class (\(classes.count)), not \(counts.count)")
            return nil
        }
        return counts.map { $0! }
    }

    mutating func counts(_ v: JSONValue?, _ path: String) -> [String: Int]? {
        guard let o = object(v, path) else { return nil }
        var out: [String: Int] = [:]
        for (k, value) in o {
            if let n = int(value, "\(path).\(k)", min: 0) { out[k] = n }
        }
        return out.count == o.count ? out : nil
    }

    mutating func moments(_ v: JSONValue?, _ path: String, count: Int?) -> DatasetManifest.Moments?? {
        if v == .null { return .some(nil) }
        guard let o = object(v, path) else { return nil }
        checkKeys(o, path: path, allowed: ["mean", "std"], required: ["mean", "std"])
        func list(_ key: String) -> [Double]? {
            guard case .array(let a)? = o[key] else { mustBe("\(path).\(key)", o[key], "a list of numbers"); return nil }
            var out: [Double] = []
            for (i, item) in a.enumerated() {
                if let d = number(item, "\(path).\(key)[\(i)]") { out.append(d) }
            }
            guard out.count == a.count else { return nil }
            if let count, a.count != count {
                problems.append("`\(path).\(key)` must hold \(count) values (one per column), not \(a.count)")
                return nil
            }
            if key == "std", let negative = out.first(where: { !($0 >= 0) }) {
                problems.append("`\(path).std` must not hold negative values, found \(negative)")
            }
            return out
        }
        guard let mean = list("mean"), let std = list("std") else { return nil }
        return .some(DatasetManifest.Moments(mean: mean, std: std))
    }
}
