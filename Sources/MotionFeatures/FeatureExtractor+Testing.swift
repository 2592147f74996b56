// Test hooks: `package` access, so the public API stays small. Safe Array wrappers around the
// unsafe kernels, for comparison with straightforward reference versions.

package enum _FeatureKernelsTesting {
    /// `values` sorted by the extractor's merge sort.
    package static func sorted(_ values: [Double]) -> [Double] {
        var copy = values
        var scratch = [Double](repeating: .nan, count: values.count)
        let count = copy.count
        copy.withUnsafeMutableBufferPointer { buffer in
            scratch.withUnsafeMutableBufferPointer { scratch in
                guard let base = buffer.baseAddress else { return }
                _FeatureKernels.sort(base, count: count, scratch: scratch.baseAddress!)
            }
        }
        return copy
    }

    /// numpy-linear quantile of sorted, non-empty values.
    package static func quantile(sorted values: [Double], fraction: Double) -> Double {
        precondition(!values.isEmpty, "quantile of no values")
        return values.withUnsafeBufferPointer {
            _FeatureKernels.quantile(sorted: $0.baseAddress!, count: $0.count, fraction: fraction)
        }
    }

    /// median(|x − median|) of sorted, non-empty values by the merge kernel.
    package static func medianAbsoluteDeviation(sorted values: [Double], median: Double) -> Double {
        precondition(!values.isEmpty, "median absolute deviation of no values")
        return values.withUnsafeBufferPointer {
            _FeatureKernels.medianAbsoluteDeviation(sorted: $0.baseAddress!, count: $0.count, median: median)
        }
    }
}
