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
    package func chain(spec: PipelineSpec, sources: [RecordingSource]) -> JSONValue {
        let names = channelNames
        func list(_ indices: [Int]) -> JSONValue { .array(indices.map { .string(names[$0]) }) }
        func numbers(_ values: [Double]) -> JSONValue { .array(values.map { .double($0) }) }
        let streams: [JSONValue] = sensors.map { s in
            let name = chainName(s, sources: sources)
            let gap = spec.maxGapS(for: name)
            return .object([
                "name": .string(name),
                "channels": .array(s.channelNames.map { .string($0) }),
                "method": .string(spec.resampleMethod(for: name).rawValue),
                "max_gap_s": gap.isFinite ? .double(gap) : .null,
            ])
        }
        let magnitudes: [JSONValue] = self.magnitudes.map { .object(["name": .string($0.name), "axes": list($0.axes)]) }
        var steps: [JSONValue] = []
        for step in transforms?.steps ?? [] {
            var o: [String: JSONValue] = ["inputs": list(step.inputs), "outputs": list(step.outputs)]
            switch step.operation {
            case .median(let samples):
                o["op"] = .string("median")
                o["samples"] = .int(samples)
            case .filter(let sos, let zeroPhase):
                o["op"] = .string("filter")
                o["sos"] = .array(sos.map(numbers))
                o["zero_phase"] = .bool(zeroPhase)
            case .gravity(let sos, let zeroPhase):
                o["op"] = .string("gravity")
                o["sos"] = .array(sos.map(numbers))
                o["zero_phase"] = .bool(zeroPhase)
            case .derivative:
                o["op"] = .string("derivative")
            case .magnitude(let groups):
                o["op"] = .string("magnitude")
                o["groups"] = .array(groups.map(list))
            case .calibrate(let scale, let offset):
                o["op"] = .string("calibrate")
                o["scale"] = numbers(scale)
                o["offset"] = numbers(offset)
            }
            steps.append(.object(o))
        }
        var chain: [String: JSONValue] = [
            "streams": .array(streams),
            "magnitudes": .array(magnitudes),
            "antialias": .bool(spec.resample.antialias),
            "transforms": .array(steps),
            "implementation": StageImplementation.record,
        ]
        if spec.resample.antialiasFromLeading { chain["antialias_from"] = .string(ResampleSpec.AntialiasFrom.leading.rawValue) }
        return .object(chain)
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
