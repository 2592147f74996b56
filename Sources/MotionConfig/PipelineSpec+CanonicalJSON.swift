import MotionCore

extension PipelineSpec {
    /// The parsed pipeline as compact JSON with sorted keys and every default filled in,
    /// leaving out `output.path` (docs/dataset-format.md, "Manifest, checksums and commit": `pipeline.sha256` is the SHA-256 of this text).
    ///
    /// Keys are the pipeline file's snake_case keys; enums are their strings; `resample.method`
    /// and `resample.max_gap_s` are always a mapping (`{"default": …, "Barometer": …}`);
    /// `labels` is null when absent; a window amount is `{"length_s": …}` or
    /// `{"length_samples": …}` as written, with the stride spelled out. Mappings whose order
    /// matters (csv `channels` and `sensor_channels`, which fix the channel order of `x`) are
    /// lists of one-key objects; the others (`units`, `labels.map`, `split.assign`, whose
    /// subject lists are sorted) are objects. A phone-logger preset appears as the csv inputs it
    /// expanded to, each with a `preset` object. Nothing about where the file is (`file`,
    /// `baseDirectory`, positions) is included, so equal pipelines written differently (key
    /// order, flow or block style, defaults spelled out or not) give equal text.
    public func canonicalJSON() -> String {
        canonicalValue().compact()
    }

    /// The value `canonicalJSON()` serializes: the fully resolved pipeline, embedded in the
    /// manifest as `pipeline.resolved`.
    public func canonicalValue() -> JSONValue {
        var o = canonicalObject()
        // Only when present, so that the hash of a pipeline without transforms is as before.
        if !transforms.isEmpty { o["transforms"] = .array(transforms.map { $0.canonicalValue() }) }
        // `output.deflate_level` likewise: only when the pipeline sets it.
        if let level = output.deflateLevelSetting, case .object(var out)? = o["output"] {
            out["deflate_level"] = .int(level)
            o["output"] = .object(out)
        }
        // `output.partitioned` only when true, likewise.
        if output.partitioned, case .object(var out)? = o["output"] {
            out["partitioned"] = .bool(true)
            o["output"] = .object(out)
        }
        // `antialias_from` only when it is `leading` and the filter runs: a resolved pipeline
        // without it is `recording` (written before the key existed), so old datasets keep their
        // hash and `apply` reproduces them.
        if resample.antialiasFromLeading, case .object(var r)? = o["resample"] {
            r["antialias_from"] = .string(ResampleSpec.AntialiasFrom.leading.rawValue)
            o["resample"] = .object(r)
        }
        // `labels.per_sample` only when true, likewise.
        if labels?.perSample == true, case .object(var l)? = o["labels"] {
            l["per_sample"] = .bool(true)
            o["labels"] = .object(l)
        }
        // `qa` only when present, likewise.
        if let qa { o["qa"] = qa.canonicalValue() }
        // Only when set, so that the hash of a pipeline without it is as before.
        if let stratify = split.stratify, case .object(var split) = o["split"] {
            split["stratify"] = .string(stratify.rawValue)
            o["split"] = .object(split)
        }
        return .object(o)
    }

    private func canonicalObject() -> [String: JSONValue] {
        [
            "version": .int(version),
            "name": .string(name),
            "inputs": .array(inputs.map { $0.canonicalValue() }),
            "units": .string(units.rawValue),
            "resample": .object([
                "rate_hz": .double(resample.rateHz),
                "method": Self.perSensor(resample.method) { .string($0.rawValue) },
                "max_gap_s": Self.perSensor(resample.maxGapS) { .double($0) },
                "antialias": .bool(resample.antialias),
            ]),
            "window": .object(Dictionary([
                Self.amount(window.length, "length"),
                Self.amount(window.stride, "stride"),
            ], uniquingKeysWith: { a, _ in a })),
            "labels": labels.map { l in
                .object([
                    "from": .string(l.from.rawValue),
                    "policy": .string(l.policy.rawValue),
                    "min_fraction": .double(l.minFraction),
                    "path": l.path.map(JSONValue.string) ?? .null,
                    "clock": .string(l.clock.rawValue),
                    "template": l.template.map(JSONValue.string) ?? .null,
                    "map": Self.object(l.map) { .string($0) },
                    "classes": .array(l.classes.map(JSONValue.string)),
                ])
            } ?? .null,
            "features": .array(features.map(JSONValue.string)),
            "magnitude": .array(magnitude.map(JSONValue.string)),
            "split": .object([
                "by": .string(split.by.rawValue),
                "seed": .int(Int64(clamping: split.seed)),
                "fractions": .object([
                    "train": .double(split.train),
                    "validation": .double(split.validation),
                    "test": .double(split.test),
                ]),
                "assign": Self.object(split.assign) { .array($0.sorted(by: Text.utf8Less).map(JSONValue.string)) },
                "folds": split.folds.map { .int($0) } ?? .null,
                "allocation": .string(split.allocation.rawValue),
                "leave_one_out": .bool(split.leaveOneOut),
            ]),
            "on_error": .string(onError.rawValue),
            "output": .object([
                "type": .string(output.type.rawValue),
                "windows_per_shard": .int(output.windowsPerShard),
                "compression_level": .int(output.compressionLevel),
                "compression": .string(output.compression.rawValue),
            ]),
        ]
    }

    static func perSensor<V>(_ p: PerSensor<V>, _ encode: (V) -> JSONValue) -> JSONValue {
        var o: [String: JSONValue] = ["default": encode(p.defaultValue)]
        for kv in p.overrides { o[kv.key] = encode(kv.value) }
        return .object(o)
    }

    /// `("length_s", 2.56)` or `("length_samples", 128)`.
    static func amount(_ a: WindowSpec.Amount, _ name: String) -> (String, JSONValue) {
        switch a {
        case .seconds(let s): return ("\(name)_s", .double(s))
        case .samples(let n): return ("\(name)_samples", .int(n))
        }
    }

    static func object<V>(_ pairs: [KeyValue<V>], _ encode: (V) -> JSONValue) -> JSONValue {
        var o: [String: JSONValue] = [:]
        for kv in pairs { o[kv.key] = encode(kv.value) }
        return .object(o)
    }

    /// An ordered mapping as a list of one-key objects.
    static func orderedPairs<V>(_ pairs: [KeyValue<V>], _ encode: (V) -> JSONValue) -> JSONValue {
        .array(pairs.map { .object([$0.key: encode($0.value)]) })
    }
}

extension InputSpec {
    func canonicalValue() -> JSONValue {
        var o: [String: JSONValue] = [
            "type": .string(type.rawValue),
            "paths": .array(paths.map(JSONValue.string)),
            "subject": .string(subject),
            "recording": recording.map(JSONValue.string) ?? .null,
            "sensors": sensors.map { .array($0.map(JSONValue.string)) } ?? .null,
            "sort": .bool(sort),
            "strict": .bool(strict),
            "units": PipelineSpec.object(units) { .string($0) },
        ]
        if type != .motioncollector {
            o["sensor"] = sensor.map(JSONValue.string) ?? .null
        }
        if let zone = wallClockZone { o["time"] = .object(["zone": .string(zone.name)]) }
        if let csv {
            o["delimiter"] = .string(String(UnicodeScalar(csv.delimiter)))
            // `skip_lines`, `time.format` and `time.zone` appear only when set, so that the hash of a pipeline written before they
            // existed does not change (docs/pipeline.md, "Inputs").
            var time: [String: JSONValue] = ["column": .string(csv.timeColumn), "unit": .string(csv.timeUnit.rawValue)]
            if let format = csv.timeFormat { time["format"] = .string(format) }
            if let zone = csv.timeZone { time["zone"] = .string(zone.name) }
            o["time"] = .object(time)
            if csv.skipLines != 0 { o["skip_lines"] = .int(csv.skipLines) }
            o["label_column"] = csv.labelColumn.map(JSONValue.string) ?? .null
            o["sensor_column"] = csv.sensorColumn.map(JSONValue.string) ?? .null
            if csv.sensorColumn == nil {
                o["channels"] = PipelineSpec.orderedPairs(csv.channels) { .string($0) }
            } else {
                o["sensor_channels"] = PipelineSpec.orderedPairs(csv.sensorChannels) {
                    PipelineSpec.orderedPairs($0) { .string($0) }
                }
            }
        }
        if let preset {
            // What a phone-logger preset was expanded from (docs/inputs.md, "Phone-logger presets");
            // the rest of this object is the plain csv input it stands for.
            o["preset"] = .object([
                "type": .string(preset.app.rawValue),
                "input": .int(preset.entry),
                "sensor": preset.sensor.map(JSONValue.string) ?? .null,
                "paths": .array(preset.paths.map(JSONValue.string)),
            ])
        }
        if let iio {
            if let folder = iio.layoutFolder {
                o["layout"] = .string(folder)
            } else {
                o["layout"] = .object([
                    "channels": .array(iio.channels.map { c in
                        .object([
                            "name": .string(c.name),
                            "index": .int(c.index),
                            "type": .string(c.type),
                            "scale": c.scale.map(JSONValue.double) ?? .null,
                            "offset": c.offset.map(JSONValue.double) ?? .null,
                        ])
                    }),
                    "timestamp": iio.timestampIndex.map { index in
                        .object(["index": .int(index), "type": iio.timestampType.map(JSONValue.string) ?? .null])
                    } ?? .null,
                    "sampling_frequency_hz": iio.samplingFrequencyHz.map(JSONValue.double) ?? .null,
                ])
            }
        }
        return .object(o)
    }
}

extension TransformSpec {
    /// `{"butterworth": {"channels": […], "type": "lowpass", "order": 3, "cutoff_hz": 20, "zero_phase": true}}`:
    /// the step as it is written in a pipeline file, every default filled in (a band-pass
    /// `cutoff_hz` is `[low, high]`), so that it decodes back to the same step.
    func canonicalValue() -> JSONValue {
        var o: [String: JSONValue] = ["channels": .array(channels.map(JSONValue.string))]
        switch operation {
        case .median(let samples):
            o["samples"] = .int(samples)
        case .butterworth(let type, let order, let cutoff, let zeroPhase):
            o["type"] = .string(type.rawValue)
            o["order"] = .int(order)
            o["cutoff_hz"] = cutoff.count == 1 ? .double(cutoff[0]) : .array(cutoff.map(JSONValue.double))
            o["zero_phase"] = .bool(zeroPhase)
        case .gravity(let order, let cutoff, let zeroPhase):
            o["order"] = .int(order)
            o["cutoff_hz"] = .double(cutoff)
            o["zero_phase"] = .bool(zeroPhase)
        case .derivative:
            break
        case .magnitude(let name):
            // Only when given: its absence is the per-group form.
            if let name { o["name"] = .string(name) }
        case .calibrate(let scale, let offset):
            o["scale"] = PipelineSpec.perSensor(scale) { .double($0) }
            o["offset"] = PipelineSpec.perSensor(offset) { .double($0) }
        }
        return .object([kind.rawValue: .object(o)])
    }
}
