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
    /// one window yields none. The rule is ``WindowCutter``'s (the one definition, which the
    /// streamed and live paths use point by point), fed each segment as a run of valid points.
    ///
    /// - Complexity: O(points in segments of at least one window).
    public func starts(in segments: [Range<Int>]) -> [Int] {
        var out: [Int] = []
        for seg in segments where seg.count >= length {
            var cutter = WindowCutter(plan: self)
            for k in seg { cutter.add(point: k, valid: true) { out.append($0) } }
        }
        return out
    }
}

/// Window starts cut from grid points as they are computed, one at a time (the streamed form of
/// `WindowPlan.starts(in:)`, docs/signal.md, "Windows and labels"): inside each run of valid
/// points, a start every `stride` points from the run's first, as soon as the window's last
/// point is known. Counts the gaps (runs of invalid points), invalid points and the longest run.
public struct WindowCutter: Sendable {
    public let plan: WindowPlan
    /// Runs of invalid points, invalid points, and the longest run of valid ones so far.
    public private(set) var gaps = 0
    public private(set) var invalidPoints = 0
    public private(set) var longestRun = 0
    private var runStart: Int?
    private var nextStart = 0
    private var previousValid = true

    public init(plan: WindowPlan) {
        self.plan = plan
    }

    /// The first grid point a window not cut yet can start at (nil outside a run): rows before
    /// it, and before every start handed out but not yet used, can be dropped.
    public var earliestUncut: Int? { runStart == nil ? nil : nextStart }

    /// Takes grid point `k` (points must come in order, every one of them) and calls `start`
    /// with each window start whose last point it is.
    @inline(__always)
    public mutating func add(point k: Int, valid: Bool, start: (Int) throws -> Void) rethrows {
        if valid {
            if runStart == nil { runStart = k; nextStart = k }
            longestRun = Swift.max(longestRun, k + 1 - runStart!)
            while nextStart + plan.length <= k + 1 {
                try start(nextStart)
                nextStart += plan.stride
            }
        } else {
            runStart = nil
            invalidPoints += 1
            if previousValid { gaps += 1 }
        }
        previousValid = valid
    }
}
