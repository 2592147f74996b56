import Testing
@testable import MotionYAML

struct BadYAML: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let message: String
    init(_ name: String, _ text: String, _ message: String) {
        self.name = name
        self.bytes = Array(text.utf8)
        self.message = message
    }
    init(_ name: String, bytes: [UInt8], _ message: String) {
        self.name = name
        self.bytes = bytes
        self.message = message
    }
    var testDescription: String { name }
}

let badYAML: [BadYAML] = [
    BadYAML("unclosed flow sequence", "a: [1, 2\nb: 3\n",
            "invalid YAML at t.yaml:2:2: did not find expected ',' or ']' while parsing a flow sequence that starts at 1:4"),
    BadYAML("mapping value in plain scalar", "a: b: c\n",
            "invalid YAML at t.yaml:1:5: mapping values are not allowed in this context"),
    BadYAML("bad indentation", "a: 1\n b: 2\n",
            "invalid YAML at t.yaml:2:3: mapping values are not allowed in this context"),
    BadYAML("unterminated quote", "a: \"x\n",
            "invalid YAML at t.yaml:2:1: found unexpected end of stream while scanning a quoted scalar that starts at 1:4"),
    BadYAML("reserved indicator", "a: @x\n",
            "invalid YAML at t.yaml:1:4: found character that cannot start any token while scanning for the next token"),
    BadYAML("tab indenting a key", "a:\n\tb: 2\n",
            "invalid YAML at t.yaml:2:1: a tab is used for indentation; indent with spaces, not tabs"),
    BadYAML("tab after a nested key", "a:\n  b: 1\n\tc: 2\n",
            "invalid YAML at t.yaml:3:1: a tab is used for indentation; indent with spaces, not tabs"),
    BadYAML("alias", "a: &x 1\nb: *x\n",
            "YAML aliases are not supported: `*x` at t.yaml:2:4; write the value out in full"),
    BadYAML("billion laughs", "a: &a [x, x]\nb: &b [*a, *a]\n",
            "YAML aliases are not supported: `*a` at t.yaml:2:8; write the value out in full"),
    BadYAML("two documents", "a: 1\n---\nb: 2\n",
            "a second YAML document starts at t.yaml:2:1; only one document per file is supported"),
    BadYAML("duplicate key", "a: 1\nb: 2\na: 3\n",
            "duplicate key `a` at t.yaml:3:1; it is already set at 1:1"),
    BadYAML("duplicate key in flow mapping", "x: {k: 1, k: 2}\n",
            "duplicate key `k` at t.yaml:1:11; it is already set at 1:5"),
    BadYAML("typed tag", "a: !!int 3\n",
            "YAML tag `!!int` at t.yaml:1:4 is not supported; remove it"),
    BadYAML("local tag", "a: !thing 3\n",
            "YAML tag `!thing` at t.yaml:1:4 is not supported; remove it"),
    BadYAML("control character", "a: 1\nb: \u{7}\n",
            "invalid YAML at t.yaml:2:4: control characters are not allowed (found 0x07)"),
    BadYAML("invalid UTF-8", bytes: Array("a: 1\nb: x".utf8) + [0xFF] + Array("\n".utf8),
            "invalid UTF-8 at t.yaml:2:5 (byte 0xFF); save the file as UTF-8"),
    BadYAML("truncated UTF-8 sequence", bytes: Array("é: ".utf8) + [0xC3],
            "invalid UTF-8 at t.yaml:1:4 (byte 0xC3); save the file as UTF-8"),
    BadYAML("UTF-8 encoded surrogate", bytes: Array("a: ".utf8) + [0xED, 0xA0, 0x80],
            "invalid UTF-8 at t.yaml:1:4 (byte 0xED); save the file as UTF-8"),
    BadYAML("too deep", String(repeating: "[", count: 300) + String(repeating: "]", count: 300),
            "YAML nesting deeper than 256 levels at t.yaml:1:257 is not supported"),
]

@Test(arguments: badYAML)
func badYAMLIsReportedWithItsPosition(_ c: BadYAML) {
    do {
        let node = try YAMLParser.parse(bytes: c.bytes, file: "t.yaml")
        Issue.record("parsed as \(node)")
    } catch {
        #expect(error.message == c.message)
        #expect(error.file == "t.yaml")
        #expect(error.message.contains("t.yaml:\(error.line):\(error.column)"))
    }
}

@Test func aliasErrorHasItsKind() {
    #expect(throws: YAMLError(file: "t.yaml", line: 2, column: 4, kind: .alias, problem: "`*x`")) {
        try YAMLParser.parse("a: &x 1\nb: *x\n", file: "t.yaml")
    }
}
