import MotionCore
import MotionIngest

/// A phone app whose exports have a preset `type` in the pipeline file (docs/inputs.md,
/// "Phone-logger presets"). A preset is a thin layer over the csv reader: the decoder expands it
/// into ordinary csv inputs with the app's delimiter, time column and unit, channel names and
/// units (`PhonePreset.expand`).
public enum PhoneApp: String, Sendable, CaseIterable {
    /// Sensor Logger (Kelvin Choi, iOS and Android): one folder per recording with one CSV per sensor.
    case sensorlogger
    /// phyphox (RWTH Aachen, iOS and Android): one folder per experiment export, one CSV per export set.
    case phyphox
    /// AndroSensor (Android): one semicolon-separated CSV per recording, all sensors in one row.
    case androsensor

    /// The app's name as its makers write it.
    public var title: String {
        switch self {
        case .sensorlogger: return "Sensor Logger"
        case .phyphox: return "phyphox"
        case .androsensor: return "AndroSensor"
        }
    }

    /// True when `paths` name export folders (one per recording) rather than files.
    public var readsFolders: Bool { self != .androsensor }
}

/// Where an input came from when the decoder expanded a preset into it (recorded in the
/// canonical JSON as `preset`, so that `pipeline.resolved` says what was expanded).
public struct InputPreset: Sendable, Equatable {
    /// The app (`type:` as written).
    public var app: PhoneApp
    /// The index of the entry in the pipeline file's `inputs`.
    public var entry: Int
    /// The app sensor this input reads (`Accelerometer`), or nil when one input reads every
    /// chosen sensor (AndroSensor, whose sensors share one row).
    public var sensor: String?
    /// The entry's `paths` as written (export folders for Sensor Logger and phyphox).
    public var paths: [String]

    public init(app: PhoneApp, entry: Int, sensor: String?, paths: [String]) {
        self.app = app
        self.entry = entry
        self.sensor = sensor
        self.paths = paths
    }
}

/// One sensor of a phone app: the file it is in, the header the app writes and its channels.
public struct PhonePresetSensor: Sendable, Equatable {
    /// One channel: the name in `x`, the column it is read from, the unit the app writes.
    public struct Channel: Sendable, Equatable {
        public var name: String
        public var column: String
        public var unit: String
        public init(_ name: String, _ column: String, _ unit: String) {
            self.name = name
            self.column = column
            self.unit = unit
        }
    }
    /// The name in `sensors:`, and the stream's name (`Accelerometer`).
    public var name: String
    /// The file in the export folder (`Accelerometer.csv`); nil for AndroSensor (one file per recording).
    public var file: String?
    /// The columns the app writes, in its order (the header line is these joined by the delimiter,
    /// quoted for phyphox).
    public var header: [String]
    /// The channels read, in the order they take in `x`.
    public var channels: [Channel]
}

/// The tables and rules of the phone-logger presets (docs/inputs.md, "Phone-logger presets").
public enum PhonePreset {
    // MARK: - Sensor Logger

    /// Sensor Logger's axis files: `time,seconds_elapsed,z,y,x` (awesome-sensor-logger, UNITS.md).
    static let sensorLoggerAxes = ["time", "seconds_elapsed", "z", "y", "x"]

    static func axes(_ prefix: String, _ x: String, _ y: String, _ z: String, _ unit: String) -> [PhonePresetSensor.Channel] {
        [.init("\(prefix)_x", x, unit), .init("\(prefix)_y", y, unit), .init("\(prefix)_z", z, unit)]
    }

    /// Sensor Logger's sensors, in the order of docs/inputs.md.
    public static let sensorLogger: [PhonePresetSensor] = [
        // Without gravity on both platforms (UNITS.md: "Accelerometer.csv: measures acceleration without gravity").
        PhonePresetSensor(name: "Accelerometer", file: "Accelerometer.csv", header: sensorLoggerAxes,
                          channels: axes("uacc", "x", "y", "z", "m/s^2")),
        PhonePresetSensor(name: "TotalAcceleration", file: "TotalAcceleration.csv", header: sensorLoggerAxes,
                          channels: axes("acc", "x", "y", "z", "m/s^2")),
        PhonePresetSensor(name: "Gravity", file: "Gravity.csv", header: sensorLoggerAxes,
                          channels: axes("grav", "x", "y", "z", "m/s^2")),
        PhonePresetSensor(name: "Gyroscope", file: "Gyroscope.csv", header: sensorLoggerAxes,
                          channels: axes("gyro", "x", "y", "z", "rad/s")),
        PhonePresetSensor(name: "Magnetometer", file: "Magnetometer.csv", header: sensorLoggerAxes,
                          channels: axes("mag", "x", "y", "z", "uT")),
        PhonePresetSensor(name: "Barometer", file: "Barometer.csv",
                          header: ["time", "seconds_elapsed", "relativeAltitude", "pressure"],
                          channels: [.init("pressure", "pressure", "hPa"), .init("relative_altitude", "relativeAltitude", "m")]),
        PhonePresetSensor(name: "Orientation", file: "Orientation.csv",
                          header: ["time", "seconds_elapsed", "qz", "qy", "qx", "qw", "roll", "pitch", "yaw"],
                          channels: [.init("qw", "qw", "1"), .init("qx", "qx", "1"), .init("qy", "qy", "1"), .init("qz", "qz", "1"),
                                     .init("pitch", "pitch", "rad"), .init("roll", "roll", "rad"), .init("yaw", "yaw", "rad")]),
    ]

    // MARK: - phyphox

    /// phyphox's sensors. `raw` gives the columns of the built-in one-sensor experiment's
    /// `Raw Data.csv` (phyphox-experiments), else those of the set a multi-sensor ("simple")
    /// experiment writes as `{name}.csv` (phyphox-android, SimpleExperimentCreator).
    public static func phyphox(raw: Bool) -> [PhonePresetSensor] {
        func sensor(_ name: String, _ columns: [String], _ absolute: String?, _ prefix: String, _ unit: String) -> PhonePresetSensor {
            let channels = columns.count == 1
                ? [PhonePresetSensor.Channel(prefix, columns[0], unit)]
                : axes(prefix, columns[0], columns[1], columns[2], unit)
            return PhonePresetSensor(name: name, file: raw ? "Raw Data.csv" : "\(name).csv",
                                     header: ["Time (s)"] + columns + (raw ? absolute.map { [$0] } ?? [] : []), channels: channels)
        }
        let field = raw ? "Magnetic Field" : "Magnetic field"
        var list = [
            sensor("Accelerometer", ["Acceleration x (m/s^2)", "Acceleration y (m/s^2)", "Acceleration z (m/s^2)"],
                   "Absolute acceleration (m/s^2)", "acc", "m/s^2"),
            sensor("Linear Acceleration", ["Linear Acceleration x (m/s^2)", "Linear Acceleration y (m/s^2)", "Linear Acceleration z (m/s^2)"],
                   "Absolute acceleration (m/s^2)", "uacc", "m/s^2"),
            sensor("Gyroscope", ["Gyroscope x (rad/s)", "Gyroscope y (rad/s)", "Gyroscope z (rad/s)"], "Absolute (rad/s)", "gyro", "rad/s"),
            sensor("Magnetometer", ["\(field) x (µT)", "\(field) y (µT)", "\(field) z (µT)"], "Absolute field (µT)", "mag", "uT"),
            sensor("Pressure", ["Pressure (hPa)"], nil, "pressure", "hPa"),
        ]
        if !raw {
            list.append(sensor("Gravity", ["Acceleration x (m/s^2)", "Acceleration y (m/s^2)", "Acceleration z (m/s^2)"], nil, "grav", "m/s^2"))
        }
        return list
    }

    // MARK: - AndroSensor

    /// AndroSensor's time column as written, with its trailing space.
    public static let androSensorTimeColumn = "Time since start in ms "
    /// AndroSensor's wall-clock column.
    public static let androSensorDateColumn = "YYYY-MO-DD HH-MI-SS_SSS"

    /// AndroSensor's sensors: column groups of its one file (`header` is the group's columns;
    /// the file holds whichever groups the phone has, then the location columns, the time and the date).
    public static let androSensor: [PhonePresetSensor] = {
        func sensor(_ name: String, _ columns: [String], _ prefix: String, _ unit: String) -> PhonePresetSensor {
            let channels = columns.count == 1
                ? [PhonePresetSensor.Channel(prefix, columns[0], unit)]
                : axes(prefix, columns[0], columns[1], columns[2], unit)
            return PhonePresetSensor(name: name, file: nil, header: columns, channels: channels)
        }
        func xyz(_ what: String, _ unit: String) -> [String] { ["X", "Y", "Z"].map { "\(what) \($0) (\(unit))" } }
        return [
            sensor("Accelerometer", xyz("ACCELEROMETER", "m/s²"), "acc", "m/s^2"),
            sensor("Gravity", xyz("GRAVITY", "m/s²"), "grav", "m/s^2"),
            sensor("Linear Acceleration", xyz("LINEAR ACCELERATION", "m/s²"), "uacc", "m/s^2"),
            sensor("Gyroscope", xyz("GYROSCOPE", "rad/s"), "gyro", "rad/s"),
            // AndroSensor writes the Greek letter mu (U+03BC), not the micro sign.
            sensor("Magnetometer", xyz("MAGNETIC FIELD", "\u{03BC}T"), "mag", "uT"),
            sensor("Pressure", ["ATMOSPHERIC PRESSURE (hPa)"], "pressure", "hPa"),
        ]
    }()

    /// The sensors read when `sensors` is not given (docs/pipeline.md): motion sensors every
    /// phone of the app has.
    public static let defaultSensors: [PhoneApp: [String]] = [
        .sensorlogger: ["Accelerometer", "Gyroscope"],
        .phyphox: ["Accelerometer", "Gyroscope"],
        .androsensor: ["Accelerometer", "Gyroscope"],
    ]

    /// The sensors of `app` (for phyphox, of the layout `raw` says).
    public static func sensors(_ app: PhoneApp, raw: Bool = false) -> [PhonePresetSensor] {
        switch app {
        case .sensorlogger: return sensorLogger
        case .phyphox: return phyphox(raw: raw)
        case .androsensor: return androSensor
        }
    }

    /// The default `subject` template: the folder holding the export folder for the folder apps,
    /// the file's folder for AndroSensor.
    public static func defaultSubject(_ app: PhoneApp) -> String { app.readsFolders ? "{dir:2}" : "{dir}" }

    // MARK: - Expansion

    /// What a preset entry says, after decoding.
    public struct Entry: Sendable, Equatable {
        public var app: PhoneApp
        public var paths: [String]
        public var subject: String?
        public var recording: String?
        public var sensors: [String]?
        public var sort = false
        /// phyphox: `delimiter` (`,` by default).
        public var delimiter: UInt8 = UInt8(ascii: ",")
        /// phyphox: `raw_data`.
        public var rawData = false
        public var location: SourceLocation?

        public init(app: PhoneApp, paths: [String]) {
            self.app = app
            self.paths = paths
        }
    }

    /// The csv inputs a preset entry stands for (docs/inputs.md, "Phone-logger presets"): for
    /// Sensor Logger and phyphox one wide input per chosen sensor, reading `{folder}/{file}` of
    /// every folder `paths` matches, one recording per folder; for AndroSensor one wide input
    /// whose one stream (`AndroSensor`) holds the chosen sensors' channels. `sensors` must be
    /// names from `sensors(app)`; the decoder checks them first.
    public static func expand(_ entry: Entry, index: Int) -> [InputSpec] {
        let table = sensors(entry.app, raw: entry.rawData)
        let chosen = (entry.sensors ?? defaultSensors[entry.app]!).compactMap { name in table.first { $0.name == name } }
        let subject = entry.subject ?? defaultSubject(entry.app)
        switch entry.app {
        case .sensorlogger, .phyphox:
            return chosen.map { sensor in
                let file = sensor.file!
                let paths = entry.paths.map { folderPattern($0) + "/" + file }
                var csv = CSVOptions(delimiter: entry.delimiter, timeColumn: entry.app == .sensorlogger ? "time" : "Time (s)",
                                     timeUnit: entry.app == .sensorlogger ? .ns : .s,
                                     channels: sensor.channels.map { KeyValue($0.name, $0.column) })
                csv.delimiterGiven = entry.app == .phyphox
                csv.app = appExport(entry.app, sensor, delimiter: entry.delimiter)
                var input = InputSpec(type: .csv, paths: paths, subject: subject, recording: entry.recording ?? "{dirpath}",
                                      sort: entry.sort, sensor: sensor.name,
                                      units: sensor.channels.map { KeyValue($0.name, $0.unit) }, csv: csv, location: entry.location)
                input.preset = InputPreset(app: entry.app, entry: index, sensor: sensor.name, paths: entry.paths)
                return input
            }
        case .androsensor:
            let channels = chosen.flatMap(\.channels)
            var csv = CSVOptions(delimiter: UInt8(ascii: ";"), timeColumn: "Time since start in ms", timeUnit: .ms,
                                 channels: channels.map { KeyValue($0.name, $0.column) })
            csv.delimiterGiven = true
            csv.app = CSVFormat.AppExport(
                file: "an AndroSensor export",
                header: (chosen.flatMap(\.header) + [androSensorTimeColumn]).joined(separator: ";"),
                headerNote: " among its columns, after its `sep=;` line; AndroSensor writes the columns of the sensors the phone has, so leave out of `sensors` those it lacks")
            var input = InputSpec(type: .csv, paths: entry.paths, subject: subject, recording: entry.recording,
                                  sort: entry.sort, sensor: "AndroSensor",
                                  units: channels.map { KeyValue($0.name, $0.unit) }, csv: csv, location: entry.location)
            input.preset = InputPreset(app: .androsensor, entry: index, sensor: nil, paths: entry.paths)
            return [input]
        }
    }

    /// A folder pattern without trailing slashes (`data/*/` → `data/*`; `/` stays `/`).
    static func folderPattern(_ pattern: String) -> String {
        var p = Substring(pattern)
        while p.count > 1, p.hasSuffix("/") { p = p.dropLast() }
        return p == "/" ? "" : String(p)
    }

    /// What messages say about a file of `sensor` (docs/inputs.md, "Phone-logger presets").
    static func appExport(_ app: PhoneApp, _ sensor: PhonePresetSensor, delimiter: UInt8) -> CSVFormat.AppExport {
        switch app {
        case .sensorlogger:
            return CSVFormat.AppExport(file: "Sensor Logger's `\(sensor.file!)`", header: sensor.header.joined(separator: ","))
        case .phyphox:
            let d = String(UnicodeScalar(delimiter))
            let shown = d == "\t" ? "a tab" : "`\(d)`"
            return CSVFormat.AppExport(
                file: "phyphox's `\(sensor.file!)`",
                header: sensor.header.map { "\"\($0)\"" }.joined(separator: d == "\t" ? "\\t" : d),
                headerNote: ", fields separated by \(shown); an export in another of phyphox's CSV formats needs `delimiter:` (`\",\"`, `\";\"` or `\"\\t\"`)",
                decimalCommaNote: "phyphox's decimal-comma CSV formats cannot be read: export with `CSV (Comma, decimal point)`, `CSV (Tabulator, decimal point)` or `CSV (Semicolon, decimal point)`")
        case .androsensor:
            return CSVFormat.AppExport(file: "an AndroSensor export", header: sensor.header.joined(separator: ";"))
        }
    }

    // MARK: - Detection (for `motionprep init`)

    /// What a file that looks like a phone app's export holds: the preset to use and its keys.
    public struct Match: Sendable, Equatable {
        public var app: PhoneApp
        /// The preset's sensors whose columns the file has (for the folder apps, the one sensor
        /// of this file; for AndroSensor, every sensor group present), in the preset's order.
        public var sensors: [String]
        /// The delimiter the header uses: `,`, `;` or a tab (phyphox: write `delimiter:` when not `,`).
        public var delimiter: UInt8
        /// phyphox: the file is the `Raw Data.csv` of a built-in one-sensor experiment (write `raw_data: true`).
        public var rawData: Bool
    }

    /// Whether the file at `path` whose header line is `headerLine` looks like a Sensor Logger
    /// sensor file the preset reads: its name is one of the sensor files (`Accelerometer.csv`, …)
    /// and its header has that sensor's columns. Pure: it reads nothing. `headerLine` is the
    /// file's first line (a byte-order mark and a trailing `\r` are ignored).
    public static func matchSensorLogger(path: String, headerLine: String) -> Match? {
        let name = fileName(path)
        guard let sensor = sensorLogger.first(where: { $0.file == name }) else { return nil }
        let columns = splitHeader(headerLine, delimiter: ",")
        guard columns.starts(with: ["time", "seconds_elapsed"]), sensor.channels.allSatisfy({ columns.contains($0.column) }) else { return nil }
        return Match(app: .sensorlogger, sensors: [sensor.name], delimiter: UInt8(ascii: ","), rawData: false)
    }

    /// Whether the file at `path` with header line `headerLine` looks like a phyphox export set
    /// the preset reads: named `Raw Data.csv` or after a set (`Accelerometer.csv`, `Gyroscope.csv`,
    /// `Linear Acceleration.csv`, …), with a quoted header starting `"Time (s)"` followed by `,`,
    /// `;` or a tab, holding one sensor's columns. Pure. `headerLine` is the file's first line.
    public static func matchPhyphox(path: String, headerLine: String) -> Match? {
        let line = cleanLine(headerLine)
        let prefix = "\"Time (s)\""
        guard line.hasPrefix(prefix), let d = line.dropFirst(prefix.count).first.flatMap({ $0.asciiValue }),
              [UInt8(ascii: ","), UInt8(ascii: ";"), 0x09].contains(d) else { return nil }
        let columns = splitHeader(line, delimiter: Character(UnicodeScalar(d))).map { $0.trimmingQuotes() }
        let name = fileName(path)
        let raw = name == "Raw Data.csv"
        for sensor in phyphox(raw: raw) where (raw || sensor.file == name) {
            if sensor.channels.allSatisfy({ columns.contains($0.column) }) {
                return Match(app: .phyphox, sensors: [sensor.name], delimiter: d, rawData: raw)
            }
        }
        return nil
    }

    /// Whether a file whose header line is `headerLine` looks like an AndroSensor export: `;`
    /// between names, one of them `Time since start in ms` (AndroSensor writes a trailing space),
    /// and at least one sensor group of the preset. Pure; `path` is not used (AndroSensor names
    /// its files `Sensor_record_YYYYMMDD_HHMMSS_AndroSensor.csv`, but users rename them).
    /// `headerLine` is the header: the file's second line, after its `sep=;` line.
    public static func matchAndroSensor(path: String, headerLine: String) -> Match? {
        let columns = splitHeader(headerLine, delimiter: ";").map { $0.trimmingBlanks() }
        guard columns.contains("Time since start in ms") else { return nil }
        let present = androSensor.filter { s in s.channels.allSatisfy { columns.contains($0.column) } }.map(\.name)
        guard !present.isEmpty else { return nil }
        return Match(app: .androsensor, sensors: present, delimiter: UInt8(ascii: ";"), rawData: false)
    }

    /// The first of `matchSensorLogger`, `matchPhyphox`, `matchAndroSensor` that matches.
    public static func match(path: String, headerLine: String) -> Match? {
        matchSensorLogger(path: path, headerLine: headerLine) ?? matchPhyphox(path: path, headerLine: headerLine)
            ?? matchAndroSensor(path: path, headerLine: headerLine)
    }

    static func fileName(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
    }

    /// The line without a leading byte-order mark and trailing line-end characters.
    static func cleanLine(_ line: String) -> String {
        var s = Substring(line)
        if s.hasPrefix("\u{FEFF}") { s = s.dropFirst() }
        while let last = s.last, last == "\r" || last == "\n" || last == "\r\n" { s = s.dropLast() }
        return String(s)
    }

    static func splitHeader(_ line: String, delimiter: Character) -> [String] {
        cleanLine(line).split(separator: delimiter, omittingEmptySubsequences: false).map(String.init)
    }
}

extension String {
    fileprivate func trimmingQuotes() -> String {
        let t = trimmingBlanks()
        guard t.count >= 2, t.hasPrefix("\""), t.hasSuffix("\"") else { return t }
        return String(t.dropFirst().dropLast())
    }

    fileprivate func trimmingBlanks() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}

extension PipelineSpec {
    /// How messages name `inputs[i]`: `inputs[2]`, or for an input expanded from a preset, the
    /// entry as the user wrote it: ``inputs[0] (`type: sensorlogger`, sensor `Gyroscope`)``.
    public func inputName(_ i: Int) -> String {
        guard inputs.indices.contains(i), let preset = inputs[i].preset else { return "inputs[\(i)]" }
        let sensor = preset.sensor.map { ", sensor `\($0)`" } ?? ""
        return "inputs[\(preset.entry)] (`type: \(preset.app.rawValue)`\(sensor))"
    }
}
