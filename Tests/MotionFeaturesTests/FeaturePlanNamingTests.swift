import MotionFeatures
import Testing

/// Output column names and order (docs/signal.md, "Features").
@Suite struct FeaturePlanNamingTests {
    @Test func catalogueIsInSpecOrder() {
        #expect(FeatureCatalogue.names == [
            "mean", "std", "var", "min", "max", "range", "median", "iqr", "rms", "mad", "skew",
            "kurtosis", "zero_crossings", "energy", "dominant_freq_hz", "spectral_entropy",
            "spectral_centroid_hz", "corr",
        ])
        #expect(FeatureCatalogue.contains("zero_crossings"))
        #expect(!FeatureCatalogue.contains("variance"))
    }

    @Test func channelByChannelInListOrderThenCorrBySensor() {
        let plan = FeaturePlan(
            features: ["rms", "corr", "mean"],
            channelNames: ["acc_x", "acc_y", "acc_z", "acc_mag", "gyro_x", "gyro_z", "baro", "mag_y"],
            rateHz: 50, windowLength: 128)
        #expect(plan.featureNames == [
            "acc_x_rms", "acc_x_mean", "acc_y_rms", "acc_y_mean", "acc_z_rms", "acc_z_mean",
            "acc_mag_rms", "acc_mag_mean", "gyro_x_rms", "gyro_x_mean", "gyro_z_rms", "gyro_z_mean",
            "baro_rms", "baro_mean", "mag_y_rms", "mag_y_mean",
            "acc_corr_xy", "acc_corr_xz", "acc_corr_yz", "gyro_corr_xz",
        ])
        #expect(plan.count == 20)
    }

    @Test func sensorsFollowTheirFirstChannel() {
        let plan = FeaturePlan(features: ["corr"], channelNames: ["b_y", "a_x", "b_x", "a_y", "_x", "_y"],
                               rateHz: 10, windowLength: 4)
        // "b" appears first; a bare "_x"/"_y" has no sensor name and is not a sensor.
        #expect(plan.featureNames == ["b_corr_xy", "a_corr_xy"])
    }

    @Test func noCorrColumnsUnlessRequested() {
        let plan = FeaturePlan(features: ["mean"], channelNames: ["acc_x", "acc_y", "acc_z"], rateHz: 50, windowLength: 8)
        #expect(plan.featureNames == ["acc_x_mean", "acc_y_mean", "acc_z_mean"])
    }

    @Test(arguments: [
        ([String](), ["a_x", "a_y"], [String]()),
        (["corr"], ["a_x"], [String]()),
        (["corr"], ["a_x", "a_z"], ["a_corr_xz"]),
        (["corr"], ["a_z", "a_y"], ["a_corr_yz"]),
        (["std", "corr"], [String](), [String]()),
    ])
    func edgeCases(features: [String], channels: [String], expected: [String]) {
        let plan = FeaturePlan(features: features, channelNames: channels, rateHz: 1, windowLength: 1)
        let perChannel = channels.flatMap { channel in features.filter { $0 != "corr" }.map { "\(channel)_\($0)" } }
        #expect(plan.featureNames == perChannel + expected)
    }

    @Test func corrValuesFollowNames() {
        // a_y = 2·a_x (corr 1), a_z = −a_x (corr −1), so xy = 1, xz = −1, yz = −1.
        let t = 16
        var window = [Float]()
        for i in 0..<t {
            let x = Float(i % 5) - 1.5
            window += [x, 2 * x, -x]
        }
        let plan = FeaturePlan(features: ["corr", "mean"], channelNames: ["a_x", "a_y", "a_z"], rateHz: 10, windowLength: t)
        let got = FeatureExtractor(plan: plan).features(of: window)
        #expect(Array(got.suffix(3)) == [1, -1, -1])
    }
}
