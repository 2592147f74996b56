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
    /// - `streams`: each kept stream in channel order: its name, its channels, the resampling
    ///   method and `max_gap_s` it gets (null: no limit). A stream named `{stem}` takes its
    ///   name from each file, and the engine its settings from that name: when every file of
    ///   the run has the same stem (`Barometer.csv` in every folder), the chain names the stream
    ///   by it, with its settings; otherwise it stays `{stem}` with the default's
    ///   (`chainWarnings` says when a file's own name gets other settings).
    /// - `magnitudes`: each magnitude channel and its axes.
    /// - `antialias`: `resample.antialias`; `antialias_from`: `"leading"` when the filter is
    ///   designed from each stream's first 256 intervals (absent: from the whole recording's
    ///   median, as datasets written before the key).
    /// - `transforms`: each step with its operation (`median`, `filter`, `gravity`,
    ///   `derivative`, `magnitude`, `calibrate`), the channels it reads (`inputs`) and writes
    ///   (`outputs`), and its parameters: `samples`; `sos` (the designed second-order sections
    ///   `[b0, b1, b2, 1, a1, a2]`) and `zero_phase`; `groups`; `scale` and `offset`.
    /// - `implementation`: the version of each stage's code that ran (`StageImplementation`).
    func chain(spec: PipelineSpec, sources: [RecordingSource]) -> ProcessingChain {
        let names = channelNames
        func list(_ indices: [Int]) -> [String] { indices.map { names[$0] } }
        let streams = sensors.map { s in
            let name = chainName(s, sources: sources)
            let gap = spec.maxGapS(for: name)
            return ProcessingChain.Stream(name: name, channels: s.channelNames, method: spec.resampleMethod(for: name),
                                          maxGapS: gap.isFinite ? gap : nil)
        }
        let steps = (transforms?.steps ?? []).map { step in
            let operation: ProcessingChain.Operation
            switch step.operation {
            case .median(let samples): operation = .median(samples: samples)
            case .filter(let sos, let zeroPhase): operation = .filter(sos: sos, zeroPhase: zeroPhase)
            case .gravity(let sos, let zeroPhase): operation = .gravity(sos: sos, zeroPhase: zeroPhase)
            case .derivative: operation = .derivative
            case .magnitude(let groups): operation = .magnitude(groups: groups.map(list))
            case .calibrate(let scale, let offset): operation = .calibrate(scale: scale, offset: offset)
            }
            return ProcessingChain.Step(operation: operation, inputs: list(step.inputs), outputs: list(step.outputs))
        }
        return ProcessingChain(streams: streams, magnitudes: magnitudes.map { .init(name: $0.name, axes: list($0.axes)) },
                               antialias: spec.resample.antialias,
                               antialiasFrom: spec.resample.antialiasFromLeading ? .leading : nil, transforms: steps)
    }

    /// The names the engine gives sensor `s`'s streams in this run (`StreamingRecording.configure`):
    /// its sources' names, and for a `{stem}` source the stems of that input's files, sorted.
    func streamNames(_ s: Sensor, sources: [RecordingSource]) -> [String] {
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
    func chainName(_ s: Sensor, sources: [RecordingSource]) -> String {
        guard s.name == "{stem}" else { return s.name }
        let names = streamNames(s, sources: sources)
        return names.count == 1 ? names[0] : s.name
    }

    /// A warning per stream whose files get resampling settings other than the chain's: a
    /// `{stem}` stream whose files have several names, one with an override of its own
    /// (`resample.method: {Barometer: previous}`). The dataset is right; the chain cannot say
    /// which files got which settings, so `MotionLive` and `live-vectors` would not reproduce
    /// those files' windows (docs/dataset-format.md, "The processing chain").
    func chainWarnings(spec: PipelineSpec, sources: [RecordingSource]) -> [String] {
        sensors.compactMap { s in
            let name = chainName(s, sources: sources)
            let settings = { (n: String) in "\(spec.resampleMethod(for: n).rawValue), max_gap_s \(spec.maxGapS(for: n))" }
            let other = streamNames(s, sources: sources).filter { settings($0) != settings(name) }
            guard let first = other.first else { return nil }
            return "files named `\(first)`\(other.count > 1 ? " (and \(other.count - 1) more names)" : "") of stream `\(name)` (channels \(s.channelNames.joined(separator: ", "))) are resampled with \(settings(first)), where the manifest's chain can record one setting per stream (\(settings(name))); the dataset is right, but the live library would not reproduce those windows. Give the input a `sensor:` name per kind of file to record each (docs/dataset-format.md, \"The processing chain\")"
        }
    }
}
