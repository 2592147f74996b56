import MotionFeatures
import Testing

/// `extract(windows:)` over N×T×C equals `extract(window:)` window by window, and reusing one
/// extractor gives the same results as a fresh one.
@Suite struct BatchExtractionTests {
    @Test(arguments: [(0, 16), (1, 16), (7, 128), (5, 101), (3, 1)])
    func batchEqualsPerWindow(windows n: Int, length: Int) {
        var generator = SeededGenerator(seed: UInt64(n * 1000 + length))
        let channels = ["acc_x", "acc_y", "acc_z", "acc_mag", "temp"]
        let plan = FeaturePlan(features: FeatureCatalogue.names.shuffled(using: &generator), channelNames: channels,
                               rateHz: 50, windowLength: length)
        let windowSize = length * channels.count
        let x = (0..<(n * windowSize)).map { _ in Float(generator.normal()) }
        let batch = FeatureExtractor(plan: plan).features(ofWindows: x, count: n)
        #expect(batch.count == n * plan.count)
        let reused = FeatureExtractor(plan: plan)
        for w in 0..<n {
            let window = Array(x[(w * windowSize)..<((w + 1) * windowSize)])
            let single = reused.features(of: window)
            let fresh = FeatureExtractor(plan: plan).features(of: window)
            #expect(Array(batch[(w * plan.count)..<((w + 1) * plan.count)]) == single, "window \(w)")
            #expect(single == fresh, "window \(w)")
        }
    }
}
