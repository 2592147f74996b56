import Testing
import MotionYAML

@Test(arguments: [
    ("true", true), ("True", true), ("TRUE", true), ("false", false), ("False", false), ("FALSE", false),
])
func plainBooleans(text: String, value: Bool) {
    #expect(YAMLScalar(text).bool == value)
    #expect(YAMLScalar(text, style: .doubleQuoted).bool == nil)
}

@Test(arguments: ["yes", "no", "on", "off", "y", "tRUE", "1", ""])
func notBooleans(text: String) {
    #expect(YAMLScalar(text).bool == nil)
}

@Test(arguments: [
    ("0", 0), ("50", 50), ("-12", -12), ("+3", 3), ("007", 7), ("0x1F", 31), ("0o17", 15),
    ("9223372036854775807", Int.max), ("-9223372036854775808", Int.min),
])
func plainIntegers(text: String, value: Int) {
    #expect(YAMLScalar(text).int == value)
    #expect(YAMLScalar(text).double == Double(value))
}

@Test(arguments: ["1.5", "1e3", "9223372036854775808", "0x", "1_000", "12abc", "--1", "0b101", "", "- 1", "٣"])
func notIntegers(text: String) {
    #expect(YAMLScalar(text).int == nil)
}

@Test func quotedNumbersAreStrings() {
    #expect(YAMLScalar("50", style: .doubleQuoted).int == nil)
    #expect(YAMLScalar("50", style: .singleQuoted).double == nil)
    #expect(YAMLScalar("null", style: .singleQuoted).isNull == false)
}

@Test(arguments: [
    ("1.5", 1.5), (".5", 0.5), ("5.", 5.0), ("-2.5E+4", -25000), ("1e-3", 0.001), ("+0.25", 0.25), ("50", 50),
    ("9223372036854775808", 9223372036854775808.0),
])
func plainFloats(text: String, value: Double) {
    #expect(YAMLScalar(text).double == value)
}

@Test func specialFloats() {
    #expect(YAMLScalar(".inf").double == .infinity)
    #expect(YAMLScalar("-.Inf").double == -.infinity)
    #expect(YAMLScalar(".nan").double?.isNaN == true)
    #expect(YAMLScalar("1e999").double == .infinity)
}

@Test(arguments: ["inf", "nan", "Infinity", "0x1p3", "1.2.3", ".", "e5", "1e", "abc", " 1", "1 "])
func notFloats(text: String) {
    #expect(YAMLScalar(text).double == nil)
}

@Test(arguments: ["", "~", "null", "Null", "NULL"])
func nulls(text: String) {
    #expect(YAMLScalar(text).isNull)
    #expect(!YAMLScalar(text, style: .doubleQuoted).isNull)
}

@Test func nullsInAParsedDocument() throws {
    let root = try YAMLParser.parse("a:\nb: ~\nc: ''\n", file: "t.yaml")
    let values = try #require(root.mapping).map(\.value)
    #expect(values.map(\.isNull) == [true, true, false])
}
