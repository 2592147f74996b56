/// Typed access to a parsed ``JSONValue`` (``JSONParser``), for readers of motionprep's own
/// JSON files: each gives nil when the value is of another kind.
extension JSONValue {
    /// The member `key` of an object; nil for a missing key or a value that is not an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// An integer: `.int` that fits an `Int`, or a `.double` with an integral value in range
    /// (`2.0`); nil for anything else (`2.5`, `"2"`, `true`).
    public var intValue: Int? {
        switch self {
        case .int(let i): return Int(exactly: i)
        case .double(let d): return d == d.rounded() && abs(d) < 9.0e15 ? Int(d) : nil
        default: return nil
        }
    }

    /// A number as `Double` (`.int` or `.double`).
    public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    /// The value as a message shows it: a string in quotes (cut after 40 characters), a number
    /// or literal as written, "a list", "an object".
    public var shown: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return String(b)
        case .int(let i): return String(i)
        case .double(let d): return JSONValue.format(d)
        case .string(let s): return "\"\(s.count > 40 ? String(s.prefix(40)) + "…" : s)\""
        case .array: return "a list"
        case .object: return "an object"
        }
    }
}
