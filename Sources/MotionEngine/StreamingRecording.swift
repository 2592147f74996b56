import MotionChain
import MotionConfig
import MotionCore
import MotionSinks
import MotionFeatures
import MotionIngest
import MotionLabels
import MotionResample
import MotionWindowing
import MotionInputs
import MotionRecords

/// Label events that arrive at or before a time already labelled: they would have changed a
/// finished window. Not an error: the recording is streamed once more with its label track read
/// first, in a pass of its own (`StreamingRecording.attempt`), which is rare (it needs a label
/// row a block behind the samples around it).
package struct LabelEventOutOfOrder: Error, CustomStringConvertible {
    package var time: Double
    package var labelledThrough: Double

    package var description: String { "a label event at \(time) s arrived after windows up to \(labelledThrough) s were labelled" }
}

/// One recording streamed through ingest → time order → resample → window → label → features
/// → record file, a block of input at a time, with memory bounded by the block size rather than
/// the recording's length (issue 8). This is the only engine: a recording read in one block is
/// the "whole" case, and every block size gives the same bytes (docs/streaming.md, "One path"):
///
/// - each kept stream keeps only the samples that can still bracket a grid point; the last
///   sample received stays open (a later sample with the same time replaces it, docs/inputs.md, "Bad rows and time order");
/// - grid point k is computed once every stream has a settled sample after t_k, with the same
///   bracketing and the same expression as the grid kernel; the grid's end (T1 and its
///   tolerance) is decided when every file has ended;
/// - windows are cut as their last point is computed, and labelled one input block later, from
///   the label events seen so far kept in time order. An event that arrives at or before a time
///   already labelled would have changed a finished window: `LabelEventOutOfOrder` is thrown,
///   and `attempt` streams the recording again with its label track read first
///   (`RecordingLabels.readFirst`);
/// - kept windows go to the record file in blocks of `RecordStore.blockWindows`, and the
///   normalisation moments are combined per such block (`WindowOutput`).
///
/// Its parts, each in a file of its own: reading the files in every pass (`RecordingReader`),
/// the extra passes (the anti-aliasing median, T0: StreamingRecording+Passes.swift), the labels
/// (`RecordingLabels`, `LabelFold`), the sinks (a record file or a timeline:
/// StreamingRecording+Sinks.swift, `WindowOutput`) and the checks (StreamingRecording+Checks.swift).
///
/// Errors (docs/inputs.md, "Bad rows and time order"): a recording of one file raises them in
/// the order of its lines (a bad line as the reader meets it; after the last block, a missing
/// stream or the first decreasing time per stream, found while the rest of the file is read
/// only to be checked). A recording of several files is read interleaved by time, so its first
/// error met need not be the first in file order: `attempt` then reads the files once more in
/// file order, only to check them (`checkInFileOrder`), and raises the first error there.
package final class StreamingRecording {
    package let source: RecordingSource
    package let spec: PipelineSpec
    package let layout: ChannelLayout
    package let windowPlan: WindowPlan
    package let aligner: LabelAligner?
    /// The most grid values, and window values, the recording may use (`RecordingProcessor.valueLimit`).
    package let valueLimit: Int
    /// The recording's files, read in every pass (kept blocks replayed, `sort: true` files sorted once).
    package let files: RecordingReader
    /// The chain from the samples to the windows (the streams, the grid, `transforms`, the
    /// cutter, the rows a window can still need), the one `LiveProcessor` runs too. A zero-phase
    /// step settles nothing before its segment ends: the chain then holds the whole segment, and
    /// the recording's memory reservation grows with it (`WindowChain.reserve`).
    package let chain: SampleChain
    /// Where each kept stream came from.
    package var origins: [StreamOrigin]
    /// The intervals file, for the rows that cover no grid point.
    package let intervals: IntervalLabels?
    /// Where the labels come from, and where the label events read go.
    package var labels: RecordingLabels
    /// Each kept stream's first sample time, once a late stream made the engine look it up.
    package var firstTimes: [Double]?
    /// A kept stream has no sample at all (the recording's error): nothing more is computed.
    package var missingStream = false
    package var counts = RecordingCounts()
    /// The windows kept, a block at a time, and where they go (`run`'s record file).
    package let output: WindowOutput
    /// The recording's memory reservation: the estimate it started with, plus what the chain's
    /// held segment and the collected rows grow to.
    package let reservation: _Reservation
    /// The pipeline's `qa`, decided by the recording's QA pass (`qaPass`): each kept window gets
    /// its `qa` row and the policy (RecordingQA.swift).
    package var qa: RecordingQA?

    /// The kept streams (`grid.streams`, in layout order) and the grid they are resampled on.
    package var grid: StreamingGrid { chain.grid }
    /// The grid would exceed the resource limit: nothing more is computed.
    package var gridOverflow: Bool { chain.gridOverflow }
    /// `output.type: createml`: the valid rows of `x` as they settle (the chain's row stream).
    /// The label events are then kept whole, for each row's class at the end.
    package var rowCollector: ChainRows? { chain.rows }
    package var rate: Double { spec.resample.rateHz }
    package var T: Int { windowPlan.length }
    package var C: Int { layout.channelNames.count }
    package var transforms: TransformPlan? { layout.transforms }

    package init(source: RecordingSource, spec: PipelineSpec, layout: ChannelLayout, windowPlan: WindowPlan,
         aligner: LabelAligner?, featurePlan: FeaturePlan?, extractor: FeatureExtractor?, isTrain: Bool,
         intervals: IntervalLabels?, blockBytes: Int, valueLimit: Int = ResourceLimits.maxGridValues,
         ledger: InputLedger? = nil, keepBlocks: Bool = false, labelTrack: LabelTrack? = nil,
         reserved: Int = 0, reserve: @escaping (Int) throws -> Void = { _ in }) throws {
        self.valueLimit = valueLimit
        self.source = source
        self.spec = spec
        self.layout = layout
        self.windowPlan = windowPlan
        self.aligner = aligner
        files = RecordingReader(source: source, spec: spec, layout: layout, blockBytes: blockBytes, ledger: ledger,
                                keepsFirstRead: keepBlocks)
        chain = SampleChain(streams: layout.sensors.map { sensor in StreamBuffer(channels: sensor.channelNames.count) },
                            rateHz: spec.resample.rateHz, magnitudes: layout.magnitudes.map(\.axes), windowPlan: windowPlan,
                            channelCount: layout.channelNames.count, transforms: layout.transforms,
                            holdsSegments: spec.transformsLookahead == .segment, valueLimit: valueLimit)
        let reservation = _Reservation(base: reserved, reserve: reserve)
        self.reservation = reservation
        chain.windows.reserve = { try reservation.set(chain: $0) }
        origins = layout.sensors.map { StreamOrigin(file: nil, input: nil, name: $0.name) }
        labels = try RecordingLabels.of(source, spec: spec, intervals: intervals, readFirst: labelTrack)
        self.intervals = intervals
        output = WindowOutput(length: windowPlan.length, channels: layout.channelNames.count, featurePlan: featurePlan,
                              extractor: extractor, isTrain: isTrain, writer: nil)
    }

    package func time(_ k: Int) -> Double { grid.time(k) }

    /// Reads every file and pushes it through the stages (the kept windows to `output`); the
    /// recording's drop reason (`too_few_samples`) or nil. For a `timeline`, the label events
    /// are folded into a track as they come instead of kept for windows.
    package func stream(timeline: Bool = false, isCancelled: () -> Bool, bytesRead: (Int) -> Void) throws -> String? {
        var readers: [(reader: IngestBlockReader, file: InputFile)] = []
        for (r, file) in source.files.enumerated() {
            if let reader = try files.open(file, index: r) { readers.append((reader, file)) }
        }
        if timeline, case .events = labels { labels = .timeline(TimelineEvents(sources: readers.count)) }
        files.startMainPass()
        var readerBytes = [Int](repeating: 0, count: readers.count)
        var order = FileInterleave(files: readers.count)
        while let r = order.next() {
            if isCancelled() { throw RunInterrupted(message: "") }
            let ready = chain.readyCount
            if let block = try readers[r].reader.next() {
                order.advance(r, by: block)
                try take(block, from: r, file: readers[r].file)
                readerBytes[r] = block.bytesRead
                files.report(readerBytes.reduce(0, +), to: bytesRead)
            } else {
                order.end(r)
                if case .timeline(let events) = labels { events.fold.end(source: r) }
                counts.rowsDropped.add(readers[r].reader.rowsDropped)
                try _KeptFileReader.iio(readers[r].reader)?.requireWholeScan()
                for s in grid.streams.indices where origins[s].file == r {
                    if errorIsCertain { grid.streams[s].endCheck() } else { grid.streams[s].finish() }
                }
                limitGrid()
            }
            if grid.t0 == nil { try waitForLateStream(isCancelled: isCancelled) }
            // The recording's error is certain: read on only to check the rest.
            if errorIsCertain { continue }
            try label(count: ready)
            try emit(final: false)
            try reserveRows()
        }
        // Every file has ended; their warnings in file order.
        for r in readers { counts.warnings += r.reader.warnings }
        // The checks after reading (docs/inputs.md, "Bad rows and time order"), in this order: per kept stream, present, then
        // in time order (an iio dump's order is checked right after the dump).
        for s in grid.streams.indices {
            if let r = origins[s].file, let iio = _KeptFileReader.iio(readers[r].reader),
               let e = decreaseError(s, readers[r].file, iio: iio) { throw e }
        }
        for (s, sensor) in layout.sensors.enumerated() {
            guard let r = origins[s].file else { throw RecordingLoader.noStream(sensor, source: source, spec: spec) }
            if let e = decreaseError(s, readers[r].file, iio: nil) { throw e }
        }
        try checkGrid(readers.map(\.file))
        var dropped: String?
        if grid.streams.contains(where: { $0.total < 2 }) {
            dropped = "too_few_samples"
        } else {
            try emit(final: true)
            if gridOverflow { throw gridPastLimit() }
            if chain.windows.windowOverflow {
                // The most window starts met (a short segment's were counted, then taken back).
                try ResourceLimits.checkWindows(recording: source.name, files: source.files.map(\.path).joined(separator: ", "),
                                                windows: Swift.max(chain.windows.windowStarts, chain.windows.mostWindowStarts),
                                                length: T, channels: C, limit: valueLimit)
            }
            try label(count: chain.readyCount)
            try output.flush()
            try reserveRows()
        }
        return dropped
    }

    /// The recording's error (docs/inputs.md, "Bad rows and time order") is certain: the files
    /// are read on only to check the rest (`StreamBuffer.check`), since a bad line later in a
    /// file is reported first (errors come in the files' order).
    package var errorIsCertain: Bool {
        gridOverflow || missingStream || grid.streams.contains { $0.decrease != nil }
    }

    /// The grid's resource limit (`ResourceLimits.checkGrid`), from each stream's earliest
    /// and latest samples as `ResourceLimits.Extent` finds them in the whole stream.
    package func checkGrid(_ files: [InputFile]) throws {
        var extents: [ResourceLimits.Extent] = []
        for s in grid.streams.indices {
            guard let r = origins[s].file, let e = grid.streams[s].extent else { continue }
            let file = files[r]
            let type = spec.inputs[file.inputIndex].type
            func at(_ line: Int32) -> String {
                type == .iio ? "\(file.path) scan \(line)" : type == .cwa ? "\(file.path) block \(line)" : type == .gt3x ? "\(file.path) record \(line)" : "\(file.path):\(line)"
            }
            extents.append(ResourceLimits.Extent(first: e.first, firstAt: at(e.firstLine), last: e.last, lastAt: at(e.lastLine),
                                                 count: grid.streams[s].received))
        }
        try ResourceLimits.checkGrid(recording: source.name, extents: extents, rateHz: rate, channels: C, limit: valueLimit)
        if gridOverflow { throw gridPastLimit() }
        try ResourceLimits.checkResolution(recording: source.name, extents: extents, rateHz: rate)
    }

    /// While some kept stream has not started, T0 (the latest first sample) is unknown and the
    /// other streams wait. When they have buffered more than four blocks, one extra read of the
    /// files (up to every stream's first sample) finds T0, after which samples and label events
    /// before it are dropped, except the last at or before it (the only one a grid point can
    /// still use). A stream that never starts makes the recording's error certain: read on only
    /// to check the rest, and report it after the read (docs/streaming.md, "A stream that starts late").
    package func waitForLateStream(isCancelled: () -> Bool) throws {
        if firstTimes == nil {
            let buffered = grid.streams.reduce(0) { $0 + $1.times.count * ($1.channels + 1) * 8 }
            guard buffered > 4 * files.blockBytes else { return }
            var first = [Double?](repeating: nil, count: grid.streams.count)
            try files.reread(isCancelled: isCancelled) { s, _, raw in
                if first[s] == nil, let t = raw.times.first { first[s] = t }
                return first.contains { $0 == nil }
            }
            firstTimes = first.map { $0 ?? .nan }
            if first.contains(where: { $0 == nil }) { missingStream = true }
        }
        guard !missingStream, let known = firstTimes?.max() else { return }
        for s in grid.streams.indices { grid.streams[s].drop(before: known) }
        if case .events(let fold) = labels { fold.trim(before: known) }
    }

    // MARK: - Input

    /// A block of file `reader` (an index into the readers of the pass): its kept streams to the
    /// grid, its label events to `labels`.
    package func take(_ block: IngestBlock, from reader: Int, file: InputFile) throws {
        counts.rowsRead += block.rowsRead
        if !block.added.isEmpty { qa?.added += block.added }
        try takeStreams(block, from: reader, file: file, checkOnly: errorIsCertain) { s, _ in
            throw twoFiles(s, origins[s].input!.path, file.path)
        }
        guard let spec = spec.labels else { return }
        let events = spec.from == .markers ? block.markers : block.rowLabels
        switch labels {
        case .events(let fold):
            try fold.add(events)
        case .timeline(let timeline):
            do {
                try timeline.fold.add(events, source: reader, samples: block.streams)
            } catch is StreamedInspection.Unordered {
                throw LabelEventOutOfOrder(time: events.times.first ?? .nan, labelledThrough: .nan)
            }
        case .none, .fixed, .readFirst:
            break
        }
    }

    /// The kept streams of a block of file `reader` to the grid (only checked for their order
    /// with `checkOnly`); a stream another file gave already goes to `twice` (with its layout
    /// index), not to the grid.
    package func takeStreams(_ block: IngestBlock, from reader: Int, file: InputFile, checkOnly: Bool,
                             twice: (_ stream: Int, _ reader: Int) throws -> Void) rethrows {
        for raw in block.streams {
            guard let s = streamIndex(raw, file) else { continue }
            if let owner = origins[s].file, owner != reader {
                try twice(s, reader)
                continue
            }
            if origins[s].file == nil { configure(s, name: raw.name) }
            origins[s].file = reader
            origins[s].input = file
            if checkOnly {
                grid.streams[s].check(name: raw.name, times: raw.times, lines: raw.lines)
            } else {
                grid.streams[s].append(name: raw.name, times: raw.times, channels: raw.channels, lines: raw.lines)
            }
        }
    }

    /// Once a stream's file has ended, the grid cannot reach past its last sample (T1 is the
    /// earliest last sample): the other streams need keep only two samples beyond that, and
    /// label events beyond it are never used. A file that runs on long after another one ended
    /// is then read to its end (its rows, duplicates and errors count) without being kept.
    package func limitGrid() {
        let ended = grid.streams.filter { $0.finished && $0.total > 0 }.map(\.lastTime)
        guard let earliest = ended.min() else { return }
        // Past T1 + the grid's tolerance: 1 s, or 1e-6 of the clock for epoch times.
        let bound = earliest + Swift.max(1, 1e-6 * Swift.abs(earliest))
        if case .events(let fold) = labels { fold.bound = Swift.min(fold.bound, bound) }
        for s in grid.streams.indices { grid.streams[s].keepUntil = Swift.min(grid.streams[s].keepUntil, bound) }
    }

    // MARK: - Grid

    /// Computes every grid point that the samples so far settle (all of them when `final`):
    /// `SampleChain.advance`, which also keeps the grid within the resource limit
    /// (`ResourceLimits.checkGrid`: the grid so far is within the one the streams' extents give
    /// after the read, so past the limit here it is past it there: the chain stops computing,
    /// the files are read on only to check, and `checkGrid` reports it from the extents). Once
    /// T0 is known, a fixed label track is put on the grid.
    package func emit(final: Bool) throws {
        guard try chain.advance(final: final) else { return }
        if case .fixed(let track) = labels, let l = spec.labels { labels = .fixed(track.onGrid(t0: grid.t0!, clock: l.clock)) }
    }
}
