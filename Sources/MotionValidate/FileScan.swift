/// Where in a file a value sits: window (row), and for `x` the time step and channel.
struct ValueLocation: Equatable {
    var window: Int
    var timeStep: Int?
    var column: Int?
}

/// A count of bad values and the first one found.
struct BadValues {
    var count = 0
    var first: (location: ValueLocation, value: String)?

    mutating func add(_ location: ValueLocation, _ value: @autoclosure () -> String) {
        if count == 0 { first = (location, value()) }
        count += 1
    }
}

/// Running count, mean offset and sum of squares per column, for `normalization.stats`:
/// values are shifted by the column's first value so the sum of squares does not cancel.
struct ColumnMoments {
    var count: [Int]
    var shift: [Double]
    var hasShift: [Bool]
    var sum: [Double]
    var sumSquares: [Double]

    init(columns: Int) {
        count = [Int](repeating: 0, count: columns)
        shift = [Double](repeating: 0, count: columns)
        hasShift = [Bool](repeating: false, count: columns)
        sum = count.map { _ in 0 }
        sumSquares = count.map { _ in 0 }
    }

    var mean: [Double] { (0..<count.count).map { count[$0] == 0 ? 0 : shift[$0] + sum[$0] / Double(count[$0]) } }

    /// Population standard deviation.
    var std: [Double] {
        (0..<count.count).map { c in
            guard count[c] > 0 else { return 0 }
            let n = Double(count[c])
            let m = sum[c] / n
            return (max(0, sumSquares[c] / n - m * m)).squareRoot()
        }
    }

    /// Adds another accumulator (same columns); shifts are reconciled exactly in float64.
    mutating func merge(_ o: ColumnMoments) {
        for c in 0..<count.count where o.count[c] > 0 {
            if !hasShift[c] {
                shift[c] = o.shift[c]; hasShift[c] = true
                count[c] = o.count[c]; sum[c] = o.sum[c]; sumSquares[c] = o.sumSquares[c]
                continue
            }
            // o's values are v − o.shift; re-express as v − shift: d' = d + δ, δ = o.shift − shift.
            let delta = o.shift[c] - shift[c], n = Double(o.count[c])
            sumSquares[c] += o.sumSquares[c] + 2 * delta * o.sum[c] + n * delta * delta
            sum[c] += o.sum[c] + n * delta
            count[c] += o.count[c]
        }
    }
}

/// Everything recomputed from one data file's arrays.
struct FileScan {
    /// Rows of `y` (the file's window count), nil when `y` could not be read.
    var windows: Int?
    /// Windows per class id, nil when `y` could not be read.
    var classCounts: [Int]?
    var badLabels = BadValues()
    /// Which subjects / recordings have windows here (by index), nil when not read.
    var subjectsPresent: [Bool]?
    var recordingsPresent: [Bool]?
    /// Out-of-range indices per index array.
    var badIndices: [String: BadValues] = [:]
    /// Non-finite values per float array.
    var nonFinite: [String: BadValues] = [:]
    /// Per channel: smallest and largest finite value of `x`; nil when `x` was not read.
    var channelMin: [Float]?
    var channelMax: [Float]?
    /// Per value-range rule (by index in the expectations), per channel index: values outside.
    var rangeViolations: [Int: [Int: BadValues]] = [:]
    var xMoments: ColumnMoments?
    var featureMoments: ColumnMoments?
    /// Per row (window) of the file, for the checks across windows (`windows.time_order`,
    /// `splits.disjoint_windows`): `recording_index`, `start_time_s` and a 64-bit hash of the
    /// row's `x` bytes; nil when the array was not read.
    var rowRecordings: [Int32]?
    var rowStartTimes: [Double]?
    var rowXHashes: [UInt64]?
    /// `features` recomputed from `x` (`features.recomputed`); nil when they were not compared
    /// (no features, a manifest they cannot be planned from, or an array not read to the end).
    var featureComparison: FeatureComparison?
    /// An applied output's normalised arrays against their recomputation
    /// (`normalization.applied`), by array name; absent where not compared.
    var normalizedComparisons: [String: NormalizedComparison] = [:]
    /// `y_seq` (`labels.per_sample`): values that are not a class id or −1 (`first`'s location
    /// has the time step), and windows whose `y` is not what the policy gives from their
    /// `y_seq` (rule C8); nil when not compared.
    var badYSeqValues: BadValues?
    var ySeqInconsistent: BadValues?
    /// `qa`: values that are not a fraction from 0 to 1 (`first`'s location names the column as
    /// its time step); nil when not read.
    var badQA: BadValues?
    /// Arrays read to the end without an error.
    var completeArrays: Set<String> = []
}

/// Stored `features` against those recomputed from the same rows of `x` (docs/validate.md,
/// `features.recomputed`).
struct FeatureComparison {
    /// Windows whose features were recomputed and compared.
    var windowsCompared = 0
    /// Windows not recomputed because their `x` holds NaN or infinity (`values.finite` fails them).
    var windowsSkipped = 0
    /// Stored values whose bits differ from the recomputed value's, and the windows holding them.
    var valuesDiffering = 0
    var windowsDiffering = 0
    /// The first differing value: its row, feature column, stored and recomputed value.
    var first: (row: Int, column: Int, stored: Float, recomputed: Float)?

    /// Adds the comparison of rows after this one's.
    mutating func merge(_ o: FeatureComparison) {
        windowsCompared += o.windowsCompared
        windowsSkipped += o.windowsSkipped
        valuesDiffering += o.valuesDiffering
        windowsDiffering += o.windowsDiffering
        if first == nil { first = o.first }
    }
}
