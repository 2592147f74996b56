import Testing
@testable import MotionIngest

@Suite struct DecimalParserTests {
    /// Edge cases whose value must match `Double(String)` bit for bit.
    @Test(arguments: [
        "0", "-0", "+0", "0.0", "-0.0", ".0", "0.", "00000", "-0e10", "0e-999999",
        "0.1", "-0.25", "1e-05", "12.5", "5.", ".5", "+.5e-3", "1E5", "1e+5", "1e0",
        "9007199254740992", "9007199254740993", "9007199254740994", "9007199254740995",
        "1e-320", "4.9406564584124654e-324", "2e-324", "3e-324", "1e-400", "-1e-400",
        "1.7976931348623157e308", "1.7976931348623158e308", "2.2250738585072014e-308",
        "2.2250738585072011e-308", "2.2250738585072012e-308",
        "123456789012345678901234567890", "0.123456789012345678901234567890",
        "1.00000000000000011102230246251565404236316680908203125",
        "1.00000000000000011102230246251565404236316680908203124",
        "1.00000000000000011102230246251565404236316680908203126",
        "12345678901234567890", "1234567890123456789", "10000000000000000000000000000000",
        "0.000000000000000000000000000001", "123e30", "9007199254740992e15", "9007199254740993e-22",
        "1e22", "1e23", "1e-22", "1e-23", "4503599627370496.5", "4503599627370497.5",
        "0.30000000000000004", "1234.5678901234567", "-0.012345678901234568",
    ])
    func matchesSwiftDouble(_ text: String) throws {
        let expected = try #require(Double(text))
        let result = DecimalParser.parse(text)
        guard case .value(let v) = result else {
            Issue.record("\(text): expected a value, got \(result)")
            return
        }
        #expect(v.bitPattern == expected.bitPattern, "\(text): \(v) != \(expected)")
    }

    @Test(arguments: [
        "", " ", "\t ", "NA", "na", "N/A", "n/a", "null", "NULL", "nan", "NaN", "-nan", "+NAN",
        "inf", "-inf", "+inf", "INF", "Infinity", "-Infinity", "+infinity", "INFINITY", "  nan  ",
        "1e999", "-1e999", "1.7976931348623159e308", "1e400", "99999999999999999999e300", "1e99999999999999999999",
    ])
    func missing(_ text: String) {
        #expect(DecimalParser.parse(text) == .missing, "\(text)")
    }

    @Test(arguments: [
        ".", "-", "+", "-.", "1.2.3", "0x10", "abc", "1e", "1e+", "1e-", "e5", "--1", "+-1", "1 2",
        "1,2", "1.5x", "\"1\"", "1e5.5", "nana", "infin", "- 1", "1-", "١", "1\u{0}", "..5", "N A",
    ])
    func invalid(_ text: String) {
        #expect(DecimalParser.parse(text) == .invalid, "\(text)")
    }

    @Test(arguments: [(" 1.5", 1.5), ("1.5 ", 1.5), ("\t-2\t", -2.0), ("  3e2  ", 300.0)])
    func surroundingBlanksAreIgnored(_ text: String, _ expected: Double) {
        #expect(DecimalParser.parse(text) == .value(expected))
    }

    @Test func emptyBufferIsMissing() {
        #expect(DecimalParser.parse(UnsafeBufferPointer<UInt8>(start: nil, count: 0)) == .missing)
        #expect(DecimalParser.parse([UInt8]()) == .missing)
    }

    /// ~100k random decimals of many shapes against `Double(String)`.
    @Test func randomDecimalsMatchSwiftDouble() {
        var rng = SeededGenerator(seed: 0x5EED_1234)
        let digits = Array("0123456789")
        func digitString(_ n: Int) -> String { String((0..<n).map { _ in digits.randomElement(using: &rng)! }) }
        var mismatches: [String] = []
        for i in 0..<100_000 {
            var s = ""
            switch i % 5 {
            case 0:  // shortest round-trip text of a random double, any magnitude
                let d = Double(bitPattern: rng.next())
                if !d.isFinite { continue }
                s = "\(d)"
            case 1:  // shortest text of sensor-like values
                s = "\(Double.random(in: -20...20, using: &rng))"
            case 2:  // digits.digits with an exponent
                s = (Bool.random(using: &rng) ? "-" : "") + digitString(Int.random(in: 0...25, using: &rng))
                    + "." + digitString(Int.random(in: 0...25, using: &rng))
                if s.hasSuffix(".") && (s == "." || s == "-.") { s += "0" }
                s += "e" + String(Int.random(in: -340...310, using: &rng))
            case 3:  // plain integers and fractions, up to 30 digits
                s = digitString(Int.random(in: 1...30, using: &rng))
                if Bool.random(using: &rng) { s += "." + digitString(Int.random(in: 0...12, using: &rng)) }
            default:  // 15-19 significant digits at exponents around the fast-path limits
                s = digitString(Int.random(in: 15...19, using: &rng)) + "e" + String(Int.random(in: -40...40, using: &rng))
            }
            let expected = Double(s)!
            let got = DecimalParser.parse(s)
            if expected.isInfinite {
                if got != .missing { mismatches.append("\(s): \(got) expected missing") }
            } else if case .value(let v) = got, v.bitPattern == expected.bitPattern {
                continue
            } else {
                mismatches.append("\(s): \(got) expected \(expected)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches, first: \(mismatches.prefix(5))")
    }
}
