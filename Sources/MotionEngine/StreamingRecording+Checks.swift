import MotionConfig
import MotionCore
import MotionIngest
import MotionResample
import MotionInputs

// The errors of a recording (docs/inputs.md, "Bad rows and time order") and the reads only to
// check: a multi-file recording's first error in file order, and the label track read first.
extension StreamingRecording {

    /// A kept stream given by two files of the recording (docs/inputs.md, "Recordings, subjects
    /// and channels"), naming them in the layout's order of inputs, then in file order.
    package func twoFiles(_ s: Int, _ a: String, _ b: String) -> MotionError {
        let sensor = layout.sensors[s]
        func rank(_ path: String) -> (Int, Int) {
            let f = source.files.firstIndex { $0.path == path } ?? 0
            let input = source.files[f].inputIndex
            return (sensor.sources.firstIndex { $0.inputIndex == input } ?? 0, f)
        }
        let (first, second) = rank(a) <= rank(b) ? (a, b) : (b, a)
        return MotionError(.dataError, "recording `\(source.name)` has stream `\(sensor.name)` in both \(first) and \(second); a channel may occur only once per recording")
    }

    /// Stream `s`'s first decreasing time, at its line, or its scan's byte offset in an IIO dump.
    package func decreaseError(_ s: Int, _ file: InputFile, iio: IIOBlockReader?) -> IngestError? {
        guard let d = grid.streams[s].decrease else { return nil }
        if let iio {
            return IngestError(.iioTimeDecreases(stream: d.stream, scan: Int(d.line), time: d.time, previousTime: d.previousTime),
                               at: SourceLocation(file: file.path, byteOffset: Int(d.line) * iio.scanBytes))
        }
        return IngestError(.timeDecreases(stream: d.stream, time: d.time, previousTime: d.previousTime, previousLine: Int(d.previousLine)),
                           at: SourceLocation(file: file.path, line: Int(d.line)))
    }

    /// The grid grew past the resource limit although the streams' extents kept it within
    /// (the grid's end tolerance, for a recording at the limit).
    package func gridPastLimit() -> MotionError {
        MotionError(.dataError, "\(Text.joinedBounded(source.files.map(\.path))): recording `\(source.name)` would give a grid of more than the \(valueLimit) values motionprep accepts for one recording (a resource limit); check its timestamps and the time unit")
    }

    /// The first error of a recording of several files in file order, which the streamed read
    /// (interleaved by time) may meet in another order (docs/inputs.md, "Bad rows and time
    /// order"). Reads each file after the other, only to check it, and throws the first of: a
    /// file's bad line, other layout, missing whole scan or (IIO) decreasing time, as that file
    /// is read; then per kept stream in layout order, a stream missing, in two files or with a
    /// decreasing time; then the grid's resource limits. Returns when there is none. Call it on
    /// a recording that has not streamed.
    package func checkInFileOrder(isCancelled: () -> Bool) throws {
        // The files, after the one it came from, that gave each kept stream too.
        var others = [[Int]](repeating: [], count: grid.streams.count)
        for (r, file) in source.files.enumerated() {
            guard let reader = try files.open(file, index: r) else { continue }
            while let block = try reader.next() {
                if isCancelled() { throw RunInterrupted(message: "") }
                takeStreams(block, from: r, file: file, checkOnly: true) { s, r in if !others[s].contains(r) { others[s].append(r) } }
            }
            try _KeptFileReader.iio(reader)?.requireWholeScan()
            if let iio = _KeptFileReader.iio(reader) {
                for s in grid.streams.indices where origins[s].file == r {
                    if let e = decreaseError(s, file, iio: iio) { throw e }
                }
            }
        }
        for (s, sensor) in layout.sensors.enumerated() {
            guard let r = origins[s].file else { throw RecordingLoader.noStream(sensor, source: source, spec: spec) }
            if let other = others[s].first { throw twoFiles(s, source.files[r].path, source.files[other].path) }
            if let e = decreaseError(s, source.files[r], iio: nil) { throw e }
        }
        try checkGrid(source.files)
    }

    /// The track of the recording's label rows (or markers) as they stand in its files: every
    /// file read in file order, its events kept (12 bytes each) and ordered by time, equal times
    /// in file order (`LabelTrack.fromEvents`). For label events too far out of time order to be
    /// folded as they come (`attempt`).
    package func readLabelTrack(isCancelled: () -> Bool) throws -> LabelTrack {
        var events = LabelEvents()
        let fromMarkers = spec.labels?.from == .markers
        for (r, file) in source.files.enumerated() where ![.iio, .cwa, .gt3x].contains(spec.inputs[file.inputIndex].type) {
            guard let reader = try files.open(file, index: r) else { continue }
            while let block = try reader.next() {
                if isCancelled() { throw RunInterrupted(message: "") }
                events.append(fromMarkers ? block.markers : block.rowLabels)
            }
        }
        return events.track()
    }
}
