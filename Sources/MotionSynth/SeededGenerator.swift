import Foundation

/// xoshiro256** seeded through splitmix64: the only randomness MotionSynth uses.
///
/// Every random quantity of a synthetic recording comes from one of these, derived from the
/// user's seed and a fixed list of tags (subject, recording, purpose), so the same options give
/// the same bytes on every run and every machine with the same libm, and changing how one
/// quantity is drawn does not shift the draws of another.
struct SeededGenerator: RandomNumberGenerator {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64
    /// The second value of the last Box–Muller pair, if not used yet.
    private var spareGaussian: Double?

    /// A generator whose state is filled by splitmix64 from `seed`.
    init(seed: UInt64) {
        var z = seed
        s0 = SeededGenerator.splitmix64(&z)
        s1 = SeededGenerator.splitmix64(&z)
        s2 = SeededGenerator.splitmix64(&z)
        s3 = SeededGenerator.splitmix64(&z)
        if s0 | s1 | s2 | s3 == 0 { s0 = 0x9E37_79B9_7F4A_7C15 }  // all-zero state is a fixed point
    }

    /// A generator for one purpose: `seed` mixed with `tags` (subject, recording, stream id…).
    init(seed: UInt64, tags: UInt64...) {
        self.init(seed: SeededGenerator.derive(seed, tags))
    }

    /// Mixes tags into a seed; different tag lists give unrelated seeds.
    static func derive(_ seed: UInt64, _ tags: [UInt64]) -> UInt64 {
        var z = seed
        var h = splitmix64(&z)
        for tag in tags {
            var t = h ^ (tag &* 0xD1B5_4A32_D192_ED03)
            h = splitmix64(&t)
        }
        return h
    }

    /// One step of splitmix64 (Steele, Lea, Flood 2014).
    static func splitmix64(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = s3 << 45 | s3 >> 19
        return result
    }

    /// Uniform in [0, 1), 53 bits.
    mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// Uniform in [lower, upper).
    mutating func uniform(_ lower: Double, _ upper: Double) -> Double {
        lower + (upper - lower) * unit()
    }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool {
        unit() < p
    }

    /// +1 or −1 with equal probability.
    mutating func sign() -> Double {
        next() >> 63 == 0 ? 1 : -1
    }

    /// A standard normal deviate (Marsaglia's polar method; the pair's second value is kept for
    /// the next call).
    mutating func gaussian() -> Double {
        if let spare = spareGaussian {
            spareGaussian = nil
            return spare
        }
        while true {
            let u = 2 * unit() - 1, v = 2 * unit() - 1
            let s = u * u + v * v
            if s > 0, s < 1 {
                let factor = (-2 * Foundation.log(s) / s).squareRoot()
                spareGaussian = v * factor
                return u * factor
            }
        }
    }

    /// A normal deviate with standard deviation `sigma`, clamped to ±`limit` sigmas.
    mutating func gaussian(sigma: Double, limit: Double = 4) -> Double {
        sigma * Swift.min(limit, Swift.max(-limit, gaussian()))
    }
}
