import MotionCore
import MotionResample
import MotionWindowing

/// The one chain from samples to windows (ARCHITECTURE.md, "The chain"): the kept streams'
/// `StreamBuffer`s, the grid they are resampled on (`StreamingGrid`) and the chain from the grid
/// to the windows (`WindowChain`: transforms, cutter, segments), built once and wired here. The
/// dataset's engine (`StreamingRecording`: `run`, `apply`, `inspect`, `report --recordings`) and
/// the live library (`LiveProcessor`) both run it, so that a live window is the dataset's bit for
/// bit; neither wires the stages, nor keeps a segment or window lifecycle, of its own.
///
/// Contract:
/// - **takes** samples: the caller appends each kept stream's samples to `grid.streams[s]` (the
///   time rules, duplicates and anti-aliasing filter are `StreamBuffer`'s), then calls `advance`;
/// - **gives** grid rows and windows: `advance` computes every grid point the settled samples
///   decide and hands them to the window chain; the windows whose every row has settled are
///   `readyCount`, taken in order with `takeReady` (their values through `windows.appendWindow`
///   or `windows.window`); with `collectRows(true)` the settled rows of `x`, valid ones with their
///   grid points and gap-free segments, go to `rows` (the row stream: `createml`, MotionLive's
///   rows); with `windows.observer` every settled row instead, and no window is cut (timelines);
/// - **finish**: once every stream has finished (`StreamBuffer.finish`), `advance(final: true)`
///   ends the grid at its last point and the last segment; a stream with fewer than 2 samples
///   gives no grid (the dataset's `too_few_samples`);
/// - **state**: the streams' samples a later grid point can still use, T0 and the next grid
///   point (`grid`), the rows a window can still need and the current segment (`windows`), the
///   rows collected (`rows`). Nothing else: a caller's own state (labels, held samples, the
///   output) stays the caller's.
///
/// Resource limits (`valueLimit`, the engine's): the grid stops when it would pass that many
/// values (`gridOverflow`, checked before computing, from T0 and the limit), and no window is
/// kept past it (`WindowChain.windowOverflow`).
public final class SampleChain {
    /// The kept streams (`grid.streams`, in layout order) and the grid they are resampled on.
    public let grid: StreamingGrid
    /// The chain from the grid to the windows.
    public let windows: WindowChain
    /// The most grid values (grid points × channels of `x`) computed; nil: no limit.
    public let gridValueLimit: Int?
    /// The grid would pass `gridValueLimit`: nothing more is computed.
    public private(set) var gridOverflow = false
    /// The row stream, once `collectRows(true)` was called.
    public private(set) var rows: ChainRows?

    /// - Parameters:
    ///   - streams: one buffer per kept stream, in layout order, with its channels (its method,
    ///     maximum gap and filter may be set later, before its first sample, through `grid.streams`).
    ///   - magnitudes: the channel indices of each magnitude's axes (`StreamingGrid.magnitudes`).
    ///   - channelCount: channels of `x` (the grid's, then the transforms' outputs).
    ///   - holdsSegments: the transforms need a whole segment (a zero-phase step):
    ///     `windows.reserve` is asked as it grows.
    ///   - valueLimit: the most grid values and window values; nil: none.
    public init(streams: [StreamBuffer], rateHz: Double, magnitudes: [[Int]], windowPlan: WindowPlan,
                channelCount: Int, transforms: TransformPlan?, holdsSegments: Bool = false, valueLimit: Int? = nil) {
        grid = StreamingGrid(streams: streams, rateHz: rateHz, magnitudes: magnitudes)
        windows = WindowChain(windowPlan: windowPlan, channelCount: channelCount, transforms: transforms, rateHz: rateHz,
                              holdsSegments: holdsSegments, windowValueLimit: valueLimit ?? .max)
        gridValueLimit = valueLimit
    }

    /// Windows ready to be taken.
    public var readyCount: Int { windows.ready.count }

    /// Computes every grid point the samples so far settle (with `final`, every stream having
    /// finished: all of them, and the last segment ends) and hands them to the window chain.
    /// Starts the grid at T0 once every stream has a sample (samples before T0, but the last at
    /// or before it, are dropped). Returns whether T0 became known in this call (the engine then
    /// puts a fixed label track on the grid). Throws what `windows.reserve` throws.
    @discardableResult
    public func advance(final: Bool) throws -> Bool {
        var started = false
        if grid.t0 == nil {
            guard grid.start() else { return false }
            started = true
            for s in grid.streams.indices { grid.streams[s].drop(before: grid.t0!) }
        }
        if gridOverflow { return started }
        // A stream with fewer than 2 samples gives no grid (the dataset's `too_few_samples`).
        if final && grid.streams.contains(where: { $0.total < 2 }) { return started }
        guard let limit = final ? grid.finalLimit : grid.horizon else { return started }
        // The resource limit (the engine's `ResourceLimits.checkGrid`): a grid this long is nearly
        // always a bad timestamp. Past it nothing more is computed; the engine reports it from the
        // streams' extents after the read.
        if let gridValueLimit, (limit - grid.t0!) * grid.rateHz * Double(windows.C) > Double(gridValueLimit) {
            gridOverflow = true
            return started
        }
        try windows.advance(grid, through: limit, final: final)
        windows.trim(nextPoint: grid.nextPoint)
        return started
    }

    /// Takes the first `count` ready windows: `body` hears their starts (grid points, in order)
    /// and reads their values (`windows.appendWindow`, `windows.window`); then the rows no window
    /// can still need are dropped.
    public func takeReady<R>(_ count: Int, _ body: ([Int]) throws -> R) rethrows -> R {
        let starts = Array(windows.ready[0..<count])
        windows.removeReady(count)
        defer { windows.trim(nextPoint: grid.nextPoint) }
        return try body(starts)
    }

    /// Starts (or stops) collecting the settled rows of `x` in `rows`; rows collected stay
    /// there when it stops.
    public func collectRows(_ on: Bool) {
        guard on else {
            windows.rowListener = nil
            return
        }
        let collector = rows ?? ChainRows(channels: windows.C)
        rows = collector
        windows.rowListener = { first, rows, valid in collector.add(first: first, rows: rows, valid: valid) }
    }
}

/// The row stream of a `SampleChain`: the valid rows of `x` as they settle, after every
/// transform, with their grid points; the rows the windows are cut from. A gap-free segment is
/// a run of consecutive grid points (every grid point settles, in order: a gap, or a segment
/// too short for a zero-phase step, is a run of invalid ones, which are not kept).
public final class ChainRows {
    public let channels: Int
    /// The grid point of each row kept, in order.
    public private(set) var points: [Int] = []
    /// `channels` values per row.
    public private(set) var values: [Float] = []
    /// What the rows hold, in 4-byte values (a point index takes two).
    public var values4: Int { points.count * 2 + values.count }
    /// The last row taken's grid point, and its segment.
    private var lastTaken: Int?
    private var segment = 0

    public init(channels: Int) { self.channels = channels }

    public func add(first: Int, rows: UnsafeBufferPointer<Float>, valid: UnsafeBufferPointer<Bool>) {
        let C = channels
        for i in 0..<valid.count where valid[i] {
            points.append(first + i)
            values.append(contentsOf: rows[(i * C)..<((i + 1) * C)])
        }
    }

    /// The rows kept since the last call, each with its gap-free segment (counted from 0 in the
    /// order segments start), and forgets them.
    public func take() -> (points: [Int], segments: [Int], values: [Float]) {
        var segments = [Int](repeating: 0, count: points.count)
        for (i, p) in points.enumerated() {
            if let last = lastTaken, p != last + 1 { segment += 1 }
            segments[i] = segment
            lastTaken = p
        }
        defer {
            points.removeAll(keepingCapacity: true)
            values.removeAll(keepingCapacity: true)
        }
        return (points, segments, values)
    }
}
