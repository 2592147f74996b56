import MotionChain
import MotionConfig
import MotionCore
import MotionResample

extension ChannelLayout {
    /// The manifest's `chain` record (docs/dataset-format.md, "The processing chain"): the
    /// pipeline's processing resolved to what runs on a recording's streams, so that the live
    /// library (docs/live.md) can run it from the manifest alone, without the pipeline file, its
    /// YAML or any input format. Channels are named as in the manifest's `channels`.
    ///
    /// The keys are `ProcessingChain`'s; the `transforms` steps are the plan's, designed filters
    /// included. Each stream gets the resampling method and `max_gap_s` of its name. A stream
    /// named `{stem}` takes its name from each file, and the engine its settings from that name:
    /// when every file of the run has the same stem (`Barometer.csv` in every folder), the chain
    /// names the stream by it, with its settings; otherwise it stays `{stem}` with the default's
    /// (`chainWarnings` says when a file's own name gets other settings).
    package func chain(spec: PipelineSpec, sources: [RecordingSource]) -> ProcessingChain {
        let names = channelNames
        func list(_ indices: [Int]) -> [String] { indices.map { names[$0] } }
        let streams = sensors.map { s in
            let name = chainName(s, sources: sources)
            let gap = spec.maxGapS(for: name)
            return ProcessingChain.Stream(name: name, channels: s.channelNames, method: spec.resampleMethod(for: name),
                                          maxGapS: gap.isFinite ? gap : nil)
        }
        return ProcessingChain(streams: streams, magnitudes: magnitudes.map { .init(name: $0.name, axes: list($0.axes)) },
                               antialias: spec.resample.antialias,
                               antialiasFrom: spec.resample.antialiasFromLeading ? .leading : nil,
                               transforms: ProcessingChain.steps(transforms, names: names))
    }

    /// The names the engine gives sensor `s`'s streams in this run (`StreamingRecording.configure`):
    /// its sources' names, and for a `{stem}` source the stems of that input's files, sorted.
    package func streamNames(_ s: Sensor, sources: [RecordingSource]) -> [String] {
        var names = Set(s.sources.filter { $0.name != "{stem}" }.map(\.name))
        let stemInputs = Set(s.sources.filter { $0.name == "{stem}" }.map(\.inputIndex))
        if !stemInputs.isEmpty {
            for source in sources {
                for file in source.files where stemInputs.contains(file.inputIndex) { names.insert(PathText.stem(file.path)) }
            }
        }
        return names.sorted()
    }

    /// The name the chain gives sensor `s`: its own, or for a `{stem}` stream the one stem all
    /// its files share.
    package func chainName(_ s: Sensor, sources: [RecordingSource]) -> String {
        guard s.name == "{stem}" else { return s.name }
        let names = streamNames(s, sources: sources)
        return names.count == 1 ? names[0] : s.name
    }

    /// A warning per stream whose files get resampling settings other than the chain's: a
    /// `{stem}` stream whose files have several names, one with an override of its own
    /// (`resample.method: {Barometer: previous}`). The dataset is right; the chain cannot say
    /// which files got which settings, so `MotionLive` and `live-vectors` would not reproduce
    /// those files' windows (docs/dataset-format.md, "The processing chain").
    package func chainWarnings(spec: PipelineSpec, sources: [RecordingSource]) -> [String] {
        sensors.compactMap { s in
            let name = chainName(s, sources: sources)
            let settings = { (n: String) in "\(spec.resampleMethod(for: n).rawValue), max_gap_s \(spec.maxGapS(for: n))" }
            let other = streamNames(s, sources: sources).filter { settings($0) != settings(name) }
            guard let first = other.first else { return nil }
            return "files named `\(first)`\(other.count > 1 ? " (and \(other.count - 1) more names)" : "") of stream `\(name)` (channels \(s.channelNames.joined(separator: ", "))) are resampled with \(settings(first)), where the manifest's chain can record one setting per stream (\(settings(name))); the dataset is right, but the live library would not reproduce those windows. Give the input a `sensor:` name per kind of file to record each (docs/dataset-format.md, \"The processing chain\")"
        }
    }
}
