/// A position in a YAML text: 1-based line and 1-based column (counted in characters).
///
/// libyaml reports 0-based marks; the parser converts them.
public struct YAMLMark: Sendable, Equatable, Comparable, CustomStringConvertible {
    /// 1-based line.
    public var line: Int
    /// 1-based column, in Unicode characters from the start of the line.
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public static func < (a: YAMLMark, b: YAMLMark) -> Bool {
        (a.line, a.column) < (b.line, b.column)
    }

    /// `line:column`.
    public var description: String { "\(line):\(column)" }
}

/// A scalar as written: its text after YAML unescaping and how it was quoted.
public struct YAMLScalar: Sendable, Equatable {
    /// How a scalar was written. Only plain scalars are typed (`50` is a number, `"50"` a string).
    public enum Style: Sendable, Equatable {
        case plain, singleQuoted, doubleQuoted, literal, folded
    }
    /// The text after unescaping and line folding.
    public var value: String
    public var style: Style

    public init(_ value: String, style: Style = .plain) {
        self.value = value
        self.style = style
    }

    /// Whether the scalar was written without quotes or block indicators.
    public var isPlain: Bool { style == .plain }
}

/// One key/value pair of a mapping, in document order.
public struct YAMLPair: Sendable, Equatable {
    public var key: YAMLNode
    public var value: YAMLNode

    public init(key: YAMLNode, value: YAMLNode) {
        self.key = key
        self.value = value
    }
}

/// A node of a parsed YAML document: a scalar, a sequence or a mapping, with where it starts.
///
/// Mappings keep their pairs in document order; the parser rejects duplicate keys. An empty
/// document is the null scalar (an empty plain scalar) at 1:1.
public struct YAMLNode: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case scalar(YAMLScalar)
        case sequence([YAMLNode])
        case mapping([YAMLPair])
    }
    public var kind: Kind
    /// Where the node starts (for a block mapping or sequence: its first key or `-`).
    public var mark: YAMLMark

    public init(_ kind: Kind, at mark: YAMLMark) {
        self.kind = kind
        self.mark = mark
    }

    /// The null node an empty document parses to.
    public static func null(at mark: YAMLMark = YAMLMark(line: 1, column: 1)) -> YAMLNode {
        YAMLNode(.scalar(YAMLScalar("")), at: mark)
    }

    /// The scalar, when this node is one.
    public var scalar: YAMLScalar? {
        if case .scalar(let s) = kind { return s }
        return nil
    }

    /// The items, when this node is a sequence.
    public var sequence: [YAMLNode]? {
        if case .sequence(let items) = kind { return items }
        return nil
    }

    /// The pairs in document order, when this node is a mapping.
    public var mapping: [YAMLPair]? {
        if case .mapping(let pairs) = kind { return pairs }
        return nil
    }
}
