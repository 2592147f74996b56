import MotionCore
@testable import MotionValidate
import Testing

/// The manifest reader's JSON parser: exact values, and errors with a position.
@Suite struct JSONParserTests {
    @Test func parsesValues() throws {
        let v = try JSONParser.parse(text: #" {"a": [1, -2, 3.5, 1e3, true, false, null], "b": "x\"\u00e9\ud83d\ude00\n", "c": {}} "#)
        #expect(v == .object([
            "a": .array([.int(1), .int(-2), .double(3.5), .double(1000), .bool(true), .bool(false), .null]),
            "b": .string("x\"é😀\n"), "c": .object([:]),
        ]))
        #expect(try JSONParser.parse(text: "9223372036854775807") == .int(Int64.max))
        #expect(try JSONParser.parse(text: "9223372036854775808") == .double(9223372036854775808))
    }

    @Test func roundTripsTheManifestWriter() throws {
        let v: JSONValue = .object(["k": .array([.double(0.1), .int(3), .string("ü\u{1}")]), "n": .null])
        #expect(try JSONParser.parse(text: v.pretty()) == v)
        #expect(try JSONParser.parse(text: v.compact()) == v)
    }

    /// The writer's strings, byte for byte: appended whole when nothing needs an escape, and
    /// otherwise `\"`, `\\`, `\n`, `\r`, `\t` and `\u00XX` for the other control characters,
    /// everything else (non-ASCII included) as it is.
    @Test func writesStringsWithTheirEscapes() {
        #expect(JSONValue.string("plain é 😀 / path").compact() == "\"plain é 😀 / path\"")
        #expect(JSONValue.string("q\"b\\n\nr\rt\tb\u{8}f\u{c}x\u{1f}é").compact()
                == #""q\"b\\n\nr\rt\tb\u0008f\u000cx\u001fé""#)
        #expect(JSONValue.object(["k\u{1}": .string("")]).compact() == #"{"k\u0001":""}"#)
    }

    @Test(arguments: [
        ("", 1, 1, "expected a value, found the end of the text"),
        ("{\"a\": 1,}", 1, 9, "expected a key in double quotes, found `}`"),
        ("[1 2]", 1, 4, "expected `,` or `]` in an array, found `2`"),
        ("{\"a\": 1, \"a\": 2}", 1, 10, "key `a` occurs twice in one object"),
        ("{\n  \"a\": NaN\n}", 2, 8, "expected a value, found `N`"),
        ("[01]", 1, 2, "invalid number: leading zero"),
        ("\"abc", 1, 1, "unterminated string"),
        ("\"a\u{1}\"", 1, 3, "control character 0x1 inside a string; escape it"),
        ("{} x", 1, 4, "unexpected text after the end of the document"),
        ("[1e999]", 1, 2, "number `1e999` is out of range"),
    ])
    func reportsWhereAndWhy(_ text: String, _ line: Int, _ column: Int, _ problem: String) {
        #expect(throws: JSONSyntaxError(line: line, column: column, problem: problem)) {
            try JSONParser.parse(Array(text.utf8))
        }
    }
}
