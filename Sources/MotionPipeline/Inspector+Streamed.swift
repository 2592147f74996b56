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
/// A stream whose times go back, or label rows far back in time, make the scan read the files
/// again (`Unordered`): each stream's times are then spilled and sorted on disk (`Spill`, an
/// external merge sort) and every label event is kept (12 bytes each), so the report is still
/// the whole reading's. An error of a recording of several files is the first in file order
/// (`checkInFileOrder`), as a reading file after file meets it.
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

    /// Scans `source`. Throws what the whole readers would throw for a bad file.
    static func scan(_ source: RecordingSource, spec: PipelineSpec, layout: ChannelLayout, maxGap: (String) -> Double,
                     blockBytes: Int) throws -> Scan {
        // `sort: true` changes nothing here: inspect describes the files as they are.
        try scan(source.files.map { file in
            { try StreamingRecording.blockReader(file, spec: spec, layout: layout, blockBytes: blockBytes, ledger: nil) }
        }, maxGap: maxGap)
    }

    /// Scans the files `readers` open, in order (nil: a file with nothing to read).
    ///   - gapFromMedian: when set, a stream's gap limit is this function of its median interval
    ///     (of all its intervals, zeros included: `Antialias.medianInterval`), and `maxGap` is not
    ///     used (`inspect FILE.csv`, where no pipeline says what a gap is).
    static func scan(_ readers: [() throws -> IngestBlockReader?], maxGap: (String) -> Double,
                     gapFromMedian: (@Sendable (Double) -> Double)? = nil) throws -> Scan {
        do {
            // Times going back, or label rows far out of order: read again, sorting the times or
            // keeping every event (only what is needed: the events take 12 bytes each).
            var sortTimes = false, keepEvents = false
            while true {
                do {
                    return try scan(readers, maxGap: maxGap, gapFromMedian: gapFromMedian, sortTimes: sortTimes,
                                    keepEvents: keepEvents)
                } catch let u as Unordered where u.labels ? !keepEvents : !sortTimes {
                    if u.labels { keepEvents = true } else { sortTimes = true }
                }
            }
        } catch let e as any UserFacingError where readers.count > 1 && e.exitStatus.isAboutInputData {
            // Several files, read interleaved: the first error in file order, as a reading file
            // after file meets it (a failed read is thrown as it comes).
            try checkInFileOrder(readers)
            throw e
        }
    }

    /// Reads the files one after the other, only for their errors (a bad line, an IIO dump
    /// without a whole scan), and throws the first.
    static func checkInFileOrder(_ readers: [() throws -> IngestBlockReader?]) throws {
        for open in readers {
            guard let reader = try open() else { continue }
            while try reader.next() != nil {}
            try (reader as? IIOBlockReader)?.requireWholeScan()
        }
    }

    private static func scan(_ readers: [() throws -> IngestBlockReader?], maxGap: (String) -> Double,
                             gapFromMedian: (@Sendable (Double) -> Double)?, sortTimes: Bool, keepEvents: Bool) throws -> Scan {
        var rows = EventFold(sources: readers.count, keepsAll: keepEvents)
        var markers = EventFold(sources: readers.count, keepsAll: keepEvents)
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
                                                                         gapFromMedian: gapFromMedian, unordered: sortTimes)
                }
                try accumulators[f][stream.name]!.add(stream)
            }
            try rows.add(block.rowLabels, source: f, samples: block.streams)
            try markers.add(block.markers, source: f, samples: block.streams)
        } finished: { f, reader in
            try (reader as? IIOBlockReader)?.requireWholeScan()
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

        /// `unordered`: the stream's times go back (`Unordered` was thrown by a first scan): they
        /// are spilled as read and sorted after the read (`sortedTimes`), and the report is that
        /// of the sorted times, as `StreamReport.init(_:maxGapS:)` sorts them.
        private let unordered: Bool
        /// With `unordered`, the times in file order, and the latest so far (for `outOfOrder`).
        private var times: Spill?
        private var fileOrderLast: Double?

        init(_ first: RawStream, maxGapS: Double, gapFromMedian: (@Sendable (Double) -> Double)? = nil,
             unordered: Bool = false) throws {
            stats = StreamReport(sensor: first.name, channels: first.channelNames, units: first.channelUnits, maxGapS: maxGapS)
            self.unordered = unordered
            if unordered { times = try Spill(what: "times") }
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
            if let times {
                // Sorted after the read; only the file order's decreases are counted now.
                for t in s.times {
                    if t.isNaN { throw Self.notANumber(stats.sensor) }
                    if let p = fileOrderLast, t < p { stats.outOfOrder += 1 }
                    fileOrderLast = t
                }
                try times.append(s.times)
                stats.samples += n
                return
            }
            try addTimes(s.times)
        }

        /// Readers drop rows without a finite time (counted as `missing_value`), so none reaches here.
        static func notANumber(_ stream: String) -> MotionError {
            MotionError(.dataError, "stream `\(stream)` has a time that is not a number, which its reader should have dropped")
        }

        /// The time part of `add`: times in order (never decreasing).
        private func addTimes<C: Collection>(_ times: C) throws where C.Element == Double {
            let maxGapS = stats.maxGapS
            for t in times {
                // A time that goes back is sorted by the whole report (`unordered`; NaN cannot
                // come from a reader, which drops rows without a finite time).
                if t.isNaN { throw Self.notANumber(stats.sensor) }
                if let previous = last {
                    if t < previous { throw Unordered() }
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
            stats.samples += times.count
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
            if let times {
                // The sorted times through an accumulator of ordered times, then this stream's
                // counts in file order (samples, out of order) and its values' range.
                let sorted = try StreamAccumulator(RawStream(name: stats.sensor, channelNames: stats.channels,
                                                             channelUnits: stats.units, times: [], channels: stats.channels.map { _ in [] },
                                                             lines: []),
                                                   maxGapS: stats.maxGapS, gapFromMedian: gapFromMedian)
                try times.sorted { try sorted.addTimes($0) }
                var report = try sorted.report()
                report.outOfOrder = stats.outOfOrder
                report.minimum = stats.minimum
                report.maximum = stats.maximum
                return report
            }
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

    /// A stream's times go back (or a label row lies far back in time): scan again, sorting the
    /// times after the read and keeping every label event (`scan`).
    struct Unordered: Error {
        /// A label row, rather than a stream's time.
        var labels = false
    }

    /// Doubles spilled to an unlinked temporary file, handed back sorted (an external merge
    /// sort: runs of `runLength` sorted in memory, then merged), for the times of a stream that
    /// goes back in time: memory is one run (32 MiB) and a buffer per run, whatever the stream's
    /// length.
    final class Spill {
        private let file: UnsafeMutablePointer<FILE>
        private let what: String
        private let runLength: Int
        private(set) var count = 0

        init(what: String, runLength: Int = 1 << 22) throws {
            self.what = what
            self.runLength = Swift.max(1, runLength)
            guard let f = tmpfile() else {
                throw MotionError(.ioError, "cannot create the temporary file `inspect` keeps a stream's \(what) in (tmpfile): \(String(cString: strerror(errno)))")
            }
            file = f
        }

        deinit { fclose(file) }

        func append(_ values: [Double]) throws {
            let written = values.withUnsafeBufferPointer { fwrite($0.baseAddress, 8, $0.count, file) }
            guard written == values.count else { throw writeError() }
            count += values.count
        }

        private func writeError() -> MotionError {
            MotionError(.ioError, "cannot write `inspect`'s temporary file of \(what): \(String(cString: strerror(errno)))")
        }

        private func read(_ n: Int, at offset: Int, from f: UnsafeMutablePointer<FILE>, into buffer: inout [Double]) throws {
            buffer.removeAll(keepingCapacity: true)
            buffer.append(contentsOf: repeatElement(0, count: n))
            guard fseeko(f, off_t(offset * 8), SEEK_SET) == 0,
                  buffer.withUnsafeMutableBufferPointer({ fread($0.baseAddress, 8, n, f) }) == n else {
                throw MotionError(.ioError, "cannot read `inspect`'s temporary file of \(what) back")
            }
        }

        /// Hands the values to `body` in ascending order, a chunk at a time.
        func sorted(_ body: ([Double]) throws -> Void) throws {
            guard fflush(file) == 0 else { throw writeError() }
            let n = count, run = runLength
            var chunk: [Double] = []
            if n <= run {
                try read(n, at: 0, from: file, into: &chunk)
                chunk.sort()
                if n > 0 { try body(chunk) }
                return
            }
            // Sorted runs into a second file, then a k-way merge of them.
            guard let runs = tmpfile() else {
                throw MotionError(.ioError, "cannot create `inspect`'s temporary file of sorted \(what): \(String(cString: strerror(errno)))")
            }
            defer { fclose(runs) }
            var start = 0
            while start < n {
                let m = Swift.min(run, n - start)
                try read(m, at: start, from: file, into: &chunk)
                chunk.sort()
                guard chunk.withUnsafeBufferPointer({ fwrite($0.baseAddress, 8, m, runs) }) == m else { throw writeError() }
                start += m
            }
            guard fflush(runs) == 0 else { throw writeError() }
            let k = (n + run - 1) / run, page = 1 << 13
            var buffers = [[Double]](repeating: [], count: k)
            var positions = [Int](repeating: 0, count: k)   // values of run r taken so far
            var heads = [Int](repeating: 0, count: k)       // index into buffers[r]
            func refill(_ r: Int) throws {
                let length = Swift.min(run, n - r * run)
                let m = Swift.min(page, length - positions[r])
                if m <= 0 { buffers[r] = []; heads[r] = 0; return }
                try read(m, at: r * run + positions[r], from: runs, into: &buffers[r])
                heads[r] = 0
            }
            for r in 0..<k { try refill(r) }
            var out: [Double] = []
            out.reserveCapacity(1 << 16)
            while true {
                var best = -1
                for r in 0..<k where heads[r] < buffers[r].count {
                    if best < 0 || buffers[r][heads[r]] < buffers[best][heads[best]] { best = r }
                }
                if best < 0 { break }
                out.append(buffers[best][heads[best]])
                heads[best] += 1
                positions[best] += 1
                if heads[best] == buffers[best].count { try refill(best) }
                if out.count == 1 << 16 {
                    try body(out)
                    out.removeAll(keepingCapacity: true)
                }
            }
            if !out.isEmpty { try body(out) }
        }
    }

    /// Label events folded into a track as `LabelTrack.fromEvents` folds them (stable-sorted by
    /// time, the last of equal times winning, runs of one label merged), in bounded memory.
    /// Events come from `sources` files read interleaved; each file's position bounds its future
    /// events (the earliest time of its latest block), so the events before every unfinished
    /// file's bound are final and folded; equal times are ordered by file, then by position in
    /// the file, as the whole reading concatenates the files. An event before what is folded is
    /// far out of order (`Unordered`), unless it keeps every event.
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
        /// Every event kept, per file in file order (12 bytes each), and folded by `finish` as
        /// the whole reading folds them: for label rows too far out of order to fold as they
        /// come (`Unordered`).
        private let keepsAll: Bool
        private var all: [(times: [Double], labels: [Int32])]

        init(sources: Int = 1, keepsAll: Bool = false) {
            seen = [Int](repeating: 0, count: Swift.max(1, sources))
            bounds = [Double](repeating: -.infinity, count: Swift.max(1, sources))
            self.keepsAll = keepsAll
            all = keepsAll ? Array(repeating: ([], []), count: Swift.max(1, sources)) : []
        }

        /// The events of a block of file `source`, with the block's `samples`: their earliest time
        /// bounds the file's future events when the block has no event.
        mutating func add(_ e: LabelEvents, source: Int, samples: [RawStream]) throws {
            var ids = [Int32](repeating: -1, count: e.names.count)
            var earliest = samples.compactMap { $0.times.min() }.min() ?? .infinity
            for (t, l) in zip(e.times, e.labels) {
                if !keepsAll && (t.isNaN || t < frontier) { throw Unordered(labels: true) }
                var id = ids[Int(l)]
                if id < 0 {
                    let name = e.names[Int(l)]
                    if let k = names.firstIndex(of: name) { id = Int32(k) } else { id = Int32(names.count); names.append(name) }
                    ids[Int(l)] = id
                }
                events += 1
                if keepsAll {
                    all[source].times.append(t)
                    all[source].labels.append(id)
                    continue
                }
                pendingTimes.append(t)
                pendingLabels.append(id)
                pendingOrder.append((source, seen[source]))
                seen[source] += 1
                earliest = Swift.min(earliest, t)
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
            if keepsAll {
                // The files' events concatenated in file order, names numbered as they first
                // occur there (as the whole reading numbers them).
                var order: [String] = [], times: [Double] = [], labels: [Int32] = []
                var remap = [Int32](repeating: -1, count: names.count)
                for file in all {
                    for (t, l) in zip(file.times, file.labels) {
                        if remap[Int(l)] < 0 { remap[Int(l)] = Int32(order.count); order.append(names[Int(l)]) }
                        times.append(t)
                        labels.append(remap[Int(l)])
                    }
                }
                return LabelTrack.fromEvents(names: order, times: times, labels: labels)
            }
            frontier = -.infinity
            fold(before: .infinity)
            return LabelTrack(names: names, times: times, labels: labels)
        }
    }

    /// `inspect --samples` for one recording, a block at a time: each stream's samples appended to
    /// `{folder}/{stream}.csv` as they are read, label events folded for `labels.csv`. Returns the
    /// files written (relative to `folder`, in the whole writer's order). Label rows far back in
    /// time make it write the files again, keeping every event; an error in a recording of
    /// several files is the first in file order.
    static func writeSamples(_ source: RecordingSource, spec: PipelineSpec, layout: ChannelLayout, intervals: IntervalLabels?,
                             folder: String, directory: String, blockBytes: Int) throws -> [String] {
        let openers = source.files.map { file in
            { try StreamingRecording.blockReader(file, spec: spec, layout: layout, blockBytes: blockBytes, ledger: nil) }
        }
        do {
            do {
                return try writeSamples(source, spec: spec, intervals: intervals, folder: folder, directory: directory,
                                        openers: openers, keepEvents: false)
            } catch let u as Unordered where u.labels {
                // Label rows far back in time: written again, every event kept.
                return try writeSamples(source, spec: spec, intervals: intervals, folder: folder, directory: directory,
                                        openers: openers, keepEvents: true)
            }
        } catch let e as any UserFacingError where source.files.count > 1 && e.exitStatus.isAboutInputData {
            try checkInFileOrder(openers)   // the first error in file order
            throw e
        }
    }

    private static func writeSamples(_ source: RecordingSource, spec: PipelineSpec, intervals: IntervalLabels?, folder: String,
                                     directory: String, openers: [() throws -> IngestBlockReader?], keepEvents: Bool) throws -> [String] {
        var outputs: [OutputFiles.NewFile] = []
        var done = false
        defer { if !done { for o in outputs { o.abandon() } } }
        var fold = EventFold(sources: source.files.count, keepsAll: keepEvents)
        var perInput: [(input: Int, names: [String])] = []
        var firstTimes: [Double] = []   // per stream of every file: its smallest time
        let files = source.files
        var handles = [[String: OutputFiles.NewFile]](repeating: [:], count: files.count)
        var smallest = [[String: Double]](repeating: [:], count: files.count)
        var order = [[String]](repeating: [], count: files.count)
        var writtenBy: [String: Int] = [:]
        do {
            try interleave(openers) { f, block in
                order[f] = block.streams.map(\.name)
                for stream in block.streams {
                    if handles[f][stream.name] == nil {
                        try Inspector.checkOnce(stream.name, file: f, of: source, writtenBy: &writtenBy)
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
            } finished: { f, reader in
                try (reader as? IIOBlockReader)?.requireWholeScan()
                for name in order[f] { try handles[f][name]!.close() }
                fold.end(source: f)
            }
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
