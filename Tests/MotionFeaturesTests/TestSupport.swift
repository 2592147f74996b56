import MotionFeatures

@_exported import MotionTestSupport

extension SeededGenerator {
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
