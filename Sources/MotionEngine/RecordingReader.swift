import MotionConfig
import MotionCore
import MotionIngest
import MotionResample
import MotionInputs

/// Reading a recording's files, for every pass of `StreamingRecording` over them: a block
/// reader per file, a `sort: true` file read whole and sorted once, and a small recording's
/// blocks kept from its first read and replayed by the later passes (`keepsFirstRead`), so that
/// it is parsed once. Which file to read next is `FileInterleave`'s; the first error in file
/// order is `StreamingRecording.checkInFileOrder`'s.
package final class RecordingReader {
    package let source: RecordingSource
    package let spec: PipelineSpec
    package let layout: ChannelLayout
    package let blockBytes: Int
    /// Hears every byte read, in every pass: each pass over a file must give the same bytes.
    package let ledger: InputLedger?
    /// Whether the first extra pass (the anti-aliasing median's) keeps every file's blocks, so
    /// that later passes replay them instead of reading and parsing the files again: for
    /// recordings small enough to hold (the whole-processing case of one engine). The main pass
    /// ends it (`startMainPass`).
    package private(set) var keepsFirstRead: Bool
    /// Files read whole and kept as blocks (or a head of them), by file index.
    package var kept: [Int: _KeptFile] = [:]
    /// Files of `sort: true` inputs, read whole and sorted once (they are read again by the
    /// anti-aliasing passes).
    private var sorted: [String: _SortedFile] = [:]
    /// The most input bytes reported read: files whose blocks were kept are counted as they are
    /// read, and their replay in the main pass does not move the progress back.
    private var reportedBytes = 0

    package init(source: RecordingSource, spec: PipelineSpec, layout: ChannelLayout, blockBytes: Int, ledger: InputLedger?,
                 keepsFirstRead: Bool) {
        self.source = source
        self.spec = spec
        self.layout = layout
        self.blockBytes = blockBytes
        self.ledger = ledger
        self.keepsFirstRead = keepsFirstRead
    }

    /// The main pass takes the kept blocks (the readers it opens hold what they replay); a later
    /// extra pass (T0's) reads the files again.
    package func startMainPass() {
        kept = [:]
        keepsFirstRead = false
    }

    /// Reports `bytes` read to `bytesRead` when it is more than reported before.
    package func report(_ bytes: Int, to bytesRead: (Int) -> Void) {
        guard bytes > reportedBytes else { return }
        reportedBytes = bytes
        bytesRead(bytes)
    }

    /// A block reader for file `index` of the recording: its kept blocks replayed, when an
    /// earlier pass kept them, else a reader of the file.
    package func open(_ file: InputFile, index: Int) throws -> IngestBlockReader? {
        if let kept = kept[index] { return _KeptFileReader(kept) }
        return try open(file)
    }

    /// A block reader for `file`, or nil for an IIO dump of an input with no kept stream (whole
    /// processing does not read those either).
    package func open(_ file: InputFile) throws -> IngestBlockReader? {
        if spec.inputs[file.inputIndex].sort {
            if sorted[file.path] == nil {
                sorted[file.path] = try _SortedFile(file, source: source, spec: spec, layout: layout, ledger: ledger)
            }
            return _SortedFileReader(sorted[file.path]!, samplesPerBlock: Swift.max(1, blockBytes / 32))
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

    /// One extra read of the recording's files (for the anti-aliasing median, or for T0): hands
    /// every block's kept streams to `body` with their layout index and file index, until
    /// `body` returns false.
    package func reread(isCancelled: () -> Bool, bytesRead: (Int) -> Void = { _ in },
                        _ body: (_ stream: Int, _ file: Int, _ raw: RawStream) throws -> Bool) throws {
        var before = 0
        for (r, file) in source.files.enumerated() {
            guard let reader = try open(file, index: r) else { continue }
            if keepsFirstRead && kept[r] == nil {
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
                kept[r] = _KeptFile(blocks: blocks, reader: reader)
            }
            if let kept = kept[r], kept.complete {
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
}
