// Scalar typing close to the YAML 1.2 core schema: only plain scalars are typed; quoted and
// block scalars are always strings. YAML 1.1's `yes`/`no`/`on`/`off` are strings here (so
// `on_error: off` can never silently become `false`).

extension YAMLScalar {
    /// `null`, `Null`, `NULL`, `~` or nothing, written plain.
    public var isNull: Bool {
        guard isPlain else { return false }
        switch value {
        case "", "~", "null", "Null", "NULL": return true
        default: return false
        }
    }

    /// `true`/`True`/`TRUE` or `false`/`False`/`FALSE`, written plain; otherwise nil.
    public var bool: Bool? {
        guard isPlain else { return nil }
        switch value {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default: return nil
        }
    }

    /// A plain integer: decimal with an optional sign (`-12`, `+3`, `007`), `0x1F` or `0o17`.
    /// Nil for anything else, including integers that do not fit an `Int`.
    public var int: Int? {
        guard isPlain else { return nil }
        return YAMLScalar.parseInteger(value)
    }

    /// A plain number: an integer as for `int`, or a YAML 1.2 core float (`1.5`, `.5`, `5.`,
    /// `1e-3`, `-2.5E+4`, `.inf`, `-.Inf`, `.nan`). Nil for anything else.
    ///
    /// Integers too large for `Int` still parse as doubles. Out-of-range exponents give ±infinity.
    public var double: Double? {
        guard isPlain else { return nil }
        switch value {
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .infinity
        case "-.inf", "-.Inf", "-.INF": return -.infinity
        case ".nan", ".NaN", ".NAN": return .nan
        default: break
        }
        if let i = YAMLScalar.parseInteger(value) { return Double(i) }
        guard YAMLScalar.isCoreFloat(value) else { return nil }
        return Double(value)
    }

    /// Parses the integer forms `int` accepts.
    static func parseInteger(_ text: String) -> Int? {
        var body = Substring(text)
        var negative = false
        if let first = body.first, first == "-" || first == "+" {
            negative = first == "-"
            body = body.dropFirst()
        }
        var radix = 10
        if body.hasPrefix("0x") { radix = 16; body = body.dropFirst(2) }
        else if body.hasPrefix("0o") { radix = 8; body = body.dropFirst(2) }
        guard !body.isEmpty, body.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { return nil }
        guard let magnitude = UInt(body, radix: radix) else { return nil }
        if negative {
            guard magnitude <= UInt(Int.max) + 1 else { return nil }
            return magnitude == UInt(Int.max) + 1 ? Int.min : -Int(magnitude)
        }
        guard magnitude <= UInt(Int.max) else { return nil }
        return Int(magnitude)
    }

    /// `[-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?`
    static func isCoreFloat(_ text: String) -> Bool {
        let b = Array(text.utf8)
        var i = 0
        func digits() -> Int {
            let start = i
            while i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") { i += 1 }
            return i - start
        }
        if i < b.count, b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") { i += 1 }
        let intDigits = digits()
        var fracDigits = 0
        var hasDot = false
        if i < b.count, b[i] == UInt8(ascii: ".") {
            hasDot = true
            i += 1
            fracDigits = digits()
        }
        guard intDigits > 0 || (hasDot && fracDigits > 0) else { return false }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") { i += 1 }
            guard digits() > 0 else { return false }
        }
        return i == b.count
    }
}

extension YAMLNode {
    /// Whether this node is the null scalar (`null`, `~` or nothing, written plain).
    public var isNull: Bool { scalar?.isNull ?? false }
}
