import MotionFeatures

/// SplitMix64: a small seeded generator, so every random test input is repeatable.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A standard normal variate (Box–Muller).
    mutating func normal() -> Double {
        let u = Double.random(in: Double.ulpOfOne..<1, using: &self)
        let v = Double.random(in: 0..<1, using: &self)
        return (-2 * _log(u)).squareRoot() * _cos(2 * Double.pi * v)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
func _log(_ x: Double) -> Double { log(x) }
func _cos(_ x: Double) -> Double { cos(x) }

extension FeatureExtractor {
    /// Array convenience for tests: the features of one T×C time-major window.
    func features(of window: [Float]) -> [Float] {
        var out = [Float](repeating: .nan, count: plan.count)
        window.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                extract(window: input, into: output)
            }
        }
        return out
    }

    /// Array convenience for tests: the features of N windows, N×F.
    func features(ofWindows x: [Float], count n: Int) -> [Float] {
        var out = [Float](repeating: .nan, count: n * plan.count)
        x.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                extract(windows: input, count: n, into: output)
            }
        }
        return out
    }
}
