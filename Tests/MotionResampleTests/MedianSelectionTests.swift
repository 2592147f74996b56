import MotionTestSupport
import Testing
@testable import MotionResample

/// `Antialias.medianInterval` finds the middle intervals by selection; it must give exactly the
/// sorted array's median on every shape of input (ties, runs, sorted, reversed, organ pipes).
@Suite struct MedianSelectionTests {
    static func sortedMedian(_ times: [Double]) -> Double {
        guard times.count >= 2 else { return 0 }
        let d = zip(times.dropFirst(), times).map { $0 - $1 }.sorted()
        let n = d.count
        return n % 2 == 1 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2
    }

    @Test(arguments: 0..<40)
    func selectionEqualsSorting(seed: Int) {
        var g = SeededGenerator(seed: UInt64(seed) &+ 77)
        let n = [2, 3, 4, 5, 100, 101, 1000, 20_001][seed % 8]
        var intervals: [Double]
        switch seed % 5 {
        case 0: intervals = (0..<(n - 1)).map { _ in 0.01 + Double.random(in: -0.002...0.002, using: &g) }
        case 1: intervals = (0..<(n - 1)).map { _ in [0.01, 0.01, 0.02, 0.005].randomElement(using: &g)! }   // many ties
        case 2: intervals = (0..<(n - 1)).map { Double($0 % 7) * 0.001 + 0.001 }                          // runs
        case 3: intervals = (0..<(n - 1)).map { Double(min($0, n - 2 - $0)) * 1e-4 + 1e-3 }               // organ pipe
        default: intervals = (0..<(n - 1)).map { Double(n - $0) * 1e-5 }                                   // decreasing
        }
        var times = [0.0]
        for d in intervals { times.append(times.last! + d) }
        #expect(Antialias.medianInterval(times).bitPattern == Self.sortedMedian(times).bitPattern)
        // `antialias_from: leading`: the first 256 intervals (all of them when there are fewer).
        #expect(Antialias.leadingMedianInterval(times).bitPattern == Self.sortedMedian(Array(times.prefix(257))).bitPattern)
    }

    @Test func leadingSpanAtItsEdges() {
        // 255, 256 and 257 intervals, the last one far out: only what lies within the first 256 counts.
        for n in [256, 257, 258] {
            var times = (0..<(n - 1)).map { Double($0) * 0.01 }
            times.append(times.last! + (n % 2 == 0 ? 1 : 100))
            let head = Array(times.prefix(257))
            #expect(Antialias.leadingMedianInterval(times) == Self.sortedMedian(head))
        }
        #expect(Antialias.leadingMedianInterval([]) == 0 && Antialias.leadingMedianInterval([1]) == 0)
        #expect(Antialias.leadingMedianInterval([1, 1.5]) == 0.5)
        var none: [Double] = []
        #expect(Antialias.median(of: &none) == 0)
    }

    @Test func allEqualIntervalsAndSelectionFallback() {
        let times = (0..<5000).map { Double($0) * 0.01 }
        #expect(Antialias.medianInterval(times) == Self.sortedMedian(times))
        // Every order statistic of a small array.
        let values: [Double] = [5, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9]
        for k in values.indices {
            var v = values
            let got = v.withUnsafeMutableBufferPointer { Antialias.select($0, k) }
            #expect(got == values.sorted()[k])
        }
    }
}
