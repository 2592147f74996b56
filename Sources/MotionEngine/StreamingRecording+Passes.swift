import MotionConfig
import MotionCore
import MotionIngest
import MotionResample
import MotionInputs

// The reading side of `StreamingRecording`: the block readers of a recording's files (kept
// blocks replayed, `sort: true` files sorted once) and the extra passes over them (the
// anti-aliasing median, T0 of a late stream).
extension StreamingRecording {
    /// A block reader for file `index` of the recording: its kept blocks replayed, when an
    /// earlier pass kept them, else a reader of the file.
    package func openReader(_ file: InputFile, index: Int) throws -> IngestBlockReader? {
        if let kept = keptFiles[index] { return _KeptFileReader(kept) }
        return try openReader(file)
    }

    /// A block reader for `file`, or nil for an IIO dump of an input with no kept stream (whole
    /// processing does not read those either).
    package func openReader(_ file: InputFile) throws -> IngestBlockReader? {
        if spec.inputs[file.inputIndex].sort {
            if sortedFiles[file.path] == nil {
                sortedFiles[file.path] = try _SortedFile(file, source: source, spec: spec, layout: layout, ledger: ledger)
            }
            return _SortedFileReader(sortedFiles[file.path]!, samplesPerBlock: Swift.max(1, blockBytes / 32))
        }
        return try Self.blockReader(file, spec: spec, layout: layout, blockBytes: blockBytes, ledger: ledger)
    }

    /// The block reader of a file of an input without `sort: true`, keeping the layout's streams
    /// as `RecordingLoader.loadRaw` does (`run`, `apply` and `inspect` read with it); nil for an
    /// IIO dump of an input with no kept stream.
    package static func blockReader(_ file: InputFile, spec: PipelineSpec, layout: ChannelLayout, blockBytes: Int,
                            ledger: InputLedger?) throws -> IngestBlockReader? {
        let input = spec.inputs[file.inputIndex]
        switch input.type {
        case .iio:
            guard let sensor = layout.sensor(input: file.inputIndex) else { return nil }
            let iio = try IIOLayoutResolver.layout(inputIndex: file.inputIndex, spec: spec, file: file.path, ledger: ledger)
            try RecordingLoader.checkLayout(iio, of: file, sensor: sensor, units: spec.units)
            return try IIOBlockReader(path: file.path, displayPath: file.path, layout: iio, units: spec.units,
                                      strict: input.strict, sensor: input.sensor ?? PathText.stem(file.path), blockBytes: blockBytes,
                                      observer: ledger?.observer(.recording))
        case .csv:
            guard let options = input.csv else {
                throw MotionError(.config, "inputs[\(file.inputIndex)] of \(spec.file): `type: csv` needs `time` and `channels`")
            }
            // As `RecordingLoader.loadRaw`: long files keep the layout's sensors, wide files
            // have one stream named by `sensor` or the file's stem.
            let keep: Set<String>? = options.sensorColumn == nil
                ? nil : layout.keptNames(input: file.inputIndex)
            return try CSVBlockReader(path: file.path, displayPath: file.path, format: CSVFormat(options),
                                      units: Dictionary(input.units.map { ($0.key, $0.value) }) { first, _ in first },
                                      unitSystem: spec.units, wideSensorName: input.sensor ?? PathText.stem(file.path),
                                      keep: keep, blockBytes: blockBytes, observer: ledger?.observer(.recording))
        case .cwa:
            return try CWABlockReader(path: file.path, displayPath: file.path, keep: layout.keptNames(input: file.inputIndex),
                                      units: spec.units, strict: input.strict, blockBytes: blockBytes,
                                      observer: ledger?.observer(.recording), zone: input.wallClockZone)
        case .gt3x:
            return try GT3XBlockReader(path: file.path, displayPath: file.path, keep: layout.keptNames(input: file.inputIndex),
                                       units: spec.units, strict: input.strict, blockBytes: blockBytes,
                                       observer: ledger?.observer(.recording), zone: input.wallClockZone)
        case .motioncollector:
            let keep = layout.keptNames(input: file.inputIndex)
            return try MotionCollectorBlockReader(path: file.path, displayPath: file.path, units: spec.units,
                                                  keep: keep, blockBytes: blockBytes, observer: ledger?.observer(.recording))
        }
    }

    /// The layout stream `raw` of `file` is, if it is kept (an unnamed iio stream is `{stem}`).
    package func streamIndex(_ raw: RawStream, _ file: InputFile) -> Int? {
        layout.sensors.firstIndex { $0.matches(input: file.inputIndex, stream: raw.name) }
    }

    /// Sets stream `s`'s resampling options from its name as read (a wide csv or iio stream
    /// without `sensor:` is named by its file's stem; docs/inputs.md).
    package func configure(_ s: Int, name: String) {
        streamNames[s] = name
        grid.streams[s].method = spec.resampleMethod(for: name)
        grid.streams[s].maxGapS = spec.maxGapS(for: name)
    }

    /// One extra read of the recording's files (for the anti-aliasing median, or for T0): hands
    /// every block's kept streams to `body` with their layout index and file index, until
    /// `body` returns false.
    package func rereadFiles(isCancelled: () -> Bool, bytesRead: (Int) -> Void = { _ in },
                             _ body: (_ stream: Int, _ file: Int, _ raw: RawStream) throws -> Bool) throws {
        var before = 0
        for (r, file) in source.files.enumerated() {
            guard let reader = try openReader(file, index: r) else { continue }
            if keepBlocks && keptFiles[r] == nil {
                // Read the file to its end once, keeping its blocks (its errors come as a full
                // read meets them, in file order); `body` then sees them. This is
                // the recording's one read of its files: the progress hears it.
                var blocks: [IngestBlock] = []
                while let block = try reader.next() {
                    if isCancelled() { throw RunInterrupted(message: "") }
                    blocks.append(block)
                    report(before + block.bytesRead, to: bytesRead)
                }
                before += blocks.last?.bytesRead ?? 0
                keptFiles[r] = _KeptFile(blocks: blocks, reader: reader)
            }
            if let kept = keptFiles[r], kept.complete {
                for block in kept.blocks {
                    for raw in block.streams {
                        guard let s = streamIndex(raw, file) else { continue }
                        if try !body(s, r, raw) { return }
                    }
                }
                continue
            }
            while let block = try reader.next() {
                if isCancelled() { throw RunInterrupted(message: "") }
                for raw in block.streams {
                    guard let s = streamIndex(raw, file) else { continue }
                    if try !body(s, r, raw) { return }
                }
            }
        }
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
            try rereadFiles(isCancelled: isCancelled, bytesRead: bytesRead) { s, r, raw in
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
    /// A file keeps the blocks of its head for the main pass (`keptFiles`, read on from there),
    /// so that it is parsed once: all of them in a recording small enough to hold
    /// (`keepBlocks`), else a head of one block (a longer head is read again).
    /// Nil when a stream's time decreases there: the main pass reports that.
    package func leadingMedians(isCancelled: () -> Bool) throws -> [Double]? {
        let n = Antialias.leadingIntervals
        var intervals = [[Double]](repeating: [], count: grid.streams.count)
        var last = [Double?](repeating: nil, count: grid.streams.count)
        var owner = [Int?](repeating: nil, count: grid.streams.count)
        // Per file: its reader, the blocks read (kept while there is one), whether it ended.
        var files: [(reader: IngestBlockReader, file: InputFile, index: Int, reads: Int, kept: [IngestBlock], ended: Bool)] = []
        for (r, file) in source.files.enumerated() {
            if let reader = try openReader(file, index: r) { files.append((reader, file, r, 0, [], false)) }
        }
        func complete() -> Bool { !intervals.contains { $0.count < n } }
        while !complete() && files.contains(where: { !$0.ended }) {
            for k in files.indices where !files[k].ended {
                if isCancelled() { throw RunInterrupted(message: "") }
                guard let block = try files[k].reader.next() else {
                    files[k].ended = true
                    continue
                }
                files[k].reads += 1
                // A small recording (`keepBlocks`) keeps every block of its heads, as the whole
                // median's pass keeps its files; another keeps a head of one block.
                if keepBlocks || files[k].reads == 1 { files[k].kept.append(block) } else { files[k].kept = [] }
                for raw in block.streams {
                    guard let s = streamIndex(raw, files[k].file) else { continue }
                    // A stream in two files is the main pass's error; its first file counts here.
                    if let o = owner[s], o != files[k].index { continue }
                    if owner[s] == nil { configure(s, name: raw.name) }
                    owner[s] = files[k].index
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
        for f in files where f.reads == f.kept.count {
            keptFiles[f.index] = _KeptFile(blocks: f.kept, reader: f.reader, complete: f.ended)
        }
        return intervals.indices.map { Antialias.median(of: &intervals[$0]) }
    }
}
