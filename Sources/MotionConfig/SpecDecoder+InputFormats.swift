import MotionCore
import MotionYAML
import MotionIngest

extension SpecDecoder {
    // MARK: - csv

    func decodeCSV(_ f: Fields) -> CSVOptions? {
        let path = f.path
        var ok = true
        var options = CSVOptions(timeColumn: "")
        if let n = f["skip_lines"] {
            if let k = integer(n, "\(path).skip_lines", "a whole number of at least 0", { $0 >= 0 && $0 <= 1_000_000 }) {
                options.skipLines = k
            } else {
                ok = false
            }
        }
        if let n = f["delimiter"] {
            // The canonical form always writes the delimiter, so it cannot say whether the
            // pipeline file gave it: a resolved `,` (the default) lets a file's `sep=` line
            // choose, as a pipeline without `delimiter` does (docs/inputs.md, "Delimited text (csv)").
            options.delimiterGiven = !(resolved && n.scalar?.value == ",")
            switch n.scalar?.value {
            case ",": options.delimiter = UInt8(ascii: ",")
            case ";": options.delimiter = UInt8(ascii: ";")
            case "\t": options.delimiter = UInt8(ascii: "\t")
            default:
                mustBe("\(path).delimiter", n, "`,`, `;` or `\"\\t\"` (a tab)")
                ok = false
            }
        }
        if let n = f["time"] {
            if let tf = fields(n, path: "\(path).time", allowed: ["column", "unit", "format", "zone"]) {
                if let c = tf["column"] {
                    if let column = string(c, "\(path).time.column") { options.timeColumn = column } else { ok = false }
                } else {
                    missing("column", in: tf)
                    ok = false
                }
                if let u = tf["unit"] {
                    if let unit: CSVOptions.TimeUnit = choice(u, "\(path).time.unit") { options.timeUnit = unit } else { ok = false }
                }
                if let fm = tf["format"] {
                    if tf.has("unit") && !resolved {
                        notApplicable("format", in: tf, "does not apply with `unit`; a `format` says how to read the time on its own")
                        ok = false
                    } else if let pattern = string(fm, "\(path).time.format") {
                        do throws(CSVTimeFormat.Invalid) {
                            _ = try CSVTimeFormat(pattern: pattern)
                            options.timeFormat = pattern
                        } catch {
                            report(fm.mark, "`\(path).time.format` at \(at(fm.mark)) \(error.reason) (expected a pattern of \(Text.alternatives(CSVTimeFormat.directives)) "
                                + "and literal characters, with `%Y`, `%m`, `%d`, `%H`, `%M` and `%S` once each, such as `%Y-%m-%d %H:%M:%S:%f`)")
                            ok = false
                        }
                    } else {
                        ok = false
                    }
                }
                if let z = tf["zone"] {
                    // docs/inputs.md, "Local wall time": for times written as a local clock shows them.
                    if options.timeFormat?.contains("%z") == true {
                        notApplicable("zone", in: tf, "does not apply with a `format` that reads each time's zone (`%z`)")
                        ok = false
                    } else if options.timeFormat == nil && options.timeUnit != .iso8601 {
                        notApplicable("zone", in: tf, "applies to wall-clock times (`unit: iso8601` or a `format`); a time in `unit: \(options.timeUnit.rawValue)` counts from the Unix epoch, the same instant in every zone")
                        ok = false
                    } else if let zone = wallClockZone(z, "\(path).time.zone") {
                        options.timeZone = zone
                    } else {
                        ok = false
                    }
                }
            } else {
                ok = false
            }
        } else {
            missing("time", in: f, note: " (the time column of a csv input)")
            ok = false
        }
        if let n = f["label_column"] {
            if let s = string(n, "\(path).label_column") { options.labelColumn = s } else { ok = false }
        }
        if let n = f["sensor_column"] {
            if let s = string(n, "\(path).sensor_column") { options.sensorColumn = s } else { ok = false }
        }
        if f.has("sensor_column") {
            // Long format: channels per sensor.
            if f.has("channels") {
                notApplicable("channels", in: f, "does not apply with `sensor_column`; give the channels of each sensor in `sensor_channels`")
                ok = false
            }
            if let n = f["sensor_channels"] {
                if let sc = decodeSensorChannels(n, "\(path).sensor_channels") { options.sensorChannels = sc } else { ok = false }
            } else {
                missing("sensor_channels", in: f, note: " (needed with `sensor_column`)")
                ok = false
            }
        } else {
            // Wide format: one set of channels.
            if f.has("sensor_channels") {
                notApplicable("sensor_channels", in: f, "needs `sensor_column` (long format); a wide file uses `channels`")
                ok = false
            }
            if let n = f["channels"] {
                if let c = stringMap(n, "\(path).channels") { options.channels = c } else { ok = false }
            } else if !f.has("sensor_channels") {
                missing("channels", in: f, note: " (output channel name → csv column)")
                ok = false
            }
        }
        return ok ? options : nil
    }

    func decodeSensorChannels(_ node: YAMLNode, _ path: String) -> [KeyValue<[KeyValue<String>]>]? {
        guard let pairs = orderedPairs(node), !pairs.isEmpty else {
            mustBe(path, node, "a non-empty mapping of sensor names to channel mappings")
            return nil
        }
        var out: [KeyValue<[KeyValue<String>]>] = []
        var ok = true
        for pair in pairs {
            guard let sensor = mapKey(pair, in: path), let channels = stringMap(pair.value, "\(path).\(sensor)") else {
                ok = false
                continue
            }
            out.append(KeyValue(sensor, channels))
        }
        return ok ? out : nil
    }

    // MARK: - iio

    func decodeIIO(_ f: Fields) -> IIOOptions? {
        let path = "\(f.path).layout"
        guard let n = f["layout"] else {
            missing("layout", in: f, note: " (a sysfs folder template or an inline channel layout)")
            return nil
        }
        if n.scalar != nil {
            return template(n, path).map { IIOOptions(layoutFolder: $0) }
        }
        guard n.mapping != nil else {
            mustBe(path, n, "a folder template or a mapping with `channels`")
            return nil
        }
        guard let lf = fields(n, path: path, allowed: ["channels", "timestamp", "sampling_frequency_hz"]) else { return nil }
        var ok = true
        var options = IIOOptions(location: location(n.mark))
        if let c = required("channels", in: lf) {
            if let items = c.sequence, !items.isEmpty {
                for (i, item) in items.enumerated() {
                    if let channel = decodeIIOChannel(item, "\(path).channels[\(i)]") { options.channels.append(channel) } else { ok = false }
                }
            } else {
                mustBe("\(path).channels", c, "a non-empty list of channels (`{name, index, type}`)")
                ok = false
            }
        } else {
            ok = false
        }
        if let t = lf["timestamp"] {
            if let tf = fields(t, path: "\(path).timestamp", allowed: ["index", "type"]) {
                if let i = required("index", in: tf) {
                    options.timestampIndex = integer(i, "\(path).timestamp.index", "a whole number of at least 0") { $0 >= 0 }
                    options.timestampIndexLocation = location(i.mark)
                    ok = ok && options.timestampIndex != nil
                } else {
                    ok = false
                }
                if let ty = required("type", in: tf) {
                    options.timestampType = string(ty, "\(path).timestamp.type")
                    options.timestampTypeLocation = location(ty.mark)
                    ok = ok && options.timestampType != nil
                } else {
                    ok = false
                }
            } else {
                ok = false
            }
        }
        if let s = lf["sampling_frequency_hz"] {
            options.samplingFrequencyHz = number(s, "\(path).sampling_frequency_hz", "a number greater than 0") { $0 > 0 }
            ok = ok && options.samplingFrequencyHz != nil
        }
        return ok ? options : nil
    }

    func decodeIIOChannel(_ node: YAMLNode, _ path: String) -> IIOOptions.Channel? {
        guard let f = fields(node, path: path, allowed: ["name", "index", "type", "scale", "offset"]) else { return nil }
        let name = required("name", in: f).flatMap { string($0, "\(path).name") }
        let indexNode = required("index", in: f)
        let index = indexNode.flatMap { integer($0, "\(path).index", "a whole number of at least 0") { $0 >= 0 } }
        let typeNode = required("type", in: f)
        let type = typeNode.flatMap { string($0, "\(path).type") }
        var ok = true
        var scale: Double?
        if let n = f["scale"] {
            scale = number(n, "\(path).scale", "a number") { _ in true }
            ok = scale != nil
        }
        var offset: Double?
        if let n = f["offset"] {
            offset = number(n, "\(path).offset", "a number") { _ in true }
            ok = ok && offset != nil
        }
        guard ok, let name, let index, let type else { return nil }
        return IIOOptions.Channel(name: name, index: index, type: type, scale: scale, offset: offset,
                                  indexLocation: indexNode.map { location($0.mark) }, typeLocation: typeNode.map { location($0.mark) })
    }
}
