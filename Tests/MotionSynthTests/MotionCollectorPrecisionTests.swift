import Foundation
import Testing
import MotionSynth

/// `SynthPrecision.full` (`synth --precision full`): values as `%.17g`, exact float64 round trip,
/// and otherwise the same file as the default.
@Suite struct MotionCollectorPrecisionTests {
    /// Expected texts from Python's `'%.17g' % v` (CPython formats through its own correctly
    /// rounded dtoa, not through the libc call under test).
    @Test(arguments: [
        (-0.10893726348876953, "-0.10893726348876953"), (9.8066501617431641, "9.8066501617431641"),
        (0.0, "0"), (-0.0, "-0"), (1.0, "1"), (-1.0, "-1"), (0.1, "0.10000000000000001"),
        (3.2e-05, "3.1999999999999999e-05"), (1e-4, "0.0001"), (45.2, "45.200000000000003"),
        (123456.789, "123456.789"), (1e17, "1e+17"), (5e-324, "4.9406564584124654e-324"),
        (-1.7976931348623157e308, "-1.7976931348623157e+308"),
    ])
    func significant17Text(value: Double, text: String) {
        #expect(Synth.significant17Text(value) == text)
    }

    @Test func significant17TextReadsBackExactly() {
        var state: UInt64 = 777
        for _ in 0..<20000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let magnitude = [1e-9, 1e-5, 1e-3, 1, 50, 1000, 1e18][Int(state >> 61) % 7]
            let value = (Double(state >> 11) * 0x1.0p-53 * 2 - 1) * magnitude
            let text = Synth.significant17Text(value)
            #expect(Double(text)!.bitPattern == value.bitPattern, "\(value) → \(text)")
            let digits = text.split(separator: "e")[0].filter(\.isNumber).drop(while: { $0 == "0" })
            #expect(digits.count <= 17, "\(text)")
        }
    }

    /// The two precisions write the same rows (sources, labels, times, field counts), and each
    /// fixed6 field is the 6-decimal rounding of the full field's value.
    @Test func fullFileIsTheDefaultFileUnrounded() throws {
        try withTemporaryDirectory { dir in
            var options = SynthOptions(outDirectory: dir + "/fixed6", subjects: 1, minutes: 0.5, seed: 7, recordingsPerSubject: 1)
            #expect(options.precision == .fixed6)
            let rounded = try Synth.write(options)
            options.outDirectory = dir + "/full"
            options.precision = .full
            let full = try Synth.write(options)
            #expect(full.rows == rounded.rows)
            #expect(Double(full.bytes) > 1.6 * Double(rounded.bytes))
            let a = lines(try readText(dir + "/fixed6/subject01/rec-01.csv"))
            let b = lines(try readText(dir + "/full/subject01/rec-01.csv"))
            #expect(a.count == b.count && a[0] == b[0])
            var values = 0, seventeen = 0
            for (x, y) in zip(a.dropFirst(), b.dropFirst()) {
                let fx = x.split(separator: ",", omittingEmptySubsequences: false)
                let fy = y.split(separator: ",", omittingEmptySubsequences: false)
                #expect(fx.count == fy.count && fx[0...2] == fy[0...2], "\(x) / \(y)")
                for (r, f) in zip(fx.dropFirst(3), fy.dropFirst(3)) {
                    let value = Double(String(f))!
                    #expect(Synth.significant17Text(value) == String(f))
                    #expect(Synth.fixed6Text(value) == String(r), "\(f) rounds to \(Synth.fixed6Text(value)), fixed6 wrote \(r)")
                    values += 1
                    if f.split(separator: "e")[0].filter(\.isNumber).drop(while: { $0 == "0" }).count == 17 { seventeen += 1 }
                }
            }
            #expect(values > 10_000)
            #expect(Double(seventeen) > 0.8 * Double(values), "\(seventeen) of \(values) values with 17 digits")
        }
    }

    @Test func fullPrecisionIsForMotionCollectorOnly() throws {
        try withTemporaryDirectory { dir in
            var options = SynthOptions(outDirectory: dir, subjects: 1, minutes: 0.1, format: .csv, recordingsPerSubject: 1)
            options.precision = .full
            #expect(throws: (any Error).self) { try Synth.write(options) }
        }
    }
}
