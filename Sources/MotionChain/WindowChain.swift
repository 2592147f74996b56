import MotionCore
import MotionResample
import MotionWindowing

/// The chain from the grid to the windows, the one both the dataset's engine
/// (`StreamingRecording`, files read in blocks) and the live library (`LiveProcessor`, samples
/// pushed by an app) run, through `SampleChain`, which wires it to the grid, so that a live
/// window is the dataset's bit for bit (docs/live.md, docs/streaming.md; ARCHITECTURE.md, "The chain").
///
/// Stage contract: **in**, the grid's points as every stream settles them (`advance`: rows of
/// the grid's channels, each with its validity); **out**, the starts of the windows whose every
/// row of `x` is settled (`ready`, in order), with their rows (`appendWindow`); **finish**,
/// `advance(final: true)` ends the last gap-free segment. Its state is the rows a window can
/// still need, the window cutter and the current segment's transformer.
///
/// Without `transforms` a grid row is a row of `x`. With them, each gap-free segment goes through
/// its `SegmentTransformer` (docs/signal.md, "Transforms"), in batches of consecutive valid points;
/// an invalid point ends the segment; rows of `x` settle as every step settles them, and a
/// window is ready once its last row has settled. A segment too short for a zero-phase step's
/// padding gives no windows (counted in `shortSegmentWindows`), its rows invalid.
///
/// The resource limit on windows (`windowValueLimit`): past it no window is kept, the starts are
/// counted on (`windowStarts`, `mostWindowStarts`) and `windowOverflow` says so, for the
/// recording's error. With an `observer` (`report --recordings`' timeline) no window is cut:
/// the observer hears every settled row of `x` with its validity, in order.
public final class WindowChain {
    /// Window length (grid points) and channels of `x`.
    public let T: Int
    public let C: Int
    private let transforms: TransformPlan?
    private let rateHz: Double
    /// A zero-phase step: a segment is held whole, and `reserve` hears it grow.
    private let holdsSegments: Bool

    /// Rows of `x` from grid point `base` on.
    public private(set) var base = 0
    private var rows: [Float] = []
    private var cutter: WindowCutter
    /// Window starts whose every row is settled, in order, until `removeReady`.
    public private(set) var ready: [Int] = []
    private var segment: SegmentTransformer?
    private var segmentFirst = 0
    /// With transforms: the rows before this grid point are settled.
    private var settled = 0
    /// The current segment's window starts, waiting for their rows to settle.
    private var segmentPending: [Int] = []
    /// The longest segment kept (long enough for every step).
    public private(set) var longestKeptSegment = 0
    private var segmentReserved = 0
    /// Window starts counted against the resource limit on windows.
    private var starts: _WindowStarts
    /// Window starts so far, and the most they were before a short segment's were taken back.
    public var windowStarts: Int { starts.count }
    public var mostWindowStarts: Int { starts.most }
    /// The window starts passed `windowValueLimit`: none is kept.
    public var windowOverflow: Bool { starts.overflow }
    /// Windows of segments too short for a zero-phase step (`windows_dropped.short_segment`).
    public private(set) var shortSegmentWindows = 0
    /// The validity flags, and with transforms the rows, of one `advance` (kept for their storage).
    private var scratch = (valid: [Bool](), rows: [Float]())

    /// With a zero-phase step, asked for the values the held segment needs in all whenever it
    /// outgrows what was asked before (the run's memory budget); may throw to stop.
    public var reserve: ((Int) throws -> Void)?
    /// Hears every settled row of `x` (grid points `first…`) with its validity; no windows are
    /// cut while it is set.
    public var observer: ((_ first: Int, _ rows: UnsafeBufferPointer<Float>, _ valid: UnsafeBufferPointer<Bool>) -> Void)?
    /// Hears every settled row of `x` as `observer` does, while windows are cut as usual: the
    /// live library's row stream (docs/live.md, "Rows").
    public var rowListener: ((_ first: Int, _ rows: UnsafeBufferPointer<Float>, _ valid: UnsafeBufferPointer<Bool>) -> Void)?

    /// Runs of invalid grid points, those points, and the longest run of valid ones.
    public var gaps: Int { cutter.gaps }
    public var invalidPoints: Int { cutter.invalidPoints }
    public var longestRun: Int { cutter.longestRun }

    /// - Parameters:
    ///   - channelCount: channels of `x` (the grid's, then the transforms' outputs).
    ///   - holdsSegments: the transforms need a whole segment (a zero-phase step): `reserve` is
    ///     asked as it grows.
    ///   - windowValueLimit: the most window values (starts × T × C) kept.
    public init(windowPlan: WindowPlan, channelCount: Int, transforms: TransformPlan?, rateHz: Double,
                holdsSegments: Bool = false, windowValueLimit: Int = .max) {
        T = windowPlan.length
        C = channelCount
        self.transforms = transforms
        self.rateHz = rateHz
        self.holdsSegments = holdsSegments
        starts = _WindowStarts(valueLimit: windowValueLimit)
        cutter = WindowCutter(plan: windowPlan)
    }

    /// Computes the grid's points through `limit` and takes them; `final` (the grid's end) also
    /// ends the last segment.
    public func advance(_ grid: StreamingGrid, through limit: Double, final: Bool) throws {
        let C = self.C
        if transforms == nil {
            // Rows straight into `rows`; windows cut from the validity flags, with the cutter and
            // the lists held in locals (no runtime exclusivity check per point).
            let first = grid.nextPoint
            var flags = scratch.valid
            scratch.valid = []
            flags.removeAll(keepingCapacity: true)
            let n = grid.compute(through: limit, rows: &rows, valid: &flags)
            if observer != nil || rowListener != nil {
                for listener in [observer, rowListener] {
                    guard let listener else { continue }
                    rows.withUnsafeBufferPointer { r in
                        flags.withUnsafeBufferPointer { f in
                            listener(first, UnsafeBufferPointer(rebasing: r[((first - base) * C)...]), f)
                        }
                    }
                }
            }
            var cutter = self.cutter, ready = self.ready, starts = self.starts
            self.ready = []
            let T = self.T
            for i in 0..<(observer == nil ? n : 0) {
                cutter.add(point: first + i, valid: flags[i]) { start in
                    // Past the window limit the recording is refused: count on, keep none.
                    if starts.add(T: T, C: C) { ready.removeAll() }
                    if !starts.overflow { ready.append(start) }
                }
            }
            self.cutter = cutter
            self.ready = ready
            self.starts = starts
            scratch.valid = flags
            return
        }
        // Transforms: the points of this call computed at once, then taken run by run: a run of
        // valid points goes to the segment's transformer in one batch, an invalid point ends the
        // segment; the cutter sees each run's points after its rows went in, as it would point by
        // point.
        let plan = transforms!
        let first = grid.nextPoint
        var flags = scratch.valid
        scratch.valid = []
        flags.removeAll(keepingCapacity: true)
        var computed = scratch.rows
        scratch.rows = []
        computed.removeAll(keepingCapacity: true)
        let n = grid.compute(through: limit, rows: &computed, valid: &flags)
        let C0 = grid.channelCount
        var i = 0
        while i < n {
            var j = i + 1
            if flags[i] {
                while j < n && flags[j] { j += 1 }
                if segment == nil {
                    segment = SegmentTransformer(plan: plan, rateHz: rateHz)
                    segmentFirst = first + i
                }
                computed.withUnsafeBufferPointer { r in
                    segment!.append(rows: UnsafeBufferPointer(rebasing: r[(i * C0)..<(j * C0)]), count: j - i)
                }
                if holdsSegments, reserve != nil, segment!.count - (settled - segmentFirst) > segmentReserved / perSegmentRow {
                    try reserveSegment()
                }
            } else {
                if segment != nil { endSegment() }
                // An invalid point: no window contains it.
                rows.append(contentsOf: repeatElement(0, count: C))
                settled = first + i + 1
                observe(first + i, count: 1, valid: false)
            }
            for k in (first + i)..<(observer == nil ? first + j : first + i) {
                cutter.add(point: k, valid: flags[k - first]) { start in
                    // Past the window limit the recording is refused: count on, keep none.
                    if starts.add(T: T, C: C) {
                        ready.removeAll()
                        segmentPending.removeAll()
                    }
                    if !starts.overflow { segmentPending.append(start) }
                }
            }
            i = j
        }
        scratch.valid = flags
        scratch.rows = computed
        if segment != nil {
            if final { endSegment() } else { settle() }
        }
    }

    /// Appends the `T × C` values of the ready window starting at grid point `start` to `x`.
    public func appendWindow(at start: Int, to x: inout [Float]) {
        let from = (start - base) * C
        x.append(contentsOf: rows[from..<(from + T * C)])
    }

    /// The values of the window starting at `start` (still held: a ready window).
    public func window(at start: Int) -> [Float] {
        let from = (start - base) * C
        return Array(rows[from..<(from + T * C)])
    }

    /// The first `count` ready windows have been taken.
    public func removeReady(_ count: Int) {
        ready.removeFirst(count)
    }

    /// The earliest grid point a window not yet cut, waiting or ready, can start at (label
    /// events before it are no longer needed).
    public func earliestWindowPoint(nextPoint: Int) -> Int {
        var earliest = nextPoint
        if let p = ready.first { earliest = Swift.min(earliest, p) }
        if let p = segmentPending.first { earliest = Swift.min(earliest, p) }
        if let e = cutter.earliestUncut { earliest = Swift.min(earliest, e) }
        return earliest
    }

    /// Drops rows no window can still need (`nextPoint`: the grid's next point).
    public func trim(nextPoint: Int) {
        var keep = nextPoint
        if let p = ready.first { keep = Swift.min(keep, p) }
        if transforms != nil {
            keep = Swift.min(keep, settled)
            if let p = segmentPending.first { keep = Swift.min(keep, p) }
        }
        if let e = cutter.earliestUncut { keep = Swift.min(keep, e) }
        let drop = keep - base
        if drop > 0 && drop * C >= Swift.max(1 << 16, rows.count / 2) {
            rows.removeFirst(drop * C)
            base = keep
        }
    }

    // MARK: - Segments

    /// Moves the rows of x the current segment's transforms have settled to `rows`, and the
    /// windows they complete to `ready`.
    private func settle() {
        guard let segment else { return }
        let done = segmentFirst + segment.advance()
        guard done > settled else { return }
        var values = [Float](repeating: 0, count: (done - settled) * C)
        values.withUnsafeMutableBufferPointer { segment.rows((settled - segmentFirst)..<(done - segmentFirst), into: $0) }
        rows += values
        observe(settled, count: done - settled, valid: true)
        settled = done
        segment.release(before: settled - segmentFirst)
        var n = 0
        while n < segmentPending.count && segmentPending[n] + T <= settled { n += 1 }
        ready += segmentPending[0..<n]
        segmentPending.removeFirst(n)
    }

    /// Hands the last `count` rows (grid points `first…`) to `observer` and `rowListener`.
    private func observe(_ first: Int, count: Int, valid: Bool) {
        guard observer != nil || rowListener != nil, count > 0 else { return }
        let flags = [Bool](repeating: valid, count: count)
        for listener in [observer, rowListener] {
            guard let listener else { continue }
            rows.withUnsafeBufferPointer { r in
                flags.withUnsafeBufferPointer { listener(first, UnsafeBufferPointer(rebasing: r[(r.count - count * C)...]), $0) }
            }
        }
    }

    /// The current segment ended (a gap, or the grid's end): every row settles. A segment too
    /// short for a zero-phase step's padding gives no windows: they are counted, and its rows
    /// are never read.
    private func endSegment() {
        guard let segment, let plan = transforms else { return }
        segment.end()
        if segment.count < plan.minimumSegment {
            let lost = segmentPending.count
            shortSegmentWindows += lost
            starts.takeBack(lost)
            segmentPending.removeAll()
            let from = settled
            rows.append(contentsOf: repeatElement(0, count: (segmentFirst + segment.count - settled) * C))
            settled = segmentFirst + segment.count
            observe(from, count: settled - from, valid: false)
        } else {
            settle()
            longestKeptSegment = Swift.max(longestKeptSegment, segment.count)
        }
        self.segment = nil
    }

    /// Values a held segment row takes in the transformer: its input channels, and float64
    /// buffers of the channels the steps write.
    private var perSegmentRow: Int {
        guard let t = transforms else { return 1 }
        return t.inputChannels + 2 * t.channelCount + 4
    }

    /// The transformer holds more rows than asked for: ask for twice the rows held, so that a
    /// long segment asks only a few times.
    private func reserveSegment() throws {
        guard let segment, let reserve else { return }
        let held = segment.count - (settled - segmentFirst)
        segmentReserved = Swift.max(1 << 16, 2 * held) * perSegmentRow
        try reserve(segmentReserved)
    }
}

/// Window starts counted against the resource limit on windows (`windowValueLimit`, the most
/// window values, starts × T × C, kept).
struct _WindowStarts {
    let valueLimit: Int
    /// Window starts so far, and the most they were before a short segment's were taken back.
    private(set) var count = 0
    private(set) var most = 0
    /// The starts passed the limit: none is kept.
    private(set) var overflow = false

    init(valueLimit: Int) { self.valueLimit = valueLimit }

    /// Counts one start of a `T × C` window; whether the starts are past the limit (then every
    /// window is let go).
    @inline(__always)
    mutating func add(T: Int, C: Int) -> Bool {
        count += 1
        guard Double(count) * Double(T) * Double(C) > Double(valueLimit) else { return false }
        overflow = true
        return true
    }

    /// A short segment's `lost` starts are taken back (its windows are dropped, not kept).
    mutating func takeBack(_ lost: Int) {
        most = Swift.max(most, count)
        count -= lost
    }
}
