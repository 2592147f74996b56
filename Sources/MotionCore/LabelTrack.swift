/// A recording's labels as a step function of time (docs/signal.md, "Windows and labels").
///
/// `changes` holds the times at which the label in force changes, ascending and without two
/// equal times; before the first change no label is in force. `label` is an index into `names`,
/// or -1 for "no label" (an `intervals` file leaves uncovered time unlabelled).
public struct LabelTrack: Sendable, Equatable {
    /// Label names; `labels` values index into this.
    public var names: [String]
    /// Change times in seconds, strictly ascending.
    public var times: [Double]
    /// Label in force from `times[i]` until `times[i+1]`: an index into `names`, or -1 for none.
    public var labels: [Int32]

    public init(names: [String], times: [Double], labels: [Int32]) {
        precondition(times.count == labels.count, "LabelTrack: one label per change time")
        self.names = names
        self.times = times
        self.labels = labels
    }

    /// An empty track: no label anywhere.
    public static let empty = LabelTrack(names: [], times: [], labels: [])

    /// Builds a track from timed events in file order, as the `rows` and `markers` rules need:
    /// the label at t is that of the latest event at or before t; of events with equal times the
    /// last in file order wins.
    ///
    /// - Parameters:
    ///   - times: event times in seconds, in file order (need not be sorted).
    ///   - labels: the event's label index into `names` (never -1).
    /// - Complexity: O(n) when `times` is sorted, O(n log n) otherwise.
    public static func fromEvents(names: [String], times: [Double], labels: [Int32]) -> LabelTrack {
        precondition(times.count == labels.count, "LabelTrack.fromEvents: one label per time")
        var order = Array(0..<times.count)
        var sorted = true
        for i in 1..<max(1, times.count) where times[i] < times[i - 1] { sorted = false; break }
        if !sorted {
            // Stable sort by time: ties keep file order, so the last one in file order wins below.
            order.sort { a, b in times[a] < times[b] || (times[a] == times[b] && a < b) }
        }
        var outT: [Double] = []
        var outL: [Int32] = []
        outT.reserveCapacity(16)
        outL.reserveCapacity(16)
        for idx in order {
            let t = times[idx]
            let l = labels[idx]
            if let lastT = outT.last, lastT == t {
                outL[outL.count - 1] = l
                // Collapse if this makes it equal to the previous segment's label.
                if outL.count >= 2, outL[outL.count - 2] == l { outT.removeLast(); outL.removeLast() }
                continue
            }
            if let lastL = outL.last, lastL == l { continue }
            outT.append(t)
            outL.append(l)
        }
        return LabelTrack(names: names, times: outT, labels: outL)
    }

    /// The label index in force at `t`, or -1.
    public func label(at t: Double) -> Int32 {
        // Number of change times ≤ t, minus one.
        var lo = 0, hi = times.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if times[mid] <= t { lo = mid + 1 } else { hi = mid }
        }
        return lo == 0 ? -1 : labels[lo - 1]
    }

    /// The label in force at each of `grid` (ascending times), written into an array.
    /// - Complexity: O(grid.count + changes).
    public func labels(atSorted grid: [Double]) -> [Int32] {
        var out = [Int32](repeating: -1, count: grid.count)
        var j = 0 // number of change times ≤ current grid time
        for (k, t) in grid.enumerated() {
            while j < times.count && times[j] <= t { j += 1 }
            out[k] = j == 0 ? -1 : labels[j - 1]
        }
        return out
    }
}
