import MotionCore
import MotionYAML

/// Maps a YAML node tree onto `PipelineSpec`, collecting every problem instead of stopping at
/// the first: each `decode…` reports what is wrong with its part and returns nil, and the
/// caller carries on with the rest.
///
/// Messages follow one pattern: "`key.path` at file:line:col must be WHAT IS ACCEPTED, not
/// `BAD VALUE`", "unknown key `k` in `parent` at file:line:col; did you mean `key`?",
/// "missing required key `k` in `parent` at file:line:col".
final class SpecDecoder {
    let file: String
    let baseDirectory: String
    /// Decoding a dataset manifest's `pipeline.resolved` (the canonical JSON,
    /// `PipelineSpec.canonicalValue()`) rather than a pipeline file: a key whose value is null
    /// counts as absent, ordered mappings may be lists of one-key objects, keys the canonical
    /// form always spells out (`labels.min_fraction`, `labels.clock`, a csv `time.unit` beside
    /// `time.format`) are accepted where a pipeline file could not give them, and `output.path`
    /// is not required (docs/commands.md, "apply").
    let resolved: Bool
    private(set) var issues: [ConfigIssue] = []

    init(file: String, baseDirectory: String, resolved: Bool = false) {
        self.file = file
        self.baseDirectory = baseDirectory
        self.resolved = resolved
    }

    // MARK: - Reporting

    /// `file:line:column`.
    func at(_ mark: YAMLMark) -> String { "\(file):\(mark.line):\(mark.column)" }

    func location(_ mark: YAMLMark?) -> SourceLocation {
        SourceLocation(file: file, line: mark?.line, column: mark?.column)
    }

    func report(_ mark: YAMLMark?, _ message: String) {
        issues.append(ConfigIssue(location: location(mark), message: message))
    }

    /// Reports issues found by checks outside the decoder (an inline IIO layout's).
    func report(_ found: [ConfigIssue]) {
        issues += found
    }

    /// Issues sorted by position (stable; file-wide issues first).
    func sortedIssues() -> [ConfigIssue] {
        issues.enumerated().sorted { a, b in
            let ka = (a.element.location.line ?? 0, a.element.location.column ?? 0, a.offset)
            let kb = (b.element.location.line ?? 0, b.element.location.column ?? 0, b.offset)
            return ka < kb
        }.map(\.element)
    }

    /// How a bad value is shown: `-50`, `'50'`, `"a\tb"`, an empty value, a list, a mapping.
    func describe(_ node: YAMLNode) -> String {
        switch node.kind {
        case .scalar(let s):
            let shown = Self.shorten(s.value)
            switch s.style {
            case .plain: return s.value.isEmpty ? "an empty value" : "`\(shown)`"
            case .singleQuoted: return "the string `'\(shown)'`"
            case .doubleQuoted: return "the string `\"\(shown)\"`"
            case .literal, .folded: return "the block string `\(shown)`"
            }
        case .sequence(let items): return items.isEmpty ? "an empty list" : "a list"
        case .mapping(let pairs): return pairs.isEmpty ? "an empty mapping" : "a mapping"
        }
    }

    /// Escapes control characters and cuts long values so a message stays on one line.
    static func shorten(_ value: String) -> String {
        var out = ""
        var count = 0
        for ch in value {
            if count == 40 { out += "…"; break }
            switch ch {
            case "\n": out += "\\n"
            case "\r\n": out += "\\r\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default: out.append(ch)
            }
            count += 1
        }
        return out
    }

    /// "`path` at loc must be EXPECTED, not VALUE[; did you mean `s`?]".
    func mustBe(_ path: String, _ node: YAMLNode, _ expected: String, suggestion: String? = nil) {
        var message = "`\(path)` at \(at(node.mark)) must be \(expected), not \(describe(node))"
        if let suggestion { message += "; did you mean `\(suggestion)`?" }
        report(node.mark, message)
    }

    // MARK: - Mappings

    /// The keys of one mapping, checked against the keys it may hold.
    struct Fields {
        /// The mapping node.
        let node: YAMLNode
        /// Dotted key path of the mapping ("" at the top level).
        let path: String
        /// Key → (key node, value node), for the string keys found.
        var entries: [String: YAMLPair] = [:]
        /// False when a key was unknown or not a name (checks across keys should then be skipped).
        var isClean = true

        subscript(_ key: String) -> YAMLNode? { entries[key]?.value }
        func keyNode(_ key: String) -> YAMLNode? { entries[key]?.key }
        func has(_ key: String) -> Bool { entries[key] != nil }

        /// The dotted path of a child key.
        func path(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
    }

    /// How a mapping is named in messages: "the pipeline" or "`window`".
    func place(_ path: String) -> String { path.isEmpty ? "the pipeline" : "`\(path)`" }

    /// Reads a mapping, reporting keys that are not strings and keys not in `allowed`
    /// (with a did-you-mean). Returns nil (after reporting) when `node` is not a mapping.
    func fields(_ node: YAMLNode, path: String, allowed: [String]) -> Fields? {
        guard let pairs = node.mapping else {
            if path.isEmpty {
                report(node.mark, "the pipeline at \(at(node.mark)) must be a mapping of keys such as `version` and `inputs`, not \(describe(node))")
            } else {
                mustBe(path, node, "a mapping")
            }
            return nil
        }
        var result = Fields(node: node, path: path)
        for pair in pairs {
            guard let key = pair.key.scalar?.value, pair.key.scalar?.isNull == false else {
                report(pair.key.mark, "key at \(at(pair.key.mark)) in \(place(path)) must be a name, not \(describe(pair.key))")
                result.isClean = false
                continue
            }
            if resolved && pair.value.isNull && allowed.contains(key) {
                continue  // the canonical form writes null for "not set"
            }
            if allowed.contains(key) {
                result.entries[key] = pair
            } else {
                unknownKey(key, in: path, at: pair.key.mark, candidates: allowed)
                result.isClean = false
            }
        }
        return result
    }

    /// `Text.suggestion`, or else the one candidate `word` is a prefix of (`valid` → `validation`).
    static func suggestion(for word: String, among candidates: [String]) -> String? {
        if let s = Text.suggestion(for: word, among: candidates) { return s }
        guard word.count >= 3 else { return nil }
        let extended = candidates.filter { $0.lowercased().hasPrefix(word.lowercased()) }
        return extended.count == 1 ? extended[0] : nil
    }

    func unknownKey(_ key: String, in path: String, at mark: YAMLMark, candidates: [String]) {
        var message = "unknown key `\(Self.shorten(key))` in \(place(path)) at \(at(mark))"
        if let s = Self.suggestion(for: key, among: candidates) { message += "; did you mean `\(s)`?" }
        report(mark, message)
    }

    /// Reports a required key that is absent.
    func missing(_ key: String, in f: Fields, note: String = "") {
        if f.path.isEmpty {
            report(nil, "missing required key `\(key)` in the pipeline (\(file))\(note)")
        } else {
            report(f.node.mark, "missing required key `\(key)` in `\(f.path)` at \(at(f.node.mark))\(note)")
        }
    }

    /// The value of a required key, reporting its absence.
    func required(_ key: String, in f: Fields) -> YAMLNode? {
        guard let node = f[key] else { missing(key, in: f); return nil }
        return node
    }

    /// Reports a key that does not apply in this context ("applies only to `type: csv`").
    func notApplicable(_ key: String, in f: Fields, _ explanation: String) {
        guard let k = f.keyNode(key) else { return }
        report(k.mark, "key `\(key)` in \(place(f.path)) at \(at(k.mark)) \(explanation)")
    }

    // MARK: - Scalars

    /// Any non-null scalar, as written (`classes: [0, 1]` gives the strings "0" and "1").
    func string(_ node: YAMLNode, _ path: String, nonEmpty: Bool = true) -> String? {
        guard let s = node.scalar, !s.isNull, !(nonEmpty && s.value.isEmpty) else {
            mustBe(path, node, nonEmpty ? "a non-empty string" : "a string")
            return nil
        }
        return s.value
    }

    func bool(_ node: YAMLNode, _ path: String) -> Bool? {
        guard let b = node.scalar?.bool else { mustBe(path, node, "`true` or `false`"); return nil }
        return b
    }

    /// A finite plain number accepted by `valid`, else reports "must be EXPECTED".
    func number(_ node: YAMLNode, _ path: String, _ expected: String, _ valid: (Double) -> Bool) -> Double? {
        guard let d = node.scalar?.double, d.isFinite, valid(d) else { mustBe(path, node, expected); return nil }
        return d
    }

    /// A plain integer accepted by `valid`, else reports "must be EXPECTED".
    func integer(_ node: YAMLNode, _ path: String, _ expected: String, _ valid: (Int) -> Bool) -> Int? {
        guard let i = node.scalar?.int, valid(i) else { mustBe(path, node, expected); return nil }
        return i
    }

    /// One of an enumeration's raw values.
    func choice<E: RawRepresentable & CaseIterable>(_ node: YAMLNode, _ path: String, _: E.Type = E.self) -> E?
        where E.RawValue == String {
        let names = E.allCases.map(\.rawValue)
        guard let s = node.scalar, let e = E(rawValue: s.value) else {
            let suggestion = node.scalar.flatMap { s in s.isNull ? nil : Self.suggestion(for: s.value, among: names) }
            mustBe(path, node, Text.alternatives(names), suggestion: suggestion)
            return nil
        }
        return e
    }

    // MARK: - Collections

    /// A list of strings; duplicates are reported when `unique` names the item ("sensor").
    /// With `allowSingle`, a lone string stands for a one-item list.
    func stringList(_ node: YAMLNode, _ path: String, unique: String?, allowSingle: Bool = false,
                    nonEmpty: Bool = true) -> [String]? {
        let items: [YAMLNode]
        if let seq = node.sequence {
            items = seq
        } else if allowSingle, let s = node.scalar, !s.isNull {
            items = [node]
        } else {
            mustBe(path, node, nonEmpty ? "a non-empty list of strings" : "a list of strings")
            return nil
        }
        if nonEmpty && items.isEmpty { mustBe(path, node, "a non-empty list of strings"); return nil }
        var out: [String] = []
        var first: [String: YAMLMark] = [:]
        var ok = true
        for (i, item) in items.enumerated() {
            guard let s = string(item, "\(path)[\(i)]") else { ok = false; continue }
            if let unique, let earlier = first[s] {
                report(item.mark, "duplicate \(unique) `\(Self.shorten(s))` in `\(path)` at \(at(item.mark)); it is already listed at \(earlier)")
                ok = false
                continue
            }
            first[s] = item.mark
            out.append(s)
        }
        return ok ? out : nil
    }

    /// A mapping of names to strings, in document order.
    func stringMap(_ node: YAMLNode, _ path: String, nonEmpty: Bool = true) -> [KeyValue<String>]? {
        guard let pairs = orderedPairs(node), !(nonEmpty && pairs.isEmpty) else {
            mustBe(path, node, nonEmpty ? "a non-empty mapping of names to strings" : "a mapping of names to strings")
            return nil
        }
        var out: [KeyValue<String>] = []
        var ok = true
        for pair in pairs {
            guard let key = mapKey(pair, in: path) else { ok = false; continue }
            guard let value = string(pair.value, "\(path).\(key)") else { ok = false; continue }
            out.append(KeyValue(key, value))
        }
        return ok ? out : nil
    }

    /// The pairs of a mapping in document order; in `resolved` mode also a list of one-key
    /// mappings, the canonical form of an ordered mapping (`[{"acc_x": "ax"}, …]`). Nil for
    /// anything else.
    func orderedPairs(_ node: YAMLNode) -> [YAMLPair]? {
        if let pairs = node.mapping { return pairs }
        guard resolved, let items = node.sequence else { return nil }
        var out: [YAMLPair] = []
        for item in items {
            guard let one = item.mapping, one.count == 1 else { return nil }
            out.append(one[0])
        }
        return out
    }

    /// A mapping key that must be a non-empty name.
    func mapKey(_ pair: YAMLPair, in path: String) -> String? {
        guard let s = pair.key.scalar, !s.isNull, !s.value.isEmpty else {
            report(pair.key.mark, "key at \(at(pair.key.mark)) in `\(path)` must be a name, not \(describe(pair.key))")
            return nil
        }
        return s.value
    }
}
