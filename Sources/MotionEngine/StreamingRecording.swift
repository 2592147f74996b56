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
///   and `attempt` streams the recording again with its label track read first (`labelTrack`);
/// - kept windows go to the record file in blocks of `RecordStore.blockWindows`, and the
///   normalisation moments are combined per such block.
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
    package let featurePlan: FeaturePlan?
    package let extractor: FeatureExtractor?
    package let isTrain: Bool
    package let rate: Double
    package let T: Int
    package let C: Int
    package let blockBytes: Int
    /// The most grid values, and window values, the recording may use (`RecordingProcessor.valueLimit`).
    package let valueLimit: Int
    /// Hears every byte read, in every pass: each pass over a file must give the same bytes.
    package let ledger: InputLedger?

    // Streams, in layout order, and which file each came from.
    /// The kept streams (`grid.streams`, in layout order) and the grid they are resampled on.
    package let grid: StreamingGrid
    package var streamFile: [Int?]
    /// Files of `sort: true` inputs, read whole and sorted once (they are read again by the
    /// anti-aliasing passes).
    package var sortedFiles: [String: _SortedFile] = [:]
    /// Each stream's name as read (a `{stem}` layout stream is named by its file).
    package var streamNames: [String]
    /// The most input bytes reported read: files whose blocks were kept are counted as they are
    /// read, and their replay in the main pass does not move the progress back.
    package var reportedBytes = 0

    package func report(_ bytes: Int, to bytesRead: (Int) -> Void) {
        guard bytes > reportedBytes else { return }
        reportedBytes = bytes
        bytesRead(bytes)
    }

    /// Whether the first extra pass (the anti-aliasing median's) keeps every file's blocks, so
    /// that later passes replay them instead of reading and parsing the files again: for
    /// recordings small enough to hold (the whole-processing case of one engine).
    package var keepBlocks: Bool
    /// Files read whole and kept as blocks, by file index.
    package var keptFiles: [Int: _KeptFile] = [:]
    /// The chain from the grid to the windows (`transforms`, the cutter, the rows a window can
    /// still need), the one `LiveProcessor` runs too. A zero-phase step settles nothing before
    /// its segment ends: the chain then holds the whole segment, and the recording's memory
    /// reservation grows with it (`WindowChain.reserve`).
    package let chain: WindowChain
    package let transforms: TransformPlan?
    /// `timeline`: the label events, folded as they come (instead of kept for windows).
    package var timelineEvents: StreamedInspection.EventFold?
    // Labels.
    /// The `intervals` or `path` track, on the input's clock once T0 is known (`clock: recording`).
    package var fixedTrack: LabelTrack?
    /// The intervals file, for the rows that cover no grid point.
    package let intervals: IntervalLabels?
    /// The track of the label rows (or markers), read in a pass of their own before the
    /// recording is streamed (`attempt`, when they are far out of time order); nil: the events
    /// are folded as they come.
    package let labelTrack: LabelTrack?
    /// `checkInFileOrder`: the files are read one after the other, only to be checked.
    package var checking = false
    /// While checking, the files (indices into `source.files`) that gave each kept stream.
    package var givers: [[Int]]
    /// The file each kept stream came from.
    package var streamInput: [InputFile?]
    package var eventNames: [String] = []
    package var eventTimes: [Double] = []
    package var eventLabels: [Int32] = []
    package var labelledThrough: Double = -.infinity
    package var labelBound: Double = .infinity
    /// The grid would exceed the resource limit: nothing more is computed.
    package var gridOverflow = false
    /// Each kept stream's first sample time, once a late stream made the engine look it up.
    package var firstTimes: [Double]?
    /// A kept stream has no sample at all (the recording's error): nothing more is computed.
    package var missingStream = false
    package var windowsDropped: ReasonCounts = [:]
    // Output.
    package var out: WindowBatch
    package var xMoments: RunningMoments?
    package var featureMoments: RunningMoments?
    package var rowsRead = 0
    package var rowsDropped: ReasonCounts = [:]
    package var warnings: [String] = []
    /// `output.type: createml`: the valid rows of `x` as they settle (the chain's `rowListener`).
    /// The label events are then kept whole, for each row's class at the end.
    package var rowCollector: _RowCollector?
    /// The recording's memory reservation: the estimate it started with, plus what the chain's
    /// held segment and the collected rows grow to.
    package let reservation: _Reservation
    /// The pipeline's `qa`, decided by the recording's QA pass (`qaPass`): each kept window gets
    /// its `qa` row and the policy (RecordingQA.swift).
    package var qa: RecordingQA?

    package init(source: RecordingSource, spec: PipelineSpec, layout: ChannelLayout, windowPlan: WindowPlan,
         aligner: LabelAligner?, featurePlan: FeaturePlan?, extractor: FeatureExtractor?, isTrain: Bool,
         intervals: IntervalLabels?, blockBytes: Int, valueLimit: Int = ResourceLimits.maxGridValues,
         ledger: InputLedger? = nil, keepBlocks: Bool = false, labelTrack: LabelTrack? = nil,
         reserved: Int = 0, reserve: @escaping (Int) throws -> Void = { _ in }) throws {
        self.labelTrack = labelTrack
        self.keepBlocks = keepBlocks
        self.valueLimit = valueLimit
        self.source = source
        self.ledger = ledger
        self.spec = spec
        self.layout = layout
        self.windowPlan = windowPlan
        self.aligner = aligner
        self.featurePlan = featurePlan
        self.extractor = extractor
        self.isTrain = isTrain
        self.blockBytes = blockBytes
        rate = spec.resample.rateHz
        T = windowPlan.length
        C = layout.channelNames.count
        grid = StreamingGrid(streams: layout.sensors.map { sensor in StreamBuffer(channels: sensor.channelNames.count) },
                             rateHz: spec.resample.rateHz, magnitudes: layout.magnitudes.map(\.axes))
        transforms = layout.transforms
        chain = WindowChain(windowPlan: windowPlan, channelCount: layout.channelNames.count, transforms: layout.transforms,
                            rateHz: spec.resample.rateHz, holdsSegments: spec.transformsLookahead == .segment,
                            windowValueLimit: valueLimit)
        let reservation = _Reservation(base: reserved, reserve: reserve)
        self.reservation = reservation
        chain.reserve = { try reservation.set(chain: $0) }
        streamFile = Array(repeating: nil, count: layout.sensors.count)
        streamInput = Array(repeating: nil, count: layout.sensors.count)
        givers = Array(repeating: [], count: layout.sensors.count)
        streamNames = layout.sensors.map(\.name)
        fixedTrack = try LabelSources.fixedTrack(source, spec: spec, intervals: intervals)
        self.intervals = intervals
        out = WindowBatch(length: windowPlan.length, channelCount: layout.channelNames.count,
                          featureCount: featurePlan?.count ?? 0)
    }

    package func time(_ k: Int) -> Double { grid.time(k) }

    /// Streams the recording into a record file at `recordPath`; its inputs are what `ledger`
    /// heard (or, without one, the files hashed afterwards).
    /// `bytesRead` hears how many input bytes the main pass has read, after every block.
    /// `keep` grants (or refuses) holding each block of windows in memory for the writer too
    /// (`RecordWriter`): the record's `kept`.
    package func run(recordPath: String, recordFolder: WritableFolder? = nil, pipelineSHA256: String,
             isCancelled: () -> Bool, bytesRead: (Int) -> Void = { _ in },
             keep: @escaping (Int) -> Bool = { _ in false }, collectRows: Bool = false) throws -> RecordingRecord {
        try designFilters(isCancelled: isCancelled, bytesRead: bytesRead)
        if (spec.output.type == .createml && aligner != nil) || collectRows {
            let collector = _RowCollector(channels: C)
            rowCollector = collector
            chain.rowListener = { first, rows, valid in collector.add(first: first, rows: rows, valid: valid) }
        }
        defer { chain.rowListener = nil }
        let writer = try RecordWriter(path: recordPath, in: recordFolder, keep: keep)
        let dropped = try stream(writer: writer, isCancelled: isCancelled, bytesRead: bytesRead)
        for s in grid.streams.indices {
            if let f = grid.streams[s].filter, f.unfilteredRuns > 0 {
                warnings.append(PipelineSpec.unfilteredWarning(recording: source.name, runs: f.unfilteredRuns, stream: streamNames[s]))
            }
        }
        if chain.shortSegmentWindows > 0 { windowsDropped["short_segment", default: 0] += chain.shortSegmentWindows }
        let duplicates = grid.streams.reduce(0) { $0 + $1.duplicates }
        if duplicates > 0 { rowsDropped["duplicate_time", default: 0] += duplicates }
        var createml: RowStretches?
        if let collector = rowCollector, let aligner, spec.output.type == .createml {
            if dropped == nil {
                // Each row's class is its grid point's (the label stage's own per-point decision).
                let track = fixedTrack ?? labelTrack ?? LabelTrack(names: eventNames, times: eventTimes, labels: eventLabels)
                let classes = aligner.pointClasses(track: track, gridCount: grid.nextPoint, gridTime: { self.time($0) })
                createml = RowStretches(gridPoints: collector.points, values: collector.values, channels: C, classes: classes,
                                        minRows: T, time: { self.time($0) })
            } else {
                createml = RowStretches()
            }
        }
        var processed = ProcessedRecording(
            source: source, windows: WindowBatch(length: T, channelCount: C, featureCount: featurePlan?.count ?? 0),
            rowsRead: rowsRead, rowsDropped: rowsDropped, windowsDropped: dropped == nil ? windowsDropped : [:],
            recordingDropped: dropped, gaps: dropped == nil ? chain.gaps : 0, invalidPoints: dropped == nil ? chain.invalidPoints : 0,
            warnings: warnings, xMoments: xMoments, featureMoments: featureMoments,
            longestRun: dropped == nil ? (transforms == nil ? chain.longestRun : chain.longestKeptSegment) : 0,
            labelRowsNoOverlap: intervals.map { intervals in
                LabelSources.noOverlapLines(intervals, recording: source.name, spec: spec,
                                            gridCount: dropped == nil ? grid.nextPoint : 0, time: { self.time($0) })
            } ?? [])
        processed.createml = createml
        if let qa { processed.qa = qa.report(recording: source.name) }
        if collectRows, let collector = rowCollector, dropped == nil {
            processed.rows = RecordingRows(times: collector.points.map { self.time($0) }, values: collector.values)
        }
        let inputs = try (ledger ?? InputLedger(baseDirectory: spec.baseDirectory)).inputs(for: source)
        let stored = try writer.finish(processed, inputs: inputs, pipelineSHA256: pipelineSHA256,
                                       length: T, channels: C, featureCount: featurePlan?.count ?? 0)
        return RecordingRecord(processed: processed, inputs: inputs, stored: stored, kept: writer.kept)
    }

    /// The grid of the recording, for `report --recordings` (`RecordingTimeline`): no windows
    /// are cut; `observe` hears every grid row of `x` (after the transforms) as it settles, in
    /// order, with its validity (a point in a gap, or in a segment too short for a zero-phase
    /// filter, is invalid). Returns the grid's start and length, the readers' warnings and the
    /// recording's label track (nil without `labels`), or throws `LabelEventOutOfOrder`
    /// when the label events are too far out of order to fold in bounded memory.
    package func timeline(isCancelled: () -> Bool,
                  observe: @escaping (_ first: Int, _ rows: UnsafeBufferPointer<Float>, _ valid: UnsafeBufferPointer<Bool>) -> Void)
        throws -> (t0: Double?, count: Int, tooFewSamples: Bool, warnings: [String], labels: LabelTrack?) {
        chain.observer = observe
        defer { chain.observer = nil }  // `observe` does not outlive this call
        try designFilters(isCancelled: isCancelled, bytesRead: { _ in })
        let dropped = try stream(writer: nil, isCancelled: isCancelled, bytesRead: { _ in })
        let labels = fixedTrack ?? labelTrack ?? timelineEvents.map { var fold = $0; return fold.finish() }
        return (grid.t0, dropped == nil ? grid.nextPoint : 0, dropped != nil, warnings, labels)
    }

    /// Reads every file and pushes it through the stages (windows to `writer`; none without
    /// one); the recording's drop reason (`too_few_samples`) or nil.
    package func stream(writer: RecordWriter?, isCancelled: () -> Bool, bytesRead: (Int) -> Void) throws -> String? {
        var readers: [(reader: IngestBlockReader, file: InputFile)] = []
        for (r, file) in source.files.enumerated() {
            if let reader = try openReader(file, index: r) { readers.append((reader, file)) }
        }
        if chain.observer != nil, fixedTrack == nil, labelTrack == nil, spec.labels != nil {
            timelineEvents = StreamedInspection.EventFold(sources: readers.count)
        }
        keptFiles = [:]  // the readers hold what they replay
        keepBlocks = false  // a later extra pass (T0's) reads the files again
        var readerBytes = [Int](repeating: 0, count: readers.count)
        var order = FileInterleave(files: readers.count)
        while let r = order.next() {
            if isCancelled() { throw RunInterrupted(message: "") }
            let ready = chain.ready.count
            if let block = try readers[r].reader.next() {
                order.advance(r, by: block)
                try take(block, from: r, file: readers[r].file)
                readerBytes[r] = block.bytesRead
                report(readerBytes.reduce(0, +), to: bytesRead)
            } else {
                order.end(r)
                timelineEvents?.end(source: r)
                rowsDropped.add(readers[r].reader.rowsDropped)
                try _KeptFileReader.iio(readers[r].reader)?.requireWholeScan()
                for s in grid.streams.indices where streamFile[s] == r { grid.streams[s].finish() }
                limitGrid()
            }
            if grid.t0 == nil { try waitForLateStream(isCancelled: isCancelled) }
            if gridOverflow || missingStream || grid.streams.contains(where: { $0.decrease != nil }) {
                // the contract's (docs/inputs.md, "Bad rows and time order") error is certain: read on only to check the rest (a bad line later
                // in the file is reported first: errors come in the file's order).
                for s in grid.streams.indices { grid.streams[s].checkOnly = true }
                continue
            }
            try label(count: ready, writer: writer)
            try emit(final: false, writer: writer)
            try reserveRows()
        }
        // Every file has ended; their warnings in file order.
        for r in readers { warnings += r.reader.warnings }
        // The checks after reading (docs/inputs.md, "Bad rows and time order"), in this order: per kept stream, present, then
        // in time order (an iio dump's order is checked right after the dump).
        for s in grid.streams.indices {
            if let r = streamFile[s], let iio = _KeptFileReader.iio(readers[r].reader),
               let e = decreaseError(s, readers[r].file, iio: iio) { throw e }
        }
        for (s, sensor) in layout.sensors.enumerated() {
            guard let r = streamFile[s] else { throw RecordingLoader.noStream(sensor, source: source, spec: spec) }
            if let e = decreaseError(s, readers[r].file, iio: nil) { throw e }
        }
        try checkGrid(readers.map(\.file))
        var dropped: String?
        if grid.streams.contains(where: { $0.total < 2 }) {
            dropped = "too_few_samples"
        } else {
            try emit(final: true, writer: writer)
            if gridOverflow { throw gridPastLimit() }
            if chain.windowOverflow {
                // The most window starts met (a short segment's were counted, then taken back).
                try ResourceLimits.checkWindows(recording: source.name, files: source.files.map(\.path).joined(separator: ", "),
                                                windows: Swift.max(chain.windowStarts, chain.mostWindowStarts), length: T, channels: C,
                                                limit: valueLimit)
            }
            try label(count: chain.ready.count, writer: writer)
            try flush(writer: writer)
            try reserveRows()
        }
        return dropped
    }

    /// Collected rows are held until the writer takes the recording: they count in its memory
    /// reservation (the run's `MemoryBudget`), in steps of 2^18 values (1 MiB).
    package func reserveRows() throws {
        guard let rows = rowCollector?.values4, rows > reservation.rows else { return }
        try reservation.set(rows: rows + (1 << 18))
    }

    /// The grid's resource limit (`ResourceLimits.checkGrid`), from each stream's earliest
    /// and latest samples as `ResourceLimits.Extent` finds them in the whole stream.
    package func checkGrid(_ files: [InputFile]) throws {
        var extents: [ResourceLimits.Extent] = []
        for s in grid.streams.indices {
            guard let r = streamFile[s], let e = grid.streams[s].extent else { continue }
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
            guard buffered > 4 * blockBytes else { return }
            var first = [Double?](repeating: nil, count: grid.streams.count)
            try rereadFiles(isCancelled: isCancelled) { s, _, raw in
                if first[s] == nil, let t = raw.times.first { first[s] = t }
                return first.contains { $0 == nil }
            }
            firstTimes = first.map { $0 ?? .nan }
            if first.contains(where: { $0 == nil }) { missingStream = true }
        }
        guard !missingStream, let known = firstTimes?.max() else { return }
        for s in grid.streams.indices { grid.streams[s].drop(before: known) }
        trimEvents(before: known)
    }

    // MARK: - Input

    package func take(_ block: IngestBlock, from reader: Int, file: InputFile) throws {
        rowsRead += block.rowsRead
        for raw in block.streams {
            guard let s = streamIndex(raw, file) else { continue }
            if let owner = streamFile[s], owner != reader {
                // A channel twice in a recording; while checking, reported after every file is read.
                guard checking else { throw twoFiles(s, streamInput[s]!.path, file.path) }
                if !givers[s].contains(reader) { givers[s].append(reader) }
                continue
            }
            if checking && givers[s].isEmpty { givers[s] = [reader] }
            if streamFile[s] == nil { configure(s, name: raw.name) }
            streamFile[s] = reader
            streamInput[s] = file
            grid.streams[s].append(name: raw.name, times: raw.times, channels: raw.channels, lines: raw.lines)
        }
        if !checking, fixedTrack == nil, labelTrack == nil, let labels = spec.labels {
            let events = labels.from == .markers ? block.markers : block.rowLabels
            if timelineEvents != nil {
                do {
                    try timelineEvents!.add(events, source: reader, samples: block.streams)
                } catch is StreamedInspection.Unordered {
                    throw LabelEventOutOfOrder(time: events.times.first ?? .nan, labelledThrough: .nan)
                }
            } else {
                try addEvents(events)
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
        labelBound = Swift.min(labelBound, bound)
        for s in grid.streams.indices { grid.streams[s].keepUntil = Swift.min(grid.streams[s].keepUntil, bound) }
    }

    /// Adds label events in time order (stable: an equal time goes after the ones already there).
    package func addEvents(_ e: LabelEvents) throws {
        // The block's label ids mapped to the recording's once each (names get ids in the order
        // they first occur, as before); the event lists are held in locals for the loop.
        var ids = [Int32](repeating: -1, count: e.names.count)
        var times = eventTimes, labels = eventLabels
        eventTimes = []
        eventLabels = []
        defer {
            eventTimes = times
            eventLabels = labels
        }
        let bound = labelBound, through = labelledThrough
        for (t, l) in zip(e.times, e.labels) where t <= bound {
            if t <= through {
                throw LabelEventOutOfOrder(time: t, labelledThrough: through)
            }
            var id = ids[Int(l)]
            if id < 0 {
                let name = e.names[Int(l)]
                if let k = eventNames.firstIndex(of: name) { id = Int32(k) } else { id = Int32(eventNames.count); eventNames.append(name) }
                ids[Int(l)] = id
            }
            if let last = times.last, t < last {
                var i = times.count
                while i > 0 && times[i - 1] > t { i -= 1 }
                times.insert(t, at: i)
                labels.insert(id, at: i)
            } else {
                times.append(t)
                labels.append(id)
            }
        }
    }

    // MARK: - Grid

    /// Computes every grid point that the samples so far settle (all of them when `final`).
    package func emit(final: Bool, writer: RecordWriter?) throws {
        if grid.t0 == nil {
            guard grid.start() else { return }
            if let labels = spec.labels { fixedTrack = fixedTrack?.onGrid(t0: grid.t0!, clock: labels.clock) }
        }
        guard let limit = final ? grid.finalLimit : grid.horizon else { return }
        // The resource limit (ResourceLimits.checkGrid): a grid this long is nearly always a bad
        // timestamp. The grid so far is within the one the streams' extents give after the read,
        // so past the limit here it is past it there: stop computing, read on only to check, and
        // report it from the extents (`checkGrid`).
        guard !((limit - grid.t0!) * rate * Double(C) > Double(valueLimit)) else {
            gridOverflow = true
            return
        }
        try chain.advance(grid, through: limit, final: final)
        chain.trim(nextPoint: grid.nextPoint)
    }

    // MARK: - Labels and output

    /// Labels the first `count` pending windows and moves the kept ones to the output.
    package func label(count: Int, writer: RecordWriter?) throws {
        guard count > 0 else { return }
        let starts = Array(chain.ready[0..<count])
        chain.removeReady(count)
        var keptStarts: [Int]
        var classIds: [Int64]
        var pointClassIds: [Int64] = []
        if let aligner {
            let a = starts[0]
            let span = starts[count - 1] + T - a
            let track = fixedTrack ?? labelTrack ?? LabelTrack(names: eventNames, times: eventTimes, labels: eventLabels)
            let t0 = grid.t0!, rate = self.rate
            let labelled = aligner.label(track: track, gridCount: span, gridTime: { t0 + Double(a + $0) / rate },
                                         starts: starts.map { $0 - a }, length: T)
            keptStarts = labelled.kept.map { starts[$0] }
            classIds = labelled.classIds
            pointClassIds = labelled.pointClassIds
            windowsDropped.add(labelled.dropped)
            labelledThrough = Swift.max(labelledThrough, time(starts[count - 1] + T - 1))
            if fixedTrack == nil && labelTrack == nil && rowCollector == nil { trimEvents() }
        } else {
            keptStarts = starts
            classIds = [Int64](repeating: -1, count: count)
        }
        for (w, s) in keptStarts.enumerated() {
            chain.appendWindow(at: s, to: &out.x)
            if let qa {
                let row = qa.row(start: s, window: out.x[(out.x.count - T * C)...], T: T, C: C)
                if let reason = qa.dropReason(row) {
                    out.x.removeLast(T * C)
                    windowsDropped[reason, default: 0] += 1
                    continue
                }
                out.qa += row
            }
            out.startTimes.append(time(s))
            out.y.append(classIds[w])
            if !pointClassIds.isEmpty { out.ySeq.append(contentsOf: pointClassIds[(w * T)..<((w + 1) * T)]) }
            if out.count == RecordStore.blockWindows { try flush(writer: writer) }
        }
        chain.trim(nextPoint: grid.nextPoint)
    }

    /// Drops label events before the earliest time a window can still cover, except the last
    /// of them (the label in force there).
    package func trimEvents() {
        trimEvents(before: time(chain.earliestWindowPoint(nextPoint: grid.nextPoint)))
    }

    package func trimEvents(before horizon: Double) {
        var n = 0
        while n + 1 < eventTimes.count && eventTimes[n + 1] <= horizon { n += 1 }
        if n >= 1024 {
            eventTimes.removeFirst(n)
            eventLabels.removeFirst(n)
        }
    }

    /// Features and moments of the output block, then the block into the record file.
    package func flush(writer: RecordWriter?) throws {
        guard out.count > 0 else { return }
        if let featurePlan, let extractor {
            out.features = [Float](repeating: 0, count: out.count * featurePlan.count)
            let n = out.count
            out.x.withUnsafeBufferPointer { x in
                out.features.withUnsafeMutableBufferPointer { f in extractor.extract(windows: x, count: n, into: f) }
            }
        }
        if isTrain {
            var m = xMoments ?? RunningMoments(columns: C)
            m.combine(RunningMoments.of(out.x, columns: C))
            xMoments = m
            if featurePlan != nil {
                var f = featureMoments ?? RunningMoments(columns: out.featureCount)
                f.combine(RunningMoments.of(out.features, columns: out.featureCount))
                featureMoments = f
            }
        }
        try writer?.append(out)
        out = WindowBatch(length: T, channelCount: C, featureCount: featurePlan?.count ?? 0)
    }
}

/// The valid rows of `x` a recording's chain settles, with their grid points, for the `createml`
/// output (`WindowChain.rowListener`: the rows the windows are cut from, after every transform).
package final class _RowCollector {
    package let channels: Int
    package private(set) var points: [Int] = []
    package private(set) var values: [Float] = []
    /// What the rows hold, in 4-byte values (a point index takes two).
    package var values4: Int { points.count * 2 + values.count }

    package init(channels: Int) { self.channels = channels }

    package func add(first: Int, rows: UnsafeBufferPointer<Float>, valid: UnsafeBufferPointer<Bool>) {
        let C = channels
        for i in 0..<valid.count where valid[i] {
            points.append(first + i)
            values.append(contentsOf: rows[(i * C)..<((i + 1) * C)])
        }
    }
}

/// A streamed recording's memory reservation, in values (`MemoryBudget`): its starting
/// estimate plus what may grow while it runs, each part set to its latest size.
package final class _Reservation {
    package let base: Int
    private let reserve: (Int) throws -> Void
    package private(set) var chain = 0
    package private(set) var rows = 0

    package init(base: Int, reserve: @escaping (Int) throws -> Void) {
        self.base = base
        self.reserve = reserve
    }

    /// The chain holds a zero-phase segment of `values`.
    package func set(chain values: Int) throws {
        chain = values
        try reserve(base + chain + rows)
    }

    /// Collected rows take `values`.
    package func set(rows values: Int) throws {
        rows = values
        try reserve(base + chain + rows)
    }
}
