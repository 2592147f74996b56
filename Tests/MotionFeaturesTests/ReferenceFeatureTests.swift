import MotionFeatures
import Testing

/// Features of the windows in ReferenceValues.swift against numpy/scipy float64 references.
///
/// Tolerances (outputs are float32, so relative error 6e-8 is rounding alone):
/// - time-domain features: |got − want| ≤ 1e-6·|want| + 1e-9·s (s = the channel's max |x|, s² for
///   `var` and `energy`): the absolute term covers values that are 0 up to float64 rounding (e.g.
///   the mean of a zero-mean tone);
/// - `skew`, `kurtosis`, `corr` (dimensionless): 1e-6·|want| + 1e-7;
/// - `zero_crossings`: exact;
/// - spectral features come from a single-precision FFT (docs/signal.md, "Features": within 1e-5 of the spectrum's
///   scale): `spectral_entropy` (scale 1) within 1e-5, `spectral_centroid_hz` (scale rate/2)
///   within 1e-5·rate/2, `dominant_freq_hz` (scale: one bin) exact up to float32 rounding. The
///   generator only keeps dominant bins that win by > 0.1% (near-ties may flip between float32
///   and float64 spectra; the single spike's flat spectrum is skipped).
@Suite struct ReferenceFeatureTests {
    @Test(arguments: ReferenceValues.cases)
    func matchesNumpyReference(_ reference: ReferenceCase) {
        let plan = FeaturePlan(features: ReferenceValues.features, channelNames: reference.channelNames,
                               rateHz: reference.rateHz, windowLength: reference.length)
        #expect(plan.featureNames == reference.featureNames)
        guard plan.featureNames == reference.featureNames else { return }
        let window = reference.bits.map { Float(bitPattern: $0) }
        let got = FeatureExtractor(plan: plan).features(of: window)
        let channels = reference.channelNames.count
        for (index, name) in reference.featureNames.enumerated() where !reference.skipped.contains(name) {
            let want = reference.expected[index]
            let tolerance = Self.tolerance(for: name, want: want, reference: reference, channels: channels)
            let error = abs(Double(got[index]) - want)
            #expect(error <= tolerance, "\(reference.name) \(name): got \(got[index]), want \(want), |error| \(error) > \(tolerance)")
        }
    }

    static func tolerance(for name: String, want: Double, reference: ReferenceCase, channels: Int) -> Double {
        let relative = 1e-6 * abs(want)
        if name.contains("_corr_") || name.hasSuffix("_skew") || name.hasSuffix("_kurtosis") {
            return relative + 1e-7
        }
        if name.hasSuffix("_zero_crossings") { return 0 }
        if name.hasSuffix("_spectral_entropy") { return 1e-5 }
        if name.hasSuffix("_spectral_centroid_hz") { return 1e-5 * reference.rateHz / 2 }
        if name.hasSuffix("_dominant_freq_hz") { return relative }
        let channel = reference.channelNames.firstIndex { name.hasPrefix($0 + "_") }!
        var scale = 0.0
        for t in 0..<reference.length {
            scale = max(scale, abs(Double(Float(bitPattern: reference.bits[t * channels + channel]))))
        }
        if name.hasSuffix("_var") || name.hasSuffix("_energy") { scale *= scale }
        return relative + 1e-9 * scale
    }
}
