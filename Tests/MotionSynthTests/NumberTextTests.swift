import Testing
import MotionSynth

@Suite struct NumberTextTests {
    @Test(arguments: [
        (0.0, "0.0"), (-0.0, "0.0"), (1.0, "1.0"), (-1.0, "-1.0"), (45.2, "45.2"),
        (-0.0123456, "-0.012346"), (0.98765432, "0.987654"), (1e-7, "0.0"), (-4e-7, "0.0"),
        (0.000001, "0.000001"), (-0.0000012, "-0.000001"), (123456.789012345, "123456.789012"),
        (9.80665, "9.80665"), (101.325, "101.325"), (0.1, "0.1"), (-3.0000004, "-3.0"),
    ])
    func fixedPointText(value: Double, text: String) {
        #expect(Synth.fixed6Text(value) == text)
    }

    @Test func fixedPointTextReadsBackAsTheRoundedValue() {
        var state: UInt64 = 12345
        for _ in 0..<20000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let magnitude = [1e-6, 1e-3, 1, 50, 1000][Int(state >> 61) % 5]
            let value = (Double(state >> 11) * 0x1.0p-53 * 2 - 1) * magnitude
            let text = Synth.fixed6Text(value)
            #expect(Double(text)! == (value * 1e6).rounded() / 1e6, "\(value) → \(text)")
            #expect(!text.hasPrefix("-0.0") || text.count > 4)
        }
    }
}

@Suite struct TimeTextTests {
    /// Times are written without building a `String`, but must equal `Double.description` of
    /// `Double(micros) / 1e6`, the form docs/inputs.md, "MotionCollector" gives for `When`.
    @Test func timesMatchDoubleDescription() {
        var state: UInt64 = 99
        var samples: [Int64] = [0, 1, 5, 10, 99, 100, 101, 10_200, 1_000_000, 120_000_000, 999_999_999_999_999,
                                1_000_000_000_000_000, 12_345_678_901_234_567]
        for _ in 0..<50_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let digits = Int(state >> 59) % 17  // 0…16 digits
            var bound: UInt64 = 1
            for _ in 0..<digits { bound *= 10 }
            samples.append(Int64((state >> 3) % bound))
        }
        for micros in samples {
            #expect(Synth.secondsText(micros: micros) == (Double(micros) / 1e6).description, "\(micros) µs")
        }
    }
}
