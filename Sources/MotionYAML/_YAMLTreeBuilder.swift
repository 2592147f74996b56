import CYAML

/// Drives libyaml's event parser (`yaml_parser_parse`) and assembles the node tree.
///
/// Every libyaml call of the module is in this file. The tree is built with an explicit stack,
/// so nesting depth costs no native stack; `maxDepth` still bounds it so that a hostile file
/// cannot make later (recursive) consumers or the tree's deallocation run out of stack.
struct _YAMLTreeBuilder {
    private enum Frame {
        case sequence(YAMLMark, [YAMLNode])
        case mapping(YAMLMark, [YAMLPair], pendingKey: YAMLNode?, seen: [String: YAMLMark])
    }

    let file: String
    let maxDepth: Int
    let text: [UInt8]
    private var stack: [Frame] = []
    private var root: YAMLNode?
    private var documents = 0

    init(file: String, maxDepth: Int, text: [UInt8]) {
        self.file = file
        self.maxDepth = maxDepth
        self.text = text
    }

    mutating func run() throws(YAMLError) -> YAMLNode {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            // Only fails when malloc does; nothing the user can fix.
            preconditionFailure("yaml_parser_initialize failed (out of memory)")
        }
        defer { yaml_parser_delete(&parser) }
        // libyaml asserts a non-null input pointer, even for empty input.
        let storage = text.isEmpty ? [UInt8(0)] : text
        return try storage.withUnsafeBufferPointer { (buffer) throws(YAMLError) -> YAMLNode in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, text.count)
            yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else {
                    throw syntaxError(parser)
                }
                defer { yaml_event_delete(&event) }
                if event.type == YAML_STREAM_END_EVENT { break }
                try handle(event)
            }
            return root ?? .null()
        }
    }

    private func mark(_ m: yaml_mark_t) -> YAMLMark {
        YAMLMark(line: Int(m.line) + 1, column: Int(m.column) + 1)
    }

    private func error(_ at: YAMLMark, _ kind: YAMLError.Kind, _ problem: String) -> YAMLError {
        YAMLError(file: file, line: at.line, column: at.column, kind: kind, problem: problem)
    }

    private func string(_ p: UnsafeMutablePointer<yaml_char_t>?, length: Int) -> String {
        guard let p else { return "" }
        return String(decoding: UnsafeBufferPointer(start: p, count: length), as: UTF8.self)
    }

    private func cString(_ p: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        guard let p else { return nil }
        return String(cString: p)
    }

    private mutating func handle(_ event: yaml_event_t) throws(YAMLError) {
        let at = mark(event.start_mark)
        switch event.type {
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            if documents > 1 { throw error(at, .multipleDocuments, "a second document") }
        case YAML_ALIAS_EVENT:
            let name = cString(event.data.alias.anchor) ?? ""
            throw error(at, .alias, "`*\(name)`")
        case YAML_SCALAR_EVENT:
            let s = event.data.scalar
            let style: YAMLScalar.Style
            switch s.style {
            case YAML_SINGLE_QUOTED_SCALAR_STYLE: style = .singleQuoted
            case YAML_DOUBLE_QUOTED_SCALAR_STYLE: style = .doubleQuoted
            case YAML_LITERAL_SCALAR_STYLE: style = .literal
            case YAML_FOLDED_SCALAR_STYLE: style = .folded
            default: style = .plain
            }
            var scalar = YAMLScalar(string(s.value, length: Int(s.length)), style: style)
            if let tag = cString(s.tag) {
                // `!!str 50` and `! 50` are strings; typed tags would need a resolver we do not have.
                guard tag == "tag:yaml.org,2002:str" || tag == "!" else {
                    throw error(at, .unsupportedTag(Self.shortTag(tag)), "tag")
                }
                if scalar.style == .plain { scalar.style = .singleQuoted }
            }
            try add(YAMLNode(.scalar(scalar), at: at))
        case YAML_SEQUENCE_START_EVENT:
            try checkCollectionTag(event.data.sequence_start.tag, expected: "tag:yaml.org,2002:seq", at: at)
            try push(.sequence(at, []), at: at)
        case YAML_MAPPING_START_EVENT:
            try checkCollectionTag(event.data.mapping_start.tag, expected: "tag:yaml.org,2002:map", at: at)
            try push(.mapping(at, [], pendingKey: nil, seen: [:]), at: at)
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            let node: YAMLNode
            switch stack.removeLast() {
            case .sequence(let m, let items): node = YAMLNode(.sequence(items), at: m)
            case .mapping(let m, let pairs, _, _): node = YAMLNode(.mapping(pairs), at: m)
            }
            try add(node)
        default:
            break
        }
    }

    private static func shortTag(_ tag: String) -> String {
        let prefix = "tag:yaml.org,2002:"
        return tag.hasPrefix(prefix) ? "!!" + tag.dropFirst(prefix.count) : tag
    }

    private func checkCollectionTag(_ p: UnsafeMutablePointer<yaml_char_t>?, expected: String, at: YAMLMark) throws(YAMLError) {
        guard let tag = cString(p), tag != expected, tag != "!" else { return }
        throw error(at, .unsupportedTag(Self.shortTag(tag)), "tag")
    }

    private mutating func push(_ frame: Frame, at: YAMLMark) throws(YAMLError) {
        if stack.count >= maxDepth { throw error(at, .tooDeep(limit: maxDepth), "nesting") }
        stack.append(frame)
    }

    private mutating func add(_ node: YAMLNode) throws(YAMLError) {
        guard var top = stack.popLast() else {
            root = node
            return
        }
        // `top` is emptied before the payload is changed, so that the arrays and the dictionary
        // are uniquely referenced and grow in place: a copy per item made a mapping of 30,000
        // keys (a pipeline's `channels`) quadratic (docs/hardening.md, "bounded work").
        switch top {
        case .sequence(let m, var items):
            top = .sequence(m, [])
            items.append(node)
            stack.append(.sequence(m, items))
        case .mapping(let m, var pairs, let pendingKey, var seen):
            top = .sequence(m, [])
            if let key = pendingKey {
                pairs.append(YAMLPair(key: key, value: node))
                stack.append(.mapping(m, pairs, pendingKey: nil, seen: seen))
            } else {
                if let s = node.scalar {
                    if let first = seen[s.value] {
                        throw error(node.mark, .duplicateKey(key: s.value, first: first), "duplicate key")
                    }
                    seen[s.value] = node.mark
                }
                stack.append(.mapping(m, pairs, pendingKey: node, seen: seen))
            }
        }
    }

    /// Turns libyaml's error state into a `YAMLError`, adding a hint when a tab is to blame.
    private func syntaxError(_ parser: yaml_parser_t) -> YAMLError {
        if parser.error == YAML_MEMORY_ERROR {
            return error(YAMLMark(line: 1, column: 1), .syntax, "libyaml ran out of memory")
        }
        var problem = parser.problem.map { String(cString: $0) } ?? "unknown error"
        if parser.error == YAML_READER_ERROR {
            // Reader errors carry a byte offset, not a mark.
            let offset = min(Int(parser.problem_offset), text.count)
            let (line, column) = YAMLParser.lineAndColumn(of: offset, in: text)
            if parser.problem_value >= 0 {
                problem += " (found 0x" + YAMLParser.hex(UInt8(truncatingIfNeeded: parser.problem_value)) + ")"
            }
            return error(YAMLMark(line: line, column: column), .syntax, problem)
        }
        let at = mark(parser.problem_mark)
        if tabNear(at) {
            // libyaml's wording ("found character that cannot start any token") hides the cause.
            return error(at, .syntax, "a tab is used for indentation; indent with spaces, not tabs")
        }
        if let context = parser.context.map({ String(cString: $0) }) {
            problem += " " + context
            let started = mark(parser.context_mark)
            if started.line != at.line { problem += " that starts at \(started)" }
        }
        return error(at, .syntax, problem)
    }

    /// Whether the line at `at` has a tab in its indentation or at the problem column.
    private func tabNear(_ at: YAMLMark) -> Bool {
        var line = 1
        var i = 0
        while i < text.count, line < at.line {
            if text[i] == UInt8(ascii: "\n") { line += 1 }
            i += 1
        }
        var column = 1
        var inIndent = true
        while i < text.count, text[i] != UInt8(ascii: "\n") {
            let c = text[i]
            if c == UInt8(ascii: "\t"), inIndent || column == at.column { return true }
            if c != UInt8(ascii: " ") && c != UInt8(ascii: "\t") { inIndent = false }
            if column > at.column && !inIndent { break }
            if c & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        return false
    }
}
