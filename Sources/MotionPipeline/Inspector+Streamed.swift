#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MotionConfig
import MotionCore
import MotionIngest
import MotionResample

/// `motionprep inspect` in bounded memory (docs/commands.md, "inspect"): a recording's files are
/// read a block at a time by the block readers `run` streams with (`StreamingRecording.blockReader`),
/// and each stream's report is accumulated without holding its samples. The numbers are those
/// `StreamReport.init(_:maxGapS:)` computes from the whole stream, bit for bit:
///
/// - sums (interval mean, gap seconds) are added in the same order (file order, which is time
///   order when no sample goes back in time);
/// - the intervals go to an unlinked temporary file (8 bytes each), which a second pass reads
///   for the standard deviation around the mean, and the percentiles' order statistics are
///   found exactly by `StreamingOrderStatistics` (its first pass during the read, further passes
///   over the temporary file);
/// - the label events are folded into a track as `LabelTrack.fromEvents` folds them, once no
///   later event can come before them.
///
/// The files of a recording are read interleaved by time (`interleave`), as `run` reads them.
/// What the streamed scan cannot take in bounded memory (a stream whose times go back, which
/// the whole report sorts; a label row far back in time; `sort: true` inputs, whose readers
/// hold the file; an IIO dump without a whole scan or whose layout differs) returns nil, and the caller inspects that recording whole; so does an
/// error in a recording of several files, which the whole reading names as it meets it.
enum StreamedInspection {
    /// The scan's result: what `Inspector.fill` takes from a whole `RawRecording`.
    struct Scan {
        var rowsRead = 0
        var dropped: ReasonCounts = [:]
        /// The readers' warnings (IIO layouts and dumps), file by file.
        var warnings: [String] = []
        var streams: [StreamReport] = []
        var rowLabels: LabelTrack
        var rowEvents = 0
        var markers: LabelTrack
        var markerEvents = 0
        /// The latest first sample over the streams (`Inspector.gridStart`).
        var gridStart: Double?

        /// As `Inspector.fill(_:_:maxGap:preferMarkers:)` for a whole recording.
        func fill(_ report: inout RecordingReport, preferMarkers: Bool) {
            report.rows = rowsRead
            report.rowsDropped = dropped
            report.warnings = warnings
            report.streams = streams
            let useMarkers = preferMarkers || (rowEvents == 0 && markerEvents > 0)
            let events = useMarkers ? markerEvents : rowEvents
            report.labelSource = events == 0 ? "none" : (useMarkers ? "markers" : "rows")
            report.labels = Inspector.segments(useMarkers ? markers : rowLabels, streams)
        }
    }

    /// The recording can be inspected, but not in bounded memory: inspect it whole.
    struct Fallback: Error {}

    /// Scans `source`; nil when it must be inspected whole (see above). Throws what the whole
    /// readers would throw for a bad file.
    static func scan(_ source: RecordingSource, spec: PipelineSpec, layout: ChannelLayout, maxGap: (String) -> Double,
                     blockBytes: Int) throws -> Scan? {
        for file in source.files where spec.inputs[file.inputIndex].sort { return nil }
        return try scan(source.files.map { file in
            { try StreamingRecording.blockReader(file, spec: spec, layout: layout, blockBytes: blockBytes, ledger: nil) }
        }, maxGap: maxGap)
    }

    /// Scans the files `readers` open, in order (nil: a file with nothing to read); nil when the
    /// recording must be inspected whole.
    ///   - gapFromMedian: when set, a stream's gap limit is this function of its median interval
    ///     (of all its intervals, zeros included: `Antialias.medianInterval`), and `maxGap` is not
    ///     used (`inspect FILE.csv`, where no pipeline says what a gap is).
    static func scan(_ readers: [() throws -> IngestBlockReader?], maxGap: (String) -> Double,
                     gapFromMedian: (@Sendable (Double) -> Double)? = nil) throws -> Scan? {
        do {
            var rows = EventFold(sources: readers.count), markers = EventFold(sources: readers.count)
            var scan = Scan(rowLabels: .empty, markers: .empty)
            var accumulators = [[String: StreamAccumulator]](repeating: [:], count: readers.count)
            var order = [[String]](repeating: [], count: readers.count)
            var warnings = [[String]](repeating: [], count: readers.count)
            try interleave(readers) { f, block in
                scan.rowsRead += block.rowsRead
                order[f] = block.streams.map(\.name)
                for stream in block.streams {
                    if accumulators[f][stream.name] == nil {
                        accumulators[f][stream.name] = try StreamAccumulator(stream, maxGapS: gapFromMedian == nil ? maxGap(stream.name) : 0,
                                                                             gapFromMedian: gapFromMedian)
                    }
                    try accumulators[f][stream.name]!.add(stream)
                }
                try rows.add(block.rowLabels, source: f, samples: block.streams)
                try markers.add(block.markers, source: f, samples: block.streams)
            } finished: { f, reader in
                // A dump without one whole scan is the whole reading's error.
                if let iio = reader as? IIOBlockReader, iio.scans == 0 { throw Fallback() }
                warnings[f] = reader.warnings
                scan.dropped.add(reader.rowsDropped)
                rows.end(source: f)
                markers.end(source: f)
            }
            scan.warnings = warnings.flatMap { $0 }
            // The whole reader's stream order: file by file, the last block listing every stream.
            for f in readers.indices {
                for name in order[f] { scan.streams.append(try accumulators[f][name]!.report()) }
            }
            scan.rowLabels = rows.finish()
            scan.rowEvents = rows.events
            scan.markers = markers.finish()
            scan.markerEvents = markers.events
            scan.gridStart = scan.streams.compactMap(\.firstTime).max()
            return scan
        } catch is Fallback {
            return nil
        } catch where readers.count > 1 {
            // Several files, read interleaved: the whole reading, file by file, names the error
            // it meets first.
            return nil
        }
    }

    /// Reads the files `openers` open (nil: nothing to read) interleaved by time, as `run` reads
    /// a recording's files: always a block of the file furthest behind (one not started yet
    /// first), so that the label events of several files come nearly in time order. `body` gets
    /// each block with its file's index; `finished` each file once it has ended.
    static func interleave(_ openers: [() throws -> IngestBlockReader?], _ body: (Int, IngestBlock) throws -> Void,
                           finished: (Int, IngestBlockReader) throws -> Void) throws {
        var readers: [(index: Int, reader: IngestBlockReader)] = []
        for (f, open) in openers.enumerated() { if let r = try open() { readers.append((f, r)) } }
        var progress = [Double?](repeating: nil, count: readers.count)
        var done = [Bool](repeating: false, count: readers.count)
        while true {
            var pick: Int?
            for r in readers.indices where !done[r] {
                guard let p = pick else { pick = r; continue }
                if progress[r] == nil && progress[p] != nil { pick = r; continue }
                if let a = progress[r], let b = progress[p], a < b { pick = r }
            }
            guard let r = pick else { return }
            guard let block = try readers[r].reader.next() else {
                done[r] = true
                try finished(readers[r].index, readers[r].reader)
                continue
            }
            var latest = progress[r] ?? -Double.infinity
            for stream in block.streams { if let t = stream.times.last, t > latest { latest = t } }
            for e in [block.rowLabels, block.markers] { if let t = e.times.last, t > latest { latest = t } }
            if latest > -Double.infinity { progress[r] = latest }
            try body(readers[r].index, block)
        }
    }

    /// One stream of one file: its report's numbers, a block at a time.
    final class StreamAccumulator {
        private var stats: StreamReport
        private var last: Double?
        private var intervalSum = 0.0
        private var intervalCount = 0
        /// The positive intervals in time order, for the passes after the read.
        private let spill: UnsafeMutablePointer<FILE>
        private var pending: [Double] = []
        private var statistics = StreamingOrderStatistics(collectLimit: 1 << 20, ranks: StreamReport.percentileRanks)

        /// The gap limit as a function of the median interval, decided after the read.
        private let gapFromMedian: (@Sendable (Double) -> Double)?
        /// The duplicates, for the median's ranks among all intervals (zeros first).
        private final class Count: @unchecked Sendable { var value = 0 }
        private let zeros = Count()

        init(_ first: RawStream, maxGapS: Double, gapFromMedian: (@Sendable (Double) -> Double)? = nil) throws {
            stats = StreamReport(sensor: first.name, channels: first.channelNames, units: first.channelUnits, maxGapS: maxGapS)
            self.gapFromMedian = gapFromMedian
            if gapFromMedian != nil {
                // The percentiles' ranks among the positive intervals, and the median's among all
                // intervals (the zeros sort first), shifted to the positive ones.
                let zeros = self.zeros
                statistics = StreamingOrderStatistics(collectLimit: 1 << 20, ranks: { n in
                    let all = n + zeros.value
                    return StreamReport.percentileRanks(count: n)
                        + StreamingOrderStatistics.middleRanks(all).map { $0 - zeros.value }.filter { $0 >= 0 }
                })
            }
            guard let file = tmpfile() else {
                throw MotionError(.ioError, "cannot create the temporary file `inspect` keeps a stream's intervals in (tmpfile): \(String(cString: strerror(errno)))")
            }
            spill = file
            pending.reserveCapacity(1 << 16)
        }

        deinit { fclose(spill) }

        /// The stream's next samples, in file order.
        func add(_ s: RawStream) throws {
            let n = s.times.count
            guard n > 0 else { return }
            // `Sequence.min()`/`max()` of each channel: the first value, then each one that is
            // smaller (larger).
            for c in 0..<s.channels.count {
                var lo = stats.minimum[c], hi = stats.maximum[c]
                for v in s.channels[c] {
                    if let l = lo, let h = hi {
                        if v < l { lo = v }
                        if h < v { hi = v }
                    } else {
                        lo = v
                        hi = v
                    }
                }
                stats.minimum[c] = lo
                stats.maximum[c] = hi
            }
            let maxGapS = stats.maxGapS
            for t in s.times {
                // A time that goes back is sorted by the whole report (and NaN has no order).
                if t.isNaN { throw Fallback() }
                if let previous = last {
                    if t < previous { throw Fallback() }
                    let d = t - previous
                    if d == 0 {
                        stats.duplicates += 1
                    } else {
                        intervalSum += d
                        intervalCount += 1
                        if gapFromMedian == nil && d > maxGapS {
                            stats.gaps += 1
                            stats.gapSeconds += d
                        }
                        statistics.add(d)
                        pending.append(d)
                    }
                } else {
                    stats.firstTime = t
                }
                last = t
            }
            stats.samples += n
            stats.lastTime = last
            if pending.count >= 1 << 16 { try flush() }
        }

        private func flush() throws {
            guard !pending.isEmpty else { return }
            let written = pending.withUnsafeBufferPointer { fwrite($0.baseAddress, 8, $0.count, spill) }
            guard written == pending.count else {
                throw MotionError(.ioError, "cannot write `inspect`'s temporary file of intervals: \(String(cString: strerror(errno)))")
            }
            pending.removeAll(keepingCapacity: true)
        }

        /// Reads the intervals back, in order, a chunk at a time.
        private func replay(_ body: (UnsafeBufferPointer<Double>) -> Void) throws {
            rewind(spill)
            var chunk = [Double](repeating: 0, count: 1 << 16)
            var total = 0
            while true {
                let got = chunk.withUnsafeMutableBufferPointer { fread($0.baseAddress, 8, $0.count, spill) }
                if got == 0 { break }
                total += got
                chunk.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[0..<got])) }
            }
            guard ferror(spill) == 0 && total == intervalCount else {
                throw MotionError(.ioError, "cannot read `inspect`'s temporary file of intervals back")
            }
        }

        /// The finished report.
        func report() throws -> StreamReport {
            try flush()
            zeros.value = stats.duplicates
            let f = stats.firstTime, l = stats.lastTime
            if let f, let l, l > f, stats.samples > 1 {
                stats.effectiveRateHz = Double(stats.samples - 1 - stats.duplicates) / (l - f)
            }
            let n = intervalCount
            statistics.endPass()
            while statistics.needsPass {
                try replay { for d in $0 { statistics.add(d) } }
                statistics.endPass()
            }
            if let gapFromMedian {
                // `Antialias.medianInterval` of the sorted times: the middle of all intervals.
                let z = stats.duplicates, all = n + z
                let value = { (r: Int) in r < z ? 0.0 : self.statistics.value(rank: r - z) }
                let ranks = StreamingOrderStatistics.middleRanks(all)
                let median = all == 0 ? 0 : ranks.count == 1 ? value(ranks[0]) : (value(ranks[0]) + value(ranks[1])) / 2
                let limit = gapFromMedian(median)
                stats.maxGapS = limit
                if n > 0 {
                    try replay {
                        for d in $0 where d > limit {
                            stats.gaps += 1
                            stats.gapSeconds += d
                        }
                    }
                }
            }
            guard n > 0 else { return stats }
            let mean = intervalSum / Double(n)
            var squares = 0.0
            try replay { for d in $0 { squares = squares + (d - mean) * (d - mean) } }
            stats.intervalStd = (squares / Double(n)).squareRoot()
            let value = { (rank: Int) in self.statistics.value(rank: rank) }
            stats.intervalP50 = StreamReport.percentile(50, count: n, value: value)
            stats.intervalP95 = StreamReport.percentile(95, count: n, value: value)
            stats.intervalP99 = StreamReport.percentile(99, count: n, value: value)
            return stats
        }
    }

    /// Label events folded into a track as `LabelTrack.fromEvents` folds them (stable-sorted by
    /// time, the last of equal times winning, runs of one label merged), in bounded memory.
    /// Events come from `sources` files read interleaved; each file's position bounds its future
    /// events (the earliest time of its latest block), so the events before every unfinished
    /// file's bound are final and folded; equal times are ordered by file, then by position in
    /// the file, as the whole reading concatenates the files. An event before what is folded is
    /// far out of order (`Fallback`).
    struct EventFold {
        private(set) var names: [String] = []
        private(set) var events = 0
        private var times: [Double] = []
        private var labels: [Int32] = []
        private var pendingTimes: [Double] = []
        private var pendingLabels: [Int32] = []
        /// (source, position in the source) of each pending event, for ties.
        private var pendingOrder: [(Int, Int)] = []
        private var seen: [Int]
        private var bounds: [Double]
        private var frontier = -Double.infinity

        init(sources: Int = 1) {
            seen = [Int](repeating: 0, count: Swift.max(1, sources))
            bounds = [Double](repeating: -.infinity, count: Swift.max(1, sources))
        }

        /// The events of a block of file `source`, with the block's `samples`: their earliest time
        /// bounds the file's future events when the block has no event.
        mutating func add(_ e: LabelEvents, source: Int, samples: [RawStream]) throws {
            var ids = [Int32](repeating: -1, count: e.names.count)
            var earliest = samples.compactMap { $0.times.min() }.min() ?? .infinity
            for (t, l) in zip(e.times, e.labels) {
                if t.isNaN || t < frontier { throw Fallback() }
                var id = ids[Int(l)]
                if id < 0 {
                    let name = e.names[Int(l)]
                    if let k = names.firstIndex(of: name) { id = Int32(k) } else { id = Int32(names.count); names.append(name) }
                    ids[Int(l)] = id
                }
                pendingTimes.append(t)
                pendingLabels.append(id)
                pendingOrder.append((source, seen[source]))
                seen[source] += 1
                earliest = Swift.min(earliest, t)
                events += 1
            }
            if earliest < .infinity { bounds[source] = Swift.max(bounds[source], earliest) }
            fold(before: bounds.min()!)
        }

        /// File `source` has ended: it bounds nothing any more.
        mutating func end(source: Int) {
            bounds[source] = .infinity
            fold(before: bounds.min()!)
        }

        /// Folds the pending events earlier than `limit`, in time order (ties by file and position).
        private mutating func fold(before limit: Double) {
            guard limit > frontier else { return }
            frontier = limit
            let order = pendingTimes.indices.filter { pendingTimes[$0] < limit }
                .sorted { a, b in pendingTimes[a] < pendingTimes[b] || (pendingTimes[a] == pendingTimes[b] && pendingOrder[a] < pendingOrder[b]) }
            guard !order.isEmpty else { return }
            for i in order { step(pendingTimes[i], pendingLabels[i]) }
            let keep = pendingTimes.indices.filter { pendingTimes[$0] >= limit }
            pendingTimes = keep.map { pendingTimes[$0] }
            pendingLabels = keep.map { pendingLabels[$0] }
            pendingOrder = keep.map { pendingOrder[$0] }
        }

        /// One event of `LabelTrack.fromEvents`'s loop.
        private mutating func step(_ t: Double, _ l: Int32) {
            if let lastT = times.last, lastT == t {
                labels[labels.count - 1] = l
                if labels.count >= 2, labels[labels.count - 2] == l {
                    times.removeLast()
                    labels.removeLast()
                }
                return
            }
            if let lastL = labels.last, lastL == l { return }
            times.append(t)
            labels.append(l)
        }

        /// The track of every event.
        mutating func finish() -> LabelTrack {
            frontier = -.infinity
            fold(before: .infinity)
            return LabelTrack(names: names, times: times, labels: labels)
        }
    }

    /// `inspect --samples` for one recording, a block at a time: each stream's samples appended to
    /// `{folder}/{stream}.csv` as they are read, label events folded for `labels.csv`. Returns the
    /// files written (relative to `folder`, in the whole writer's order), or nil — having removed
    /// what it wrote — when the recording must be written from a whole reading.
    static func writeSamples(_ source: RecordingSource, spec: PipelineSpec, layout: ChannelLayout, intervals: IntervalLabels?,
                             folder: String, directory: String, blockBytes: Int) throws -> [String]? {
        for file in source.files {
            let input = spec.inputs[file.inputIndex]
            if input.type == .iio || input.sort { return nil }
        }
        var outputs: [OutputFiles.NewFile] = []
        var done = false
        defer { if !done { for o in outputs { o.abandon() } } }
        var fold = EventFold(sources: source.files.count)
        var perInput: [(input: Int, names: [String])] = []
        var firstTimes: [Double] = []   // per stream of every file: its smallest time
        let files = source.files
        var handles = [[String: OutputFiles.NewFile]](repeating: [:], count: files.count)
        var smallest = [[String: Double]](repeating: [:], count: files.count)
        var order = [[String]](repeating: [], count: files.count)
        do {
            try interleave(files.map { file in
                { try StreamingRecording.blockReader(file, spec: spec, layout: layout, blockBytes: blockBytes, ledger: nil) }
            }) { f, block in
                order[f] = block.streams.map(\.name)
                for stream in block.streams {
                    if handles[f][stream.name] == nil {
                        let name = try SamplesFolder.fileName(stream.name + ".csv", directory: directory)
                        let handle = try OutputFiles.NewFile(path: folder + "/" + name)
                        outputs.append(handle)
                        handles[f][stream.name] = handle
                        try handle.write(Array(Inspector.samplesHeader(stream).utf8))
                    }
                    try handles[f][stream.name]!.write(Array(Inspector.sampleRows(stream).utf8))
                    if let m = stream.times.min() { smallest[f][stream.name] = Swift.min(smallest[f][stream.name] ?? m, m) }
                }
                if let labels = spec.labels, labels.from == .rows || labels.from == .markers {
                    try fold.add(labels.from == .rows ? block.rowLabels : block.markers, source: f, samples: block.streams)
                }
            } finished: { f, _ in
                for name in order[f] { try handles[f][name]!.close() }
                fold.end(source: f)
            }
        } catch is Fallback {
            return nil
        } catch where files.count > 1 {
            return nil  // several files read interleaved: the whole reading names the first error
        }
        for f in files.indices {
            perInput.append((files[f].inputIndex, order[f]))
            firstTimes += order[f].compactMap { smallest[f][$0] }
        }
        // The whole writer's order: by input index, then file and stream order.
        var written = perInput.enumerated().sorted { ($0.element.input, $0.offset) < ($1.element.input, $1.offset) }
            .flatMap { $0.element.names.map { $0 + ".csv" } }
        if let labels = spec.labels {
            var text = Inspector.labelsFile(nil)
            if labels.from == .rows || labels.from == .markers {
                text = Inspector.labelsFile(fold.finish())
            } else if let fixed = try LabelSources.fixedTrack(source, spec: spec, intervals: intervals) {
                // `path`: the label from the first sample on; `intervals`: on the input's clock.
                text = Inspector.labelsFile(fixed.onGrid(t0: firstTimes.max(), clock: labels.clock), nonFiniteAt: firstTimes.min() ?? 0)
            }
            try OutputFiles.create(Array(text.utf8), at: folder + "/labels.csv")
            written.append("labels.csv")
        }
        done = true
        return written
    }
}
