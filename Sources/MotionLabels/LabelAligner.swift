import MotionCore

/// How a window's label is decided from its points' labels (docs/signal.md, "Windows and labels").
public enum LabelPolicy: String, Sendable, CaseIterable {
    case majority, center, pure
}

/// Why a window was dropped while labelling (docs/dataset-format.md, "Manifest, checksums and commit" reason names).
public enum WindowDropReason: String, Sendable, CaseIterable {
    case noLabel = "no_label"
    case belowMinFraction = "below_min_fraction"
    case mixedLabels = "mixed_labels"
    case labelNotInClasses = "label_not_in_classes"
}

/// Labels windows from a recording's label step function.
///
/// Raw label names are renamed through `map`, then each window's label is chosen by the policy,
/// then looked up in `classes`.
public struct LabelAligner: Sendable {
    public var policy: LabelPolicy
    public var minFraction: Double
    public var classes: [String]
    /// Keep every window: one the policy would drop is kept with class id −1 (and still counted
    /// under its reason in `Result.dropped`). `motionprep apply` labels this way, so that a new
    /// recording gives every window (docs/commands.md, "apply").
    public var keepUnlabelled = false
    /// Also give each kept window's points' class ids (`Result.pointClassIds`), for
    /// `labels.per_sample`'s `y_seq` (docs/pipeline.md, "labels").
    public var perSample = false
    private var renames: [String: String]

    /// - Parameters:
    ///   - map: label renames (raw → name); labels not named keep their name.
    ///   - classes: class names; a window whose label is not among them is dropped.
    public init(policy: LabelPolicy, minFraction: Double, map: [(String, String)], classes: [String]) {
        self.policy = policy
        self.minFraction = minFraction
        self.classes = classes
        var r: [String: String] = [:]
        for (k, v) in map { r[k] = v }
        self.renames = r
    }

    /// The result of labelling a recording's windows.
    public struct Result: Sendable, Equatable {
        /// Indices (into the `starts` passed in) of the kept windows, ascending.
        public var kept: [Int]
        /// Class id of each kept window (−1 for a window kept unlabelled, `keepUnlabelled`).
        public var classIds: [Int64]
        /// Windows dropped (with `keepUnlabelled`: kept with class id −1), by reason.
        public var dropped: [String: Int]
        /// With `perSample`: the class id of each point of each kept window, `length` per window
        /// in `kept` order (−1: no label, or a label not in `classes`), the decision
        /// `pointClasses` makes; empty otherwise.
        public var pointClassIds: [Int64] = []

        public init(kept: [Int], classIds: [Int64], dropped: [String: Int], pointClassIds: [Int64] = []) {
            self.kept = kept
            self.classIds = classIds
            self.dropped = dropped
            self.pointClassIds = pointClassIds
        }
    }

    /// Labels the windows starting at `starts` (grid indices) of `length` points.
    ///
    /// - Parameters:
    ///   - track: the recording's label step function.
    ///   - gridTimes: a function giving the time of grid point k.
    ///   - gridCount: number of grid points.
    /// - Complexity: O(grid points + windows × length).
    public func label(track: LabelTrack, gridCount: Int, gridTime: (Int) -> Double,
                      starts: [Int], length: Int) -> Result {
        let (point, mappedCount, classOf) = pointLabels(track: track, gridCount: gridCount, gridTime: gridTime)
        return label(point: point, mappedCount: mappedCount, classOf: classOf, starts: starts, length: length)
    }

    /// The class id of every grid point `0..<gridCount` (−1: no label, or a label not in
    /// `classes`): the label in force at the point's time, renamed, looked up in `classes` — each
    /// point's own decision, from which a window's label is chosen by the policy (the
    /// `createml` output's rows; docs/dataset-format.md, "Create ML folders").
    public func pointClasses(track: LabelTrack, gridCount: Int, gridTime: (Int) -> Double) -> [Int64] {
        let (point, _, classOf) = pointLabels(track: track, gridCount: gridCount, gridTime: gridTime)
        return point.map { $0 < 0 ? -1 : classOf[Int($0)] }
    }

    /// The mapped label (index into the renamed labels, or −1) at every grid point, how many
    /// renamed labels there are, and each one's class id (or −1).
    private func pointLabels(track: LabelTrack, gridCount: Int, gridTime: (Int) -> Double)
        -> (point: [Int32], mappedCount: Int, classOf: [Int64]) {
        // Mapped label table: raw index → mapped index; mapped index → class id (or -1).
        var mappedNames: [String] = []
        var mappedIndex: [String: Int32] = [:]
        var rawToMapped = [Int32](repeating: -1, count: track.names.count)
        for (i, raw) in track.names.enumerated() {
            let name = renames[raw] ?? raw
            if let m = mappedIndex[name] {
                rawToMapped[i] = m
            } else {
                let m = Int32(mappedNames.count)
                mappedNames.append(name)
                mappedIndex[name] = m
                rawToMapped[i] = m
            }
        }
        let classOf: [Int64] = mappedNames.map { name in
            classes.firstIndex(of: name).map { Int64($0) } ?? -1
        }
        // Label (mapped index or -1) at every grid point; the track changes rarely, so walk it.
        var point = [Int32](repeating: -1, count: gridCount)
        var j = 0
        for k in 0..<gridCount {
            let t = gridTime(k)
            while j < track.times.count && track.times[j] <= t { j += 1 }
            if j > 0 {
                let raw = track.labels[j - 1]
                point[k] = raw < 0 ? -1 : rawToMapped[Int(raw)]
            }
        }
        return (point, mappedNames.count, classOf)
    }

    private func label(point: [Int32], mappedCount: Int, classOf: [Int64], starts: [Int], length: Int) -> Result {
        var result = Result(kept: [], classIds: [], dropped: [:])
        var counts = [Int](repeating: 0, count: mappedCount)
        var firstSeen = [Int](repeating: 0, count: mappedCount)
        func points(_ s: Int) {
            guard perSample else { return }
            for k in s..<(s + length) {
                let l = point[k]
                result.pointClassIds.append(l < 0 ? -1 : classOf[Int(l)])
            }
        }
        func drop(_ w: Int, _ reason: WindowDropReason) {
            result.dropped[reason.rawValue, default: 0] += 1
            if keepUnlabelled {
                result.kept.append(w)
                result.classIds.append(-1)
                points(starts[w])
            }
        }
        for (w, s) in starts.enumerated() {
            var chosen: Int32 = -1
            switch policy {
            case .center:
                chosen = point[s + length / 2]
                if chosen < 0 { drop(w, .noLabel); continue }
            case .pure:
                let first = point[s]
                var same = true
                for k in s..<(s + length) where point[k] != first { same = false; break }
                if !same { drop(w, .mixedLabels); continue }
                if first < 0 { drop(w, .noLabel); continue }
                chosen = first
            case .majority:
                for i in 0..<counts.count { counts[i] = 0 }
                var any = false
                for k in s..<(s + length) {
                    let l = point[k]
                    if l < 0 { continue }
                    if counts[Int(l)] == 0 { firstSeen[Int(l)] = k }
                    counts[Int(l)] += 1
                    any = true
                }
                if !any { drop(w, .noLabel); continue }
                var best = -1
                for l in 0..<counts.count where counts[l] > 0 {
                    if best < 0 || counts[l] > counts[best] || (counts[l] == counts[best] && firstSeen[l] < firstSeen[best]) {
                        best = l
                    }
                }
                if Double(counts[best]) / Double(length) < minFraction {
                    drop(w, .belowMinFraction)
                    continue
                }
                chosen = Int32(best)
            }
            let cls = classOf[Int(chosen)]
            if cls < 0 { drop(w, .labelNotInClasses); continue }
            result.kept.append(w)
            result.classIds.append(cls)
            points(s)
        }
        return result
    }
}
