/// Fixed-bin counts of one channel's values: bins of equal width from `lower` to `upper`, plus
/// the values that fell below or above (they are counted, not drawn into the edge bins).
public struct Histogram: Sendable, Equatable {
    public var lower: Double
    public var upper: Double
    public var counts: [Int]
    public var below = 0
    public var above = 0
    /// NaN or infinite values (never drawn).
    public var nonFinite = 0
    /// The smallest and largest finite values seen (`+inf`/`-inf` while none).
    public var minimum = Double.infinity
    public var maximum = -Double.infinity

    /// `bins` empty bins over `lower ..< upper` (`upper` itself goes into the last bin).
    public init(lower: Double, upper: Double, bins: Int) {
        precondition(bins > 0 && upper > lower, "a histogram needs bins > 0 and upper > lower, got \(bins) bins over \(lower)…\(upper)")
        self.lower = lower
        self.upper = upper
        counts = [Int](repeating: 0, count: bins)
    }

    /// Every value counted, in or out of range.
    public var total: Int { counts.reduce(0, +) + below + above + nonFinite }

    public var binWidth: Double { (upper - lower) / Double(counts.count) }

    /// Counts one value.
    @inline(__always)
    public mutating func add(_ v: Double) {
        guard v.isFinite else { nonFinite += 1; return }
        if v < minimum { minimum = v }
        if v > maximum { maximum = v }
        if v < lower { below += 1; return }
        if v > upper { above += 1; return }
        let i = Int((v - lower) / (upper - lower) * Double(counts.count))
        counts[min(i, counts.count - 1)] += 1
    }
}
