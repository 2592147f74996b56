import Testing
@testable import MotionReport

@Suite struct NiceScaleTests {
    @Test(arguments: [
        (0.0, 1.0, 5, [0.0, 0.25, 0.5, 0.75, 1.0]),
        (0.0, 97.0, 6, [0.0, 20, 40, 60, 80, 100]),
        (-3.2, 12.7, 5, [-5.0, 0, 5, 10, 15]),
        (9.1, 9.9, 5, [9.0, 9.2, 9.4, 9.6, 9.8, 10.0]),
        (0.0, 0.0, 5, [-1.0, -0.5, 0, 0.5, 1.0]),
        (0.0, 12345.0, 6, [0.0, 2500, 5000, 7500, 10000, 12500]),
    ])
    func ticksAreRoundAndCoverTheRange(min: Double, max: Double, ticks: Int, expected: [Double]) {
        let s = NiceScale(min: min, max: max, ticks: ticks)
        #expect(s.ticks == expected, "NiceScale(\(min), \(max), \(ticks))")
        #expect(s.lower <= min && s.upper >= max)
    }

    @Test(arguments: [(0.25, 0.5, "0.50"), (20.0, 40.0, "40"), (0.2, 9.4, "9.4"), (2.5, 5.0, "5.0"), (0.1, -0.0, "0.0")])
    func labelsHaveTheDecimalsTheStepNeeds(step: Double, value: Double, expected: String) {
        #expect(NiceScale.format(value, step: step) == expected)
    }

    @Test(arguments: [(13.0, [0.0, 2, 4, 6, 8, 10, 12, 14]), (3.0, [0.0, 1, 2, 3]), (1.0, [0.0, 1])])
    func countScalesHaveWholeTicks(max: Double, expected: [Double]) {
        #expect(NiceScale(min: 0, max: max, ticks: 6, integer: true).ticks == expected)
    }

    @Test func anUnwidenedTimeAxisEndsWithTheData() {
        let s = NiceScale(min: 0, max: 2.54, ticks: 6, widen: false)
        #expect(s.lower == 0 && s.upper == 2.54)
        #expect(s.ticks == [0, 0.5, 1, 1.5, 2, 2.5])
    }

    @Test func nonFiniteBoundsFallBackToUnitRange() {
        let s = NiceScale(min: .nan, max: .infinity)
        #expect(s.lower == 0 && s.upper == 1)
    }

    @Test(arguments: [(0.0, 500.0, "0"), (1500.0, 500.0, "1500"), (2500.0, 2500.0, "2.5k"), (0.0, 2500.0, "0"),
                      (20_000.0, 5000.0, "20k"), (1_000_000.0, 500_000.0, "1M"), (1_500_000.0, 500_000.0, "1.5M")])
    func countLabelsUseSuffixes(value: Double, step: Double, expected: String) {
        #expect(CountFormat.label(value, step: step) == expected)
    }
}
