import MotionDataset
import MotionCore
import MotionYAML

/// An expectations file that does not parse or does not match its schema: every problem, sorted
/// by position, one sentence each with `file:line:column`. Exit status 78 (`EX_CONFIG`), as for
/// pipeline files.
public struct ExpectationsFileError: UserFacingError, Equatable {
    /// The file as the user named it.
    public var file: String
    /// Every problem, sorted by line and column.
    public var issues: [String]

    public var message: String { issues.joined(separator: "\n") }
    public var exitStatus: ExitStatus { .config }
}

/// Reads expectations files (YAML, `version: 1`) with the strictness of pipeline files: unknown
/// keys (with a did-you-mean), wrong types and bad values are all reported together.
public enum ExpectationsLoader {
    /// Files larger than this are refused (real ones are well under a kilobyte).
    public static let maxFileBytes = 1 << 20

    static let keys = ["version", "min_windows", "min_windows_per_class", "max_imbalance_ratio",
                       "required_channels", "required_classes", "value_ranges", "max_dropped_fraction"]

    /// Reads and checks an expectations file.
    ///
    /// - Parameter path: the file as the user gave it (used as written in messages).
    /// - Throws: `MotionError` `.noInput` (66) when the file does not exist, `.ioError` (74) when
    ///   it cannot be read; ``ExpectationsFileError`` (78) listing every problem in it.
    public static func load(path: String) throws -> Expectations {
        let bytes: [UInt8]
        do {
            bytes = try YAMLParser.readFile(path: path, maxBytes: maxFileBytes)
        } catch {
            if error.isMissing { throw MotionError(.noInput, "cannot read expectations file `\(path)`: no such file") }
            if error.notRegularFile { throw MotionError(.noInput, "cannot read expectations file `\(path)`: \(error.reason)") }
            if error.tooLarge {
                throw ExpectationsFileError(file: path, issues: ["the expectations file `\(path)` is larger than \(maxFileBytes) bytes"])
            }
            throw MotionError(.ioError, "cannot read expectations file `\(path)`: \(error.reason)")
        }
        return try load(bytes: bytes, file: path)
    }

    /// Parses and checks expectations text; `file` names it in messages.
    ///
    /// - Throws: ``ExpectationsFileError`` (78) listing every problem.
    public static func load(yaml: String, file: String) throws -> Expectations {
        try load(bytes: Array(yaml.utf8), file: file)
    }

    static func load(bytes: [UInt8], file: String) throws(ExpectationsFileError) -> Expectations {
        let root: YAMLNode
        do {
            root = try YAMLParser.parse(bytes: bytes, file: file)
        } catch {
            throw ExpectationsFileError(file: file, issues: [error.message])
        }
        var d = _ExpectationsDecoder(file: file)
        let result = d.decode(root)
        guard d.issues.isEmpty else { throw ExpectationsFileError(file: file, issues: d.sortedIssues()) }
        return result
    }
}

private struct _ExpectationsDecoder {
    let file: String
    var issues: [(mark: YAMLMark?, message: String)] = []

    init(file: String) { self.file = file }

    func at(_ mark: YAMLMark) -> String { "\(file):\(mark.line):\(mark.column)" }

    mutating func report(_ mark: YAMLMark?, _ message: String) { issues.append((mark, message)) }

    func sortedIssues() -> [String] {
        issues.enumerated().sorted { a, b in
            let ka = (a.element.mark?.line ?? 0, a.element.mark?.column ?? 0, a.offset)
            let kb = (b.element.mark?.line ?? 0, b.element.mark?.column ?? 0, b.offset)
            return ka < kb
        }.map(\.element.message)
    }

    func describe(_ node: YAMLNode) -> String {
        switch node.kind {
        case .scalar(let s):
            let shown = s.value.count > 40 ? String(s.value.prefix(40)) + "…" : s.value
            switch s.style {
            case .plain: return s.value.isEmpty ? "an empty value" : "`\(shown)`"
            default: return "the string `\"\(shown)\"`"
            }
        case .sequence(let items): return items.isEmpty ? "an empty list" : "a list"
        case .mapping(let pairs): return pairs.isEmpty ? "an empty mapping" : "a mapping"
        }
    }

    mutating func mustBe(_ path: String, _ node: YAMLNode, _ expected: String) {
        report(node.mark, "`\(path)` at \(at(node.mark)) must be \(expected), not \(describe(node))")
    }

    /// The pairs of a mapping by key; unknown keys and non-name keys are reported.
    mutating func fields(_ node: YAMLNode, _ path: String, allowed: [String]?) -> [(key: String, keyNode: YAMLNode, value: YAMLNode)]? {
        guard let pairs = node.mapping else {
            if path.isEmpty {
                report(node.mark, "the expectations file at \(at(node.mark)) must be a mapping of keys such as `version` and `min_windows_per_class`, not \(describe(node))")
            } else {
                mustBe(path, node, "a mapping")
            }
            return nil
        }
        var out: [(String, YAMLNode, YAMLNode)] = []
        for pair in pairs {
            guard let key = pair.key.scalar?.value, pair.key.scalar?.isNull == false else {
                report(pair.key.mark, "key at \(at(pair.key.mark)) in \(place(path)) must be a name, not \(describe(pair.key))")
                continue
            }
            if let allowed, !allowed.contains(key) {
                var m = "unknown key `\(key)` in \(place(path)) at \(at(pair.key.mark))"
                if let s = Text.suggestion(for: key, among: allowed) { m += "; did you mean `\(s)`?" }
                else { m += "; the keys are " + Text.alternatives(allowed) }
                report(pair.key.mark, m)
                continue
            }
            out.append((key, pair.key, pair.value))
        }
        return out
    }

    func place(_ path: String) -> String { path.isEmpty ? "the expectations file" : "`\(path)`" }

    mutating func decode(_ root: YAMLNode) -> Expectations {
        var e = Expectations(file: file)
        guard let top = fields(root, "", allowed: ExpectationsLoader.keys) else { return e }
        if !top.contains(where: { $0.key == "version" }) {
            report(nil, "missing required key `version` in the expectations file (\(file)); write `version: 1` first")
        }
        for (key, _, value) in top {
            let source = at(value.mark)
            switch key {
            case "version":
                if value.scalar?.int != 1 { mustBe("version", value, "1") }
            case "min_windows":
                if let v = perSplit(value, key, "a whole number ≥ 0", as: Int.self, { Self.integer($0) { $0 >= 0 } }) {
                    e.minWindows = .init(values: v, source: source)
                }
            case "min_windows_per_class":
                if let v = perSplit(value, key, "a whole number ≥ 0", as: Int.self, { Self.integer($0) { $0 >= 0 } }) {
                    e.minWindowsPerClass = .init(values: v, source: source)
                }
            case "max_imbalance_ratio":
                if let v = perSplit(value, key, "a number ≥ 1 (largest class count / smallest)", as: Double.self, { Self.number($0) { $0 >= 1 } }) {
                    e.maxImbalanceRatio = .init(values: v, source: source)
                }
            case "required_channels":
                e.requiredChannels = names(value, key)
            case "required_classes":
                e.requiredClasses = names(value, key)
            case "value_ranges":
                e.valueRanges = ranges(value)
            case "max_dropped_fraction":
                if let f = Self.number(value, { $0 >= 0 && $0 <= 1 }) {
                    e.maxDroppedFraction = (f, source)
                } else {
                    mustBe(key, value, "a number from 0 to 1")
                }
            default:
                break
            }
        }
        return e
    }

    /// A plain integer accepted by `valid`.
    static func integer(_ node: YAMLNode, _ valid: (Int) -> Bool) -> Double? {
        guard let i = node.scalar?.int, valid(i) else { return nil }
        return Double(i)
    }

    /// A finite plain number accepted by `valid`.
    static func number(_ node: YAMLNode, _ valid: (Double) -> Bool) -> Double? {
        guard let d = node.scalar?.double, d.isFinite, valid(d) else { return nil }
        return d
    }

    /// One value for every split, or a mapping `{train: …, validation: …, test: …}` (any subset).
    mutating func perSplit<V: Sendable & Equatable>(_ node: YAMLNode, _ path: String, _ expected: String,
                                                    as _: V.Type, _ parse: (YAMLNode) -> Double?) -> [SplitName: V]? {
        func convert(_ d: Double) -> V {
            if V.self == Int.self { return Int(d) as! V }
            return d as! V
        }
        if node.mapping == nil {
            guard let d = parse(node) else {
                mustBe(path, node, "\(expected) for every split, or a mapping from `train`, `validation`, `test` to one")
                return nil
            }
            return Dictionary(uniqueKeysWithValues: SplitName.datasetSplits.map { ($0, convert(d)) })
        }
        guard let entries = fields(node, path, allowed: SplitName.datasetSplits.map(\.rawValue)) else { return nil }
        var out: [SplitName: V] = [:]
        var ok = true
        for (key, _, value) in entries {
            guard let d = parse(value) else { mustBe("\(path).\(key)", value, expected); ok = false; continue }
            out[SplitName(rawValue: key)!] = convert(d)
        }
        return ok ? out : nil
    }

    /// A list of non-empty names without repeats.
    mutating func names(_ node: YAMLNode, _ path: String) -> [String] {
        guard let items = node.sequence else { mustBe(path, node, "a list of names"); return [] }
        var out: [String] = []
        for (i, item) in items.enumerated() {
            guard let s = item.scalar, !s.isNull, !s.value.isEmpty, item.mapping == nil else {
                mustBe("\(path)[\(i)]", item, "a name")
                continue
            }
            if out.contains(s.value) {
                report(item.mark, "`\(path)[\(i)]` at \(at(item.mark)) repeats `\(s.value)`")
                continue
            }
            out.append(s.value)
        }
        return out
    }

    /// `value_ranges: {CHANNEL_OR_PATTERN: {min: N, max: N}}`.
    mutating func ranges(_ node: YAMLNode) -> [Expectations.ValueRange] {
        guard let entries = fields(node, "value_ranges", allowed: nil) else { return [] }
        var out: [Expectations.ValueRange] = []
        for (channel, keyNode, value) in entries {
            let path = "value_ranges.\(channel)"
            guard let bounds = fields(value, path, allowed: ["min", "max"]) else { continue }
            var lo: Double?, hi: Double?, ok = true
            for (k, _, v) in bounds {
                guard let d = Self.number(v, { _ in true }) else { mustBe("\(path).\(k)", v, "a finite number"); ok = false; continue }
                if k == "min" { lo = d } else { hi = d }
            }
            guard ok, bounds.count == (value.mapping?.count ?? 0) || lo != nil || hi != nil else { continue }
            if lo == nil, hi == nil, bounds.count == (value.mapping?.count ?? 0) {
                report(value.mark, "`\(path)` at \(at(value.mark)) must give `min`, `max` or both")
                continue
            }
            if let lo, let hi, lo > hi {
                report(value.mark, "`\(path)` at \(at(value.mark)) has `min` \(lo) above `max` \(hi)")
                continue
            }
            out.append(.init(channels: channel, min: lo, max: hi, source: at(keyNode.mark)))
        }
        return out
    }
}
