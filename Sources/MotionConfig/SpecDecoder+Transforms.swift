import MotionCore
import MotionYAML

extension SpecDecoder {
    /// The keys each step type takes (docs/pipeline.md, "Transforms").
    static let transformKeys: [TransformSpec.Kind: [String]] = [
        .median: ["channels", "samples"],
        .butterworth: ["channels", "type", "order", "cutoff_hz", "zero_phase"],
        .gravity: ["channels", "cutoff_hz", "order", "zero_phase"],
        .derivative: ["channels"],
        .magnitude: ["channels", "name"],
        .calibrate: ["channels", "scale", "offset"],
    ]

    /// `transforms`: a list of one-key mappings, `- butterworth: {channels: [A, G], cutoff_hz: 20}`.
    /// Cutoffs are checked against the Nyquist frequency of `rateHz` when it is known; channel
    /// references are resolved later, against the channel layout (`MotionInputs.TransformPlan`).
    func decodeTransforms(_ node: YAMLNode, rateHz: Double?) -> [TransformSpec]? {
        let kinds = TransformSpec.Kind.allCases.map(\.rawValue)
        guard let items = node.sequence else {
            mustBe("transforms", node, "a list of steps such as `- median: {channels: [A], samples: 3}`")
            return nil
        }
        var out: [TransformSpec] = []
        var ok = true
        for (i, item) in items.enumerated() {
            let path = "transforms[\(i)]"
            guard let pairs = item.mapping, pairs.count == 1, let name = pairs[0].key.scalar?.value, !(pairs[0].key.scalar?.isNull ?? true) else {
                mustBe(path, item, "a mapping with one key, the step (\(Text.alternatives(kinds))), such as `- median: {channels: [A], samples: 3}`")
                ok = false
                continue
            }
            guard let kind = TransformSpec.Kind(rawValue: name) else {
                var message = "unknown step `\(Self.shorten(name))` in `\(path)` at \(at(pairs[0].key.mark)); the steps are \(Text.alternatives(kinds))"
                if let s = Self.suggestion(for: name, among: kinds) { message += "; did you mean `\(s)`?" }
                report(pairs[0].key.mark, message)
                ok = false
                continue
            }
            guard var step = decodeStep(kind, pairs[0].value, path: "\(path).\(name)", rateHz: rateHz) else { ok = false; continue }
            step.location = location(item.mark)
            out.append(step)
        }
        return ok ? out : nil
    }

    private func decodeStep(_ kind: TransformSpec.Kind, _ node: YAMLNode, path: String, rateHz: Double?) -> TransformSpec? {
        guard let f = fields(node, path: path, allowed: Self.transformKeys[kind]!) else { return nil }
        var channels: [String]?
        var marks: [SourceLocation] = []
        if let n = required("channels", in: f) {
            channels = stringList(n, f.path("channels"), unique: "channel", allowSingle: true)
            marks = (n.sequence ?? [n]).map { location($0.mark) }
        }
        func order() -> Int? {
            guard let n = f["order"] else { return TransformSpec.defaultOrder }
            return integer(n, f.path("order"), "an integer from 1 to \(TransformSpec.maxOrder)") { (1...TransformSpec.maxOrder).contains($0) }
        }
        func zeroPhase() -> Bool? {
            guard let n = f["zero_phase"] else { return true }
            return bool(n, f.path("zero_phase"))
        }
        /// One frequency in (0, Nyquist).
        func frequency(_ n: YAMLNode, _ p: String) -> Double? {
            guard let d = number(n, p, "a frequency in Hz greater than 0", { $0 > 0 }) else { return nil }
            if let rateHz, d >= rateHz / 2 {
                report(n.mark, "`\(p)` at \(at(n.mark)) must be below the Nyquist frequency, \(Self.format(rateHz / 2)) Hz (half of `resample.rate_hz: \(Self.format(rateHz))`), not \(describe(n)); a filter cannot act at or above it")
                return nil
            }
            return d
        }
        let operation: TransformSpec.Operation?
        switch kind {
        case .median:
            var samples: Int? = 3
            if let n = f["samples"] {
                samples = integer(n, f.path("samples"), "an odd integer from 1 to \(TransformSpec.maxMedianSamples)") {
                    $0 >= 1 && $0 <= TransformSpec.maxMedianSamples && $0 % 2 == 1
                }
            }
            operation = samples.map { .median(samples: $0) }
        case .butterworth:
            var type: TransformSpec.BandType? = .lowpass
            if let n = f["type"] { type = choice(n, f.path("type")) }
            var cutoff: [Double]?
            if let n = required("cutoff_hz", in: f), let type {
                let p = f.path("cutoff_hz")
                if type == .bandpass {
                    if let pair = n.sequence, pair.count == 2 {
                        let lo = frequency(pair[0], "\(p)[0]"), hi = frequency(pair[1], "\(p)[1]")
                        if let lo, let hi {
                            if lo < hi { cutoff = [lo, hi] } else { mustBe(p, n, "two frequencies [low, high] with low below high") }
                        }
                    } else {
                        mustBe(p, n, "two frequencies [low, high] for `type: bandpass`")
                    }
                } else if n.sequence != nil {
                    mustBe(p, n, "one frequency in Hz for `type: \(type.rawValue)` (two, [low, high], only for `type: bandpass`)")
                } else {
                    cutoff = frequency(n, p).map { [$0] }
                }
            }
            let o = order(), z = zeroPhase()
            if let type, let cutoff, let o, let z { operation = .butterworth(type: type, order: o, cutoffHz: cutoff, zeroPhase: z) } else { operation = nil }
        case .gravity:
            var cutoff: Double? = TransformSpec.defaultGravityCutoffHz
            if let n = f["cutoff_hz"] {
                cutoff = frequency(n, f.path("cutoff_hz"))
            } else if let rateHz, cutoff! >= rateHz / 2 {
                report(f.node.mark, "`\(path)` at \(at(f.node.mark)) uses the default `cutoff_hz: \(Self.format(cutoff!))`, which is not below the Nyquist frequency, \(Self.format(rateHz / 2)) Hz; give a lower `cutoff_hz`")
                cutoff = nil
            }
            let o = order(), z = zeroPhase()
            if let cutoff, let o, let z { operation = .gravity(order: o, cutoffHz: cutoff, zeroPhase: z) } else { operation = nil }
        case .derivative:
            operation = .derivative
        case .magnitude:
            if let n = f["name"] {
                operation = string(n, f.path("name")).map { .magnitude(name: $0) }
            } else {
                operation = .magnitude(name: nil)
            }
        case .calibrate:
            func perChannel(_ key: String, _ defaultValue: Double) -> PerSensor<Double>? {
                guard let n = f[key] else { return PerSensor(defaultValue) }
                return perSensor(n, f.path(key), default: defaultValue, expected: "a number") { node, p in
                    self.number(node, p, "a number") { _ in true }
                }
            }
            let scale = perChannel("scale", 1), offset = perChannel("offset", 0)
            if let scale, let offset { operation = .calibrate(scale: scale, offset: offset) } else { operation = nil }
        }
        guard let operation, let channels else { return nil }
        return TransformSpec(operation, channels: channels, channelLocations: marks, location: location(node.mark))
    }
}
