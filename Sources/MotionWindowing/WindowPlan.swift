/// Where windows start inside the valid segments of a recording (docs/signal.md, "Windows and labels").
public struct WindowPlan: Sendable, Equatable {
    /// Window length in grid samples (≥ 1).
    public var length: Int
    /// Distance between window starts in grid samples (≥ 1).
    public var stride: Int

    public init(length: Int, stride: Int) {
        precondition(length >= 1 && stride >= 1, "WindowPlan: length and stride must be at least one sample")
        self.length = length
        self.stride = stride
    }

    /// Window start indices (into the grid), in ascending order: inside each segment, at segment
    /// offsets 0, s, 2s, … while start + length ≤ segment end. No padding; a segment shorter than
    /// one window yields none.
    ///
    /// - Complexity: O(number of windows + segments).
    public func starts(in segments: [Range<Int>]) -> [Int] {
        var out: [Int] = []
        for seg in segments where seg.count >= length {
            var s = seg.lowerBound
            while s + length <= seg.upperBound {
                out.append(s)
                s += stride
            }
        }
        return out
    }
}
