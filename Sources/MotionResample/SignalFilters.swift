#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The signal steps of composable transforms (issue 18), each defined as the numpy/scipy call it
/// equals: Butterworth design as `scipy.signal.butter(order, cutoff, btype, fs=rate, output="sos")`,
/// `sosfilt` started at steady state (`sosfilt_zi`), `sosfiltfilt` with its default padding,
/// `scipy.ndimage.median_filter(mode="nearest")` and a first difference. All work on one
/// contiguous gap-free run of float64 samples.
public enum SignalFilters {
    public enum BandType: String, Sendable, CaseIterable {
        case lowpass, highpass, bandpass
    }

    /// Second-order sections `[b0, b1, b2, 1, a1, a2]` as scipy orders them.
    public typealias SOS = [[Double]]

    /// A complex number, enough for filter design.
    struct Complex: Equatable {
        var re: Double, im: Double
        init(_ re: Double, _ im: Double = 0) { self.re = re; self.im = im }
        static func + (a: Complex, b: Complex) -> Complex { Complex(a.re + b.re, a.im + b.im) }
        static func - (a: Complex, b: Complex) -> Complex { Complex(a.re - b.re, a.im - b.im) }
        static func * (a: Complex, b: Complex) -> Complex { Complex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re) }
        static func / (a: Complex, b: Complex) -> Complex {
            // numpy's complex division (Smith's method, as CPython and numpy do).
            let abs_br = abs(b.re), abs_bi = abs(b.im)
            if abs_br >= abs_bi {
                if abs_br == 0 { return Complex(a.re / abs_br, a.im / abs_br) }
                let ratio = b.im / b.re, denom = b.re + b.im * ratio
                return Complex((a.re + a.im * ratio) / denom, (a.im - a.re * ratio) / denom)
            }
            let ratio = b.re / b.im, denom = b.re * ratio + b.im
            return Complex((a.re * ratio + a.im) / denom, (a.im * ratio - a.re) / denom)
        }
        var magnitude: Double { hypot(re, im) }
        var conj: Complex { Complex(re, -im) }
        var isReal: Bool { im == 0 }
        /// The principal square root, as numpy computes it.
        var squareRoot: Complex {
            if re == 0 && im == 0 { return Complex(0, im) }
            let t = ((abs(re) + magnitude) / 2).squareRoot()
            if re >= 0 { return Complex(t, im / (2 * t)) }
            return Complex(abs(im) / (2 * t), im >= 0 ? t : -t)
        }
    }

    // MARK: - Design

    /// `scipy.signal.butter(order, cutoffHz, btype, fs=rateHz, output="sos")`.
    ///
    /// - Parameter cutoffHz: one frequency for low- and high-pass, two (low, high) for band-pass,
    ///   each in (0, rateHz / 2).
    /// - Precondition: 1 ≤ order ≤ 16 and valid cutoffs (the pipeline decoder checks them first).
    public static func butter(order: Int, cutoffHz: [Double], type: BandType, rateHz: Double) -> SOS {
        precondition(order >= 1 && order <= 16, "butter: order in 1...16")
        precondition(cutoffHz.count == (type == .bandpass ? 2 : 1), "butter: one cutoff, two for bandpass")
        precondition(cutoffHz.allSatisfy { $0 > 0 && $0 < rateHz / 2 }, "butter: cutoffs in (0, fs/2)")
        // buttap: p = -exp(1j * pi * m / (2N)), m = -N+1, -N+3, …, N-1; no zeros; k = 1.
        var p: [Complex] = []
        var m = -order + 1
        while m < order {
            let theta = Double.pi * Double(m) / Double(2 * order)
            // -exp(i θ) = (-cos θ, -sin θ)
            p.append(Complex(-cos(theta), -sin(theta)))
            m += 2
        }
        var z: [Complex] = []
        var k = 1.0
        // Pre-warp with fs normalised to 2: warped = 2 fs tan(pi Wn / fs) = 4 tan(pi Wn / 2), Wn = 2 f / rate.
        let fs = 2.0
        let warped = cutoffHz.map { 2 * fs * tan(Double.pi * (2 * $0 / rateHz) / fs) }
        let degree = p.count - z.count
        switch type {
        case .lowpass:
            let wo = warped[0]
            z = z.map { $0 * Complex(wo) }
            p = p.map { $0 * Complex(wo) }
            k *= pow(wo, Double(degree))
        case .highpass:
            let wo = warped[0]
            // lp2hp_zpk: z = wo / z, p = wo / p, zeros at 0 for the degree, k *= real(prod(-z) / prod(-p)).
            var prodZ = Complex(1), prodP = Complex(1)
            for x in z { prodZ = prodZ * (Complex(0) - x) }
            for x in p { prodP = prodP * (Complex(0) - x) }
            z = z.map { Complex(wo) / $0 } + Array(repeating: Complex(0), count: degree)
            p = p.map { Complex(wo) / $0 }
            k *= (prodZ / prodP).re
        case .bandpass:
            let wo = (warped[0] * warped[1]).squareRoot(), bw = warped[1] - warped[0]
            // lp2bp_zpk
            let zl = z.map { $0 * Complex(bw / 2) }, pl = p.map { $0 * Complex(bw / 2) }
            func shift(_ x: [Complex], _ sign: Double) -> [Complex] {
                x.map { v in
                    let r = (v * v - Complex(wo * wo)).squareRoot
                    return sign > 0 ? v + r : v - r
                }
            }
            z = shift(zl, 1) + shift(zl, -1) + Array(repeating: Complex(0), count: degree)
            p = shift(pl, 1) + shift(pl, -1)
            k *= pow(bw, Double(degree))
        }
        // bilinear_zpk with fs = 2: fs2 = 4; z → (4 + z) / (4 − z); zeros at −1 for the degree.
        let fs2 = Complex(2 * fs)
        var prodZ = Complex(1), prodP = Complex(1)
        for x in z { prodZ = prodZ * (fs2 - x) }
        for x in p { prodP = prodP * (fs2 - x) }
        let dz = z.map { (fs2 + $0) / (fs2 - $0) } + Array(repeating: Complex(-1), count: p.count - z.count)
        let dp = p.map { (fs2 + $0) / (fs2 - $0) }
        k *= (prodZ / prodP).re
        return zpk2sos(dz, dp, k)
    }

    /// `scipy.signal.zpk2sos(z, p, k, pairing="nearest")` for filters with as many zeros as poles.
    static func zpk2sos(_ zeros: [Complex], _ poles: [Complex], _ k: Double) -> SOS {
        var z = zeros, p = poles
        let sections = (max(p.count, z.count) + 1) / 2
        if p.count % 2 == 1 {
            p.append(Complex(0))
            z.append(Complex(0))
        }
        z = cplxreal(z)
        p = cplxreal(p)
        var pairs: [(z: [Complex], p: [Complex])] = []
        for _ in 0..<sections {
            // The pole closest to the unit circle.
            let i1 = argmin(p.map { abs(1 - $0.magnitude) })
            let p1 = p.remove(at: i1)
            if p1.isReal && !p.contains(where: \.isReal) {
                let j = nearest(z, p1, .real)
                let z1 = z.remove(at: j)
                pairs.append(([z1, Complex(0)], [p1, Complex(0)]))
            } else if p.count + 1 == z.count && !p1.isReal && p.filter(\.isReal).count == 1 && z.filter(\.isReal).count == 1 {
                let j = nearest(z, p1, .complex)
                let z1 = z.remove(at: j)
                pairs.append(([z1, z1.conj], [p1, p1.conj]))
            } else {
                let p2: Complex
                if p1.isReal {
                    let reals = p.indices.filter { p[$0].isReal }
                    let j = reals[argmin(reals.map { abs(p[$0].magnitude - 1) })]
                    p2 = p.remove(at: j)
                } else {
                    p2 = p1.conj
                }
                if !z.isEmpty {
                    let j = nearest(z, p1, .any)
                    let z1 = z.remove(at: j)
                    if !z1.isReal {
                        pairs.append(([z1, z1.conj], [p1, p2]))
                    } else if !z.isEmpty {
                        let j2 = nearest(z, p1, .real)
                        let z2 = z.remove(at: j2)
                        pairs.append(([z1, z2], [p1, p2]))
                    } else {
                        pairs.append(([z1], [p1, p2]))
                    }
                } else {
                    pairs.append(([], [p1, p2]))
                }
            }
        }
        // The worst (closest to the unit circle) last.
        var sos: SOS = pairs.reversed().map { pair in
            let b = poly(pair.z), a = poly(pair.p)
            // _single_zpksos: pad to length 3 at the front (b = [0…] + poly).
            let bb = Array(repeating: 0.0, count: 3 - b.count) + b
            let aa = Array(repeating: 0.0, count: 3 - a.count) + a
            return bb + aa
        }
        for j in 0..<3 { sos[0][j] *= k }
        return sos
    }

    enum Which { case real, complex, any }

    /// `_nearest_real_complex_idx`: the index of the element of `fro` nearest `to`, among the real
    /// ones, the complex ones or all (numpy's stable argsort of |fro − to|).
    static func nearest(_ fro: [Complex], _ to: Complex, _ which: Which) -> Int {
        let order = fro.indices.sorted { a, b in
            let da = (fro[a] - to).magnitude, db = (fro[b] - to).magnitude
            return da != db ? da < db : a < b
        }
        switch which {
        case .any: return order[0]
        case .real: return order.first { fro[$0].isReal }!
        case .complex: return order.first { !fro[$0].isReal }!
        }
    }

    static func argmin(_ xs: [Double]) -> Int {
        var best = 0
        for i in xs.indices where xs[i] < xs[best] { best = i }
        return best
    }

    /// `np.concatenate(_cplxreal(x))` as zpk2sos does: the complex values with positive imaginary
    /// part (one of each pair, averaged with its conjugate), then the real ones; each group sorted
    /// as scipy sorts it.
    static func cplxreal(_ x: [Complex]) -> [Complex] {
        // scipy: tol = 100 * eps; values with |im| <= tol * |x| are real.
        let tol = 100 * Double.ulpOfOne
        var reals: [Complex] = [], complexes: [Complex] = []
        for v in x {
            if abs(v.im) <= tol * v.magnitude { reals.append(Complex(v.re)) } else { complexes.append(v) }
        }
        reals.sort { $0.re < $1.re }
        // Sort complex by real part then |imag| (np.lexsort((abs(z.imag), z.real))); keep positive halves.
        complexes.sort { a, b in a.re != b.re ? a.re < b.re : abs(a.im) < abs(b.im) }
        let positives = complexes.filter { $0.im > 0 }
        let negatives = complexes.filter { $0.im < 0 }
        // scipy averages each pair: zc = (zp + zn.conj()) / 2
        var out: [Complex] = []
        for (a, b) in zip(positives, negatives) { out.append(Complex((a.re + b.re) / 2, (a.im - b.im) / 2)) }
        // _cplxreal returns (zc, zr) and zpk2sos concatenates them: one of each conjugate pair
        // (the pairing adds the conjugate back), then the reals.
        return out + reals
    }

    /// The real coefficients of ∏ (x − rᵢ), highest power first (numpy.poly, real part).
    static func poly(_ roots: [Complex]) -> [Double] {
        var c: [Complex] = [Complex(1)]
        for r in roots {
            var next = c + [Complex(0)]
            for i in stride(from: c.count, to: 0, by: -1) { next[i] = next[i] - r * c[i - 1] }
            c = next
        }
        return c.map(\.re)
    }

    // MARK: - Filtering

    /// `scipy.signal.sosfilt_zi(sos)`: the steady-state state of each section for a unit step.
    public static func sosfiltZi(_ sos: SOS) -> [[Double]] {
        var scale = 1.0
        var out: [[Double]] = []
        for s in sos {
            let b = [s[0] / s[3], s[1] / s[3], s[2] / s[3]], a = [1.0, s[4] / s[3], s[5] / s[3]]
            // lfilter_zi: solve (I − companion(a).T) zi = b[1:] − a[1:] b[0]
            let bb0 = b[1] - a[1] * b[0], bb1 = b[2] - a[2] * b[0]
            let z0 = (bb0 + bb1) / (1 + a[1] + a[2])
            let z1 = bb1 - a[2] * z0
            out.append([scale * z0, scale * z1])
            scale *= (b[0] + b[1] + b[2]) / (a[0] + a[1] + a[2])
        }
        return out
    }

    /// `scipy.signal.sosfilt(sos, x, zi=zi)` in place, direct form II transposed; returns the final state.
    /// With `backward`, the samples are taken from the last to the first (`sosfilt` of the
    /// reversed signal, its output reversed back).
    @discardableResult
    public static func sosfilt(_ sos: SOS, _ x: inout [Double], zi: [[Double]], backward: Bool = false) -> [[Double]] {
        var state = zi
        x.withUnsafeMutableBufferPointer { buf in
            let n = buf.count
            for (si, s) in sos.enumerated() {
                let b0 = s[0], b1 = s[1], b2 = s[2], a1 = s[4], a2 = s[5]
                var z0 = state[si][0], z1 = state[si][1]
                for j in 0..<n {
                    let i = backward ? n - 1 - j : j
                    let xi = buf[i]
                    let y = b0 * xi + z0
                    z0 = b1 * xi - a1 * y + z1
                    z1 = b2 * xi - a2 * y
                    buf[i] = y
                }
                state[si] = [z0, z1]
            }
        }
        return state
    }

    /// A causal filter started at steady state from the first sample:
    /// `sosfilt(sos, x, zi=sosfilt_zi(sos) * x[0])[0]`.
    public static func causal(_ sos: SOS, _ x: [Double]) -> [Double] {
        guard let first = x.first else { return [] }
        var y = x
        sosfilt(sos, &y, zi: sosfiltZi(sos).map { $0.map { $0 * first } })
        return y
    }

    /// scipy's default pad length for `sosfiltfilt`: 3 × (2 × sections + 1 − the number of
    /// sections whose b2 and a2 are both… scipy counts min(#(b2 == 0), #(a2 == 0))).
    public static func padLength(_ sos: SOS) -> Int {
        let b2zero = sos.filter { $0[2] == 0 }.count, a2zero = sos.filter { $0[5] == 0 }.count
        return 3 * (2 * sos.count + 1 - min(b2zero, a2zero))
    }

    /// `scipy.signal.sosfiltfilt(sos, x)` with its defaults (odd extension by ``padLength(_:)``).
    /// - Returns: nil when x.count ≤ padLength (scipy refuses such input).
    public static func filtfilt(_ sos: SOS, _ x: [Double]) -> [Double]? {
        let pad = padLength(sos), n = x.count
        guard n > pad else { return nil }
        var ext = [Double](repeating: 0, count: n + 2 * pad)
        for i in 0..<pad { ext[i] = 2 * x[0] - x[pad - i] }
        for i in 0..<n { ext[pad + i] = x[i] }
        for i in 0..<pad { ext[pad + n + i] = 2 * x[n - 1] - x[n - 2 - i] }
        let zi = sosfiltZi(sos)
        let x0 = ext[0]
        sosfilt(sos, &ext, zi: zi.map { $0.map { $0 * x0 } })
        // The backward pass runs over the buffer from its end: the same operations, in the same
        // order, as scipy's filtering of the reversed signal, without reversing it twice.
        let y0 = ext[ext.count - 1]
        sosfilt(sos, &ext, zi: zi.map { $0.map { $0 * y0 } }, backward: true)
        return Array(ext[pad..<(pad + n)])
    }

    /// `scipy.ndimage.median_filter(x, size=size, mode="nearest")`: the median of the `size`
    /// samples from i − size/2 to i + (size − 1)/2, edges extended by repetition. For an even
    /// size scipy takes the upper of the two middle values (its rank filter at rank size/2).
    public static func median(_ x: [Double], size: Int) -> [Double] {
        precondition(size >= 1, "median: size ≥ 1")
        let n = x.count
        guard n > 0, size > 1 else { return x }
        var out = [Double](repeating: 0, count: n)
        x.withUnsafeBufferPointer { v in
            for i in 0..<n { out[i] = median(at: i, of: v, count: n, size: size) }
        }
        return out
    }

    /// Output `i` of ``median(_:size:)`` for a signal of `count` samples of which `x` holds
    /// at least the first min(count, i + size − size / 2) (the window's samples, edges
    /// extended by repetition): the one definition the whole-segment and row-by-row transforms
    /// share (`SegmentTransformer`).
    @inline(__always)
    public static func median(at i: Int, of x: UnsafeBufferPointer<Double>, count n: Int, size: Int) -> Double {
        if size <= 1 { return x[i] }
        if size == 3 {
            // The middle of three without sorting: max(min(a, b), min(max(a, b), c)).
            let a = x[max(i - 1, 0)], b = x[i], c = x[min(i + 1, n - 1)]
            return Swift.max(Swift.min(a, b), Swift.min(Swift.max(a, b), c))
        }
        let before = size / 2
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: size) { buffer in
            var window = buffer
            for j in 0..<size { window.initializeElement(at: j, to: x[min(max(i - before + j, 0), n - 1)]) }
            window.sort()
            return window[size / 2]
        }
    }

    /// The first difference × rate; the first sample takes the second's value (one sample: 0).
    public static func derivative(_ x: [Double], rateHz: Double) -> [Double] {
        guard x.count > 1 else { return [Double](repeating: 0, count: x.count) }
        var out = [Double](repeating: 0, count: x.count)
        for i in 1..<x.count { out[i] = (x[i] - x[i - 1]) * rateHz }
        out[0] = out[1]
        return out
    }
}
