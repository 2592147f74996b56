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
    ///   name from each file; the settings are those for the default.
    /// - `magnitudes`: each magnitude channel and its axes.
    /// - `antialias`: `resample.antialias`.
    /// - `transforms`: each step with its operation (`median`, `filter`, `gravity`,
    ///   `derivative`, `magnitude`, `calibrate`), the channels it reads (`inputs`) and writes
    ///   (`outputs`), and its parameters: `samples`; `sos` (the designed second-order sections
    ///   `[b0, b1, b2, 1, a1, a2]`) and `zero_phase`; `groups`; `scale` and `offset`.
    /// - `implementation`: the version of each stage's code that ran (`StageImplementation`).
    func chain(spec: PipelineSpec) -> JSONValue {
        let names = channelNames
        func list(_ indices: [Int]) -> JSONValue { .array(indices.map { .string(names[$0]) }) }
        func numbers(_ values: [Double]) -> JSONValue { .array(values.map { .double($0) }) }
        let streams: [JSONValue] = sensors.map { s in
            let gap = spec.maxGapS(for: s.name)
            return .object([
                "name": .string(s.name),
                "channels": .array(s.channelNames.map { .string($0) }),
                "method": .string(spec.resampleMethod(for: s.name).rawValue),
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
        return .object([
            "streams": .array(streams),
            "magnitudes": .array(magnitudes),
            "antialias": .bool(spec.resample.antialias),
            "transforms": .array(steps),
            "implementation": StageImplementation.record,
        ])
    }
}
