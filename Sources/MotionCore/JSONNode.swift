/// A problem found decoding one of motionprep's own JSON files: the key path and one sentence
/// naming it ("`splits.train.files[0].bytes` must be a whole number ≥ 0, not `-3`").
public struct JSONProblem: Error, Sendable, Equatable {
    /// The key path (`inputs[0].sha256`); empty for the document itself.
    public var path: String
    /// The sentence, naming `path`.
    public var sentence: String
    /// The key is absent (a reader that lists missing keys itself skips these).
    public var isMissing: Bool

    public init(path: String, sentence: String, isMissing: Bool = false) {
        self.path = path
        self.sentence = sentence
        self.isMissing = isMissing
    }

    /// The sentence after the file's name: `out/manifest.json: \`counts.gaps\` must be …`.
    public func message(file: String) -> String { "\(file): \(sentence)" }
}

/// A value types decode themselves from, through ``JSONNode``.
public protocol JSONDecodable {
    init(json: JSONNode) throws(JSONProblem)
}

/// The one way motionprep reads its own JSON files (manifests, `state.json`, record headers,
/// shard `.json`, the live library's manifest): a parsed ``JSONValue`` and its key path, with
/// typed accessors that throw a ``JSONProblem`` naming the path, what was expected and what was
/// found. ``JSONFile`` turns a file's bytes into a decoded value with the file in the message.
public struct JSONNode: Sendable {
    /// The value; nil when the key is absent.
    public let value: JSONValue?
    /// The key path from the document (`chain.streams[0].method`); empty for the document.
    public let path: String
    /// What the document is called in messages about its own keys ("the manifest").
    public let document: String

    public init(_ value: JSONValue?, path: String = "", document: String = "the document") {
        self.value = value
        self.path = path
        self.document = document
    }

    /// The member `key` (absent when `self` is not an object or has no such key).
    public subscript(key: String) -> JSONNode {
        var child: JSONValue?
        if case .object(let o)? = value { child = o[key] }
        return JSONNode(child, path: path.isEmpty ? key : path + "." + key, document: document)
    }

    /// The item `index` of a list (absent when `self` is not a list or is shorter).
    public subscript(index: Int) -> JSONNode {
        var child: JSONValue?
        if case .array(let a)? = value, a.indices.contains(index) { child = a[index] }
        return JSONNode(child, path: "\(path)[\(index)]", document: document)
    }

    public var isMissing: Bool { value == nil }
    /// Absent or JSON null.
    public var isNull: Bool { value == nil || value == .null }
    /// How messages name this node: `` `path` `` or the document.
    public var place: String { path.isEmpty ? document : "`\(path)`" }

    // MARK: - Problems

    /// "`path` <what>".
    public func problem(_ what: String) -> JSONProblem {
        JSONProblem(path: path, sentence: "\(place) \(what)")
    }

    /// "`path` must be <expected>, not <found>", or the missing key.
    public func mustBe(_ expected: String) -> JSONProblem {
        guard let value else {
            let dot = path.lastIndex(of: ".")
            let key = dot.map { String(path[path.index(after: $0)...]) } ?? path
            let parent = dot.map { "`\(path[..<$0])`" } ?? document
            return JSONProblem(path: path, sentence: "missing key `\(key)` in \(parent)", isMissing: true)
        }
        return JSONProblem(path: path, sentence: "\(place) must be \(expected), not \(JSONNode.shown(value))")
    }

    /// A value as a message shows it: "`3`", "\"12\"", "null", "a list", "an object".
    public static func shown(_ v: JSONValue?) -> String {
        switch v {
        case nil: return "missing"
        case .null?: return "null"
        case .bool(let b)?: return "`\(b)`"
        case .int(let i)?: return "`\(i)`"
        case .double(let d)?: return "`\(JSONValue.format(d))`"
        case .string(let s)?: return "\"\(s.count > 40 ? String(s.prefix(40)) + "…" : s)\""
        case .array?: return "a list"
        case .object?: return "an object"
        }
    }

    // MARK: - Typed values

    public func string() throws(JSONProblem) -> String {
        if case .string(let s)? = value { return s }
        throw mustBe("a string")
    }

    /// An integer written as one (`2`, not `2.0` or `"2"`), at least `min`.
    public func int(min: Int? = nil) throws(JSONProblem) -> Int {
        if case .int(let i)? = value, let n = Int(exactly: i) {
            if let min, n < min { throw problem("must be a whole number ≥ \(min), not \(n)") }
            return n
        }
        throw mustBe(min.map { "a whole number ≥ \($0)" } ?? "a whole number")
    }

    /// An integer written as one, in `range`; else "must be <what>, not …" (`what` names the
    /// range: "a whole number from 1 to 64").
    public func int(in range: ClosedRange<Int>, _ what: String) throws(JSONProblem) -> Int {
        guard case .int(let i)? = value, let n = Int(exactly: i), range.contains(n) else { throw mustBe(what) }
        return n
    }

    /// A string that is not empty.
    public func nonEmptyString() throws(JSONProblem) -> String {
        let s = try string()
        guard !s.isEmpty else { throw mustBe("a non-empty string") }
        return s
    }

    /// A path relative to `folder` that stays inside it: not empty, not absolute, no `.`, `..` or
    /// empty component ("must be a path inside the dataset folder (relative, no `..`), not …").
    public func relativePath(inside folder: String) throws(JSONProblem) -> String {
        let s = try string()
        guard !s.isEmpty, !s.hasPrefix("/"),
              !s.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == ".." || $0 == "." || $0.isEmpty }) else {
            throw problem("must be a path inside \(folder) (relative, no `..`), not \"\(s)\"")
        }
        return s
    }

    public func int64() throws(JSONProblem) -> Int64 {
        if case .int(let i)? = value { return i }
        throw mustBe("a whole number")
    }

    /// A number (`2` or `2.5`).
    public func double() throws(JSONProblem) -> Double {
        switch value {
        case .int(let i)?: return Double(i)
        case .double(let d)?: return d
        default: throw mustBe("a number")
        }
    }

    public func bool() throws(JSONProblem) -> Bool {
        if case .bool(let b)? = value { return b }
        throw mustBe("true or false")
    }

    /// A SHA-256 digest: 64 lowercase hex digits.
    public func sha256() throws(JSONProblem) -> String {
        let s = try string()
        guard s.utf8.count == 64, s.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw problem("must be 64 lowercase hex digits, not \(JSONNode.shown(value))")
        }
        return s
    }

    /// The items of a list, each with its path (`inputs[3]`).
    public func items() throws(JSONProblem) -> [JSONNode] {
        guard case .array(let a)? = value else { throw mustBe("a list") }
        return a.indices.map { JSONNode(a[$0], path: "\(path)[\($0)]", document: document) }
    }

    /// The members of an object, sorted by key (UTF-8 bytes).
    public func members() throws(JSONProblem) -> [(key: String, node: JSONNode)] {
        guard case .object(let o)? = value else { throw mustBe("an object") }
        return o.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { ($0, self[$0]) }
    }

    /// Checks that the value is an object; returns it for chaining.
    @discardableResult
    public func object() throws(JSONProblem) -> JSONNode {
        guard case .object? = value else { throw mustBe("an object") }
        return self
    }

    public func strings() throws(JSONProblem) -> [String] {
        var out: [String] = []
        for item in try items() { out.append(try item.string()) }
        return out
    }

    public func doubles() throws(JSONProblem) -> [Double] {
        var out: [Double] = []
        for item in try items() { out.append(try item.double()) }
        return out
    }

    /// An object of whole numbers ≥ 0 (`rows_dropped`).
    public func counts() throws(JSONProblem) -> [String: Int] {
        var out: [String: Int] = [:]
        for (key, node) in try members() { out[key] = try node.int(min: 0) }
        return out
    }

    public func decode<T: JSONDecodable>(_ type: T.Type = T.self) throws(JSONProblem) -> T {
        try T(json: self)
    }

    /// `body(self)`, or nil when the key is absent or null.
    public func optional<T>(_ body: (JSONNode) throws(JSONProblem) -> T) throws(JSONProblem) -> T? {
        isNull ? nil : try body(self)
    }

    /// The keys of an object that are not `allowed` and the `required` ones that are absent, one
    /// problem each (unknown keys first, sorted; a near miss suggested).
    public func keyProblems(allowed: [String], required: [String]) -> [JSONProblem] {
        guard case .object(let o)? = value else { return [] }
        var out: [JSONProblem] = []
        for key in o.keys.sorted() where !allowed.contains(key) {
            var m = "unknown key `\(key)` in \(place)"
            if let s = Text.suggestion(for: key, among: allowed) { m += "; did you mean `\(s)`?" }
            out.append(JSONProblem(path: path.isEmpty ? key : path + "." + key, sentence: m))
        }
        for key in required where o[key] == nil {
            out.append(self[key].mustBe(""))
        }
        return out
    }

    /// Throws the first of ``keyProblems(allowed:required:)``.
    public func onlyKeys(_ allowed: [String], required: [String] = []) throws(JSONProblem) {
        guard case .object(let o)? = value else { throw mustBe("an object") }
        // The common case, without building messages.
        if o.keys.allSatisfy(allowed.contains), required.allSatisfy({ o[$0] != nil }) { return }
        if let first = keyProblems(allowed: allowed, required: required).first { throw first }
    }
}

/// Reads a JSON file motionprep wrote into a typed value: the one place a file's bytes become
/// ``JSONNode``s, so every message names the file, and the line and column or the key path.
public enum JSONFile {
    /// Parses `bytes` and decodes `T`.
    ///
    /// - Throws: `MotionError(status)`: "`file` is not valid JSON at file:line:column: why", or
    ///   "file: `key.path` must be …".
    public static func decode<T: JSONDecodable>(_ type: T.Type, from bytes: [UInt8], file: String, document: String = "the document",
                                                status: ExitStatus = .dataError) throws(MotionError) -> T {
        let root = try parse(bytes, file: file, document: document, status: status)
        do { return try T(json: root) } catch { throw MotionError(status, error.message(file: file)) }
    }

    /// Parses `bytes` into the document's root node.
    public static func parse(_ bytes: [UInt8], file: String, document: String = "the document",
                             status: ExitStatus = .dataError) throws(MotionError) -> JSONNode {
        do {
            return JSONNode(try JSONParser.parse(bytes), document: document)
        } catch {
            throw MotionError(status, "\(file) is not valid JSON at \(file):\(error.line):\(error.column): \(error.problem)")
        }
    }
}
