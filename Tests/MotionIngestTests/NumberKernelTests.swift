import Testing
@testable import MotionIngest

/// The reader lets `scanDecimal` load eight bytes at a time past a field's end (up to the end of
/// its buffer); these check that nothing past `end` is ever used, against the exact-bounds parse.
@Suite struct NumberKernelTests {
    @Test func digitsBeyondEndAreNeverConsumed() {
        var rng = SeededGenerator(seed: 99)
        let alphabet = Array("0123456789".utf8)
        for length in 0...24 {
            for _ in 0..<200 {
                var field = (0..<length).map { _ in alphabet.randomElement(using: &rng)! }
                if length > 2 && Bool.random(using: &rng) { field[Int.random(in: 0..<length, using: &rng)] = UInt8(ascii: ".") }
                // Digits after the field: a parser reading past `end` would take them.
                let padding = (0..<Int.random(in: 0...16, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
                let buffer = field + padding
                let expected = DecimalParser.parse(field)
                buffer.withUnsafeBufferPointer { b in
                    let start = b.baseAddress!
                    let scan = _NumberKernels.scanDecimal(start, start + field.count, readableEnd: start + b.count)
                    let got: DecimalParser.Result
                    if scan.stop != start + field.count || scan.status == .notANumber {
                        got = _NumberKernels.isMissingWord(start, start + field.count) ? .missing : .invalid
                    } else {
                        got = scan.status == .value ? .value(scan.value) : .missing
                    }
                    let fieldText = String(decoding: field, as: UTF8.self)
                    let expectedBits: UInt64? = if case .value(let v) = expected { v.bitPattern } else { nil }
                    let gotBits: UInt64? = if case .value(let v) = got { v.bitPattern } else { nil }
                    #expect(got == expected && gotBits == expectedBits, "field `\(fieldText)` padding \(padding.count): \(got) vs \(expected)")
                }
            }
        }
    }

    @Test(arguments: 0...8)
    func digitRunCountsAndValues(_ count: Int) {
        let digits = Array("87654321".utf8.prefix(count)) + Array(",9999999".utf8)
        digits.withUnsafeBufferPointer { b in
            let run = _NumberKernels.digitRun(b.baseAddress!, b.baseAddress! + b.count)
            #expect(run.count == count)
            #expect(run.value == (count == 0 ? 0 : UInt64(String(decoding: digits.prefix(count), as: UTF8.self))!))
        }
    }
}
