import MotionCore
import MotionYAML

extension SpecDecoder {
    /// The longest window accepted, in samples (a resource limit: one window of 10⁷ samples
    /// of a few channels is already hundreds of MB per batch).
    static let maxWindowSamples = 10_000_000
    /// The highest `rate_hz` accepted.
    static let maxRateHz = 1e6
    /// The lowest `rate_hz` accepted: the smallest normal float64 whose period 1 / rate is
    /// finite (below it 1 / rate overflows to infinity, or the rate itself is subnormal).
    static let minRateHz = Double.leastNormalMagnitude

    /// Feature names docs/signal.md, "Features" defines, in its order.
    static let featureCatalogue = ["mean", "std", "var", "min", "max", "range", "median", "iqr", "rms", "mad",
                                   "skew", "kurtosis", "zero_crossings", "energy", "dominant_freq_hz",
                                   "spectral_entropy", "spectral_centroid_hz", "corr"]

    /// A number for a message: `50` rather than `50.0`.
    static func format(_ d: Double) -> String {
        if d == d.rounded(), abs(d) < 1e15 { return String(Int(d)) }
        return "\(d)"
    }

    // MARK: - resample

    func decodeResample(_ node: YAMLNode) -> ResampleSpec? {
        guard let f = fields(node, path: "resample", allowed: ["rate_hz", "method", "max_gap_s", "antialias", "antialias_from"]) else { return nil }
        var rate: Double?
        if let n = required("rate_hz", in: f) {
            rate = number(n, "resample.rate_hz", "a number greater than 0") { $0 > 0 }
            if let r = rate, r > Self.maxRateHz {
                mustBe("resample.rate_hz", n, "at most \(Self.format(Self.maxRateHz))")
                rate = nil
            } else if let r = rate, !(1 / r).isNormal || !(1 / r).isFinite || !r.isNormal {
                // A rate so small that its period (1 / rate) is not a finite float64, or the rate
                // itself is subnormal: no grid time t0 + k / rate can be computed.
                mustBe("resample.rate_hz", n, "a number whose period 1 / rate_hz is finite (at least \(Self.minRateHz) Hz)")
                rate = nil
            }
        }
        var method: PerSensor<ResampleSpec.Method>? = PerSensor(.linear)
        if let n = f["method"] {
            let names = Text.alternatives(ResampleSpec.Method.allCases.map(\.rawValue))
            method = perSensor(n, "resample.method", default: .linear, expected: names) { node, path in
                self.choice(node, path)
            }
        }
        var maxGap: PerSensor<Double>? = PerSensor(0.25)
        if let n = f["max_gap_s"] {
            maxGap = perSensor(n, "resample.max_gap_s", default: 0.25, expected: "a number greater than 0") { node, path in
                self.number(node, path, "a number greater than 0") { $0 > 0 }
            }
        }
        var antialias: Bool? = true
        if let n = f["antialias"] { antialias = bool(n, "resample.antialias") }
        // A resolved pipeline that anti-aliases without the key is one written before
        // `antialias_from` existed: its datasets were made from the whole recording's median
        // (docs/pipeline.md). Without `antialias` the choice has no effect and is `leading`, so
        // that a pipeline and its resolved form decode equal.
        var from: ResampleSpec.AntialiasFrom? = resolved && antialias == true ? .recording : .leading
        if let n = f["antialias_from"] { from = choice(n, "resample.antialias_from") }
        if antialias == false, from != nil { from = .leading }
        guard let rate, let method, let maxGap, let antialias, let from else { return nil }
        return ResampleSpec(rateHz: rate, method: method, maxGapS: maxGap, antialias: antialias, antialiasFrom: from)
    }

    /// A setting given once (`linear`) or per sensor (`{default: linear, Barometer: previous}`);
    /// a mapping without `default` keeps `defaultValue` for the other sensors.
    func perSensor<V>(_ node: YAMLNode, _ path: String, default defaultValue: V, expected: String,
                      _ decode: (YAMLNode, String) -> V?) -> PerSensor<V>? {
        if node.scalar != nil { return decode(node, path).map { PerSensor($0) } }
        guard let pairs = node.mapping else {
            mustBe(path, node, "\(expected), or a mapping from sensor names to such values")
            return nil
        }
        var result = PerSensor(defaultValue)
        var ok = true
        for pair in pairs {
            guard let key = mapKey(pair, in: path), let value = decode(pair.value, "\(path).\(key)") else {
                ok = false
                continue
            }
            if key == "default" { result.defaultValue = value } else { result.overrides.append(KeyValue(key, value)) }
        }
        return ok ? result : nil
    }

    // MARK: - window

    func decodeWindow(_ node: YAMLNode, rateHz: Double?) -> WindowSpec? {
        guard let f = fields(node, path: "window", allowed: ["length_s", "length_samples", "stride_s", "stride_samples"]) else { return nil }
        let length = amount("length", in: f, rateHz: rateHz)
        let stride = amount("stride", in: f, rateHz: rateHz)
        if case .absent = length { missing("length_s` or `length_samples", in: f) }
        switch (length, stride) {
        case (.value(let l), .value(let s)): return WindowSpec(length: l, stride: s)
        case (.value(let l), .absent): return WindowSpec(length: l, stride: l)
        default: return nil
        }
    }

    enum AmountResult {
        case absent, invalid, value(WindowSpec.Amount)
    }

    /// `{name}_s` or `{name}_samples` (at most one), checked to be at least one sample and at
    /// most `maxWindowSamples` at `rateHz` (when the rate itself is valid).
    func amount(_ name: String, in f: Fields, rateHz: Double?) -> AmountResult {
        let secondsKey = "\(name)_s", samplesKey = "\(name)_samples"
        if let sk = f.keyNode(secondsKey), let nk = f.keyNode(samplesKey) {
            let later = max(sk.mark, nk.mark)
            report(later, "both `window.\(secondsKey)` and `window.\(samplesKey)` are given in `window` at \(at(later)); give only one")
            return .invalid
        }
        let limit = Self.maxWindowSamples
        if let n = f[secondsKey] {
            let path = "window.\(secondsKey)"
            guard let s = number(n, path, "a number of seconds greater than 0", { $0 > 0 }) else { return .invalid }
            if let rateHz {
                let exact = s * rateHz + 0.5
                if exact < 1 {
                    mustBe(path, n, "at least 1 sample at \(Self.format(rateHz)) Hz (\(0.5 / rateHz) s or more)")
                    return .invalid
                }
                if exact >= Double(limit + 1) {
                    mustBe(path, n, "at most \(limit) samples at \(Self.format(rateHz)) Hz "
                           + "(\(Self.format(Double(limit) / rateHz)) s, a resource limit)")
                    return .invalid
                }
            }
            return .value(.seconds(s))
        }
        if let n = f[samplesKey] {
            let path = "window.\(samplesKey)"
            guard let k = integer(n, path, "a whole number of samples, at least 1", { $0 >= 1 }) else { return .invalid }
            if k > limit {
                mustBe(path, n, "at most \(limit) samples (a resource limit)")
                return .invalid
            }
            return .value(.samples(k))
        }
        return .absent
    }

    // MARK: - labels

    func decodeLabels(_ node: YAMLNode) -> LabelsSpec? {
        guard let f = fields(node, path: "labels", allowed: ["from", "policy", "min_fraction", "path", "clock", "template", "map", "classes",
                                                              "per_sample"]) else { return nil }
        var ok = true
        var from: LabelsSpec.Source? = .rows
        if let n = f["from"] { from = choice(n, "labels.from") }
        var policy: LabelsSpec.Policy? = .majority
        if let n = f["policy"] { policy = choice(n, "labels.policy") }
        var minFraction = 0.5
        if let n = f["min_fraction"] {
            if let policy, policy != .majority, !resolved {
                notApplicable("min_fraction", in: f, "applies only to `policy: majority`, not `policy: \(policy.rawValue)`")
                ok = false
            } else if let v = number(n, "labels.min_fraction", "a number from 0 to 1", { (0...1).contains($0) }) {
                minFraction = v
            } else {
                ok = false
            }
        }
        var path: String?
        if from == .intervals {
            if let n = f["path"] {
                path = string(n, "labels.path")
                ok = ok && path != nil
            } else {
                missing("path", in: f, note: " (the intervals file `from: intervals` reads)")
                ok = false
            }
        } else if let from, f.has("path") {
            notApplicable("path", in: f, "applies only to `from: intervals`"
                          + (from == .path ? " (`from: path` names recordings' labels with `template`, e.g. `template: \"{dir}\"`)" : ""))
            ok = false
        }
        var clock = LabelsSpec.Clock.input
        if let n = f["clock"] {
            if from == .intervals {
                if let c: LabelsSpec.Clock = choice(n, "labels.clock") { clock = c } else { ok = false }
            } else if from != nil && !(resolved && n.scalar?.value == LabelsSpec.Clock.input.rawValue) {
                notApplicable("clock", in: f, "applies only to `from: intervals` (the other sources' times are the input's own)")
                ok = false
            }
        }
        var template: String?
        if from == .path {
            if let n = f["template"] {
                template = self.template(n, "labels.template")
                ok = ok && template != nil
            } else {
                missing("template", in: f, note: " (the path template, such as `\"{dir}\"`, whose value labels each recording with `from: path`)")
                ok = false
            }
        } else if from != nil, f.has("template") {
            notApplicable("template", in: f, "applies only to `from: path`")
            ok = false
        }
        var map: [KeyValue<String>] = []
        if let n = f["map"] {
            if let m = stringMap(n, "labels.map", nonEmpty: false) { map = m } else { ok = false }
        }
        var classes: [String] = []
        if let n = f["classes"] {
            if let c = stringList(n, "labels.classes", unique: "class") { classes = c } else { ok = false }
        } else if let n = f["map"] {
            var unique: [String] = []
            for v in map.map(\.value) where !unique.contains(v) { unique.append(v) }
            classes = unique.sorted(by: Text.utf8Less)
            if classes.isEmpty, n.mapping?.isEmpty == true {
                mustBe("labels.map", n, "a non-empty mapping when `classes` is not given")
                ok = false
            }
        } else {
            missing("classes` or `map", in: f, note: "; `classes` lists the class names in order")
            ok = false
        }
        var perSample = false
        if let n = f["per_sample"] {
            if let v = bool(n, "labels.per_sample") { perSample = v } else { ok = false }
        }
        guard ok, let from, let policy else { return nil }
        var spec = LabelsSpec(from: from, policy: policy, minFraction: minFraction, path: path, clock: clock, template: template,
                              map: map, classes: classes)
        spec.location = location(node.mark)
        spec.perSample = perSample
        return spec
    }

    // MARK: - features

    func decodeFeatures(_ node: YAMLNode) -> [String]? {
        guard let items = node.sequence else { mustBe("features", node, "a list of feature names"); return nil }
        var out: [String] = []
        var first: [String: YAMLMark] = [:]
        var ok = true
        for (i, item) in items.enumerated() {
            guard let name = string(item, "features[\(i)]") else { ok = false; continue }
            guard Self.featureCatalogue.contains(name) else {
                var message = "unknown feature `\(Self.shorten(name))` in `features` at \(at(item.mark))"
                if let s = Self.suggestion(for: name, among: Self.featureCatalogue) {
                    message += "; did you mean `\(s)`?"
                } else {
                    message += "; the features are \(Text.alternatives(Self.featureCatalogue))"
                }
                report(item.mark, message)
                ok = false
                continue
            }
            if let earlier = first[name] {
                report(item.mark, "duplicate feature `\(name)` in `features` at \(at(item.mark)); it is already listed at \(earlier)")
                ok = false
                continue
            }
            first[name] = item.mark
            out.append(name)
        }
        return ok ? out : nil
    }

    // MARK: - output

    func decodeOutput(_ node: YAMLNode) -> OutputSpec? {
        guard let f = fields(node, path: "output", allowed: ["type", "path", "windows_per_shard", "compression_level", "compression",
                                                             "deflate_level", "partitioned"]) else { return nil }
        var ok = true
        var type: OutputSpec.OutputType? = .hdf5
        if let n = f["type"] { type = choice(n, "output.type") }
        var path: String?
        if resolved {
            path = ""  // the canonical form leaves `output.path` out
        } else if let n = required("path", in: f) {
            path = string(n, "output.path")
        }
        var perShard = 8192
        var level = 3
        // `windows_per_shard` and `compression_level` matter only for shards; with `type: hdf5`
        // they are still checked but have no effect (the original contract's own example sets one there).
        if let n = f["windows_per_shard"] {
            if let v = integer(n, "output.windows_per_shard", "a whole number of at least 1", { $0 >= 1 }) { perShard = v } else { ok = false }
        }
        if let n = f["compression_level"] {
            if let v = integer(n, "output.compression_level", "a whole number from 1 to 19", { (1...19).contains($0) }) { level = v } else { ok = false }
        }
        var compression: OutputSpec.Compression = .zstd
        if let n = f["compression"] {
            if let c: OutputSpec.Compression = choice(n, "output.compression") { compression = c } else { ok = false }
        }
        // `deflate_level` (hdf5 only): new, so unlike `compression_level` it is refused where it
        // would have no effect, and absent from the resolved pipeline unless set.
        var deflate: Int?
        if let n = f["deflate_level"] {
            if let v = integer(n, "output.deflate_level", "a whole number from 1 to 9", { (1...9).contains($0) }) {
                if type == .shards {
                    report(n.mark, "`output.deflate_level` is the HDF5 deflate level, and this output is `type: shards`; shards are compressed with zstd at `compression_level`")
                    ok = false
                } else if type == .createml {
                    report(n.mark, "`output.deflate_level` is the HDF5 deflate level, and this output is `type: createml`, whose CSV files are not compressed")
                    ok = false
                } else {
                    deflate = v
                }
            } else { ok = false }
        }
        var partitioned = false
        if let n = f["partitioned"] {
            if let v = bool(n, "output.partitioned") { partitioned = v } else { ok = false }
            if partitioned && type == .createml {
                // Create ML folders are refused with `--worker` too (docs/dataset-format.md, "Create ML folders").
                report(n.mark, "`output.partitioned` writes each `--worker` part's split files for `merge` to move, and this output is `type: createml`, which is written by one `run` (without `--worker`); remove `partitioned` or write `type: hdf5` or `shards`")
                ok = false
            }
        }
        guard ok, let type, let path else { return nil }
        return OutputSpec(type: type, path: path, windowsPerShard: perShard, compressionLevel: level, compression: compression,
                          deflateLevel: deflate, partitioned: partitioned)
    }
}
