import MotionConfig
import MotionCore
import MotionIngest
import MotionResample
import MotionInputs

// The extra passes of `StreamingRecording` over a recording's files (`RecordingReader`): the
// anti-aliasing median, of all intervals or of the files' heads.
extension StreamingRecording {
    /// The layout stream `raw` of `file` is, if it is kept (an unnamed iio stream is `{stem}`).
    package func streamIndex(_ raw: RawStream, _ file: InputFile) -> Int? { files.streamIndex(raw, file) }

    /// Sets stream `s`'s resampling options from its name as read (a wide csv or iio stream
    /// without `sensor:` is named by its file's stem; docs/inputs.md).
    package func configure(_ s: Int, name: String) {
        origins[s].name = name
        grid.streams[s].method = spec.resampleMethod(for: name)
        grid.streams[s].maxGapS = spec.maxGapS(for: name)
    }

    /// With `antialias`, designs each stream's filter from its median sampling interval (after
    /// the time rules of docs/inputs.md, "Bad rows and time order"): of its first 256 intervals
    /// (`antialias_from: leading`, `leadingMedians`), or of all of them, found in extra passes
    /// over the files that keep only counts (`StreamingMedian`), as `Antialias.apply` does from
    /// the whole stream.
    package func designFilters(isCancelled: () -> Bool, bytesRead: (Int) -> Void) throws {
        guard spec.resample.antialias else { return }
        if spec.resample.antialiasFrom == .leading {
            guard let medians = try leadingMedians(isCancelled: isCancelled) else { return }
            for s in grid.streams.indices {
                if let f = Antialias.lowPass(medianInterval: medians[s], rateHz: rate) {
                    grid.streams[s].filter = StreamingRunFilter(filter: f, channels: grid.streams[s].channels, maxGapS: grid.streams[s].maxGapS)
                }
            }
            return
        }
        var medians = grid.streams.map { _ in StreamingMedian() }
        while medians.contains(where: { $0.needsPass }) {
            var last = [Double?](repeating: nil, count: grid.streams.count)
            var owner = [Int?](repeating: nil, count: grid.streams.count)
            var decreasing = false
            try files.reread(isCancelled: isCancelled, bytesRead: bytesRead) { s, r, raw in
                if let o = owner[s], o != r { throw twoFiles(s, source.files[o].path, source.files[r].path) }
                if owner[s] == nil { configure(s, name: raw.name) }
                owner[s] = r
                var previous = last[s]
                for t in raw.times {
                    if let p = previous {
                        if t < p {
                            decreasing = true
                            return false
                        }
                        if t == p { continue }
                        medians[s].add(t - p)
                    }
                    previous = t
                }
                last[s] = previous
                return true
            }
            // The main pass finds and reports a decreasing time; no filter is needed then.
            if decreasing { return }
            for s in medians.indices where medians[s].needsPass { medians[s].endPass() }
        }
        for s in grid.streams.indices {
            if let f = Antialias.lowPass(medianInterval: medians[s].median, rateHz: rate) {
                grid.streams[s].filter = StreamingRunFilter(filter: f, channels: grid.streams[s].channels, maxGapS: grid.streams[s].maxGapS)
            }
        }
    }

    /// Each kept stream's median of its first `Antialias.leadingIntervals` intervals
    /// (`antialias_from: leading`), from a read of the files' heads: the intervals between
    /// consecutive distinct times in the order the stream's file gives them (a `sort: true` file
    /// sorted), which is the order the stream's `StreamBuffer` takes them in and the live library
    /// is pushed them in; an equal time replaces the sample and adds no interval. The files are
    /// read a block at a time in turn (a stream lives in one file), until every stream has its
    /// intervals or every file has ended; a stream with fewer has the median of those it has.
    /// A file keeps the blocks of its head for the main pass (`RecordingReader.kept`, read on from there),
    /// so that it is parsed once: all of them in a recording small enough to hold
    /// (`RecordingReader.keepsFirstRead`), else a head of one block (a longer head is read again).
    /// Nil when a stream's time decreases there: the main pass reports that.
    package func leadingMedians(isCancelled: () -> Bool) throws -> [Double]? {
        let n = Antialias.leadingIntervals
        var intervals = [[Double]](repeating: [], count: grid.streams.count)
        var last = [Double?](repeating: nil, count: grid.streams.count)
        var owner = [Int?](repeating: nil, count: grid.streams.count)
        // Per file: its reader, the blocks read (kept while there is one), whether it ended.
        var heads: [(reader: IngestBlockReader, file: InputFile, index: Int, reads: Int, kept: [IngestBlock], ended: Bool)] = []
        for (r, file) in source.files.enumerated() {
            if let reader = try files.open(file, index: r) { heads.append((reader, file, r, 0, [], false)) }
        }
        func complete() -> Bool { !intervals.contains { $0.count < n } }
        while !complete() && heads.contains(where: { !$0.ended }) {
            for k in heads.indices where !heads[k].ended {
                if isCancelled() { throw RunInterrupted(message: "") }
                guard let block = try heads[k].reader.next() else {
                    heads[k].ended = true
                    continue
                }
                heads[k].reads += 1
                // A small recording (`keepsFirstRead`) keeps every block of its heads, as the whole
                // median's pass keeps its files; another keeps a head of one block.
                if files.keepsFirstRead || heads[k].reads == 1 { heads[k].kept.append(block) } else { heads[k].kept = [] }
                for raw in block.streams {
                    guard let s = streamIndex(raw, heads[k].file) else { continue }
                    // A stream in two files is the main pass's error; its first file counts here.
                    if let o = owner[s], o != heads[k].index { continue }
                    if owner[s] == nil { configure(s, name: raw.name) }
                    owner[s] = heads[k].index
                    var previous = last[s]
                    for t in raw.times where intervals[s].count < n {
                        if let p = previous {
                            if t < p { return nil }
                            if t == p { continue }
                            intervals[s].append(t - p)
                        }
                        previous = t
                    }
                    last[s] = previous
                }
                if complete() { break }
            }
        }
        // The main pass reads on from a head of at most one block (memory stays that of its own
        // blocks); a file read further is read again.
        for f in heads where f.reads == f.kept.count {
            files.kept[f.index] = _KeptFile(blocks: f.kept, reader: f.reader, complete: f.ended)
        }
        return intervals.indices.map { Antialias.median(of: &intervals[$0]) }
    }
}
