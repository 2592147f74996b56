import MotionFFT
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// MotionFFT's single-precision power spectrum against a naive float64 DFT at every length
/// 1…70 (even, odd, prime, and the directly computed 1 and 2): within 1e-5 of the spectrum's
/// scale (its largest bin).
@Suite struct RealFFTTests {
    @Test func matchesNaiveDFTAtEveryLength() {
        var generator = SeededGenerator(seed: 42)
        for n in 1...70 {
            let fft = RealFFT(length: n)
            #expect(fft.binCount == n / 2 + 1)
            for _ in 0..<3 {
                let input = (0..<n).map { _ in Float(generator.normal()) }
                var power = [Double](repeating: .nan, count: n / 2 + 1)
                input.withUnsafeBufferPointer { i in
                    power.withUnsafeMutableBufferPointer { p in fft.powerSpectrum(i, into: p) }
                }
                var expected = [Double](repeating: 0, count: n / 2 + 1)
                for k in 0...(n / 2) {
                    var re = 0.0, im = 0.0
                    for t in 0..<n {
                        let angle = -2 * Double.pi * Double(k * t % n) / Double(n)
                        re += Double(input[t]) * cos(angle)
                        im += Double(input[t]) * sin(angle)
                    }
                    expected[k] = re * re + im * im
                }
                let scale = expected.max()!
                for k in 0...(n / 2) {
                    #expect(abs(power[k] - expected[k]) <= 1e-5 * scale, "n=\(n) bin \(k): \(power[k]) vs \(expected[k])")
                }
            }
        }
    }
}
