#if canImport(Glibc)
import Glibc
#endif
import MotionConfig
import MotionCore
import MotionIngest
import MotionResample
import MotionInputs

// The files of a recording as the engine reads them beyond a plain block reader: a `sort: true`
// file read whole and sorted once, and a small recording's blocks kept from its first read and
// replayed by the later passes (`StreamingRecording`).

/// The order in which a recording's files are read, the same for `run` (`StreamingRecording`)
/// and `inspect` (`StreamedInspection`): always a block of the file furthest behind in time, so
/// that the streams and label events of several files arrive nearly in time order. A file that
/// gave no time yet comes first; then the one whose latest time (of any stream or label event
/// it gave) is earliest; on a tie, the first file.
package struct FileInterleave {
    private var progress: [Double?]
    private var done: [Bool]

    package init(files: Int) {
        progress = [Double?](repeating: nil, count: files)
        done = [Bool](repeating: false, count: files)
    }

    /// The file to read a block from next; nil once every file has ended.
    package func next() -> Int? {
        var pick: Int?
        for r in progress.indices where !done[r] {
            guard let p = pick else { pick = r; continue }
            if progress[r] == nil && progress[p] != nil { pick = r; continue }
            if let a = progress[r], let b = progress[p], a < b { pick = r }
        }
        return pick
    }

    /// File `r` gave `block`.
    package mutating func advance(_ r: Int, by block: IngestBlock) {
        var latest = progress[r] ?? -Double.infinity
        for stream in block.streams { if let t = stream.times.last, t > latest { latest = t } }
        for e in [block.rowLabels, block.markers] { if let t = e.times.last, t > latest { latest = t } }
        if latest > -Double.infinity { progress[r] = latest }
    }

    /// File `r` has ended.
    package mutating func end(_ r: Int) { done[r] = true }
}

/// A file of a `sort: true` input, read to its end with its block reader (the blocks' columns
/// joined) and each kept stream stable-sorted by time (docs/inputs.md, "Bad rows and time order":
/// equal times keep the last sample, counted). Sorting needs the whole stream, so these streams
/// are held in memory (about 8 bytes per sample per channel); the grid, the windows and every
/// other file of the recording still stream.
package final class _SortedFile {
    package let streams: [RawStream]
    package let rowLabels: LabelEvents
    package let markers: LabelEvents
    package let rowsRead: Int
    package let rowsDropped: ReasonCounts
    package let warnings: [String]
    /// The spans of samples the reader added (`IngestBlock.added`).
    package let added: [ClosedRange<Double>]

    package init(_ file: InputFile, source: RecordingSource, spec: PipelineSpec, layout: ChannelLayout, ledger: InputLedger?) throws {
        var joined: [String: RawStream] = [:]
        var order: [String] = []
        var rows = LabelEvents(), markers = LabelEvents()
        var added: [ClosedRange<Double>] = []
        var rowsRead = 0
        var dropped: ReasonCounts = [:]
        var warnings: [String] = []
        if let reader = try RecordingReader.blockReader(file, spec: spec, layout: layout,
                                                           blockBytes: StreamDefaults.blockBytes, ledger: ledger) {
            while let block = try reader.next() {
                rowsRead += block.rowsRead
                for s in block.streams {
                    if joined[s.name] == nil {
                        joined[s.name] = RawStream(name: s.name, channelNames: s.channelNames, channelUnits: s.channelUnits,
                                                   times: [], channels: s.channels.map { _ in [] }, lines: [])
                        order.append(s.name)
                    }
                    joined[s.name]!.times += s.times
                    for c in s.channels.indices { joined[s.name]!.channels[c] += s.channels[c] }
                    joined[s.name]!.lines += s.lines
                }
                rows.append(block.rowLabels)
                markers.append(block.markers)
                added += block.added
            }
            try (reader as? IIOBlockReader)?.requireWholeScan()
            dropped = reader.rowsDropped
            warnings = reader.warnings
        }
        var streams: [RawStream] = []
        for name in order {
            let stream = joined[name]!
            let (sorted, duplicates) = try TimeOrder.finalize(stream, sort: true, displayPath: file.path)
            if duplicates > 0 { dropped["duplicate_time", default: 0] += duplicates }
            // Lines only name decreasing times, which a sorted stream has none of.
            streams.append(RawStream(name: stream.name, channelNames: stream.channelNames, channelUnits: stream.channelUnits,
                                     times: sorted.times, channels: sorted.channels,
                                     lines: [Int32](repeating: 0, count: sorted.times.count)))
        }
        self.streams = streams
        rowLabels = rows
        self.markers = markers
        self.rowsRead = rowsRead
        rowsDropped = dropped
        self.warnings = warnings
        self.added = added
    }
}

/// Hands out a `_SortedFile`'s streams a slice at a time, its label events and counts first.
package final class _SortedFileReader: IngestBlockReader {
    private let file: _SortedFile
    private let samplesPerBlock: Int
    private var offset = 0
    private var started = false

    package init(_ file: _SortedFile, samplesPerBlock: Int) {
        self.file = file
        self.samplesPerBlock = samplesPerBlock
    }

    package var rowsDropped: [String: Int] { file.rowsDropped }
    package var warnings: [String] { file.warnings }

    package func next() throws -> IngestBlock? {
        let longest = file.streams.map(\.count).max() ?? 0
        guard !started || offset < longest else { return nil }
        let end = offset + samplesPerBlock
        let slices = file.streams.map { s -> RawStream in
            let r = Swift.min(offset, s.count)..<Swift.min(end, s.count)
            return RawStream(name: s.name, channelNames: s.channelNames, channelUnits: s.channelUnits, times: Array(s.times[r]),
                             channels: s.channels.map { Array($0[r]) }, lines: Array(s.lines[r]))
        }
        let first = !started
        started = true
        offset = end
        var block = IngestBlock(streams: slices, rowLabels: first ? file.rowLabels : LabelEvents(names: file.rowLabels.names),
                                markers: first ? file.markers : LabelEvents(names: file.markers.names),
                                rowsRead: first ? file.rowsRead : 0, bytesRead: 0)
        if first { block.added = file.added }
        return block
    }
}

/// A file read by an earlier pass, its blocks kept, and the reader that read it (its counts,
/// warnings and, for IIO, scans): to its end, or (`complete` false: the head read of
/// `antialias_from: leading`) only as far as its first blocks, the reader left where it stopped.
package final class _KeptFile {
    package let blocks: [IngestBlock]
    package let reader: IngestBlockReader
    package let complete: Bool

    package init(blocks: [IngestBlock], reader: IngestBlockReader, complete: Bool = true) {
        self.blocks = blocks
        self.reader = reader
        self.complete = complete
    }
}

/// Replays a kept file's blocks, each released as it is handed out, then (a file kept only in
/// part) reads on with the reader that read them.
package final class _KeptFileReader: IngestBlockReader {
    private var blocks: ArraySlice<IngestBlock>
    private let complete: Bool
    package let original: IngestBlockReader

    package init(_ kept: _KeptFile) {
        blocks = kept.blocks[...]
        complete = kept.complete
        original = kept.reader
    }

    package var rowsDropped: [String: Int] { original.rowsDropped }
    package var warnings: [String] { original.warnings }

    package func next() throws -> IngestBlock? {
        if let block = blocks.popFirst() { return block }
        return complete ? nil : try original.next()
    }

    /// The IIO reader behind `reader`, replayed or not.
    package static func iio(_ reader: IngestBlockReader) -> IIOBlockReader? {
        (reader as? IIOBlockReader) ?? ((reader as? _KeptFileReader)?.original as? IIOBlockReader)
    }
}

extension RecordingSource {
    /// What decides keeping the recording's blocks for a second pass (`StreamDefaults.keepBlocksBytes`),
    /// which assumes values take about the bytes of their text: `textBytes`, with each CWA file counted
    /// 10 times, since a 4-byte packed sample becomes a time, three values and a line (about 36 bytes).
    package func keepBlocksMeasure(_ spec: PipelineSpec) -> Int {
        files.reduce(0) { sum, file in
            let factor = spec.inputs[file.inputIndex].type == .cwa ? 10 : spec.inputs[file.inputIndex].type == .gt3x ? 40 : 1
            return Swift.min(PathText.unknownTextBytes, sum + Swift.min(PathText.unknownTextBytes / 10, PathText.textSize(file.path)) * factor)
        }
    }
}
