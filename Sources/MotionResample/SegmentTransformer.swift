/// The `transforms` steps run on one gap-free segment whose grid rows arrive one at a time: the
/// single implementation of docs/signal.md, "Transforms". ``TransformPlan/applySegment(_:count:rateHz:)``
/// feeds it a whole segment at once (the dataset); the live library feeds it row by row and takes
/// each row as soon as every step has settled it, i.e. after the chain's lookahead.
///
/// Each step's outputs are final up to a position its inputs allow: a causal filter, a magnitude
/// and a calibration as far as their inputs; a centred median of n samples (n − 1) / 2 samples
/// behind them; a derivative from its inputs' second sample on; a zero-phase filter only once the
/// segment has ended (its backward pass starts at the end). Values are computed with the same
/// operations in the same order whatever the rows' arrival, so they are the same bits: a causal
/// filter runs section by section over each new stretch from the state the previous stretch
/// left, as `SignalFilters.sosfilt` does over the whole array; medians, derivatives, magnitudes
/// and calibrations are per position.
///
/// Stage contract (ARCHITECTURE.md, "The chain"): **in**, one gap-free segment's grid rows
/// (`append`); **out**, rows of `x` as every step settles them (`advance` says how many,
/// `rows(_:into:)` reads them); **finish**, `end()` (the segment ended: zero-phase steps run);
/// **state**, the rows a step can still need (`release(before:)`). `WindowChain` runs one per
/// segment.
public final class SegmentTransformer {
    public let plan: TransformPlan
    public let rateHz: Double

    /// Every value stored, per column: the input channels' (columns 0..<inputChannels), then
    /// each step's outputs. `columns[c][0]` is position `base[c]` (see ``release(before:)``).
    private var columns: [[Double]]
    private var base: [Int]
    /// How many leading values of each column are final.
    private var final: [Int]
    /// Per step: the columns it reads (by input, in `step.inputs` order; for a magnitude, its
    /// groups flattened) and writes (in `step.outputs` order).
    private let reads: [[Int]]
    private let writes: [[Int]]
    /// Per channel of `x`: the column holding its final value, or nil when no step writes it
    /// (its value is the grid's float32, copied).
    private let result: [Int?]
    /// Per step and output: a causal filter's state, section by section, once started.
    private var states: [[[Double]]]
    /// Per step: positions computed.
    private var done: [Int]
    /// The grid rows as received (for the channels no step writes), from row `rowsBase`.
    private var rows: [Float] = []
    private var rowsBase = 0
    public private(set) var count = 0
    public private(set) var ended = false

    public init(plan: TransformPlan, rateHz: Double) {
        self.plan = plan
        self.rateHz = rateHz
        var current = Array(0..<plan.channelCount).map { $0 < plan.inputChannels ? Optional($0) : nil }
        var next = plan.inputChannels
        var reads: [[Int]] = [], writes: [[Int]] = []
        for step in plan.steps {
            var r: [Int] = []
            if case .magnitude(let groups) = step.operation {
                r = groups.flatMap { $0.map { current[$0]! } }
            } else {
                r = step.inputs.map { current[$0]! }
            }
            reads.append(r)
            var w: [Int] = []
            for c in step.outputs {
                w.append(next)
                current[c] = next
                next += 1
            }
            writes.append(w)
        }
        self.reads = reads
        self.writes = writes
        result = (0..<plan.channelCount).map { c in c < plan.inputChannels && current[c] == c ? nil : current[c] }
        columns = Array(repeating: [], count: next)
        base = Array(repeating: 0, count: next)
        final = Array(repeating: 0, count: next)
        states = plan.steps.map { _ in [] }
        done = Array(repeating: 0, count: plan.steps.count)
    }

    /// Appends the segment's next grid row (``TransformPlan/inputChannels`` values).
    public func append(_ row: UnsafeBufferPointer<Float>) {
        precondition(!ended && row.count == plan.inputChannels, "SegmentTransformer: a row of \(row.count) values after the end, or not \(plan.inputChannels)")
        rows.append(contentsOf: row)
        for c in 0..<plan.inputChannels { columns[c].append(Double(row[c])) }
        count += 1
        for c in 0..<plan.inputChannels { final[c] = count }
    }

    /// Appends `n` rows at once (row-major).
    public func append(rows block: UnsafeBufferPointer<Float>, count n: Int) {
        let C0 = plan.inputChannels
        precondition(!ended && block.count == n * C0, "SegmentTransformer: \(block.count) values are not \(n) rows of \(C0)")
        rows.append(contentsOf: block)
        for c in 0..<C0 {
            var column = [Double](repeating: 0, count: n)
            for k in 0..<n { column[k] = Double(block[k * C0 + c]) }
            columns[c] += column
        }
        count += n
        for c in 0..<C0 { final[c] = count }
    }

    /// The segment has no more rows: every step can finish.
    public func end() {
        ended = true
    }

    /// Runs every step as far as its inputs allow; returns how many leading rows are final in
    /// every channel (``row(_:into:)`` may read them).
    @discardableResult
    public func advance() -> Int {
        for (s, step) in plan.steps.enumerated() { run(s, step) }
        var ready = count
        for c in result { if let c { ready = Swift.min(ready, final[c]) } }
        return ready
    }

    /// Rows `range` of `x` (each ``TransformPlan/channelCount`` values, row-major), rounded to
    /// float32, into `out`.
    public func rows(_ range: Range<Int>, into out: UnsafeMutableBufferPointer<Float>) {
        let C0 = plan.inputChannels, C = plan.channelCount, lo = range.lowerBound
        precondition(out.count == range.count * C, "SegmentTransformer.rows: room for \(out.count) values, not \(range.count) rows of \(C)")
        precondition(lo >= rowsBase, "SegmentTransformer.rows: row \(lo) was released")
        for (c, column) in result.enumerated() {
            if let column {
                let b = base[column]
                columns[column].withUnsafeBufferPointer { v in
                    for k in range { out[(k - lo) * C + c] = Float(v[k - b]) }
                }
            } else {
                let b = rowsBase
                rows.withUnsafeBufferPointer { r in
                    for k in range { out[(k - lo) * C + c] = r[(k - b) * C0 + c] }
                }
            }
        }
    }

    /// The caller will read no row before `position`: values no step needs any more are
    /// dropped, so that memory stays bounded by the chain's lookahead on a long segment
    /// (a zero-phase step keeps its inputs until the end).
    public func release(before position: Int) {
        // A column no step reads and no row of x shows is not needed at all.
        var keep = Array(repeating: count, count: columns.count)
        for c in result { if let c { keep[c] = Swift.min(keep[c], position) } }
        for (s, step) in plan.steps.enumerated() {
            var need = done[s]
            switch step.operation {
            case .median(let size): need -= size / 2
            case .derivative: need -= 1
            case .filter(_, true), .gravity(_, true): need = 0
            default: break
            }
            for r in reads[s] { keep[r] = Swift.min(keep[r], Swift.max(0, need)) }
        }
        for c in columns.indices {
            let drop = Swift.min(keep[c] - base[c], columns[c].count)
            if drop >= 4096 && drop * 2 >= columns[c].count {
                columns[c].removeFirst(drop)
                base[c] = keep[c]
            }
        }
        let drop = position - rowsBase
        if drop >= 4096 && drop * 2 >= rows.count / Swift.max(1, plan.inputChannels) {
            rows.removeFirst(drop * plan.inputChannels)
            rowsBase = position
        }
    }

    private func run(_ s: Int, _ step: TransformPlan.Step) {
        let input = reads[s].map { final[$0] }.min() ?? count
        let n = count
        let from = done[s]
        var to: Int
        switch step.operation {
        case .median(let size):
            to = ended ? input : Swift.max(0, input - (size - 1 - size / 2))
        case .filter(_, let zeroPhase), .gravity(_, let zeroPhase):
            to = zeroPhase ? (ended ? input : 0) : input
        case .derivative:
            to = input >= 2 || ended ? input : 0
        case .magnitude, .calibrate:
            to = input
        }
        guard to > from else { return }
        // Each output stretch is computed into a local array, then appended once.
        let m = to - from
        switch step.operation {
        case .median(let size):
            for (j, r) in reads[s].enumerated() {
                let b = base[r]
                // Positions relative to the column's first kept value: release keeps every
                // value a later median window needs, so the lower edge is the segment's only
                // when nothing was released (b = 0).
                let y = columns[r].withUnsafeBufferPointer { v in
                    (from..<to).map { SignalFilters.median(at: $0 - b, of: v, count: n - b, size: size) }
                }
                columns[writes[s][j]] += y
            }
        case .filter(let sos, let zeroPhase):
            for (j, r) in reads[s].enumerated() {
                let w = writes[s][j]
                if zeroPhase {
                    columns[w] = SignalFilters.filtfilt(sos, columns[r])!
                } else {
                    columns[w] += causal(s, j, sos, r, from, to)
                }
            }
        case .gravity(let sos, let zeroPhase):
            let outputs = reads[s].count
            for (j, r) in reads[s].enumerated() {
                let g = zeroPhase ? Array(SignalFilters.filtfilt(sos, columns[r])![from..<to]) : causal(s, j, sos, r, from, to)
                let b = base[r]
                var body = [Double](repeating: 0, count: m)
                columns[r].withUnsafeBufferPointer { x in
                    for i in 0..<m { body[i] = x[from + i - b] - g[i] }
                }
                columns[writes[s][j]] += body
                columns[writes[s][outputs + j]] += g
            }
        case .derivative:
            for (j, r) in reads[s].enumerated() {
                let b = base[r]
                var y = [Double](repeating: 0, count: m)
                columns[r].withUnsafeBufferPointer { x in
                    for i in Swift.max(from, 1)..<Swift.max(to, 1) { y[i - from] = (x[i - b] - x[i - 1 - b]) * rateHz }
                    // The first sample takes the second's value (one sample: 0).
                    if from == 0 { y[0] = to > 1 ? (x[1 - b] - x[0 - b]) * rateHz : 0 }
                }
                columns[writes[s][j]] += y
            }
        case .magnitude(let groups):
            var offset = 0
            for (j, group) in groups.enumerated() {
                var sum = [Double](repeating: 0, count: m)
                for c in reads[s][offset..<(offset + group.count)] {
                    let b = base[c]
                    columns[c].withUnsafeBufferPointer { x in
                        for i in 0..<m {
                            let v = x[from + i - b]
                            sum[i] += v * v
                        }
                    }
                }
                offset += group.count
                for i in 0..<m { sum[i] = sum[i].squareRoot() }
                columns[writes[s][j]] += sum
            }
        case .calibrate(let scale, let offset):
            for (j, r) in reads[s].enumerated() {
                let sc = scale[j], o = offset[j], b = base[r]
                var y = [Double](repeating: 0, count: m)
                columns[r].withUnsafeBufferPointer { x in
                    for i in 0..<m { y[i] = x[from + i - b] * sc + o }
                }
                columns[writes[s][j]] += y
            }
        }
        done[s] = to
        for w in writes[s] { final[w] = to }
    }

    /// A causal filter's output for positions from..<to of `x`, continuing from the state the
    /// previous stretch left (steady state times x[0] at the start), section by section.
    private func causal(_ s: Int, _ j: Int, _ sos: SignalFilters.SOS, _ column: Int, _ from: Int, _ to: Int) -> [Double] {
        let b = base[column]
        if states[s].count <= j {
            let x0 = columns[column][0 - b]
            states[s].append(SignalFilters.sosfiltZi(sos).flatMap { $0.map { $0 * x0 } })
        }
        var y = Array(columns[column][(from - b)..<(to - b)])
        var zi: [[Double]] = []
        for si in 0..<sos.count { zi.append([states[s][j][2 * si], states[s][j][2 * si + 1]]) }
        let state = SignalFilters.sosfilt(sos, &y, zi: zi)
        states[s][j] = state.flatMap { $0 }
        return y
    }
}

extension TransformPlan {
    /// How many grid samples after a row its values are final: the steps' lookaheads added up
    /// (a median of n samples (n − 1) / 2, a derivative 1, the others 0), or nil when a step
    /// needs the whole segment (a zero-phase filter).
    public var lookahead: Int? {
        var total = 0
        for step in steps {
            switch step.operation {
            case .median(let n): total += n - 1 - n / 2
            case .filter(_, let zeroPhase), .gravity(_, let zeroPhase): if zeroPhase { return nil }
            case .derivative: total += 1
            case .magnitude, .calibrate: break
            }
        }
        return total
    }
}
