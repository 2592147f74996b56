#if canImport(Glibc)
import Glibc
#endif
import MotionConfig
import MotionCore
import MotionIngest
import MotionResample
import MotionInputs
import MotionRecords
import MotionEngine

/// `motionprep live-vectors` (docs/live.md, "Test vectors"): one recording run through a
/// dataset's pipeline, written as the samples a live app would push and the windows the dataset's
/// engine makes of them, for an app's unit test to replay on the device (`LiveVectors.check` in
/// MotionLive). Doubles and floats are written as the hexadecimal of their IEEE bits, so that no
/// JSON reader can round them.
public enum LiveVectorsWriter {
    public static let format = "motionprep.live-vectors"
    public static let formatVersion = 1

    /// The vectors of the first recording that `inputs` (files or folders, as `apply` takes them)
    /// hold for `dataset`, the dataset's engine making the windows.
    public static func vectors(dataset: SourceDataset, inputs: [String], inputIndex: Int?) throws -> JSONValue {
        try ApplyRunner.check(dataset)
        let files = try ApplyInputs.assign(inputs, spec: ApplyRunner.appliedSpec(dataset.spec), inputIndex: inputIndex)
        let spec = ApplyRunner.appliedSpec(dataset.spec, files: files)
        guard let source = try InputDiscovery.recordings(spec).first else {
            throw MotionError(.noInput, "\(inputs.joined(separator: ", ")): no recording of the dataset's inputs found there")
        }
        let layout = try ChannelLayout.make(spec)
        // The windows: the dataset's engine, as `apply` runs it.
        // Its record file goes to a private folder of our own (mkdtemp), removed with its two
        // possible files when done.
        let tmp = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((tmp + "/motionprep-live-vectors-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw MotionError(.ioError, "cannot make a temporary folder in \(tmp): \(String(cString: strerror(errno)))")
        }
        let folder = String(cString: made)
        defer {
            unlink(folder + "/r.mprec")
            unlink(folder + "/r.mprec.tmp")
            rmdir(folder)
        }
        let processor = RecordingProcessor(spec: spec, layout: layout, keepUnlabelled: true)
        processor.collectRows = true
        let record = try processor
            .processToRecord(source, isTrain: false, intervals: nil, ledger: InputLedger(baseDirectory: spec.baseDirectory),
                             recordPath: folder + "/r.mprec", pipelineSHA256: dataset.pipelineSHA256, isCancelled: { false })
        var x: [Float] = [], starts: [Double] = []
        try record.forEachBatch { b in
            x += b.x
            starts += b.startTimes
        }
        // The samples: each stream as the readers give it (units converted), in arrival order
        // by time (stable: a stream's samples stay in file order).
        let raw = try RecordingLoader.loadRaw(source, spec: spec, layout: layout, checkOrder: false)
        var streams: [RawStream] = []
        for key in raw.raw.keys.sorted() { streams += raw.raw[key]!.map(\.stream) }
        streams = layout.sensors.compactMap { sensor in streams.first { $0.name == sensor.name } }
        var intervals: [String: JSONValue] = [:]
        // Only a dataset that designs its filter from the whole recording needs the intervals
        // (`antialias_from: recording`); the live library measures the leading ones itself.
        for s in streams where spec.resample.antialias && spec.resample.antialiasFrom == .recording {
            let times = try TimeOrder.finalize(s, sort: false, displayPath: source.name).stream.times
            intervals[s.name] = .string(hex(Antialias.medianInterval(times)))
        }
        var order: [(time: Double, stream: Int, index: Int)] = []
        for (k, s) in streams.enumerated() { for (i, t) in s.times.enumerated() { order.append((t, k, i)) } }
        order = order.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        let samples: [JSONValue] = order.map { e in
            let s = streams[e.stream]
            return .array([.string(s.name), .string(hex(e.time))] + s.channels.map { .string(hex($0[e.index])) })
        }
        let T = dataset.windowLength, C = dataset.channelNames.count
        let windows: [JSONValue] = starts.indices.map { w in
            .object(["start_time": .string(hex(starts[w])),
                     "x": .string(x[(w * T * C)..<((w + 1) * T * C)].map { hex32($0) }.joined())])
        }
        // The rows the windows are cut from (`LiveProcessor.emitsRows`), each its time and `x` row.
        let rowData = record.processed.rows ?? RecordingRows()
        let rows: [JSONValue] = rowData.times.indices.map { r in
            .array([.string(hex(rowData.times[r])), .string(rowData.values[(r * C)..<((r + 1) * C)].map { hex32($0) }.joined())])
        }
        return .object([
            "rows": .array(rows),
            "format": .string(format), "format_version": .int(formatVersion),
            "pipeline_sha256": .string(dataset.pipelineSHA256),
            "recording": .string(source.name),
            "sample_intervals": .object(intervals),
            "samples": .array(samples),
            "windows": .array(windows),
        ])
    }

    static func hex(_ d: Double) -> String {
        let s = String(d.bitPattern, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    static func hex32(_ f: Float) -> String {
        let s = String(f.bitPattern, radix: 16)
        return String(repeating: "0", count: 8 - s.count) + s
    }
}
