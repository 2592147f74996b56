import Foundation
import MotionConfig
import MotionCore
import MotionEngine
import MotionIngest
import MotionOutput
import MotionInputs

extension Inspector {
    /// `inspect PIPELINE.yaml --samples DIR` (docs/commands.md): every parsed sample in file order,
    /// `DIR/{recording}/{sensor}.csv` with `time_s` then one column per channel, numbers in
    /// shortest round-trip form; `labels.csv` (`time_s,label` at each change) when the pipeline has
    /// labels. Returns the files written, relative to DIR.
    ///
    /// DIR is refused (73) when it is a link or a file, when it is a folder that is neither empty
    /// nor ours (`SamplesFolder.markerName` says what an earlier run wrote, which a rerun
    /// replaces), and when it lies inside a folder the pipeline's inputs are read from, or
    /// holds one. Files are created new (`O_EXCL | O_NOFOLLOW`), never through a link.
    /// Each recording is read in blocks of `blockBytes` and written as it is read, in bounded
    /// memory (`StreamedInspection.writeSamples`); below `streamBytes` (a test knob) whole.
    public static func writeSamples(pipeline spec: PipelineSpec, to directory: String, blockBytes: Int = StreamDefaults.blockBytes) throws -> [String] {
        try writeSamples(pipeline: spec, to: directory, streamBytes: 0, blockBytes: blockBytes)
    }

    /// With `streamBytes`, files under that size are read whole: `init`'s small files, and the
    /// whole reading the tests compare the blocks with (`streamBytes: .max`).
    package static func writeSamples(pipeline spec: PipelineSpec, to directory: String, streamBytes: Int,
                          blockBytes: Int = StreamDefaults.blockBytes) throws -> [String] {
        let layout = try ChannelLayout.make(spec)
        let sources = try InputDiscovery.recordings(spec)
        try SamplesFolder.checkOutsideInputs(directory, spec: spec)
        for source in sources { try SamplesFolder.checkRecordingName(source.name, directory: directory) }
        try SamplesFolder.prepare(directory)
        // What was written is listed as ours even when a later recording fails, so a rerun may
        // replace it.
        defer { try? SamplesFolder.owned(directory).seal() }
        var written: [String] = []
        let intervals = try loadIntervals(spec)
        for source in sources {
            let folder = try SamplesFolder.makeFolders(directory, recording: source.name)
            if source.textBytes(probingUpTo: streamBytes) >= streamBytes {
                let files = try StreamedInspection.writeSamples(source, spec: spec, layout: layout, intervals: intervals,
                                                                folder: folder, directory: directory, blockBytes: blockBytes)
                written += files.map { source.name + "/" + $0 }
                continue
            }
            let raw = try RecordingLoader.loadRaw(source, spec: spec, layout: layout, checkOrder: false)
            var writtenBy: [String: Int] = [:]
            for key in raw.raw.keys.sorted() {
                for (stream, file) in raw.raw[key]! {
                    try checkOnce(stream.name, file: source.files.firstIndex { $0.path == file.path } ?? 0, of: source,
                                  writtenBy: &writtenBy)
                    let text = samplesHeader(stream) + sampleRows(stream)
                    let name = try SamplesFolder.fileName(stream.name + ".csv", directory: directory)
                    try OutputFiles.create(Array(text.utf8), at: folder + "/" + name)
                    written.append(source.name + "/" + name)
                }
            }
            if let labels = spec.labels {
                let events: LabelEvents? = labels.from == .rows ? raw.rowLabels : labels.from == .markers ? raw.markers : nil
                var text = labelsFile(nil)
                if let events {
                    text = labelsFile(events.track())
                } else if let fixed = try LabelSources.fixedTrack(source, spec: spec, intervals: intervals) {
                    // `path`: the label from the first sample on; `intervals`: on the input's clock.
                    let begin = raw.raw.values.joined().compactMap { $0.stream.times.min() }.min()
                    text = labelsFile(fixed.onGrid(t0: gridStart(raw), clock: labels.clock), nonFiniteAt: begin ?? 0)
                }
                try OutputFiles.create(Array(text.utf8), at: folder + "/labels.csv")
                written.append(source.name + "/labels.csv")
            }
        }
        return written
    }

    /// `--samples` writes one file per stream of a recording: a stream that two of its files give
    /// is refused, naming both (65).
    /// The two files are named in file order, whichever was read first.
    package static func checkOnce(_ stream: String, file: Int, of source: RecordingSource, writtenBy: inout [String: Int]) throws {
        if let other = writtenBy[stream], other != file {
            let (a, b) = (source.files[Swift.min(other, file)].path, source.files[Swift.max(other, file)].path)
            throw MotionError(.dataError, "recording `\(source.name)` has stream `\(stream)` in both \(a) and \(b); `--samples` writes one file per stream of a recording (`run` refuses such a recording too: a channel may occur only once)")
        }
        writtenBy[stream] = file
    }

    /// A `--samples` stream file's header line: `time_s`, then its channels.
    package static func samplesHeader(_ stream: RawStream) -> String {
        "time_s," + stream.channelNames.joined(separator: ",") + "\n"
    }

    /// A stream's samples as `--samples` lines, in file order, numbers in shortest round-trip form.
    package static func sampleRows(_ stream: RawStream) -> String {
        var text = ""
        text.reserveCapacity(stream.times.count * 16 * (1 + stream.channels.count))
        for i in stream.times.indices {
            text += "\(stream.times[i])"
            for c in stream.channels { text += ",\(c[i])" }
            text += "\n"
        }
        return text
    }

    /// `labels.csv` of `--samples`: `time_s,label` at each change of `track` (an empty label where
    /// none is in force). With `nonFiniteAt` (a fixed track), a time that is not finite (a `path`
    /// label, from the start) is written as that time, the first sample's. Without a track, the
    /// header alone.
    package static func labelsFile(_ track: LabelTrack?, nonFiniteAt: Double? = nil) -> String {
        var text = "time_s,label\n"
        guard let track else { return text }
        for (t, l) in zip(track.times, track.labels) {
            let time = t.isFinite ? t : (nonFiniteAt ?? t)
            text += "\(time),\(l < 0 ? "" : csvField(track.names[Int(l)]))\n"
        }
        return text
    }

    package static func csvField(_ s: String) -> String {
        s.contains(",") || s.contains("\"") || s.contains("\n") ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
    }
}
