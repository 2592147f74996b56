import MotionFeatures
import Testing

/// No feature is ever NaN or infinite (docs/signal.md, "Features"), over random, constant, tiny, huge and very
/// short windows.
@Suite struct FeatureFinitenessTests {
    enum Shape: CaseIterable { case normal, constant, huge, tiny, spike, mixed }

    static func window(_ shape: Shape, length: Int, channels: Int, generator g: inout SeededGenerator) -> [Float] {
        var window = [Float](repeating: 0, count: length * channels)
        for c in 0..<channels {
            let constant = Float(g.normal() * 100)
            let offset = Double.random(in: -1e6...1e6, using: &g)
            for t in 0..<length {
                let value: Double
                switch shape {
                case .normal: value = g.normal()
                case .constant: value = Double(constant)
                case .huge: value = g.normal() * 1e37
                case .tiny: value = g.normal() * 1e-40   // float32 subnormals
                case .spike: value = t == length / 2 ? 1e30 : 0
                case .mixed: value = c % 2 == 0 ? Double(constant) : offset + g.normal() * 0.05
                }
                window[t * channels + c] = Float(value)
            }
        }
        return window
    }

    @Test(arguments: Shape.allCases)
    func everyFeatureIsFinite(_ shape: Shape) {
        var generator = SeededGenerator(seed: 0xF1A1_7E00 &+ UInt64(Shape.allCases.firstIndex(of: shape)!))
        let channels = ["s_x", "s_y", "s_z", "s_mag"]
        for length in [1, 2, 3, 4, 5, 7, 8, 16, 31, 64, 101, 128] {
            let plan = FeaturePlan(features: FeatureCatalogue.names, channelNames: channels, rateHz: 50, windowLength: length)
            let extractor = FeatureExtractor(plan: plan)
            for _ in 0..<5 {
                let window = Self.window(shape, length: length, channels: channels.count, generator: &generator)
                let got = extractor.features(of: window)
                for (name, value) in zip(plan.featureNames, got) {
                    #expect(value.isFinite, "\(shape) T=\(length) \(name) = \(value)")
                }
            }
        }
    }

    @Test func constantWindowGivesZerosWhereScipyGivesNaN() {
        let plan = FeaturePlan(features: FeatureCatalogue.names, channelNames: ["c_x", "c_y"], rateHz: 50, windowLength: 128)
        let value: Float = 1_000_000.0625  // exactly representable: float32 steps are 1/16 here
        let window = [Float](repeating: value, count: 256)
        let got = FeatureExtractor(plan: plan).features(of: window)
        let byName = Dictionary(uniqueKeysWithValues: zip(plan.featureNames, got))
        for feature in ["std", "var", "range", "iqr", "mad", "skew", "kurtosis", "zero_crossings",
                        "dominant_freq_hz", "spectral_entropy", "spectral_centroid_hz"] {
            #expect(byName["c_x_\(feature)"] == 0, "c_x_\(feature)")
        }
        #expect(byName["c_corr_xy"] == 0)
        #expect(byName["c_x_mean"] == value)
        #expect(byName["c_x_median"] == value)
    }
}
