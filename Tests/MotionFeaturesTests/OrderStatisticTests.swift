import MotionFeatures
import Testing

/// The sort, quantile and median-absolute-deviation kernels against safe Array versions, at
/// every size 0…200 (sorting-network blocks, short tail blocks, equal and unequal merges).
@Suite struct OrderStatisticTests {
    /// numpy's linear quantile, written out directly.
    static func referenceQuantile(_ sorted: [Double], _ q: Double) -> Double {
        let h = Double(sorted.count - 1) * q
        let i = Int(h.rounded(.down))
        let g = h - Double(i)
        let a = sorted[i], b = sorted[min(i + 1, sorted.count - 1)]
        return g >= 0.5 ? b - (b - a) * (1 - g) : a + (b - a) * g
    }

    static func inputs(size: Int, generator g: inout SeededGenerator) -> [[Double]] {
        let random = (0..<size).map { _ in g.normal() }
        let ties = (0..<size).map { _ in Double(Int.random(in: 0..<4, using: &g)) }
        let ascending = (0..<size).map(Double.init)
        let descending = Array(ascending.reversed())
        let organPipe = (0..<size).map { Double(min($0, size - $0)) }
        let signedZeros = (0..<size).map { $0 % 3 == 0 ? -0.0 : ($0 % 3 == 1 ? 0.0 : -1.0) }
        return [random, ties, ascending, descending, organPipe, signedZeros]
    }

    @Test func sortMatchesSortedAtEverySize() {
        var generator = SeededGenerator(seed: 7)
        for size in 0...200 {
            for (kind, input) in Self.inputs(size: size, generator: &generator).enumerated() {
                #expect(_FeatureKernelsTesting.sorted(input) == input.sorted(), "size \(size) input \(kind)")
            }
        }
    }

    @Test func quantilesAndMADMatchReferenceAtEverySize() {
        var generator = SeededGenerator(seed: 8)
        for size in 1...200 {
            for (kind, input) in Self.inputs(size: size, generator: &generator).enumerated() {
                let sorted = input.sorted()
                for q in [0.25, 0.5, 0.75] {
                    #expect(_FeatureKernelsTesting.quantile(sorted: sorted, fraction: q) == Self.referenceQuantile(sorted, q),
                            "size \(size) input \(kind) q \(q)")
                }
                let median = Self.referenceQuantile(sorted, 0.5)
                let deviations = sorted.map { abs($0 - median) }.sorted()
                #expect(_FeatureKernelsTesting.medianAbsoluteDeviation(sorted: sorted, median: median)
                        == Self.referenceQuantile(deviations, 0.5), "size \(size) input \(kind)")
            }
        }
    }
}
