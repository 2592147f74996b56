import MotionCore

/// The streamed resampler (docs/streaming.md): kept streams that arrive a block, or a sample,
/// at a time, put on the grid of docs/signal.md, "Resampling and gaps", point by point as soon as
/// every stream settles it. Each grid value is computed with the same bracketing and the same
/// expression as the whole-recording kernel (`ResamplePoint`), so the two give the same bits.
///
/// Stage contract (ARCHITECTURE.md, "The chain"): **in**, the kept streams' settled samples
/// (`streams`); **out**, grid rows of every channel with their validity, up to a limit
/// (`compute(through:)`: `horizon` while samples come, `finalLimit` once every stream ended);
/// **finish**, computing through `finalLimit`; **state**, T0 and the next point to compute.
/// `SampleChain` (MotionChain) owns it and drives it for both feeders: MotionEngine's
/// `StreamingRecording` (recordings read in blocks) and `MotionLive` (samples pushed by an app).
public final class StreamingGrid {
    /// The kept streams, in layout order (their channels, in order, are the first channels of a row).
    public var streams: [StreamBuffer]
    public let rateHz: Double
    /// Channel indices of each magnitude channel's axes; magnitude m is channel `baseChannels + m`.
    public let magnitudes: [[Int]]
    /// Channels of a grid row: every stream's, then the magnitudes.
    public let channelCount: Int
    /// T0, the latest first sample of the streams, once every stream has one.
    public private(set) var t0: Double?
    /// The next grid point to compute (all before it are computed).
    public private(set) var nextPoint = 0

    public init(streams: [StreamBuffer], rateHz: Double, magnitudes: [[Int]]) {
        self.streams = streams
        self.rateHz = rateHz
        self.magnitudes = magnitudes
        channelCount = streams.reduce(0) { $0 + $1.channels } + magnitudes.count
    }

    /// Grid time k: T0 + k / rate.
    @inline(__always)
    public func time(_ k: Int) -> Double { t0! + Double(k) / rateHz }

    /// Sets T0 once every stream has a first sample; returns whether it is known.
    public func start() -> Bool {
        if t0 != nil { return true }
        guard streams.allSatisfy({ $0.firstTime != nil }) else { return false }
        t0 = streams.map { $0.firstTime! }.max()!
        return true
    }

    /// The last grid time the settled samples decide now: just before every stream's latest
    /// settled sample; nil while some stream has none (or T0 is unknown).
    public var horizon: Double? {
        guard t0 != nil else { return nil }
        var horizon = Double.infinity
        for s in streams {
            guard let t = s.lastSettledTime else { return nil }
            horizon = Swift.min(horizon, t)
        }
        return horizon.nextDown
    }

    /// The grid's end once every stream has finished (`ResamplePoint.gridLimit` of T0 and T1,
    /// the earliest last sample); nil when the grid is empty or absurdly long.
    public var finalLimit: Double? {
        guard let t0, streams.allSatisfy({ $0.total > 0 }) else { return nil }
        let t1 = streams.map { $0.lastTime }.min()!
        let limit = ResamplePoint.gridLimit(t0: t0, t1: t1)
        let span = (limit - t0) * rateHz
        guard t0 <= limit, span.isFinite, span < Double(Int32.max) * 64 else { return nil }
        return limit
    }

    /// Computes every grid point k with time(k) ≤ `limit`, in order: appends each point's row
    /// (every channel, magnitudes included) to `rows` and whether it is valid (no stream's
    /// bracketing interval beyond its `maxGapS`) to `valid`. Then drops samples no later point
    /// can use. Returns the number of points computed (the first is the old `nextPoint`).
    @discardableResult
    public func compute(through limit: Double, rows: inout [Float], valid: inout [Bool]) -> Int {
        let C = channelCount
        let base = C - magnitudes.count
        let first = nextPoint
        // The streams are moved out of the object for the loop: every access below is then to a
        // local, with no runtime exclusivity check per point.
        var streams = self.streams
        self.streams = []
        defer { self.streams = streams }
        var k = first
        var row = [Float](repeating: 0, count: C)
        row.withUnsafeMutableBufferPointer { r in
            while true {
                let t = time(k)
                guard t <= limit else { break }
                var ok = true
                var offset = 0
                for s in streams.indices {
                    if !streams[s].sample(at: t, into: r, offset: offset) { ok = false }
                    offset += streams[s].channels
                }
                for (m, axes) in magnitudes.enumerated() {
                    r[base + m] = ResamplePoint.magnitude(axes) { r[$0] }
                }
                rows.append(contentsOf: r)
                valid.append(ok)
                k += 1
            }
        }
        nextPoint = k
        for s in streams.indices { streams[s].trim() }
        return k - first
    }

    /// As `compute(through:rows:valid:)`, handing each point to `body` with its row and validity.
    public func compute(through limit: Double, _ body: (_ k: Int, _ row: UnsafeBufferPointer<Float>, _ valid: Bool) throws -> Void) rethrows {
        let first = nextPoint
        var rows: [Float] = [], valid: [Bool] = []
        let n = compute(through: limit, rows: &rows, valid: &valid)
        let C = channelCount
        try rows.withUnsafeBufferPointer { r in
            for i in 0..<n { try body(first + i, UnsafeBufferPointer(rebasing: r[(i * C)..<((i + 1) * C)]), valid[i]) }
        }
    }
}
