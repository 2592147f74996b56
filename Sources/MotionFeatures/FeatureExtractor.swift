import MotionFFT

/// Computes a ``FeaturePlan``'s features for windows of `x`.
///
/// Every feature is computed in float64 from the window's float32 values and stored as float32
/// (docs/signal.md, "Features"); the FFT behind the spectral features runs in single precision (kissfft), so
/// `spectral_entropy` and `spectral_centroid_hz` agree with a float64 numpy reference to about
/// 1e-5 of their scale, and `dominant_freq_hz` can differ from it when two bins' magnitudes are
/// within float32 rounding of each other (a near-tie).
///
/// Stage contract (ARCHITECTURE.md, "The chain"): **in**, windows of `x`, time-major;
/// **out**, one row of `plan.count` features per window (`extract`); no finish and no state
/// between windows. An extractor owns its scratch buffers and FFT plan, so it allocates nothing
/// per window.
///
/// - Important: Not thread-safe, and deliberately not `Sendable`: create one per worker thread.
///
/// Inputs must be finite (the pipeline drops missing values before windowing); for finite
/// inputs no output is NaN or infinite. Edge cases: a constant window (max = min) gives `std`,
/// `var`, `skew`, `kurtosis`, the spectral features and `corr` of exactly 0; with T = 1 all
/// spectral features are 0; with T = 2 `spectral_entropy` is 0 (a single non-DC bin). Values
/// beyond float32 range (e.g. `var` of values near 1e30) saturate to ±`Float.greatestFiniteMagnitude`.
public final class FeatureExtractor {
    /// The plan this extractor computes.
    public let plan: FeaturePlan

    private let length: Int
    private let channelCount: Int
    private let needsSortedValues: Bool
    private let needsSpectrum: Bool
    /// The window's values channel by channel, `values[c*T + t]`.
    private let values: UnsafeMutableBufferPointer<Double>
    /// One channel's values, sorted, and the sort's scratch.
    private let sortedValues: UnsafeMutableBufferPointer<Double>
    private let sortScratch: UnsafeMutableBufferPointer<Double>
    /// One channel's scaled deviations from its mean, the FFT input.
    private let spectrumInput: UnsafeMutableBufferPointer<Float>
    /// One channel's power spectrum, bins 0…T/2.
    private let power: UnsafeMutableBufferPointer<Double>
    /// One channel's results, indexed by `FeatureKind.rawValue`.
    private let results: UnsafeMutableBufferPointer<Double>
    /// Per channel: mean and Σ(x − mean)², for `corr`.
    private let means: UnsafeMutableBufferPointer<Double>
    private let deviationSquares: UnsafeMutableBufferPointer<Double>
    /// `plan.channelKinds` as raw values.
    private let kindIndices: [Int]
    private let fft: RealFFT?

    /// Allocates the scratch buffers and FFT plan for `plan`.
    ///
    /// - Parameter plan: the features, channels, rate and window length.
    /// - Complexity: O(T·C) memory.
    public init(plan: FeaturePlan) {
        self.plan = plan
        length = plan.windowLength
        channelCount = plan.channelNames.count
        needsSortedValues = plan.channelKinds.contains { $0.needsSortedValues }
        needsSpectrum = plan.channelKinds.contains { $0.needsSpectrum }
        values = .allocate(capacity: length * channelCount)
        values.initialize(repeating: 0)
        sortedValues = .allocate(capacity: length)
        sortedValues.initialize(repeating: 0)
        sortScratch = .allocate(capacity: length)
        sortScratch.initialize(repeating: 0)
        spectrumInput = .allocate(capacity: length)
        spectrumInput.initialize(repeating: 0)
        power = .allocate(capacity: length / 2 + 1)
        power.initialize(repeating: 0)
        results = .allocate(capacity: FeatureKind.perChannelCount)
        results.initialize(repeating: 0)
        means = .allocate(capacity: channelCount)
        means.initialize(repeating: 0)
        deviationSquares = .allocate(capacity: channelCount)
        deviationSquares.initialize(repeating: 0)
        kindIndices = plan.channelKinds.map(\.rawValue)
        fft = needsSpectrum && length >= 2 ? RealFFT(length: length) : nil
    }

    deinit {
        values.deallocate()
        sortedValues.deallocate()
        sortScratch.deallocate()
        spectrumInput.deallocate()
        power.deallocate()
        results.deallocate()
        means.deallocate()
        deviationSquares.deallocate()
    }

    /// Computes the features of one window.
    ///
    /// - Parameters:
    ///   - window: T×C float32 values, time-major (`window[t*C + c]`, one row of the dataset's
    ///     `x[N, T, C]`); exactly `plan.windowLength * plan.channelNames.count` values, finite.
    ///   - out: exactly `plan.count` floats, written in `plan.featureNames` order.
    /// - Complexity: O(C·T log T) (sorting and the FFT); allocates nothing.
    public func extract(window: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Float>) {
        precondition(window.count == length * channelCount,
                     "FeatureExtractor: window has \(window.count) values, expected T×C = \(length)×\(channelCount)")
        precondition(out.count == plan.count,
                     "FeatureExtractor: output has room for \(out.count) features, plan has \(plan.count)")
        guard channelCount > 0 else { return }
        let values = values.baseAddress!
        _FeatureKernels.deinterleave(window.baseAddress!, length: length, channels: channelCount, into: values)
        let n = Double(length)
        let perChannel = kindIndices.count
        var column = 0
        for c in 0..<channelCount {
            let channel = values + c * length
            let summary = _FeatureKernels.summarize(channel, count: length,
                                                    spectrumInput: fft == nil ? nil : spectrumInput.baseAddress!)
            means[c] = summary.mean
            deviationSquares[c] = summary.m2
            if perChannel == 0 { continue }
            let r = results
            let variance = summary.m2 / n
            r[FeatureKind.mean.rawValue] = summary.mean
            r[FeatureKind.std.rawValue] = variance.squareRoot()
            r[FeatureKind.variance.rawValue] = variance
            r[FeatureKind.min.rawValue] = summary.minimum
            r[FeatureKind.max.rawValue] = summary.maximum
            r[FeatureKind.range.rawValue] = summary.maximum - summary.minimum
            let energy = summary.sumOfSquares / n
            r[FeatureKind.energy.rawValue] = energy
            r[FeatureKind.rms.rawValue] = energy.squareRoot()
            r[FeatureKind.zeroCrossings.rawValue] = Double(summary.zeroCrossings)
            if summary.isConstant {
                r[FeatureKind.skew.rawValue] = 0
                r[FeatureKind.kurtosis.rawValue] = 0
            } else {
                r[FeatureKind.skew.rawValue] = (summary.m3 / n) / (variance * variance.squareRoot())
                r[FeatureKind.kurtosis.rawValue] = (summary.m4 / n) / (variance * variance) - 3
            }
            if needsSortedValues {
                let sorted = sortedValues.baseAddress!
                sorted.update(from: channel, count: length)
                _FeatureKernels.sort(sorted, count: length, scratch: sortScratch.baseAddress!)
                let median = _FeatureKernels.quantile(sorted: sorted, count: length, fraction: 0.5)
                r[FeatureKind.median.rawValue] = median
                r[FeatureKind.iqr.rawValue] = _FeatureKernels.quantile(sorted: sorted, count: length, fraction: 0.75)
                    - _FeatureKernels.quantile(sorted: sorted, count: length, fraction: 0.25)
                r[FeatureKind.mad.rawValue] = _FeatureKernels.medianAbsoluteDeviation(sorted: sorted, count: length, median: median)
            }
            if needsSpectrum {
                var spectral = (dominantHz: 0.0, entropy: 0.0, centroidHz: 0.0)
                if let fft, !summary.isConstant {
                    fft.powerSpectrum(UnsafeBufferPointer(spectrumInput), into: power)
                    spectral = _FeatureKernels.spectralFeatures(power: power.baseAddress!, length: length, rateHz: plan.rateHz)
                }
                r[FeatureKind.dominantFrequencyHz.rawValue] = spectral.dominantHz
                r[FeatureKind.spectralEntropy.rawValue] = spectral.entropy
                r[FeatureKind.spectralCentroidHz.rawValue] = spectral.centroidHz
            }
            for kind in kindIndices {
                out[column] = _FeatureKernels.storable(r[kind])
                column += 1
            }
        }
        for pair in plan.correlationPairs {
            let r = _FeatureKernels.correlation(
                values + pair.first * length, mean: means[pair.first], m2: deviationSquares[pair.first],
                values + pair.second * length, mean: means[pair.second], m2: deviationSquares[pair.second],
                count: length)
            out[column] = Float(r)
            column += 1
        }
    }

    /// Computes the features of `n` consecutive windows.
    ///
    /// - Parameters:
    ///   - x: N×T×C float32 values (the dataset's `x`), exactly `n·T·C` of them.
    ///   - n: the number of windows, ≥ 0.
    ///   - out: N×F floats (the dataset's `features`), exactly `n·plan.count` of them.
    /// - Complexity: N times that of ``extract(window:into:)``; allocates nothing.
    public func extract(windows x: UnsafeBufferPointer<Float>, count n: Int, into out: UnsafeMutableBufferPointer<Float>) {
        let windowSize = length * channelCount
        let featureCount = plan.count
        precondition(n >= 0, "FeatureExtractor: negative window count \(n)")
        precondition(x.count == n * windowSize,
                     "FeatureExtractor: x has \(x.count) values, expected N×T×C = \(n)×\(length)×\(channelCount)")
        precondition(out.count == n * featureCount,
                     "FeatureExtractor: output has \(out.count) values, expected N×F = \(n)×\(featureCount)")
        for w in 0..<n {
            extract(window: UnsafeBufferPointer(rebasing: x[(w * windowSize)..<((w + 1) * windowSize)]),
                    into: UnsafeMutableBufferPointer(rebasing: out[(w * featureCount)..<((w + 1) * featureCount)]))
        }
    }
}
