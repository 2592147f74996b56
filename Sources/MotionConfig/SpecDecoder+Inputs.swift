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
