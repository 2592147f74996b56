import MotionCore

/// The samples of one kept stream that can still bracket a grid point, with global indices.
///
/// Samples arrive in file order. The newest stays open (a later one with the same time replaces
/// it, docs/inputs.md, "Bad rows and time order") until a later time settles it; settled samples go through the anti-aliasing
/// filter when the stream has one, and then into `times` / `values`.
///
/// Stage contract (ARCHITECTURE.md, "The chain"): **in**, one stream's samples in file order
/// (`append`, a block or a sample at a time); **out**, settled samples that the grid brackets
/// its points with (`sample(at:into:offset:)`); **finish**, `finish()` settles the open sample
/// and ends the filter's last run; **state**, the samples a later grid point can still use
/// (`drop(before:)`, `trim()`), the open sample and the filter's run. A stream whose recording
/// is already in error only has its order checked (`check`, `endCheck`).
public struct StreamBuffer {
    public let channels: Int
    /// Set once the stream's name is known (`StreamingRecording.configure`).
    public var method = ResampleMethod.linear
    public var maxGapS = Double.infinity
    /// Global index of `times[0]`.
    public private(set) var base = 0
    public private(set) var times: [Double] = []
    public private(set) var values: [[Double]]
    /// True once the stream's file has ended and every sample is in `times`.
    public private(set) var finished = false
    public private(set) var firstTime: Double?
    public private(set) var duplicates = 0
    /// Samples (global count) with time ≤ the last grid time asked for.
    public private(set) var atOrBefore = 0
    public var filter: StreamingRunFilter?
    /// Settled samples later than the second one past this time are not kept (`limitGrid`).
    public var keepUntil = Double.infinity
    private var openTime: Double?
    private var openValues: [Double]
    /// Settled samples not yet handed to `filter`: it takes them a batch at a time.
    private var toFilterTimes: [Double] = []
    private var toFilterValues: [[Double]]

    public init(channels: Int) {
        self.channels = channels
        values = Array(repeating: [], count: channels)
        openValues = [Double](repeating: 0, count: channels)
        toFilterValues = Array(repeating: [], count: channels)
    }

    /// Settled samples so far (all of them once `finished`).
    public var total: Int { base + times.count }
    public var lastTime: Double { times.last! }

    /// The time of the latest settled sample.
    public var lastSettledTime: Double? { times.last }

    /// The first decreasing time (docs/inputs.md, "Bad rows and time order": whole processing's error), with its line (or IIO
    /// scan) and its predecessor's.
    public private(set) var decrease: (stream: String, time: Double, previousTime: Double, line: Int32, previousLine: Int32)?
    public private(set) var extent: (first: Double, firstLine: Int32, last: Double, lastLine: Int32)?
    /// Samples received (duplicates included) up to the first decreasing time.
    public private(set) var received = 0
    private var openLine: Int32 = 0

    /// Appends samples in file order: equal times replace the previous sample (counted); the
    /// first decreasing time is recorded in `decrease`, after which nothing is kept. `name` is
    /// the stream's name as read, for `decrease`; `lines` the samples' lines (or IIO scans).
    public mutating func append(name: String, times: [Double], channels: [[Double]], lines: [Int32]) {
        defer { flushFilter() }
        if appendInOrder(times: times, channels: channels, lines: lines) { return }
        for j in 0..<times.count {
            if decrease != nil { return }
            take(name: name, time: times[j], line: lines[j]) { channels[$0][j] }
        }
    }

    /// The common case of `append(name:times:channels:lines:)`, a block whose times never
    /// decrease (from the open sample on), taken column by column instead of sample by sample:
    /// the same samples settle, with the same counts, as `take` would settle them one at a time.
    /// Returns false, having changed nothing, when the block is not such a block.
    private mutating func appendInOrder(times: [Double], channels source: [[Double]], lines: [Int32]) -> Bool {
        let n = times.count
        guard n > 0, decrease == nil, source.count == channels else { return n == 0 }
        var previous = openTime ?? -Double.infinity
        for t in times {
            guard t >= previous else { return false }   // a decrease (or NaN): sample by sample
            previous = t
        }
        received += n
        if extent == nil {
            extent = (times[0], lines[0], times[n - 1], lines[n - 1])
        } else {
            extent!.last = times[n - 1]
            extent!.lastLine = lines[n - 1]
        }
        if openTime == nil && firstTime == nil { firstTime = times[0] }
        // The samples that settle: each one followed by a later time. -1 is the open sample
        // from before the block (unless a sample of the block with its time replaces it).
        var settled: [Int] = []
        settled.reserveCapacity(n)
        var open = openTime == nil ? Int.min : -1
        var openT = openTime ?? -Double.infinity
        var dups = 0
        for j in 0..<n {
            let t = times[j]
            if open != Int.min && t == openT {
                dups += 1
            } else if open != Int.min {
                settled.append(open)
            }
            open = j
            openT = t
        }
        duplicates += dups
        let count = settled.count
        if count > 0 {
            let preOpen = openValues
            @inline(__always) func gather(_ column: [Double], _ pre: Double, into dest: inout [Double]) {
                let start = dest.count
                dest.append(contentsOf: repeatElement(0, count: count))
                column.withUnsafeBufferPointer { src in
                    dest.withUnsafeMutableBufferPointer { d in
                        settled.withUnsafeBufferPointer { idx in
                            for i in 0..<count { let k = idx[i]; d[start + i] = k < 0 ? pre : src[k] }
                        }
                    }
                }
            }
            if filter != nil {
                gather(times, openTime ?? 0, into: &toFilterTimes)
                for c in 0..<channels { gather(source[c], preOpen[c], into: &toFilterValues[c]) }
            } else {
                gather(times, openTime ?? 0, into: &self.times)
                for c in 0..<channels { gather(source[c], preOpen[c], into: &values[c]) }
            }
        }
        openTime = openT
        openLine = lines[n - 1]
        for c in 0..<channels { openValues[c] = source[c][n - 1] }
        if filter == nil, count > 0, self.times.last! > keepUntil { dropBeyond() }
        return true
    }

    /// Appends one sample (see `append(name:times:channels:lines:)`); `value(c)` is channel c's value.
    public mutating func append(name: String, time t: Double, line: Int32, value: (Int) -> Double) {
        take(name: name, time: t, line: line, value: value)
        flushFilter()
    }

    /// Hands the settled samples waiting for the filter to it, in one batch.
    private mutating func flushFilter() {
        guard let filter, let last = toFilterTimes.last else { return }
        filter.push(times: toFilterTimes, values: toFilterValues, range: 0..<toFilterTimes.count, outTimes: &times, outValues: &values)
        toFilterTimes.removeAll(keepingCapacity: true)
        for c in 0..<channels { toFilterValues[c].removeAll(keepingCapacity: true) }
        if last > keepUntil { dropBeyond() }
    }

    /// Checks samples for their time order only, keeping none: for the rest of a recording
    /// whose error is already certain (docs/inputs.md, "Bad rows and time order": a later bad
    /// line or decreasing time may come first in file order). Counts them in `received` and
    /// `extent`, and records the first decreasing time in `decrease`, as `append` does.
    public mutating func check(name: String, times: [Double], lines: [Int32]) {
        for j in 0..<times.count {
            if decrease != nil { return }
            count(time: times[j], line: lines[j])
            if let open = openTime, times[j] < open {
                decrease = (name, times[j], open, lines[j], openLine)
                return
            }
            openTime = times[j]
            openLine = lines[j]
        }
    }

    /// The stream's file has ended while it was only checked (`check`): nothing settles.
    public mutating func endCheck() { finished = true }

    /// A sample received, in `received` and `extent`.
    @inline(__always)
    private mutating func count(time t: Double, line: Int32) {
        received += 1
        // The earliest (first of equals) and latest (last of equals) samples, for messages.
        if extent == nil {
            extent = (t, line, t, line)
        } else if t < extent!.first {
            extent!.first = t
            extent!.firstLine = line
        } else if t >= extent!.last {
            extent!.last = t
            extent!.lastLine = line
        }
    }

    @inline(__always)
    private mutating func take(name: String, time t: Double, line: Int32, value: (Int) -> Double) {
        if decrease != nil { return }
        count(time: t, line: line)
        if let open = openTime {
            if t < open {
                decrease = (name, t, open, line, openLine)
                return
            }
            openLine = line
            if t == open {
                for c in 0..<channels { openValues[c] = value(c) }
                duplicates += 1
                return
            }
            settle()
        } else if firstTime == nil {
            firstTime = t
        }
        openTime = t
        openLine = line
        for c in 0..<channels { openValues[c] = value(c) }
    }

    /// The time of the open (newest, not yet settled) sample.
    public var newestTime: Double? { openTime }

    /// The stream's file has ended: settles the open sample and drains the filter.
    public mutating func finish() {
        if decrease != nil {
            finished = true
            return
        }
        if openTime != nil { settle() }
        openTime = nil
        flushFilter()
        filter?.finish(outTimes: &times, outValues: &values)
        dropBeyond()
        finished = true
    }

    /// Drops settled samples after the second one past `keepUntil` (the filter still sees
    /// every sample, so filtered values and its counts are those of the whole stream).
    private mutating func dropBeyond() {
        guard keepUntil < .infinity, let last = times.last, last > keepUntil else { return }
        var i = times.count
        while i > 0 && times[i - 1] > keepUntil { i -= 1 }
        let keep = i + 2
        guard times.count > keep else { return }
        times.removeLast(times.count - keep)
        for c in 0..<channels { values[c].removeLast(values[c].count - keep) }
    }

    private mutating func settle() {
        if filter != nil {
            toFilterTimes.append(openTime!)
            for c in 0..<channels { toFilterValues[c].append(openValues[c]) }
            return
        }
        times.append(openTime!)
        for c in 0..<channels { values[c].append(openValues[c]) }
        if openTime! > keepUntil { dropBeyond() }
    }

    /// Writes the stream's channels at grid time `t` to `row[offset...]` with the rules
    /// `_ResampleKernels.resample` uses (`ResamplePoint`); returns whether the bracketing interval is within
    /// `maxGapS`. Grid times must be asked for in ascending order.
    @inline(__always)
    public mutating func sample(at t: Double, into row: UnsafeMutableBufferPointer<Float>, offset: Int) -> Bool {
        let n = total
        while atOrBefore < n && times[atOrBefore - base] <= t { atOrBefore += 1 }
        let i = ResamplePoint.bracket(atOrBefore: atOrBefore, count: n)
        let ti = times[i - base], tj = times[i + 1 - base]
        let valid = !(tj - ti > maxGapS)
        switch method {
        case .linear:
            let sinceLeft = t - ti
            let interval = tj - ti
            for c in 0..<channels {
                row[offset + c] = ResamplePoint.linear(values[c][i - base], values[c][i + 1 - base], sinceLeft: sinceLeft, interval: interval)
            }
        case .nearest:
            let k = ResamplePoint.nearest(i, t: t, ti: ti, tj: tj)
            for c in 0..<channels { row[offset + c] = Float(values[c][k - base]) }
        case .previous:
            let k = ResamplePoint.previous(atOrBefore: atOrBefore)
            for c in 0..<channels { row[offset + c] = Float(values[c][k - base]) }
        }
        return valid
    }

    /// Drops samples before the last one at or before `t0` (the grid starts at `t0`, so no grid
    /// point can use them), before any grid point is computed.
    public mutating func drop(before t0: Double) {
        var k = 0
        var hi = times.count
        while k < hi {   // samples with time ≤ t0
            let mid = (k + hi) / 2
            if times[mid] <= t0 { k = mid + 1 } else { hi = mid }
        }
        let drop = k - 1
        guard drop >= 4096 && drop >= times.count / 2 else { return }
        times.removeFirst(drop)
        for c in 0..<channels { values[c].removeFirst(drop) }
        base += drop
        atOrBefore = Swift.max(atOrBefore, base)
    }

    /// Drops samples before the earliest one a later grid point can use.
    public mutating func trim() {
        let keep = Swift.max(0, Swift.min(atOrBefore - 1, total - 2))
        let drop = keep - base
        guard drop >= 4096 && drop >= times.count / 2 else { return }
        times.removeFirst(drop)
        for c in 0..<channels { values[c].removeFirst(drop) }
        base = keep
    }
}

