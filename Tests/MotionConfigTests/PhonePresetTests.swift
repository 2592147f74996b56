import MotionCore
import MotionIngest
import Testing
@testable import MotionConfig

/// `type: sensorlogger | phyphox | androsensor` (issue 17 point 2): what each preset expands to,
/// every key, every error, the canonical JSON and the detection functions for `init`.
@Suite struct PhonePresetTests {
    /// The minimal pipeline with its input replaced by `entry` (lines from 3 on: `  - type: …`).
    static func preset(_ entry: String) -> String {
        edited("  - type: motioncollector\n    paths: [\"data/*.csv\"]", entry)
    }

    @Test func sensorLoggerDefaults() throws {
        let spec = try load(Self.preset("  - type: sensorlogger\n    paths: [\"data/*/*/\"]"))
        #expect(spec.inputs.count == 2)
        let acc = spec.inputs[0], gyro = spec.inputs[1]
        #expect(acc.type == .csv && gyro.type == .csv)
        #expect(acc.paths == ["data/*/*/Accelerometer.csv"])
        #expect(gyro.paths == ["data/*/*/Gyroscope.csv"])
        #expect(acc.subject == "{dir:2}" && acc.recording == "{dirpath}")
        #expect(acc.sensor == "Accelerometer" && gyro.sensor == "Gyroscope")
        #expect(acc.preset == InputPreset(app: .sensorlogger, entry: 0, sensor: "Accelerometer", paths: ["data/*/*/"]))
        let csv = try #require(acc.csv)
        #expect(csv.delimiter == UInt8(ascii: ",") && !csv.delimiterGiven)
        #expect(csv.timeColumn == "time" && csv.timeUnit == .ns)
        #expect(csv.channels == [KeyValue("uacc_x", "x"), KeyValue("uacc_y", "y"), KeyValue("uacc_z", "z")])
        #expect(acc.units == [KeyValue("uacc_x", "m/s^2"), KeyValue("uacc_y", "m/s^2"), KeyValue("uacc_z", "m/s^2")])
        #expect(gyro.units.map(\.value) == ["rad/s", "rad/s", "rad/s"])
        #expect(csv.app?.header == "time,seconds_elapsed,z,y,x")
    }

    @Test func sensorLoggerKeys() throws {
        let spec = try load(Self.preset("""
              - type: sensorlogger
                paths: "phones/**"
                subject: "{dir:3}"
                recording: "{dir}"
                sensors: [TotalAcceleration, Barometer, Orientation, Magnetometer, Gravity]
                sort: true
            """))
        #expect(spec.inputs.map(\.sensor) == ["TotalAcceleration", "Barometer", "Orientation", "Magnetometer", "Gravity"])
        #expect(spec.inputs.allSatisfy { $0.subject == "{dir:3}" && $0.recording == "{dir}" && $0.sort })
        #expect(spec.inputs[1].paths == ["phones/**/Barometer.csv"])
        #expect(spec.inputs[1].csv?.channels == [KeyValue("pressure", "pressure"), KeyValue("relative_altitude", "relativeAltitude")])
        #expect(spec.inputs[1].units == [KeyValue("pressure", "hPa"), KeyValue("relative_altitude", "m")])
        #expect(spec.inputs[2].csv?.channels.map(\.key) == ["qw", "qx", "qy", "qz", "pitch", "roll", "yaw"])
        #expect(spec.inputs[2].units.map(\.value) == ["1", "1", "1", "1", "rad", "rad", "rad"])
        #expect(spec.inputs[3].units.map(\.value) == ["uT", "uT", "uT"])
        #expect(spec.inputs[0].csv?.channels.map(\.key) == ["acc_x", "acc_y", "acc_z"])
        #expect(spec.inputs[4].csv?.channels.map(\.key) == ["grav_x", "grav_y", "grav_z"])
    }

    @Test func phyphoxDefaultsAndKeys() throws {
        let spec = try load(Self.preset("  - type: phyphox\n    paths: [\"lab/*\"]"))
        #expect(spec.inputs.map(\.paths) == [["lab/*/Accelerometer.csv"], ["lab/*/Gyroscope.csv"]])
        let csv = try #require(spec.inputs[0].csv)
        #expect(csv.timeColumn == "Time (s)" && csv.timeUnit == .s && csv.delimiterGiven && csv.delimiter == UInt8(ascii: ","))
        #expect(csv.channels == [KeyValue("acc_x", "Acceleration x (m/s^2)"), KeyValue("acc_y", "Acceleration y (m/s^2)"),
                                 KeyValue("acc_z", "Acceleration z (m/s^2)")])
        #expect(csv.app?.header == #""Time (s)","Acceleration x (m/s^2)","Acceleration y (m/s^2)","Acceleration z (m/s^2)""#)

        let tabbed = try load(Self.preset("""
              - type: phyphox
                paths: [lab/*]
                delimiter: "\\t"
                sensors: [Linear Acceleration, Magnetometer, Pressure, Gravity]
            """))
        #expect(tabbed.inputs.map(\.sensor) == ["Linear Acceleration", "Magnetometer", "Pressure", "Gravity"])
        #expect(tabbed.inputs.allSatisfy { $0.csv?.delimiter == 0x09 })
        #expect(tabbed.inputs[0].paths == ["lab/*/Linear Acceleration.csv"])
        #expect(tabbed.inputs[0].csv?.channels.map(\.key) == ["uacc_x", "uacc_y", "uacc_z"])
        // A multi-sensor ("simple") experiment writes `Magnetic field`, the built-in one `Magnetic Field`.
        #expect(tabbed.inputs[1].csv?.channels.first?.value == "Magnetic field x (µT)")
        #expect(tabbed.inputs[2].units == [KeyValue("pressure", "hPa")])

        let raw = try load(Self.preset("  - type: phyphox\n    paths: [lab/*]\n    raw_data: true\n    sensors: Magnetometer"))
        #expect(raw.inputs.count == 1)
        #expect(raw.inputs[0].paths == ["lab/*/Raw Data.csv"])
        #expect(raw.inputs[0].csv?.channels.first?.value == "Magnetic Field x (µT)")
        #expect(raw.inputs[0].csv?.app?.header.hasSuffix(#""Absolute field (µT)""#) == true)
    }

    @Test func androSensorOneStream() throws {
        let spec = try load(Self.preset("  - type: androsensor\n    paths: [\"andro/*.csv\"]\n    sensors: [Gyroscope, Linear Acceleration, Pressure]"))
        #expect(spec.inputs.count == 1)
        let input = spec.inputs[0]
        #expect(input.paths == ["andro/*.csv"] && input.subject == "{dir}" && input.recording == nil)
        #expect(input.sensor == "AndroSensor")
        let csv = try #require(input.csv)
        #expect(csv.delimiter == UInt8(ascii: ";") && csv.delimiterGiven)
        #expect(csv.timeColumn == "Time since start in ms" && csv.timeUnit == .ms)
        #expect(csv.channels.map(\.key) == ["gyro_x", "gyro_y", "gyro_z", "uacc_x", "uacc_y", "uacc_z", "pressure"])
        #expect(csv.channels[0].value == "GYROSCOPE X (rad/s)")
        #expect(input.units.map(\.value) == ["rad/s", "rad/s", "rad/s", "m/s^2", "m/s^2", "m/s^2", "hPa"])
        #expect(input.preset == InputPreset(app: .androsensor, entry: 0, sensor: nil, paths: ["andro/*.csv"]))
        let mag = try load(Self.preset("  - type: androsensor\n    paths: [\"a/*.csv\"]\n    sensors: [Magnetometer]"))
        #expect(mag.inputs[0].csv?.channels.first?.value == "MAGNETIC FIELD X (\u{03BC}T)")
    }

    @Test func laterEntriesKeepTheirPlace() throws {
        let spec = try load(Self.preset("""
              - type: sensorlogger
                paths: [sl/*]
              - type: motioncollector
                paths: ["mc/*.csv"]
            """))
        #expect(spec.inputs.count == 3)
        #expect(spec.inputs[2].type == .motioncollector && spec.inputs[2].preset == nil)
        #expect(spec.inputName(0) == "inputs[0] (`type: sensorlogger`, sensor `Accelerometer`)")
        #expect(spec.inputName(2) == "inputs[2]")
    }

    @Test func canonicalJSONRecordsTheExpansion() throws {
        let json = try load(Self.preset("  - type: sensorlogger\n    paths: [sl/*]\n    sensors: [Gyroscope]")).canonicalJSON()
        #expect(json.contains(#""paths":["sl/*/Gyroscope.csv"]"#))
        #expect(json.contains(#""preset":{"input":0,"paths":["sl/*"],"sensor":"Gyroscope","type":"sensorlogger"}"#))
        #expect(json.contains(#""time":{"column":"time","unit":"ns"}"#))
        #expect(json.contains(#""type":"csv""#))
        #expect(json.contains(#""units":{"gyro_x":"rad/s","gyro_y":"rad/s","gyro_z":"rad/s"}"#))
        // Equal entries written differently give equal text.
        let other = try load(Self.preset("  - {type: sensorlogger, paths: \"sl/*\", sensors: Gyroscope, subject: \"{dir:2}\", recording: \"{dirpath}\"}"))
        #expect(other.canonicalJSON() == json)
    }

    @Test func errors() {
        func msgs(_ entry: String) -> [String] { messages(Self.preset(entry)) }
        #expect(msgs("  - type: sensorlogger\n    paths: [sl/*]\n    time: {column: t}\n    units: {acc_x: g}")
                == ["key `time` in `inputs[0]` at walk.yaml:5:5 is set by `type: sensorlogger`, which reads Sensor Logger's files as the app writes them (docs/inputs.md, \"Phone-logger presets\"); use `type: csv` to choose it yourself",
                    "key `units` in `inputs[0]` at walk.yaml:6:5 is set by `type: sensorlogger`, which reads Sensor Logger's files as the app writes them (docs/inputs.md, \"Phone-logger presets\"); use `type: csv` to choose it yourself"])
        #expect(msgs("  - type: androsensor\n    paths: [a.csv]\n    delimiter: \",\"")
                == ["key `delimiter` in `inputs[0]` at walk.yaml:5:5 does not apply to `type: androsensor`: AndroSensor writes `;` between fields"])
        #expect(msgs("  - type: sensorlogger\n    paths: [sl/*]\n    raw_data: true")
                == ["key `raw_data` in `inputs[0]` at walk.yaml:5:5 does not apply to `type: sensorlogger`: applies only to `type: phyphox`"])
        #expect(msgs("  - type: sensorlogger\n    paths: [sl/*/Accelerometer.csv]")
                == ["`inputs[0].paths` at walk.yaml:4:13 names `sl/*/Accelerometer.csv`, a file, but `type: sensorlogger` takes Sensor Logger's export folders, one per recording (the unzipped folders holding `Accelerometer.csv`, `TotalAcceleration.csv`, …), e.g. `data/*/*` or `data/**`"])
        #expect(msgs("  - type: phyphox\n    paths: [ok/*, \"exports/x.zip\"]")
                == ["`inputs[0].paths` at walk.yaml:4:19 names `exports/x.zip`, a file, but `type: phyphox` takes phyphox's export folders, one per recording (the unzipped folders holding `Accelerometer.csv`, `Linear Acceleration.csv`, …), e.g. `data/*/*` or `data/**`"])
        #expect(msgs("  - type: androsensor\n    paths: [a/*.csv]\n    sort: maybe")
                == ["`inputs[0].sort` at walk.yaml:5:11 must be `true` or `false`, not `maybe`"])
        #expect(msgs("  - type: sensorlogger\n    paths: [sl/*]\n    sensors: [Accelerometer, Gyro]")
                == ["`inputs[0].sensors[1]` at walk.yaml:5:30 must be a sensor of Sensor Logger: `Accelerometer`, `TotalAcceleration`, `Gravity`, `Gyroscope`, `Magnetometer`, `Barometer` or `Orientation`, not `Gyro`; did you mean `Gyroscope`?"])
        #expect(msgs("  - type: phyphox\n    paths: [p/*]\n    raw_data: true\n    sensors: [Gravity]")
                == ["`inputs[0].sensors[0]` at walk.yaml:6:15 must be a sensor of phyphox's one-sensor experiments (`raw_data: true`): `Accelerometer`, `Linear Acceleration`, `Gyroscope`, `Magnetometer` or `Pressure`, not `Gravity`"])
        #expect(msgs("  - type: phyphox\n    paths: [p/*]\n    raw_data: true\n    sensors: [Accelerometer, Gyroscope]")
                == ["`inputs[0].sensors` at walk.yaml:6:14 must name exactly one sensor with `raw_data: true` (`Raw Data.csv` of a built-in phyphox experiment holds one sensor), not 2"])
        #expect(msgs("  - type: phyphox\n    paths: [p/*]\n    raw_data: true")
                == ["missing required key `sensors` in `inputs[0]` at walk.yaml:3:5 (with `raw_data: true`, name the one sensor that `Raw Data.csv` holds: `Accelerometer`, `Linear Acceleration`, `Gyroscope`, `Magnetometer` or `Pressure`)"])
        #expect(msgs("  - type: phyphox\n    paths: [p/*]\n    delimiter: \"|\"")
                == ["`inputs[0].delimiter` at walk.yaml:5:16 must be `,`, `;` or `\"\\t\"` (a tab), the separator of the phyphox CSV format exported, not the string `\"|\"`"])
        #expect(msgs("  - type: phyphox\n    sensors: [Gyroscope]")
                == ["missing required key `paths` in `inputs[0]` at walk.yaml:3:5"])
        #expect(msgs("  - type: sensorloger\n    paths: [sl/*]")
                == ["`inputs[0].type` at walk.yaml:3:11 must be `motioncollector`, `csv`, `iio`, `cwa`, `gt3x`, `sensorlogger`, `phyphox` or `androsensor`, not `sensorloger`; did you mean `sensorlogger`?"])
        #expect(msgs("  - type: csv\n    paths: [x.csv]\n    time: {column: t}\n    channels: {a: b}\n    raw_data: true")
                == ["unknown key `raw_data` in `inputs[0]` at walk.yaml:7:5"])
        #expect(msgs("  - type: androsensor\n    paths: [a.csv]\n    subject: \"{folder}\"").count == 1)
    }

    // MARK: - Detection for `motionprep init`

    @Test func detectsSensorLogger() {
        let m = PhonePreset.matchSensorLogger(path: "x/2024-05-01_08-00-00/Gyroscope.csv", headerLine: "\u{FEFF}time,seconds_elapsed,z,y,x\r\n")
        #expect(m == PhonePreset.Match(app: .sensorlogger, sensors: ["Gyroscope"], delimiter: UInt8(ascii: ","), rawData: false))
        #expect(PhonePreset.matchSensorLogger(path: "Barometer.csv", headerLine: "time,seconds_elapsed,relativeAltitude,pressure")?.sensors == ["Barometer"])
        #expect(PhonePreset.matchSensorLogger(path: "Metadata.csv", headerLine: "version,device name,recording epoch time") == nil)
        #expect(PhonePreset.matchSensorLogger(path: "Gyroscope.csv", headerLine: "\"Time (s)\",\"Gyroscope x (rad/s)\"") == nil)
        #expect(PhonePreset.matchSensorLogger(path: "Gyro.csv", headerLine: "time,seconds_elapsed,z,y,x") == nil)
    }

    @Test func detectsPhyphox() {
        let comma = PhonePreset.matchPhyphox(path: "a/Linear Acceleration.csv",
                                             headerLine: #""Time (s)","Linear Acceleration x (m/s^2)","Linear Acceleration y (m/s^2)","Linear Acceleration z (m/s^2)""#)
        #expect(comma == PhonePreset.Match(app: .phyphox, sensors: ["Linear Acceleration"], delimiter: UInt8(ascii: ","), rawData: false))
        let raw = PhonePreset.matchPhyphox(path: "a/Raw Data.csv",
                                           headerLine: "\"Time (s)\"\t\"Gyroscope x (rad/s)\"\t\"Gyroscope y (rad/s)\"\t\"Gyroscope z (rad/s)\"\t\"Absolute (rad/s)\"\n")
        #expect(raw == PhonePreset.Match(app: .phyphox, sensors: ["Gyroscope"], delimiter: 0x09, rawData: true))
        #expect(PhonePreset.matchPhyphox(path: "Raw Data.csv", headerLine: #""Time (s)";"Magnetic Field x (µT)";"Magnetic Field y (µT)";"Magnetic Field z (µT)""#)?.sensors
                == ["Magnetometer"])
        #expect(PhonePreset.matchPhyphox(path: "Raw Data.csv", headerLine: #""Time (s)","Illuminance (lx)""#) == nil)
        #expect(PhonePreset.matchPhyphox(path: "Gyroscope.csv", headerLine: "time,seconds_elapsed,z,y,x") == nil)
    }

    @Test func detectsAndroSensor() {
        let header = "ACCELEROMETER X (m/s²);ACCELEROMETER Y (m/s²);ACCELEROMETER Z (m/s²);LIGHT (lux);Time since start in ms ;YYYY-MO-DD HH-MI-SS_SSS"
        #expect(PhonePreset.matchAndroSensor(path: "Sensor_record_20240501_080000_AndroSensor.csv", headerLine: header)
                == PhonePreset.Match(app: .androsensor, sensors: ["Accelerometer"], delimiter: UInt8(ascii: ";"), rawData: false))
        #expect(PhonePreset.matchAndroSensor(path: "a.csv", headerLine: "sep=;") == nil)
        #expect(PhonePreset.matchAndroSensor(path: "a.csv", headerLine: "LIGHT (lux);Time since start in ms ") == nil)
        #expect(PhonePreset.match(path: "x/Sensor_record_1.csv", headerLine: header)?.app == .androsensor)
        #expect(PhonePreset.match(path: "x/Accelerometer.csv", headerLine: "time,seconds_elapsed,z,y,x")?.app == .sensorlogger)
    }
}
