#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MotionConfig
import MotionCore
import MotionIngest
import MotionResample
import MotionOutput
import MotionInputs
import MotionEngine

/// `motionprep inspect` in bounded memory (docs/commands.md, "inspect"): a recording's files are
/// read a block at a time by the block readers `run` streams with (`RecordingReader.blockReader`),
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
extension StreamedInspection {
    /// The scan's result: what `Inspector.fill` takes from a whole `RawRecording`.
    package struct Scan {
        package var rowsRead = 0
        package var dropped: ReasonCounts = [:]
        /// The readers' warnings (IIO layouts and dumps), file by file.
        package var warnings: [String] = []
        package var streams: [StreamReport] = []
        package var rowLabels: LabelTrack
        package var rowEvents = 0
        package var markers: LabelTrack
        package var markerEvents = 0
        /// The latest first sample over the streams (`Inspector.gridStart`).
        package var gridStart: Double?

        /// As `Inspector.fill(_:_:maxGap:preferMarkers:)` for a whole recording.
        package func fill(_ report: inout RecordingReport, preferMarkers: Bool) {
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
    package static func scan(_ source: RecordingSource, spec: PipelineSpec, layout: ChannelLayout, maxGap: (String) -> Double,
                     blockBytes: Int) throws -> Scan {
        // `sort: true` changes nothing here: inspect describes the files as they are.
        try scan(source.files.map { file in
            { try RecordingReader.blockReader(file, spec: spec, layout: layout, blockBytes: blockBytes, ledger: nil) }
        }, maxGap: maxGap)
    }

    /// Scans the files `readers` open, in order (nil: a file with nothing to read).
    ///   - gapFromMedian: when set, a stream's gap limit is this function of its median interval
    ///     (of all its intervals, zeros included: `Antialias.medianInterval`), and `maxGap` is not
    ///     used (`inspect FILE.csv`, where no pipeline says what a gap is).
    package static func scan(_ readers: [() throws -> IngestBlockReader?], maxGap: (String) -> Double,
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
    package static func checkInFileOrder(_ readers: [() throws -> IngestBlockReader?]) throws {
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

    /// Reads the files `openers` open (nil: nothing to read) interleaved by time, in the order
    /// `run` reads a recording's files (`FileInterleave`). `body` gets
    /// each block with its file's index; `finished` each file once it has ended.
    package static func interleave(_ openers: [() throws -> IngestBlockReader?], _ body: (Int, IngestBlock) throws -> Void,
                           finished: (Int, IngestBlockReader) throws -> Void) throws {
        var readers: [(index: Int, reader: IngestBlockReader)] = []
        for (f, open) in openers.enumerated() { if let r = try open() { readers.append((f, r)) } }
        var order = FileInterleave(files: readers.count)
        while let r = order.next() {
            guard let block = try readers[r].reader.next() else {
                order.end(r)
                try finished(readers[r].index, readers[r].reader)
                continue
            }
            order.advance(r, by: block)
            try body(readers[r].index, block)
        }
    }

    /// `inspect --samples` for one recording, a block at a time: each stream's samples appended to
    /// `{folder}/{stream}.csv` as they are read, label events folded for `labels.csv`. Returns the
    /// files written (relative to `folder`, in the whole writer's order). Label rows far back in
    /// time make it write the files again, keeping every event; an error in a recording of
    /// several files is the first in file order.
    package static func writeSamples(_ source: RecordingSource, spec: PipelineSpec, layout: ChannelLayout, intervals: IntervalLabels?,
                             folder: String, directory: String, blockBytes: Int) throws -> [String] {
        let openers = source.files.map { file in
            { try RecordingReader.blockReader(file, spec: spec, layout: layout, blockBytes: blockBytes, ledger: nil) }
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
