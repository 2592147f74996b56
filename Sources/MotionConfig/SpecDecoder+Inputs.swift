import MotionCore
import MotionYAML
import MotionIngest

extension SpecDecoder {
    static let commonInputKeys = ["type", "paths", "subject", "recording", "sensors", "sort", "strict", "sensor", "units"]
    static let csvKeys = ["delimiter", "skip_lines", "time", "channels", "label_column", "sensor_column", "sensor_channels"]
    static let iioKeys = ["layout"]

    func decodeInputs(_ node: YAMLNode) -> [InputSpec]? {
        guard let items = node.sequence, !items.isEmpty else {
            mustBe("inputs", node, "a non-empty list of input entries")
            return nil
        }
        var out: [InputSpec] = []
        var ok = true
        for (i, item) in items.enumerated() {
            // A phone-logger preset expands into csv inputs (docs/inputs.md, "Phone-logger presets").
            if let name = item.mapping?.first(where: { $0.key.scalar?.value == "type" })?.value.scalar?.value,
               let app = PhoneApp(rawValue: name) {
                if let inputs = decodePreset(item, app: app, index: i) { out += inputs } else { ok = false }
                continue
            }
            if let input = decodeInput(item, index: i) { out.append(input) } else { ok = false }
        }
        return ok ? out : nil
    }

    /// Every `type` an input entry may have: the formats, then the presets.
    enum InputTypeName: String, CaseIterable {
        case motioncollector, csv, iio, cwa, gt3x, sensorlogger, phyphox, androsensor
    }

    func decodeInput(_ node: YAMLNode, index: Int) -> InputSpec? {
        let path = "inputs[\(index)]"
        // A resolved pipeline (a dataset's manifest) records what a phone-logger preset expanded
        // each csv input from, as `preset`.
        guard let f = fields(node, path: path, allowed: Self.commonInputKeys + Self.csvKeys + Self.iioKeys + (resolved ? ["preset"] : [])) else { return nil }
        var ok = true
        func check<T>(_ value: T?) -> T? {
            if value == nil { ok = false }
            return value
        }

        var type: InputSpec.InputType?
        if let n = f["type"] {
            // A bad type lists the presets too; a preset never gets here.
            type = check(choice(n, "\(path).type", InputTypeName.self).flatMap { InputSpec.InputType(rawValue: $0.rawValue) })
        } else {
            missing("type", in: f)
            ok = false
        }
        var paths: [String] = []
        if let n = required("paths", in: f) {
            paths = check(stringList(n, "\(path).paths", unique: nil, allowSingle: true)) ?? []
        } else {
            ok = false
        }
        var spec = InputSpec(type: type ?? .motioncollector, paths: paths, location: location(node.mark))
        if let n = f["subject"] { spec.subject = check(template(n, "\(path).subject")) ?? "" }
        if let n = f["recording"] { spec.recording = check(template(n, "\(path).recording")) }
        if let n = f["sensors"] { spec.sensors = check(stringList(n, "\(path).sensors", unique: "sensor")) }
        if let n = f["sort"] { spec.sort = check(bool(n, "\(path).sort")) ?? false }
        if let n = f["strict"] { spec.strict = check(bool(n, "\(path).strict")) ?? false }
        if resolved, let n = f["preset"] { spec.preset = check(decodeResolvedPreset(n, "\(path).preset")) }
        if let n = f["units"], let units = check(decodeUnits(n, "\(path).units")) {
            spec.units = units.map(\.entry)
            spec.unitLocations = units.map(\.location)
        }

        // Keys that belong to one input type; with an unknown type they are only checked for shape.
        if let type {
            let device = type == .cwa || type == .gt3x
            if device, let n = f["time"] {
                // A CWA or GT3X file's clock is the device's, often local time: only `zone` applies
                // (docs/inputs.md, "Local wall time").
                if let tf = fields(n, path: "\(path).time", allowed: ["zone"]), let z = tf["zone"],
                   let zone = wallClockZone(z, "\(path).time.zone") {
                    spec.wallClockZone = zone
                } else {
                    ok = false
                }
            }
            if type != .csv {
                for key in Self.csvKeys where f.has(key) && !(device && key == "time") {
                    notApplicable(key, in: f, "applies only to `type: csv`")
                    ok = false
                }
            }
            if type != .iio {
                for key in Self.iioKeys where f.has(key) {
                    notApplicable(key, in: f, "applies only to `type: iio`")
                    ok = false
                }
            }
            if type == .motioncollector || device, f.has("sensor") {
                notApplicable("sensor", in: f, "applies only to `type: csv` or `type: iio`")
                ok = false
            } else if device, f.has("units"), f["units"]?.mapping?.isEmpty != true {
                // `units: {}` says nothing, and is what a resolved pipeline writes for every
                // input (a dataset's `pipeline.resolved`, read again by `apply` and `live-vectors`).
                notApplicable("units", in: f, "does not apply to `type: \(type.rawValue)` (the format's units are fixed: g\(type == .cwa ? " and deg/s" : ""), converted by the top-level `units`)")
                ok = false
            } else if type == .csv, f.has("sensor"), f.has("sensor_column") {
                notApplicable("sensor", in: f, "does not apply with `sensor_column` (long format names streams by that column)")
                ok = false
            } else if let n = f["sensor"] {
                spec.sensor = check(string(n, "\(path).sensor"))
            }
            if type != .cwa {
                for key in ["subject", "recording", "layout"] {
                    guard let n = f[key], let t = n.scalar?.value else { continue }
                    if type == .gt3x && key != "layout" {
                        if t.contains("{session_id}") {
                            report(n.mark, "`\(path).\(key)` at \(at(n.mark)) uses `{session_id}`, which only `type: cwa` inputs have (a GT3X file has `{device_id}`, its serial number)")
                            ok = false
                        }
                    } else if t.contains("{device_id}") || t.contains("{session_id}") {
                        report(n.mark, "`\(path).\(key)` at \(at(n.mark)) uses `{device_id}` or `{session_id}`, which only `type: cwa` inputs have (they are read from each file's header; `type: gt3x` has `{device_id}`)")
                        ok = false
                    }
                }
            }
            if type == .csv { spec.csv = check(decodeCSV(f)) }
            if type == .iio { spec.iio = check(decodeIIO(f)) }
            if type == .iio, let iio = spec.iio, iio.layoutFolder == nil, !checkInlineLayout(iio, of: spec, index: index) {
                ok = false
            }
        }
        return ok ? spec : nil
    }

    /// Builds an input's inline IIO layout to check it now, so that a bad type string, a
    /// duplicate index, a layout over the limits or one without a time source is a pipeline
    /// problem at its `line:column` (78), as are `units` keys naming none of its channels.
    /// Layouts read from a folder are checked when the folder is read (their problems are the
    /// folder's: 65 naming the file).
    func checkInlineLayout(_ options: IIOOptions, of input: InputSpec, index: Int) -> Bool {
        do {
            let layout = try options.inlineLayout(file: file, key: "inputs[\(index)].layout")
            let found = input.unitIssues(channels: layout.channelNames, file: file, index: index)
            report(found)
            return found.isEmpty
        } catch {
            report(error.issues)
            return false
        }
    }

    /// `units: {channel: unit}` with units from docs/inputs.md, "Units", each with the position of its key.
    func decodeUnits(_ node: YAMLNode, _ path: String) -> [(entry: KeyValue<String>, location: SourceLocation)]? {
        guard let pairs = node.mapping else { mustBe(path, node, "a mapping of channel names to units"); return nil }
        var out: [(entry: KeyValue<String>, location: SourceLocation)] = []
        var ok = true
        for pair in pairs {
            guard let channel = mapKey(pair, in: path) else { ok = false; continue }
            guard let unit = pair.value.scalar?.value, PhysicalUnit.accepted.contains(unit), !pair.value.isNull else {
                let suggestion = pair.value.scalar.flatMap { $0.isNull ? nil : Self.suggestion(for: $0.value, among: PhysicalUnit.accepted) }
                mustBe("\(path).\(channel)", pair.value, Text.alternatives(PhysicalUnit.accepted), suggestion: suggestion)
                ok = false
                continue
            }
            out.append((KeyValue(channel, unit), location(pair.key.mark)))
        }
        return ok ? out : nil
    }

    // MARK: - Phone-logger presets

    static let presetKeys = ["delimiter", "raw_data"]

    /// A `type: sensorlogger | phyphox | androsensor` entry, expanded into the csv inputs it
    /// stands for (`PhonePreset.expand`), with every problem reported at its `line:column`.
    func decodePreset(_ node: YAMLNode, app: PhoneApp, index: Int) -> [InputSpec]? {
        let path = "inputs[\(index)]"
        // Every input key is known here, so that a csv or iio key gets "does not apply" rather than "unknown".
        guard let f = fields(node, path: path, allowed: Self.commonInputKeys + Self.csvKeys + Self.iioKeys + ["raw_data"]) else { return nil }
        var ok = true
        func check<T>(_ value: T?) -> T? {
            if value == nil { ok = false }
            return value
        }
        let doc = "(docs/inputs.md, \"Phone-logger presets\"); use `type: csv` to choose it yourself"
        for key in ["time", "channels", "units", "label_column", "sensor_column", "sensor_channels", "skip_lines", "sensor", "strict", "layout"]
            where f.has(key) {
            notApplicable(key, in: f, "is set by `type: \(app.rawValue)`, which reads \(app.title)'s files as the app writes them \(doc)")
            ok = false
        }
        if app != .phyphox {
            for key in Self.presetKeys where f.has(key) {
                let why = key == "delimiter" ? "\(app.title) writes `\(app == .androsensor ? ";" : ",")` between fields" : "applies only to `type: phyphox`"
                notApplicable(key, in: f, "does not apply to `type: \(app.rawValue)`: \(why)")
                ok = false
            }
        }
        var entry = PhonePreset.Entry(app: app, paths: [])
        entry.location = location(node.mark)
        if let n = required("paths", in: f) {
            if let paths = check(stringList(n, "\(path).paths", unique: nil, allowSingle: true)) {
                entry.paths = paths
                if app.readsFolders {
                    let items = n.sequence ?? [n]
                    for (k, p) in paths.enumerated() {
                        let last = PhonePreset.fileName(PhonePreset.folderPattern(p)).lowercased()
                        if last.hasSuffix(".csv") || last.hasSuffix(".zip") {
                            let item = items[min(k, items.count - 1)]
                            report(item.mark, "`\(path).paths` at \(at(item.mark)) names `\(Self.shorten(p))`, a file, but `type: \(app.rawValue)` "
                                + "takes \(app.title)'s export folders, one per recording (the unzipped folders holding "
                                + "`\(PhonePreset.sensors(app).prefix(2).compactMap(\.file).joined(separator: "`, `"))`, …), e.g. `data/*/*` or `data/**`")
                            ok = false
                        }
                    }
                }
            }
        } else {
            ok = false
        }
        if let n = f["subject"] { entry.subject = check(template(n, "\(path).subject")) }
        if let n = f["recording"] { entry.recording = check(template(n, "\(path).recording")) }
        if let n = f["sort"] { entry.sort = check(bool(n, "\(path).sort")) ?? false }
        if app == .phyphox, let n = f["delimiter"] {
            switch n.scalar?.value {
            case ",": entry.delimiter = UInt8(ascii: ",")
            case ";": entry.delimiter = UInt8(ascii: ";")
            case "\t": entry.delimiter = 0x09
            default:
                mustBe("\(path).delimiter", n, "`,`, `;` or `\"\\t\"` (a tab), the separator of the phyphox CSV format exported")
                ok = false
            }
        }
        if app == .phyphox, let n = f["raw_data"] { entry.rawData = check(bool(n, "\(path).raw_data")) ?? false }
        let table = PhonePreset.sensors(app, raw: entry.rawData).map(\.name)
        if let n = f["sensors"] {
            if let names = check(stringList(n, "\(path).sensors", unique: "sensor", allowSingle: true)) {
                let items = n.sequence ?? [n]
                for (k, name) in names.enumerated() where !table.contains(name) {
                    let item = items[min(k, items.count - 1)]
                    let what = app == .phyphox && entry.rawData ? "a sensor of phyphox's one-sensor experiments (`raw_data: true`)" : "a sensor of \(app.title)"
                    mustBe("\(path).sensors[\(k)]", item, "\(what): \(Text.alternatives(table))",
                           suggestion: Self.suggestion(for: name, among: table))
                    ok = false
                }
                if ok, entry.rawData, names.count != 1 {
                    report(n.mark, "`\(path).sensors` at \(at(n.mark)) must name exactly one sensor with `raw_data: true` "
                        + "(`Raw Data.csv` of a built-in phyphox experiment holds one sensor), not \(names.count)")
                    ok = false
                }
                entry.sensors = names
            }
        } else if entry.rawData {
            report(f.node.mark, "missing required key `sensors` in `\(path)` at \(at(f.node.mark)) (with `raw_data: true`, name the one sensor "
                + "that `Raw Data.csv` holds: \(Text.alternatives(table)))")
            ok = false
        }
        return ok ? PhonePreset.expand(entry, index: index) : nil
    }

    // MARK: - Templates

    static let placeholderNames = ["{stem}", "{dir}", "{dir:N}", "{dirpath}"]

    /// A template string whose placeholders are `{stem}`, `{dir}`, `{dir:N}` (N ≥ 1) or `{dirpath}`,
    /// and for `type: cwa` inputs `{device_id}` and `{session_id}` (read from each file's header);
    /// `type: gt3x` inputs take `{device_id}` (the serial number in `info.txt`), checked in `decodeInput`.
    func template(_ node: YAMLNode, _ path: String) -> String? {
        guard let text = string(node, path) else { return nil }
        guard let bad = Self.badPlaceholder(in: text) else { return text }
        var message = "`\(path)` at \(at(node.mark)) uses "
        if bad.hasPrefix("{") && bad.hasSuffix("}") {
            message += "the unknown placeholder `\(Self.shorten(bad))`"
        } else {
            message += "an unmatched `\(Self.shorten(bad))`"
        }
        message += "; templates may use only \(Text.alternatives(Self.placeholderNames)) (N ≥ 1; in a `type: cwa` input's `subject` and `recording` also `{device_id}` and `{session_id}`)"
        if bad.hasPrefix("{"), let s = Text.suggestion(for: bad, among: ["{stem}", "{dir}", "{dirpath}"]) {
            message += "; did you mean `\(s)`?"
        }
        report(node.mark, message)
        return nil
    }

    /// The first placeholder (or stray brace) that is not allowed, or nil.
    static func badPlaceholder(in text: String) -> String? {
        var rest = Substring(text)
        while let i = rest.firstIndex(where: { $0 == "{" || $0 == "}" }) {
            if rest[i] == "}" { return "}" }
            guard let close = rest[i...].firstIndex(of: "}") else { return String(rest[i...]) }
            let inner = rest[rest.index(after: i)..<close]
            if inner.contains("{") { return String(rest[i...close]) }
            switch inner {
            case "stem", "dir", "dirpath", "device_id", "session_id": break
            default:
                guard inner.hasPrefix("dir:"), let n = Int(inner.dropFirst(4)), n >= 1,
                      inner.dropFirst(4).allSatisfy(\.isASCII) else { return String(rest[i...close]) }
            }
            rest = rest[rest.index(after: close)...]
        }
        return nil
    }

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

extension SpecDecoder {
    /// `preset` of a resolved input (`PipelineSpec+CanonicalJSON.swift` writes it): the app, the
    /// entry, the sensor and the entry's paths, so that the decoded pipeline hashes as it did.
    func decodeResolvedPreset(_ node: YAMLNode, _ path: String) -> InputPreset? {
        guard let f = fields(node, path: path, allowed: ["type", "input", "sensor", "paths"]) else { return nil }
        guard let typeNode = required("type", in: f), let app: PhoneApp = choice(typeNode, "\(path).type"),
              let inputNode = required("input", in: f), let entry = integer(inputNode, "\(path).input", "a non-negative integer", { $0 >= 0 }),
              let pathsNode = required("paths", in: f), let paths = stringList(pathsNode, "\(path).paths", unique: nil, allowSingle: true) else { return nil }
        var sensor: String?
        if let n = f["sensor"], !n.isNull { sensor = string(n, "\(path).sensor") }
        return InputPreset(app: app, entry: entry, sensor: sensor, paths: paths)
    }

    /// `time.zone` (docs/inputs.md, "Local wall time"): an IANA name this system knows, or a
    /// reported problem with the closest known name.
    func wallClockZone(_ z: YAMLNode, _ path: String) -> WallClockZone? {
        guard let name = string(z, path) else { return nil }
        if let zone = WallClockZone.named(name) { return zone }
        let near = Text.suggestion(for: name, among: WallClockZone.knownNames).map { "; did you mean `\($0)`?" } ?? ""
        report(z.mark, "`\(path)` at \(at(z.mark)) is `\(name)`, which is not a time zone name this system knows (expected an IANA name such as `Europe/Berlin`, `America/New_York`, `Asia/Kolkata` or `UTC`)\(near)")
        return nil
    }
}
