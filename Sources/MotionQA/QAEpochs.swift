/// Device quality of one recording (docs/pipeline.md, "qa"), computed on the resampled grid of
/// its accelerometer: per-epoch statistics accumulated as grid points settle (memory O(epochs),
/// not O(samples)), from which non-wear runs and the van Hees et al. (2014) calibration are
/// decided at the recording's end; and the per-window fractions (non-wear, clipped).
///
/// The algorithms follow actipy 3.8.3 (`actipy.processing`: `_window_statistics`,
/// `find_nonwear_segments`, `calibrate_gravity`) so that the two can be compared on the same
/// signal; where they differ is said in docs/pipeline.md, "qa".
public struct QAEpochs: Sendable {
    /// Grid points per epoch.
    public let epochPoints: Int
    /// Per epoch and axis (x, y, z interleaved): valid points, sum, sum of squares (in g).
    public private(set) var counts: [Int] = []
    public private(set) var sums: [Double] = []
    public private(set) var squares: [Double] = []

    public init(epochPoints: Int) {
        precondition(epochPoints >= 1)
        self.epochPoints = epochPoints
    }

    public var epochCount: Int { counts.count }

    /// Adds grid point `k`'s acceleration (in g).
    public mutating func add(point k: Int, _ x: Double, _ y: Double, _ z: Double) {
        guard x.isFinite, y.isFinite, z.isFinite else { return }
        let e = k / epochPoints
        if e >= counts.count {
            counts += [Int](repeating: 0, count: e + 1 - counts.count)
            sums += [Double](repeating: 0, count: 3 * (e + 1) - sums.count)
            squares += [Double](repeating: 0, count: 3 * (e + 1) - squares.count)
        }
        counts[e] += 1
        sums[3 * e] += x
        sums[3 * e + 1] += y
        sums[3 * e + 2] += z
        squares[3 * e] += x * x
        squares[3 * e + 1] += y * y
        squares[3 * e + 2] += z * z
    }

    /// Epoch `e`'s mean of axis `a`, NaN without points.
    public func mean(_ e: Int, _ a: Int) -> Double {
        counts[e] > 0 ? sums[3 * e + a] / Double(counts[e]) : .nan
    }

    /// Epoch `e`'s sample standard deviation (ddof 1) of axis `a`, as actipy computes it from the
    /// sums; NaN with fewer than two points.
    public func std(_ e: Int, _ a: Int) -> Double {
        let n = counts[e]
        guard n > 1 else { return .nan }
        let s = sums[3 * e + a], m = s / Double(n)
        return (Swift.max(squares[3 * e + a] - s * m, 0) / Double(n - 1)).squareRoot()
    }

    /// Whether every axis' standard deviation is below `tolerance` (g); false for an epoch with
    /// fewer than two points.
    public func isStationary(_ e: Int, tolerance: Double) -> Bool {
        (0..<3).allSatisfy { std(e, $0) < tolerance }
    }

    /// Non-wear runs as half-open ranges of grid points: runs of stationary epochs (std below
    /// `tolerance` g on every axis) of n epochs with (n − 1) × epoch longer than `patience`
    /// seconds (actipy's `find_nonwear_segments` rule), each covering its epochs' points.
    public func nonwearRuns(tolerance: Double, patienceS: Double, epochS: Double) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var e = 0
        while e < epochCount {
            guard isStationary(e, tolerance: tolerance) else { e += 1; continue }
            var end = e
            while end < epochCount && isStationary(end, tolerance: tolerance) { end += 1 }
            if Double(end - e - 1) * epochS > patienceS { runs.append((e * epochPoints)..<(end * epochPoints)) }
            e = end
        }
        return runs
    }

    /// The stationary epochs' means (g), for the calibration (std below `tolerance` g on every axis,
    /// finite and non-zero means; the first 100,000 as actipy keeps).
    public func stationaryMeans(tolerance: Double) -> [SIMD3<Double>] {
        var out: [SIMD3<Double>] = []
        for e in 0..<epochCount where isStationary(e, tolerance: tolerance) {
            let v = SIMD3(mean(e, 0), mean(e, 1), mean(e, 2))
            guard v.x.isFinite, v.y.isFinite, v.z.isFinite, (v * v).sum().squareRoot() > 1e-8 else { continue }
            out.append(v)
            if out.count == 100_000 { break }
        }
        return out
    }
}

/// The fraction of `length` grid points from `start` that lie in `runs` (sorted, disjoint).
public func qaFraction(of runs: [Range<Int>], start: Int, length: Int) -> Float {
    guard length > 0 else { return 0 }
    let end = start + length
    // The first run that ends after `start`.
    var lo = 0, hi = runs.count
    while lo < hi {
        let mid = (lo + hi) / 2
        if runs[mid].upperBound <= start { lo = mid + 1 } else { hi = mid }
    }
    var n = 0
    var i = lo
    while i < runs.count && runs[i].lowerBound < end {
        n += Swift.min(end, runs[i].upperBound) - Swift.max(start, runs[i].lowerBound)
        i += 1
    }
    return Float(Double(n) / Double(length))
}
