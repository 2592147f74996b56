/// The windows one recording produced, ready for a sink (docs/dataset-format.md arrays, one recording's rows).
public struct WindowBatch: Sendable {
    /// Window length T and channel count C.
    public var length: Int
    public var channelCount: Int
    /// x[N, T, C] flattened (window, time, channel).
    public var x: [Float]
    /// y[N]: class index, or -1 when unlabelled.
    public var y: [Int64]
    /// y_seq[N, T] flattened (`labels.per_sample`): each point's class index, −1 where
    /// unlabelled; empty when the dataset has no `y_seq`.
    public var ySeq: [Int64] = []
    /// qa[N, Q] flattened (the pipeline's `qa` section): each window's non-wear, clipped
    /// and imputed fractions (docs/pipeline.md, "qa"); empty when the dataset has no `qa`.
    public var qa: [Float] = []
    /// The `qa` columns, in order (docs/dataset-format.md, "Device quality").
    public static let qaColumns = ["nonwear", "clipped", "imputed"]
    /// features[N, F] flattened; empty when no features are computed.
    public var features: [Float]
    public var featureCount: Int
    /// Time of each window's first grid point, seconds on the input's clock.
    public var startTimes: [Double]

    public init(length: Int, channelCount: Int, featureCount: Int) {
        self.length = length
        self.channelCount = channelCount
        self.featureCount = featureCount
        self.x = []
        self.y = []
        self.features = []
        self.startTimes = []
    }

    /// Number of windows.
    public var count: Int { y.count }
}

/// Count, mean and sum of squared deviations (M2) per column, for combining statistics in a
/// fixed order (Chan et al.'s parallel update), in float64.
public struct RunningMoments: Sendable, Equatable {
    public var count: Double
    public var mean: [Double]
    public var m2: [Double]

    public init(columns: Int) {
        count = 0
        mean = [Double](repeating: 0, count: columns)
        m2 = [Double](repeating: 0, count: columns)
    }

    /// Moments of row-major `values`, computed per block of `rowsPerBlock` rows (`of`) and
    /// combined in order: the same bits whether the rows arrive at once or a block at a time.
    public static func of(_ values: [Float], columns: Int, rowsPerBlock: Int) -> RunningMoments {
        precondition(rowsPerBlock > 0, "RunningMoments.of: blocks need rows")
        var total = RunningMoments(columns: columns)
        guard columns > 0 else { return total }
        let rows = values.count / columns
        var start = 0
        while start < rows {
            let end = Swift.min(start + rowsPerBlock, rows)
            total.combine(of(Array(values[(start * columns)..<(end * columns)]), columns: columns))
            start = end
        }
        return total
    }

    /// Moments of `rows` rows of `columns` float32 values (row-major), two-pass per column.
    public static func of(_ values: [Float], columns: Int) -> RunningMoments {
        var m = RunningMoments(columns: columns)
        guard columns > 0 else { return m }
        let rows = values.count / columns
        guard rows > 0 else { return m }
        m.count = Double(rows)
        var sum = [Double](repeating: 0, count: columns)
        values.withUnsafeBufferPointer { v in
            var i = 0
            for _ in 0..<rows {
                for c in 0..<columns { sum[c] += Double(v[i + c]) }
                i += columns
            }
            for c in 0..<columns { m.mean[c] = sum[c] / Double(rows) }
            i = 0
            for _ in 0..<rows {
                for c in 0..<columns {
                    let d = Double(v[i + c]) - m.mean[c]
                    m.m2[c] += d * d
                }
                i += columns
            }
        }
        return m
    }

    /// Combines `other` into these moments (order matters only in the last bits; callers use a
    /// canonical order).
    public mutating func combine(_ other: RunningMoments) {
        guard other.count > 0 else { return }
        guard count > 0 else { self = other; return }
        let n = count + other.count
        for c in 0..<mean.count {
            let delta = other.mean[c] - mean[c]
            mean[c] += delta * other.count / n
            m2[c] += other.m2[c] + delta * delta * count * other.count / n
        }
        count = n
    }

    /// Population standard deviations.
    public var std: [Double] { m2.map { count > 0 ? ($0 / count).squareRoot() : 0 } }
}

/// Per-column standardisation with a dataset's train statistics: (v − mean) / std computed in
/// float64 from the float32 value, then rounded to float32; a column whose std is 0 (constant
/// in train) is only centred, (v − mean) / 1, as scikit-learn's `StandardScaler` does
/// (docs/dataset-format.md, "Applied windows").
public struct Standardization: Sendable, Equatable {
    public let mean: [Double]
    /// The divisor of each column: its std, or 1 where the std is 0.
    public let scale: [Double]

    public init(mean: [Double], std: [Double]) {
        precondition(mean.count == std.count, "Standardization: \(mean.count) means but \(std.count) standard deviations")
        self.mean = mean
        scale = std.map { $0 == 0 ? 1 : $0 }
    }

    /// The columns.
    public var columns: Int { mean.count }

    /// Standardises row-major `values` of `columns` columns (any number of rows).
    public func apply(_ values: ArraySlice<Float>) -> [Float] {
        let C = columns
        guard C > 0 else { return [] }
        precondition(values.count % C == 0, "Standardization: \(values.count) values are not rows of \(C) columns")
        var out = [Float](repeating: 0, count: values.count)
        mean.withUnsafeBufferPointer { m in
            scale.withUnsafeBufferPointer { s in
                values.withUnsafeBufferPointer { v in
                    out.withUnsafeMutableBufferPointer { o in
                        var i = 0
                        while i < v.count {
                            for c in 0..<C { o[i + c] = Float((Double(v[i + c]) - m[c]) / s[c]) }
                            i += C
                        }
                    }
                }
            }
        }
        return out
    }

    public func apply(_ values: [Float]) -> [Float] { apply(values[...]) }
}
