/// The times at which one sensor delivers samples: a nominal rate slightly off its label,
/// Gaussian timestamp jitter, independent drops and the recording's app pauses.
///
/// Times are integer nanoseconds on the recording clock, strictly increasing.
struct SampleClock {
    private let startNanos: Double
    private let periodNanos: Double
    private let endNanos: Int64
    private let jitterNanos: Double
    private let dropFraction: Double
    private let gaps: [RecordingPlan.Gap]
    private var gapIndex = 0
    private var k: Int64 = -1
    private var last: Int64 = .min
    private var rng: SeededGenerator

    /// - Parameters:
    ///   - rateHz: the nominal rate; the actual rate differs from it by up to ±0.2 %.
    ///   - jitterSeconds: standard deviation of each timestamp's error (clamped to ±4σ, and
    ///     below a fifth of the period so that times never go backwards).
    ///   - stream: a tag distinguishing this sensor's draws from the others'.
    init(plan: RecordingPlan, rateHz: Double, jitterSeconds: Double, dropFraction: Double, stream: UInt64) {
        rng = SeededGenerator(seed: plan.streamSeed, tags: 100 + stream)
        let period = 1e9 / (rateHz * (1 + rng.uniform(-0.002, 0.002)))
        periodNanos = period
        startNanos = plan.startTime * 1e9 + rng.uniform(0, 1) * period
        endNanos = Int64((plan.endTime * 1e9).rounded(.down))
        jitterNanos = Swift.min(jitterSeconds * 1e9, period / 20)
        self.dropFraction = Swift.max(0, Swift.min(0.99, dropFraction))
        gaps = plan.gaps
    }

    /// The next sample time in nanoseconds, or nil after the end of the recording.
    mutating func next() -> Int64? {
        while true {
            k += 1
            let nominal = startNanos + Double(k) * periodNanos
            if nominal > Double(endNanos) { return nil }
            let jitter = rng.gaussian(sigma: jitterNanos)
            if dropFraction > 0, rng.chance(dropFraction) { continue }
            var time = Int64((nominal + jitter).rounded())
            time = Swift.min(Swift.max(time, last + 1000), endNanos)
            if time <= last { return nil }
            let seconds = Double(time) * 1e-9
            while gapIndex < gaps.count, gaps[gapIndex].end <= seconds { gapIndex += 1 }
            if gapIndex < gaps.count, gaps[gapIndex].start <= seconds { continue }
            last = time
            return time
        }
    }
}
