// MotionFFT: the only importer of CKissFFT (kissfft vendored in Sources/CKissFFT, single precision).
// Scope: forward real FFT of one fixed length, returning the power spectrum |rfft(x)|² in Double.
// Left out: inverse transforms, window functions, double precision. (A README.md here would
// be an unhandled file to SwiftPM, hence this header.)
import CKissFFT
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The forward discrete Fourier transform of real sequences of one fixed length, in single
/// precision, through kissfft (`kiss_fftr` for even lengths, the complex `kiss_fft` with zero
/// imaginary parts for odd ones).
///
/// The kissfft plan and the transform's scratch memory are allocated once, in `init`, and reused
/// by every call; `deinit` frees them (`kiss_fft_free`, which is `free`).
///
/// - Important: An instance is **not** thread-safe: its calls share scratch buffers. Give each
///   worker thread its own instance. The type is deliberately not `Sendable`.
///
/// The transform is unnormalised (like `numpy.fft.rfft`): bin k is Σₜ x[t]·e^(−2πi·k·t/n).
public final class RealFFT {
    /// The number of real input samples per transform (n ≥ 1).
    public let length: Int

    /// The number of output bins, n/2 + 1 (bins 0…n/2, as `numpy.fft.rfft`).
    public var binCount: Int { length / 2 + 1 }

    /// `kiss_fftr` plan, for even lengths ≥ 4.
    private let realPlan: OpaquePointer?
    /// `kiss_fft` plan, for odd lengths ≥ 3.
    private let complexPlan: OpaquePointer?
    /// Complex input for odd lengths (n values), otherwise unused (count 0).
    private let complexInput: UnsafeMutableBufferPointer<kiss_fft_cpx>
    /// Transform output: n/2 + 1 bins for even lengths, n bins for odd ones.
    private let spectrum: UnsafeMutableBufferPointer<kiss_fft_cpx>

    /// Plans a transform of `length` real samples.
    ///
    /// Lengths 1 and 2 are computed directly, without kissfft.
    ///
    /// - Parameter length: samples per transform; must be at least 1.
    /// - Complexity: O(n) memory; planning is O(n).
    public init(length: Int) {
        precondition(length >= 1, "RealFFT: length must be at least 1, got \(length)")
        precondition(length <= Int(Int32.max), "RealFFT: length \(length) exceeds kissfft's Int32 range")
        self.length = length
        if length <= 2 {
            realPlan = nil
            complexPlan = nil
            complexInput = .allocate(capacity: 0)
            spectrum = .allocate(capacity: 0)
        } else if length % 2 == 0 {
            guard let plan = kiss_fftr_alloc(Int32(length), 0, nil, nil) else {
                fatalError("RealFFT: kiss_fftr_alloc(\(length)) failed (out of memory)")
            }
            realPlan = plan
            complexPlan = nil
            complexInput = .allocate(capacity: 0)
            spectrum = .allocate(capacity: length / 2 + 1)
            spectrum.initialize(repeating: kiss_fft_cpx(r: 0, i: 0))
        } else {
            guard let plan = kiss_fft_alloc(Int32(length), 0, nil, nil) else {
                fatalError("RealFFT: kiss_fft_alloc(\(length)) failed (out of memory)")
            }
            realPlan = nil
            complexPlan = plan
            complexInput = .allocate(capacity: length)
            complexInput.initialize(repeating: kiss_fft_cpx(r: 0, i: 0))
            spectrum = .allocate(capacity: length)
            spectrum.initialize(repeating: kiss_fft_cpx(r: 0, i: 0))
        }
    }

    deinit {
        if let realPlan { free(UnsafeMutableRawPointer(realPlan)) }       // kiss_fftr_free
        if let complexPlan { free(UnsafeMutableRawPointer(complexPlan)) } // kiss_fft_free
        complexInput.deallocate()
        spectrum.deallocate()
    }

    /// Writes the power spectrum |rfft(x)|² of `input`, bins 0…n/2, to `power`.
    ///
    /// The transform runs in single precision; each bin's squared magnitude is formed in
    /// double precision from the single-precision real and imaginary parts.
    ///
    /// - Parameters:
    ///   - input: exactly `length` samples.
    ///   - power: exactly `binCount` values; bin k is at frequency k·rate/n.
    /// - Complexity: O(n log n) for lengths whose prime factors are small, up to O(n²) for
    ///   prime lengths (kissfft's generic butterfly). Allocates nothing.
    public func powerSpectrum(_ input: UnsafeBufferPointer<Float>, into power: UnsafeMutableBufferPointer<Double>) {
        precondition(input.count == length, "RealFFT: input has \(input.count) samples, plan length is \(length)")
        precondition(power.count == binCount, "RealFFT: output has \(power.count) bins, expected \(binCount)")
        switch length {
        case 1:
            let x0 = Double(input[0])
            power[0] = x0 * x0
        case 2:
            let sum = Double(input[0]) + Double(input[1])
            let difference = Double(input[0]) - Double(input[1])
            power[0] = sum * sum
            power[1] = difference * difference
        default:
            if let realPlan {
                kiss_fftr(realPlan, input.baseAddress!, spectrum.baseAddress!)
            } else {
                for t in 0..<length {
                    complexInput[t] = kiss_fft_cpx(r: input[t], i: 0)
                }
                kiss_fft(complexPlan!, complexInput.baseAddress!, spectrum.baseAddress!)
            }
            for k in 0..<binCount {
                let re = Double(spectrum[k].r)
                let im = Double(spectrum[k].i)
                power[k] = re * re + im * im
            }
        }
    }
}
