/// A digital Butterworth low-pass as second-order sections, designed the way
/// `scipy.signal.butter(order, cutoffHz, fs=sampleRateHz, output="sos")` designs it: analog
/// prototype poles, frequency pre-warping, bilinear transform, poles paired into sections with
/// the pair closest to the unit circle last and the overall gain in the first section.
public struct Butterworth: Sendable, Equatable {
    /// One biquad: b0 b1 b2 over 1 a1 a2.
    public struct Section: Sendable, Equatable {
        public var b0, b1, b2, a1, a2: Double
    }
    public var sections: [Section]

    /// A low-pass of even `order` (2, 4, 6…) with its −3 dB point at `cutoffHz`.
    /// - Precondition: 0 < cutoffHz < sampleRateHz / 2.
    public static func lowPass(order: Int, cutoffHz: Double, sampleRateHz: Double) -> Butterworth {
        precondition(order >= 2 && order % 2 == 0, "Butterworth.lowPass: even order ≥ 2")
        precondition(cutoffHz > 0 && cutoffHz < sampleRateHz / 2, "Butterworth.lowPass: cutoff must lie in (0, fs/2)")
        // scipy normalises to fs = 2: Wn = 2 fc / fs, warped = 2 fs tan(π Wn / fs) = 4 tan(π Wn / 2).
        let wn = 2 * cutoffHz / sampleRateHz
        let warped = 4 * tan(Double.pi * wn / 2)
        // Analog prototype poles −exp(iπm/(2N)), m = −N+1, −N+3, …, N−1, scaled by `warped`;
        // keep one of each conjugate pair (imaginary part > 0 after negation: m < 0).
        var poles: [(re: Double, im: Double)] = []
        var m = -order + 1
        while m < 0 {
            let theta = Double.pi * Double(m) / Double(2 * order)
            let re = -cos(theta) * warped, im = -sin(theta) * warped
            // Bilinear transform with fs2 = 4: z = (4 + p) / (4 − p).
            let nr = 4 + re, ni = im, dr = 4 - re, di = -im
            let den = dr * dr + di * di
            poles.append(((nr * dr + ni * di) / den, (ni * dr - nr * di) / den))
            m += 2
        }
        // Gain: k = warped^N / Re(∏(4 − p)) over all N analog poles (conjugate pairs → |4 − p|²).
        var prod = 1.0
        var m2 = -order + 1
        while m2 < 0 {
            let theta = Double.pi * Double(m2) / Double(2 * order)
            let re = -cos(theta) * warped, im = -sin(theta) * warped
            prod *= (4 - re) * (4 - re) + im * im
            m2 += 2
        }
        let gain = pow(warped, Double(order)) / prod
        // Farther from the unit circle first, closest last (scipy's zpk2sos order).
        poles.sort { ($0.re * $0.re + $0.im * $0.im) < ($1.re * $1.re + $1.im * $1.im) }
        var sections = poles.map { p in
            Section(b0: 1, b1: 2, b2: 1, a1: -2 * p.re, a2: p.re * p.re + p.im * p.im)
        }
        sections[0].b0 *= gain
        sections[0].b1 *= gain
        sections[0].b2 *= gain
        return Butterworth(sections: sections)
    }

    /// Number of filter taps as scipy counts them for its default pad length (3 × taps).
    public var padLength: Int { 3 * (2 * sections.count + 1) }

    /// Steady-state initial conditions for a unit step, per section (`scipy.signal.sosfilt_zi`).
    func stepInitialState() -> [(Double, Double)] {
        var scale = 1.0
        var out: [(Double, Double)] = []
        for s in sections {
            // lfilter_zi for a biquad: solve (I − Aᵀ) z = b[1:] − a[1:] b0.
            let bb0 = s.b1 - s.a1 * s.b0, bb1 = s.b2 - s.a2 * s.b0
            let z0 = (bb0 + bb1) / (1 + s.a1 + s.a2)
            let z1 = bb1 - s.a2 * z0
            out.append((scale * z0, scale * z1))
            scale *= (s.b0 + s.b1 + s.b2) / (1 + s.a1 + s.a2)
        }
        return out
    }

    /// Runs the sections over `x` in place (direct form II transposed), starting from `state`
    /// scaled by `x0`; returns nothing, `x` holds the output.
    func filter(_ x: inout [Double], initial: [(Double, Double)], scale: Double) {
        var z = initial.map { ($0.0 * scale, $0.1 * scale) }
        for s in 0..<sections.count {
            let sec = sections[s]
            var (z0, z1) = z[s]
            for i in 0..<x.count {
                let xi = x[i]
                let y = sec.b0 * xi + z0
                z0 = sec.b1 * xi - sec.a1 * y + z1
                z1 = sec.b2 * xi - sec.a2 * y
                x[i] = y
            }
            z[s] = (z0, z1)
        }
    }

    /// Zero-phase filtering as `scipy.signal.sosfiltfilt(sos, x)` with its defaults: odd
    /// extension by `padLength` samples at both ends, steady-state initial conditions, forward
    /// then backward.
    /// - Precondition: x.count > padLength (callers leave shorter runs unfiltered).
    public func filtfilt(_ x: [Double]) -> [Double] {
        let pad = padLength
        let n = x.count
        precondition(n > pad, "Butterworth.filtfilt: input must be longer than the pad length")
        var ext = [Double](repeating: 0, count: n + 2 * pad)
        for i in 0..<pad { ext[i] = 2 * x[0] - x[pad - i] }
        for i in 0..<n { ext[pad + i] = x[i] }
        for i in 0..<pad { ext[pad + n + i] = 2 * x[n - 1] - x[n - 2 - i] }
        let zi = stepInitialState()
        filter(&ext, initial: zi, scale: ext[0])
        ext.reverse()
        filter(&ext, initial: zi, scale: ext[0])
        ext.reverse()
        return Array(ext[pad..<(pad + n)])
    }
}

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
