/// A JSON value with deterministic serialization: object keys are written sorted by their UTF-8
/// bytes, doubles in Swift's shortest round-trip form, integers exactly. Used for the manifest,
/// shard headers, `--json` summaries and the canonical pipeline hash, so that the same content
/// always gives the same bytes (Foundation's encoder gives no such promise on Linux).
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Convenience for an integer.
    public static func int(_ v: Int) -> JSONValue { .int(Int64(v)) }

    /// Compact form (`{"a":1,"b":[2,3]}`), keys sorted.
    public func compact() -> String {
        var out = ""
        write(into: &out, indent: nil, level: 0)
        return out
    }

    /// Indented form (two spaces), keys sorted, ending without a newline.
    public func pretty() -> String {
        var out = ""
        write(into: &out, indent: "  ", level: 0)
        return out
    }

    private func write(into out: inout String, indent: String?, level: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += JSONValue.format(d)
        case .string(let s): JSONValue.writeString(s, into: &out)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            // Arrays of scalars stay on one line even in pretty form: channel lists and statistics
            // are long and reading them one per line helps nobody.
            let scalarOnly = items.allSatisfy { if case .array = $0 { return false }; if case .object = $0 { return false }; return true }
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += indent == nil || scalarOnly ? (indent == nil ? "," : ", ") : "," }
                if let indent, !scalarOnly { out += "\n" + String(repeating: indent, count: level + 1) }
                item.write(into: &out, indent: indent, level: level + 1)
            }
            if let indent, !scalarOnly { out += "\n" + String(repeating: indent, count: level) }
            out += "]"
        case .object(let dict):
            if dict.isEmpty { out += "{}"; return }
            let keys = dict.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            out += "{"
            for (i, key) in keys.enumerated() {
                if i > 0 { out += "," }
                if let indent { out += "\n" + String(repeating: indent, count: level + 1) }
                JSONValue.writeString(key, into: &out)
                out += indent == nil ? ":" : ": "
                dict[key]!.write(into: &out, indent: indent, level: level + 1)
            }
            if let indent { out += "\n" + String(repeating: indent, count: level) }
            out += "}"
        }
    }

    /// A double as JSON: shortest round-trip digits; integral values keep a `.0`; non-finite
    /// values (which JSON cannot hold) become `null`.
    public static func format(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        return "\(d)"
    }

    private static func writeString(_ s: String, into out: inout String) {
        out += "\""
        // Most strings (keys, names, paths, digests) need no escape: appended whole.
        guard s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            out += s
            out += "\""
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
