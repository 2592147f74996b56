import MotionChain
import MotionCore
import MotionFeatures
import MotionResample
import MotionWindowing

/// One window, as the dataset stores it: `x` time-major (`windowLength` rows of every channel),
/// the features, and both standardised with the dataset's train statistics.
public struct LiveWindow: Sendable, Equatable {
    /// Time of the window's first grid point, on the clock of the samples pushed (`start_time_s`).
    public var startTime: Double
    /// `windowLength × channelCount` values, row by row (the dataset's `x[i]`).
    public var x: [Float]
    /// `x` standardised with the train statistics (the dataset's `x_normalized` as `apply`
    /// writes it); empty when the dataset has no train statistics.
    public var xNormalized: [Float]
    /// The features (`feature_names` order); empty without features.
    public var features: [Float]
    /// The features standardised with the train statistics; empty without them.
    public var featuresNormalized: [Float]
}

/// One row of the grid after every transform (docs/live.md, "Rows"): what a Core ML activity
/// classifier trained on the rows consumes, and the rows of the windows (a window's `x` is `T`
/// consecutive rows of one segment).
public struct LiveRow: Sendable, Equatable {
    /// The grid point's time, on the clock of the samples pushed.
    public var time: Double
    /// The gap-free segment the row is in, counted from 0 in the order segments start; a gap (a
    /// run of invalid grid points) ends one. Rows of a segment too short for a zero-phase
    /// transform are not given (the dataset has no window there either).
    public var segment: Int
    /// One value per channel of `x` (`configuration.channelNames`), float32 as the dataset stores them.
    public var values: [Float]
}

/// What the processor counted (docs/live.md): the dataset counts the same things.
public struct LiveCounts: Sendable, Equatable {
    /// Samples with the same time as the stream's previous one; the later replaces it.
    public var duplicateSamples = 0
    /// Samples refused because their time was before the stream's previous one.
    public var refusedSamples = 0
    /// Samples not used because a value was NaN or infinite (the dataset drops such rows:
    /// `rows_dropped.missing_value`).
    public var missingValueSamples = 0
    /// Runs of grid points without windows because a stream had a gap longer than `max_gap_s`,
    /// and those points.
    public var gaps = 0
    public var invalidPoints = 0
    /// Windows emitted.
    public var windows = 0
    /// Windows not emitted because their gap-free segment was too short for a zero-phase
    /// transform's padding (`windows_dropped.short_segment` of the dataset).
    public var shortSegmentWindows = 0
    /// Runs of samples left unfiltered by the anti-aliasing filter (15 samples or fewer between gaps).
    public var unfilteredRuns = 0
}

/// The dataset's processing, run on samples as they arrive (docs/live.md).
///
/// Push each stream's samples in time order, one at a time or in batches; streams may
/// interleave in any way (a phone delivers its sensors in bursts). Every call returns the windows
/// that became complete, in time order. The windows are those the dataset would hold for the same
/// samples (`x` bit for bit, the features and normalised values with them), because the grid, the
/// anti-aliasing filter, the chain from the grid to the windows and the features run the code
/// `motionprep run` runs: `StreamingRunFilter` and `SampleChain` (the grid, the transforms, the
/// cutter, the segments' lifecycle, the row stream) and `FeatureExtractor`. The processor keeps
/// no window or segment lifecycle of its own: it holds each stream's first samples until its
/// filter is designed, and turns the chain's windows and rows into `LiveWindow`s and `LiveRow`s.
///
/// A window is emitted as soon as every value in it is settled: its last grid point needs a
/// sample after it from every stream, plus the lookahead of the anti-aliasing filter (about
/// a second) and of the `transforms` (a zero-phase step needs the end of the gap-free segment:
/// a gap, or `finish()`).
///
/// Not thread-safe: use one processor per thread (or per serial queue).
public final class LiveProcessor {
    public let configuration: LiveConfiguration
    public private(set) var counts = LiveCounts()

    /// The dataset's chain from the samples to the windows.
    private let chain: SampleChain
    private var grid: StreamingGrid { chain.grid }
    private let extractor: FeatureExtractor?
    private var finished: [Bool]
    /// See `lookaheadSeconds`.
    private var filterLookahead = 0.0
    private var sampleCount: [Int32]
    /// Each stream's samples held back until its anti-aliasing filter is designed
    /// (`antialias_from: leading`): nil once they went to the grid (or without that filter).
    private var heads: [Head?]

    /// A stream's first samples, held until it has `Antialias.leadingIntervals` intervals.
    private struct Head {
        var times: [Double] = []
        var values: [Double] = []
        var lines: [Int32] = []
        /// The intervals between consecutive distinct times (an equal time adds none).
        var intervals: [Double] = []
    }

    /// - Parameters:
    ///   - configuration: the dataset's processing (`LiveConfiguration(contentsOf: "dataset/")`).
    ///   - sampleIntervals: only for a dataset made before 2026-12-07 with `antialias: true`
    ///     (`configuration.antialiasFromLeading` false), which designed the anti-aliasing filter
    ///     from each recording's median interval: each stream's median sampling interval in
    ///     seconds, by stream name. Give the device's nominal interval (0.01 for 100 Hz); the
    ///     windows are the dataset's bit for bit when it is the recording's median interval. A
    ///     dataset of `antialias_from: leading` (the default) needs none: the processor designs
    ///     the filter from each stream's first 256 intervals, as the dataset did.
    /// - Throws: `LiveError` for a missing or invalid interval, or an interval the dataset does
    ///   not use.
    public init(configuration: LiveConfiguration, sampleIntervals: [String: Double] = [:]) throws(LiveError) {
        self.configuration = configuration
        for name in sampleIntervals.keys.sorted() where configuration.streams.allSatisfy({ $0.name != name }) {
            throw LiveError("sampleIntervals names stream `\(name)`, but the dataset's streams are \(configuration.streams.map { "`\($0.name)`" }.joined(separator: ", "))")
        }
        if configuration.antialiasFromLeading, let name = sampleIntervals.keys.sorted().first {
            throw LiveError("sampleIntervals gives stream `\(name)` an interval, but the dataset designs its anti-aliasing filter from each stream's first \(Antialias.leadingIntervals) sampling intervals (antialias_from: leading), which the processor measures itself; give no sampleIntervals")
        }
        var buffers: [StreamBuffer] = []
        var lookahead = 0.0
        for s in configuration.streams {
            var b = StreamBuffer(channels: s.channelNames.count)
            b.method = s.method
            b.maxGapS = s.maxGapS
            if configuration.antialias && !configuration.antialiasFromLeading {
                guard let interval = sampleIntervals[s.name] else {
                    throw LiveError("the dataset low-passes its streams before resampling (antialias: true) with a filter designed from each recording's median sampling interval (it was made before antialias_from: leading); give stream `\(s.name)`'s interval in seconds in sampleIntervals (0.01 for 100 Hz)")
                }
                guard interval.isFinite && interval > 0 else {
                    throw LiveError("sampleIntervals gives stream `\(s.name)` an interval of \(interval) s; it must be a positive number of seconds")
                }
                Self.design(&b, interval: interval, rateHz: configuration.rateHz, lookahead: &lookahead)
            }
            buffers.append(b)
        }
        filterLookahead = lookahead
        heads = configuration.streams.map { _ in configuration.antialiasFromLeading ? Head() : nil }
        chain = SampleChain(streams: buffers, rateHz: configuration.rateHz, magnitudes: configuration.magnitudes.map(\.axes),
                            windowPlan: WindowPlan(length: configuration.windowLength, stride: configuration.windowStride),
                            channelCount: configuration.channelNames.count, transforms: configuration.transforms)
        extractor = configuration.features.isEmpty ? nil : FeatureExtractor(plan: FeaturePlan(
            features: configuration.features, channelNames: configuration.channelNames, rateHz: configuration.rateHz,
            windowLength: configuration.windowLength))
        finished = Array(repeating: false, count: configuration.streams.count)
        sampleCount = Array(repeating: 0, count: configuration.streams.count)
    }

    /// Gives `buffer` the anti-aliasing filter for a median interval of `interval` seconds, when
    /// the stream needs one; `lookahead` grows to the filter's.
    private static func design(_ buffer: inout StreamBuffer, interval: Double, rateHz: Double, lookahead: inout Double) {
        guard let f = Antialias.lowPass(medianInterval: interval, rateHz: rateHz) else { return }
        // Filtered samples are sent after `overlap` more (about a second), a few at a time,
        // instead of a block of 4096 as files are streamed.
        let filter = StreamingRunFilter(filter: f, channels: buffer.channels, maxGapS: buffer.maxGapS, chunk: 8)
        buffer.filter = filter
        lookahead = Swift.max(lookahead, Double(filter.overlap + 8) * interval)
    }

    /// Designs stream `s`'s filter from the median of its held intervals and sends the held
    /// samples to the grid (`antialias_from: leading`).
    private func release(_ s: Int) {
        guard var head = heads[s] else { return }
        heads[s] = nil
        let median = Antialias.median(of: &head.intervals)
        Self.design(&grid.streams[s], interval: median, rateHz: configuration.rateHz, lookahead: &filterLookahead)
        let n = grid.streams[s].channels, name = configuration.streams[s].name
        for i in head.times.indices {
            grid.streams[s].append(name: name, time: head.times[i], line: head.lines[i]) { head.values[i * n + $0] }
        }
    }

    /// How far, in seconds of samples, a window's last point must be behind the newest sample
    /// of every stream before the window is emitted: the anti-aliasing filter's lookahead (about
    /// 1.5 s for a 100 Hz stream on a 50 Hz grid: the backward pass starts that far ahead, so
    /// that its values are the whole run's to float32 precision), plus the `transforms`' (a
    /// median of n samples (n − 1) / 2 samples, a derivative 1), or infinity when a transform is
    /// zero-phase: those windows come when their gap-free segment ends (a gap, or `finish()`).
    public var lookaheadSeconds: Double {
        guard let plan = configuration.transforms else { return filterLookahead }
        guard let samples = plan.lookahead else { return .infinity }
        return filterLookahead + Double(samples) / configuration.rateHz
    }

    // MARK: - Input

    /// Takes one sample of stream `stream` (an index into `configuration.streams`): its time in
    /// seconds and one value per channel, in the channel's unit. Returns the windows completed.
    /// - Throws: `LiveError` for an unknown stream, a wrong number of values, a time that is not
    ///   finite or before the stream's previous sample (the sample is not used; counted in
    ///   `counts.refusedSamples`), or a stream already finished. A sample with a NaN or infinite
    ///   value is not used either, without an error (the dataset drops such rows): counted in
    ///   `counts.missingValueSamples`.
    public func push(stream: Int, time: Double, values: [Double]) throws(LiveError) -> [LiveWindow] {
        try take(stream: stream, time: time, count: values.count) { values[$0] }
        return advance(final: false)
    }

    /// Takes one sample of the stream named `name` (see `push(stream:time:values:)`).
    public func push(_ name: String, time: Double, values: [Double]) throws(LiveError) -> [LiveWindow] {
        try push(stream: try index(name), time: time, values: values)
    }

    /// Takes a batch of samples of one stream: `times[i]` with the channels' values
    /// `values[i * channels ..< (i + 1) * channels]`. Samples before a refused one are kept.
    public func push(stream: Int, times: [Double], values: [Double]) throws(LiveError) -> [LiveWindow] {
        guard configuration.streams.indices.contains(stream) else { throw unknown(stream) }
        let n = configuration.streams[stream].channelNames.count
        guard values.count == times.count * n else {
            throw LiveError("a batch of \(times.count) samples of stream `\(configuration.streams[stream].name)` needs \(times.count * n) values (\(n) per sample), not \(values.count)")
        }
        var out: [LiveWindow] = []
        for (i, t) in times.enumerated() {
            try take(stream: stream, time: t, count: n) { values[i * n + $0] }
            out += advance(final: false)
        }
        return out
    }

    /// No more samples of stream `stream` will come (the sensor stopped): the grid can end at
    /// its last sample.
    public func finish(stream: Int) throws(LiveError) -> [LiveWindow] {
        guard configuration.streams.indices.contains(stream) else { throw unknown(stream) }
        guard !finished[stream] else { return [] }
        finished[stream] = true
        release(stream)  // a stream with fewer intervals than the filter is designed from
        grid.streams[stream].finish()
        if let f = grid.streams[stream].filter { counts.unfilteredRuns += f.unfilteredRuns }
        guard finished.allSatisfy({ $0 }) else { return [] }
        return advance(final: true)
    }

    /// Ends every stream: the last windows, including those the end of the recording completes
    /// (the grid ends at the earliest last sample of the streams, as the dataset's does).
    public func finish() -> [LiveWindow] {
        var out: [LiveWindow] = []
        for s in finished.indices where !finished[s] {
            out += (try? finish(stream: s)) ?? []
        }
        return out
    }

    private func index(_ name: String) throws(LiveError) -> Int {
        guard let s = configuration.streams.firstIndex(where: { $0.name == name }) else {
            throw LiveError("unknown stream `\(name)`; the dataset's streams are \(configuration.streams.map { "`\($0.name)`" }.joined(separator: ", "))")
        }
        return s
    }

    private func unknown(_ stream: Int) -> LiveError {
        LiveError("unknown stream \(stream); the dataset has \(configuration.streams.count) streams, 0 to \(configuration.streams.count - 1) (\(configuration.streams.map { "`\($0.name)`" }.joined(separator: ", ")))")
    }

    private func take(stream s: Int, time t: Double, count: Int, value: (Int) -> Double) throws(LiveError) {
        guard configuration.streams.indices.contains(s) else { throw unknown(s) }
        let stream = configuration.streams[s]
        guard count == stream.channelNames.count else {
            throw LiveError("a sample of stream `\(stream.name)` has \(stream.channelNames.count) values (\(stream.channelNames.joined(separator: ", "))), not \(count)")
        }
        guard !finished[s] else { throw LiveError("stream `\(stream.name)` was finished; it takes no more samples") }
        guard t.isFinite else { throw LiveError("a sample of stream `\(stream.name)` has time \(t); times must be finite seconds") }
        if let newest = heads[s]?.times.last ?? grid.streams[s].newestTime, t < newest {
            counts.refusedSamples += 1
            throw LiveError("a sample of stream `\(stream.name)` at \(t) s comes after one at \(newest) s; each stream's samples must come in time order (equal times replace the previous sample)")
        }
        for c in 0..<count where !value(c).isFinite {
            counts.missingValueSamples += 1
            return
        }
        sampleCount[s] &+= 1
        if heads[s] != nil {
            hold(s, time: t, count: count, value: value)
            return
        }
        let before = grid.streams[s].duplicates
        grid.streams[s].append(name: stream.name, time: t, line: sampleCount[s], value: value)
        counts.duplicateSamples += grid.streams[s].duplicates - before
    }

    /// Holds a sample of stream `s` until the stream has its leading intervals, then designs the
    /// filter and sends the held samples on (`release`). An equal time replaces the held
    /// sample, as `StreamBuffer` replaces its open sample (a duplicate).
    private func hold(_ s: Int, time t: Double, count: Int, value: (Int) -> Double) {
        if let last = heads[s]!.times.last, t == last {
            for c in 0..<count { heads[s]!.values[heads[s]!.values.count - count + c] = value(c) }
            heads[s]!.lines[heads[s]!.lines.count - 1] = sampleCount[s]
            counts.duplicateSamples += 1
            return
        }
        if let last = heads[s]!.times.last { heads[s]!.intervals.append(t - last) }
        heads[s]!.times.append(t)
        heads[s]!.lines.append(sampleCount[s])
        for c in 0..<count { heads[s]!.values.append(value(c)) }
        if heads[s]!.intervals.count == Antialias.leadingIntervals { release(s) }
    }

    // MARK: - Rows

    /// Whether the processor keeps the rows of the grid after every transform for `takeRows()`
    /// (off by default: a window-only app keeps nothing). Set it before the first sample.
    public var emitsRows: Bool = false {
        didSet {
            guard emitsRows != oldValue else { return }
            chain.collectRows(emitsRows)
        }
    }

    /// The rows settled since the last call, in time order (`emitsRows`). A row settles when
    /// every value in it is final: as a window does, after the filter's and the transforms'
    /// lookahead, so rows come at most as late as the windows holding them.
    public func takeRows() -> [LiveRow] {
        guard let rows = chain.rows?.take() else { return [] }
        let C = configuration.channelNames.count
        return rows.points.indices.map { i in
            LiveRow(time: grid.time(rows.points[i]), segment: rows.segments[i], values: Array(rows.values[(i * C)..<((i + 1) * C)]))
        }
    }

    // MARK: - Grid and windows

    private func advance(final: Bool) -> [LiveWindow] {
        // Never throws: no memory reservation, no resource limit.
        _ = try? chain.advance(final: final)
        counts.gaps = chain.windows.gaps
        counts.invalidPoints = chain.windows.invalidPoints
        counts.shortSegmentWindows = chain.windows.shortSegmentWindows
        let out = chain.takeReady(chain.readyCount) { $0.map { window(at: $0) } }
        counts.windows += out.count
        return out
    }

    private func window(at start: Int) -> LiveWindow {
        let x = chain.windows.window(at: start)
        var w = LiveWindow(startTime: grid.time(start), x: x, xNormalized: [], features: [], featuresNormalized: [])
        if let extractor {
            var f = [Float](repeating: 0, count: extractor.plan.count)
            x.withUnsafeBufferPointer { xp in
                f.withUnsafeMutableBufferPointer { extractor.extract(windows: xp, count: 1, into: $0) }
            }
            w.features = f
            if let n = configuration.featureNormalization { w.featuresNormalized = n.apply(f[...]) }
        }
        if let n = configuration.xNormalization { w.xNormalized = n.apply(x[...]) }
        return w
    }
}
