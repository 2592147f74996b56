import MotionDataset
import Foundation

/// Everything the page draws, computed from the split files in a bounded number of streaming
/// passes (see ``DatasetStatistics/compute(manifest:store:options:)``).
public struct DatasetStatistics: Sendable {
    /// Counts of one split, recomputed from its `y` and `subject_index`.
    public struct SplitCounts: Sendable, Equatable {
        public var name: String
        public var windows: Int
        /// Windows per class id; one extra last entry counts unlabelled windows (`y` = −1) and
        /// any `y` outside the class list.
        public var classCounts: [Int]
        /// Windows per subject index.
        public var subjectCounts: [Int]
    }

    /// One example window: where it comes from and its values `[T, C]`, row-major.
    public struct Example: Sendable, Equatable {
        public var split: String
        public var index: Int
        public var subject: Int
        public var recording: Int
        public var startTimeS: Double
        public var values: [Float]
    }

    public var splits: [SplitCounts]
    /// One histogram per channel over the train split (empty when train has no windows).
    public var histograms: [Histogram]
    /// Train windows the histograms were computed from, and how many train has.
    public var histogramWindows: Int
    public var trainWindows: Int
    /// How the histogram range was chosen: "normalization" (mean ± k·std from the manifest) or
    /// "min-max" (a first pass over the same windows).
    public var histogramRange: String
    /// Examples per class id (the last entry is for unlabelled windows).
    public var examples: [[Example]]
    /// Ways the files disagree with manifest.json, as sentences (empty when they agree).
    public var discrepancies: [String]

    /// The windows of every split.
    public var totalWindows: Int { splits.reduce(0) { $0 + $1.windows } }
}

/// Knobs for ``DatasetStatistics/compute(manifest:store:options:)``.
public struct StatisticsOptions: Sendable {
    /// Example windows drawn per class.
    public var examplesPerClass = 3
    /// At most this many train windows feed the histograms (evenly spaced row blocks); 0 means
    /// all. `nil` picks a budget of about 50 million values (`50e6 / (T·C)` windows).
    public var histogramWindows: Int? = nil
    /// Histogram bins per tick interval of the channel's axis (about 6 intervals).
    public var binsPerTick = 8
    /// Half-width of the histogram range in standard deviations around the train mean.
    public var rangeStd = 4.0
    /// Rows per block when streaming `x`; `nil` uses the store's preferred size (about 4 MiB of
    /// whole HDF5 chunks). Smaller blocks sample more finely; tests use them on small datasets.
    public var blockRows: Int? = nil

    public init() {}
}

extension DatasetStatistics {
    /// Reads the dataset: pass 1 streams `y` and `subject_index` of every split (counts, checked
    /// against the manifest); pass 2 streams `x` of the train split in row blocks into fixed-bin
    /// histograms; examples are read one window at a time at ranks picked deterministically.
    ///
    /// - Complexity: O(N) for the 1-D arrays, O(min(N_train, budget) · T · C) for `x`; memory
    ///   O(block + subjects + classes) regardless of N.
    /// - Throws: errors of the store (`HDF5Error`, ``ReportError``).
    public static func compute(manifest m: DatasetManifest, store: DatasetWindowStore,
                               options: StatisticsOptions = StatisticsOptions()) throws -> DatasetStatistics {
        let K = m.classes.count
        let S = m.subjects.count
        let T = m.windowLength, C = m.channels.count
        var discrepancies: [String] = []
        var splitCounts: [SplitCounts] = []
        let oneDBlock = 1 << 16

        // Pass 1: labels and subjects.
        for source in store.splits {
            let n = try source.windowCount
            var classCounts = [Int](repeating: 0, count: K + 1)
            var subjectCounts = [Int](repeating: 0, count: S)
            var badSubjects = 0
            var start = 0
            while start < n {
                let count = min(oneDBlock, n - start)
                for v in try source.labels(start: start, count: count) {
                    if v >= 0 && v < Int64(K) { classCounts[Int(v)] += 1 } else { classCounts[K] += 1 }
                }
                for s in try source.subjectIndices(start: start, count: count) {
                    if s >= 0 && Int(s) < S { subjectCounts[Int(s)] += 1 } else { badSubjects += 1 }
                }
                start += count
            }
            if badSubjects > 0 {
                discrepancies.append("\(source.split): \(badSubjects) windows have a subject_index outside the manifest's \(S) subjects")
            }
            if let name = SplitName(rawValue: source.split), let ms = m.splits[name] {
                if ms.numWindows != n {
                    discrepancies.append("\(source.split): the file holds \(n) windows, manifest.json says \(ms.numWindows)")
                }
                if Array(classCounts.prefix(K)) != ms.classCounts {
                    discrepancies.append("\(source.split): class counts in the file are \(Array(classCounts.prefix(K))), manifest.json says \(ms.classCounts)")
                }
            }
            splitCounts.append(SplitCounts(name: source.split, windows: n, classCounts: classCounts, subjectCounts: subjectCounts))
        }

        // Pass 2: histograms over (a deterministic sample of) the train split (an applied output's `windows`).
        var histograms: [Histogram] = []
        var histogramWindows = 0
        var trainWindows = 0
        var rangeKind = "normalization"
        // An applied output's one split, `windows`, stands for train (it has no other).
        if let train = store.splits.first(where: { $0.split == "train" || $0.split == "windows" }), C > 0, T > 0 {
            trainWindows = try train.windowCount
            if trainWindows > 0 {
                let budget = options.histogramWindows ?? max(1, 50_000_000 / (T * C))
                let blocks = sampledBlocks(count: trainWindows, blockRows: options.blockRows ?? train.preferredBlockRows,
                                           budget: budget == 0 ? trainWindows : budget)
                var ranges: [(Double, Double)] = []
                if let mean = m.normalization.x?.mean, let std = m.normalization.x?.std, mean.count == C, std.count == C,
                   mean.allSatisfy(\.isFinite), std.allSatisfy(\.isFinite) {
                    ranges = (0..<C).map { c in
                        let s = std[c] > 0 ? std[c] : max(1e-6, abs(mean[c]) * 0.1)
                        return (mean[c] - options.rangeStd * s, mean[c] + options.rangeStd * s)
                    }
                } else {
                    rangeKind = "min-max"
                    var lo = [Double](repeating: .infinity, count: C), hi = [Double](repeating: -.infinity, count: C)
                    for b in blocks {
                        let x = try train.windows(start: b.lowerBound, count: b.count)
                        var i = 0
                        while i < x.count {
                            for c in 0..<C {
                                let v = Double(x[i + c])
                                if v.isFinite { if v < lo[c] { lo[c] = v }; if v > hi[c] { hi[c] = v } }
                            }
                            i += C
                        }
                    }
                    ranges = (0..<C).map { (lo[$0].isFinite ? lo[$0] : 0, hi[$0].isFinite ? hi[$0] : 1) }
                }
                histograms = ranges.map { r in
                    let scale = NiceScale(min: r.0, max: r.1, ticks: 6)
                    let intervals = max(1, Int(((scale.upper - scale.lower) / scale.step).rounded()))
                    return Histogram(lower: scale.lower, upper: scale.upper, bins: intervals * max(1, options.binsPerTick))
                }
                for b in blocks {
                    let x = try train.windows(start: b.lowerBound, count: b.count)
                    binValues(x, channels: C, into: &histograms)
                    histogramWindows += b.count
                }
            }
        }

        // Examples: per class, from train when it has the class, else the first split that does;
        // windows at ranks (j + ½)·n/k among the class's windows in file order.
        var examples = [[Example]](repeating: [], count: K + 1)
        let sourceOf = (0...K).map { k in splitCounts.firstIndex { $0.classCounts[k] > 0 } }
        for si in splitCounts.indices where options.examplesPerClass > 0 {
            let classes = (0...K).filter { sourceOf[$0] == si }
            guard !classes.isEmpty else { continue }
            // One pass over this split's labels picks the examples of every class drawn from it.
            var ranks = [[Int]](repeating: [], count: K + 1)
            for k in classes {
                let n = splitCounts[si].classCounts[k]
                let want = min(options.examplesPerClass, n)
                ranks[k] = (0..<want).map { Int((Double($0) + 0.5) * Double(n) / Double(want)) }
            }
            var seen = [Int](repeating: 0, count: K + 1)
            var next = [Int](repeating: 0, count: K + 1)
            var picked = [[Int]](repeating: [], count: K + 1)
            var remaining = classes.reduce(0) { $0 + ranks[$1].count }
            let source = store.splits[si]
            let total = splitCounts[si].windows
            var start = 0
            while start < total, remaining > 0 {
                let count = min(oneDBlock, total - start)
                for (i, v) in try source.labels(start: start, count: count).enumerated() {
                    let k = v >= 0 && v < Int64(K) ? Int(v) : K
                    while next[k] < ranks[k].count, ranks[k][next[k]] == seen[k] {
                        picked[k].append(start + i)
                        next[k] += 1
                        remaining -= 1
                    }
                    seen[k] += 1
                }
                start += count
            }
            for k in classes {
                for index in picked[k] {
                    examples[k].append(Example(
                        split: source.split, index: index,
                        subject: Int(try source.subjectIndices(start: index, count: 1)[0]),
                        recording: Int(try source.recordingIndices(start: index, count: 1)[0]),
                        startTimeS: try source.startTimes(start: index, count: 1)[0],
                        values: try source.windows(start: index, count: 1)))
                }
            }
        }

        return DatasetStatistics(splits: splitCounts, histograms: histograms, histogramWindows: histogramWindows,
                                 trainWindows: trainWindows, histogramRange: rangeKind, examples: examples,
                                 discrepancies: discrepancies)
    }

    /// Row ranges to read: all rows in blocks of `blockRows` when `budget ≥ count`, else about
    /// `budget` rows as evenly spaced whole blocks (block-aligned, so each is a run of chunks).
    static func sampledBlocks(count: Int, blockRows: Int, budget: Int) -> [Range<Int>] {
        let b = max(1, blockRows)
        let blockCount = (count + b - 1) / b
        let wanted = budget >= count ? blockCount : max(1, min(blockCount, (budget + b - 1) / b))
        var out: [Range<Int>] = []
        var last = -1
        for j in 0..<wanted {
            let i = wanted == blockCount ? j : j * blockCount / wanted
            guard i != last else { continue }
            last = i
            out.append(i * b ..< min(count, (i + 1) * b))
        }
        return out
    }

    /// Adds `x` (`[rows, T, C]` flattened) to one histogram per channel.
    ///
    /// - Complexity: O(x.count); one strided sweep per channel, each histogram moved out of the
    ///   array while it is filled so its counts are mutated in place.
    static func binValues(_ x: [Float], channels C: Int, into histograms: inout [Histogram]) {
        let rows = x.count / C
        for c in 0..<C {
            var h = histograms[c]
            histograms[c].counts = []   // drop the array's reference: `h.counts` is now unique
            var i = c
            for _ in 0..<rows {
                h.add(Double(x[i]))
                i += C
            }
            histograms[c] = h
        }
    }
}
