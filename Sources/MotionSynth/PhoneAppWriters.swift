import Foundation
import MotionCore

/// Writes recordings the way three phone apps export them (docs/inputs.md, "Phone-logger
/// presets"), driven by the motion model, with the values in each app's units and axes in
/// Android's convention (a phone lying face up reads +9.81 m/s² on z):
///
/// - Sensor Logger: a folder with `Accelerometer.csv` (without gravity), `Gravity.csv`,
///   `TotalAcceleration.csv`, `Gyroscope.csv`, `Magnetometer.csv`, `Orientation.csv`,
///   `Barometer.csv`, `Annotation.csv` and `Metadata.csv`; `time` in epoch nanoseconds,
///   `seconds_elapsed` in seconds, axis files in the app's `z,y,x` column order; m/s², rad/s, µT, hPa.
/// - phyphox: a multi-sensor experiment export (CSV, comma, decimal point): `Accelerometer.csv`,
///   `Linear Acceleration.csv`, `Gyroscope.csv`, `Magnetometer.csv`, `Pressure.csv` with quoted
///   headers and numbers as Java's `0.000000000E0` writes them, plus `meta/device.csv` and `meta/time.csv`.
/// - AndroSensor: one file `Sensor_record_YYYYMMDD_HHMMSS_AndroSensor.csv`: `sep=;`, then all
///   sensors in one semicolon-separated row every 20 ms, `Time since start in ms ` and the
///   wall-clock `YYYY-MO-DD HH-MI-SS_SSS` (UTC).
enum PhoneAppWriter {
    static let g = 9.80665
    /// The recordings' wall clock: 2024-05-01T08:00:00Z, plus a day per subject and an hour per recording.
    static func startEpochSeconds(subject: Int, recording: Int) -> Int64 {
        1_714_550_400 + Int64(subject - 1) * 86_400 + Int64(recording - 1) * 3_600
    }
    /// Pressure change with height near sea level, hPa per metre.
    static let hectopascalsPerMeter = -0.12

    /// Sensor readings at one instant, Android axes, SI units (hPa for pressure).
    struct Reading {
        var total: SIMD3<Double>, gravity: SIMD3<Double>, linear: SIMD3<Double>
        var rotationRate: SIMD3<Double>, magnetic: SIMD3<Double>
        var attitude: Rotation
        var altitude: Double
        var activity: RecordingPlan.Segment.Activity
    }

    /// Noise-free readings at `seconds` on the recording clock.
    static func reading(_ model: MotionModel, at seconds: Double) -> Reading {
        let s = model.sample(at: seconds)
        // Core Motion reports −(kinematic acceleration) and gravity pointing down; Android the opposite.
        return Reading(total: -s.acceleration * g, gravity: -s.gravity * g, linear: -s.userAcceleration * g,
                       rotationRate: s.rotationRate, magnetic: model.magneticField(s), attitude: s.attitude,
                       altitude: s.altitude, activity: s.activity)
    }

    /// The shortest text that reads back as `value` (`Double.description`, `-0.0` written `0.0`).
    static func number(_ value: Double) -> String {
        value == 0 ? "0.0" : "\(value)"
    }

    // MARK: - Sensor Logger

    static func writeSensorLogger(plan: RecordingPlan, options: SynthOptions, subject: Int, recording: Int,
                                  to directory: String) throws(MotionError) -> (bytes: Int, rows: Int) {
        let model = MotionModel(plan: plan)
        let epochNanos = startEpochSeconds(subject: subject, recording: recording) * 1_000_000_000
        var bytes = 0, rows = 0
        // (file, stream tag, rate, noise, header, value columns of a reading)
        let axes = "time,seconds_elapsed,z,y,x\n"
        let files: [(String, UInt64, Double, Double, String, (Reading, inout SeededGenerator, Double) -> [Double])] = [
            ("Accelerometer.csv", 20, 100, 0.05, axes, { r, n, s in zyx(r.linear + MotionCollectorWriter.gaussian3(&n, s)) }),
            ("Gravity.csv", 21, 100, 0.002, axes, { r, n, s in zyx(r.gravity + MotionCollectorWriter.gaussian3(&n, s)) }),
            ("TotalAcceleration.csv", 22, 100, 0.05, axes, { r, n, s in zyx(r.total + MotionCollectorWriter.gaussian3(&n, s)) }),
            ("Gyroscope.csv", 23, 100, 0.01, axes, { r, n, s in zyx(r.rotationRate + MotionCollectorWriter.gaussian3(&n, s)) }),
            ("Magnetometer.csv", 24, 100, 0.4, axes, { r, n, s in zyx(r.magnetic + MotionCollectorWriter.gaussian3(&n, s)) }),
            ("Orientation.csv", 25, 100, 0, "time,seconds_elapsed,qz,qy,qx,qw,roll,pitch,yaw\n", { r, _, _ in
                let q = quaternion(r.attitude)
                let e = r.attitude.eulerAngles
                return [q.z, q.y, q.x, q.w, e.roll, e.pitch, e.yaw]
            }),
        ]
        for (name, tag, rate, sigma, header, values) in files {
            var file = try OutputFile(path: directory + "/" + name)
            file.append(header)
            var clock = SampleClock(plan: plan, rateHz: rate, jitterSeconds: 0.0005, dropFraction: options.dropFraction, stream: tag)
            var noise = SeededGenerator(seed: plan.streamSeed, tags: 200 + tag)
            while let nanos = clock.next() {
                let r = reading(model, at: Double(nanos) / 1e9)
                var line = "\(epochNanos + nanos),\(number(Double(nanos) / 1e9))"
                for v in values(r, &noise, sigma) { line += "," + number(v) }
                file.append(line + "\n")
                rows += 1
                try file.flushIfFull()
            }
            bytes += try file.finish()
        }

        // Barometer: about 1 Hz, `relativeAltitude` from the measured pressure as phones derive it.
        var barometer = try OutputFile(path: directory + "/Barometer.csv")
        barometer.append("time,seconds_elapsed,relativeAltitude,pressure\n")
        var clock = SampleClock(plan: plan, rateHz: 1, jitterSeconds: 0.004, dropFraction: options.dropFraction, stream: 26)
        var noise = SeededGenerator(seed: plan.streamSeed, tags: 226)
        let seaLevel = 1013.25 + noise.uniform(-12, 12)
        var reference: Double?
        while let nanos = clock.next() {
            let r = reading(model, at: Double(nanos) / 1e9)
            let pressure = seaLevel + hectopascalsPerMeter * r.altitude + noise.gaussian(sigma: 0.006)
            let start = reference ?? pressure
            reference = start
            barometer.append("\(epochNanos + nanos),\(number(Double(nanos) / 1e9)),\(number((pressure - start) / hectopascalsPerMeter)),\(number(pressure))\n")
            rows += 1
        }
        bytes += try barometer.finish()

        // Annotations: one per activity change, the activity as its text (not read by the preset).
        var annotation = "time,seconds_elapsed,text,millisecond_press_duration\n"
        for segment in plan.segments where segment.start > plan.startTime && segment.start < plan.endTime {
            let nanos = Int64((segment.start * 1e9).rounded())
            annotation += "\(epochNanos + nanos),\(number(Double(nanos) / 1e9)),\(activityName(segment.activity)),120\n"
        }
        rows += annotation.utf8.filter { $0 == 0x0A }.count - 1
        bytes += try OutputFile.writeSmall(annotation, to: directory + "/Annotation.csv")
        let start = startEpochSeconds(subject: subject, recording: recording)
        let metadata = "version,device name,recording epoch time,recording time,recording timezone,platform,appVersion,device id,sensors,sampleRateMs,standardisation,platform version\n"
            + "3,motionprep synth,\(start * 1_000_000_000),\(civil(start, dateSeparator: "-", between: "_", timeSeparator: "-")),UTC,android,1.40.0,synth-\(subject)-\(recording),"
            + "Accelerometer|Gravity|TotalAcceleration|Gyroscope|Magnetometer|Orientation|Barometer|Annotation,10|10|10|10|10|10|1000|0,false,34\n"
        rows += 1
        bytes += try OutputFile.writeSmall(metadata, to: directory + "/Metadata.csv")
        return (bytes, rows)
    }

    static func zyx(_ v: SIMD3<Double>) -> [Double] { [v.z, v.y, v.x] }

    static func activityName(_ activity: RecordingPlan.Segment.Activity) -> String {
        switch activity {
        case .walking, .turning: return "walk"
        case .stairs: return "stairs"
        case .standing: return "stand"
        }
    }

    /// The unit quaternion of a rotation matrix (Shepperd's method), w ≥ 0.
    static func quaternion(_ r: Rotation) -> (w: Double, x: Double, y: Double, z: Double) {
        let m00 = r.r0.x, m01 = r.r0.y, m02 = r.r0.z
        let m10 = r.r1.x, m11 = r.r1.y, m12 = r.r1.z
        let m20 = r.r2.x, m21 = r.r2.y, m22 = r.r2.z
        let trace = m00 + m11 + m22
        var q: (w: Double, x: Double, y: Double, z: Double)
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            q = (0.25 * s, (m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s)
        } else if m00 > m11 && m00 > m22 {
            let s = (1 + m00 - m11 - m22).squareRoot() * 2
            q = ((m21 - m12) / s, 0.25 * s, (m01 + m10) / s, (m02 + m20) / s)
        } else if m11 > m22 {
            let s = (1 + m11 - m00 - m22).squareRoot() * 2
            q = ((m02 - m20) / s, (m01 + m10) / s, 0.25 * s, (m12 + m21) / s)
        } else {
            let s = (1 + m22 - m00 - m11).squareRoot() * 2
            q = ((m10 - m01) / s, (m02 + m20) / s, (m12 + m21) / s, 0.25 * s)
        }
        return q.w < 0 ? (-q.w, -q.x, -q.y, -q.z) : q
    }

    // MARK: - phyphox

    /// `value` as Java's `DecimalFormat("0.000000000E0")` writes it (phyphox-android, DataExport):
    /// one digit, nine decimals, `E`, the exponent without `+` or leading zeros.
    static func javaScientific(_ value: Double) -> String {
        let text = String(format: "%.9E", value)  // -1.234567890E-02
        guard let e = text.firstIndex(of: "E"), let exponent = Int(text[text.index(after: e)...]) else { return text }
        let mantissa = text[..<e] == "-0.000000000" ? "0.000000000" : text[..<e]
        return "\(mantissa)E\(exponent)"
    }

    static func writePhyphox(plan: RecordingPlan, options: SynthOptions, subject: Int, recording: Int,
                             to directory: String) throws(MotionError) -> (bytes: Int, rows: Int) {
        let model = MotionModel(plan: plan)
        var bytes = 0, rows = 0
        let sets: [(String, [String], UInt64, Double, Double, (Reading, inout SeededGenerator, Double) -> [Double])] = [
            ("Accelerometer", ["Acceleration x (m/s^2)", "Acceleration y (m/s^2)", "Acceleration z (m/s^2)"], 30, 200, 0.05,
             { r, n, s in array(r.total + MotionCollectorWriter.gaussian3(&n, s)) }),
            ("Linear Acceleration", ["Linear Acceleration x (m/s^2)", "Linear Acceleration y (m/s^2)", "Linear Acceleration z (m/s^2)"],
             31, 200, 0.05, { r, n, s in array(r.linear + MotionCollectorWriter.gaussian3(&n, s)) }),
            ("Gyroscope", ["Gyroscope x (rad/s)", "Gyroscope y (rad/s)", "Gyroscope z (rad/s)"], 32, 200, 0.01,
             { r, n, s in array(r.rotationRate + MotionCollectorWriter.gaussian3(&n, s)) }),
            ("Magnetometer", ["Magnetic field x (µT)", "Magnetic field y (µT)", "Magnetic field z (µT)"], 33, 50, 0.4,
             { r, n, s in array(r.magnetic + MotionCollectorWriter.gaussian3(&n, s)) }),
        ]
        for (name, columns, tag, rate, sigma, values) in sets {
            var file = try OutputFile(path: directory + "/" + name + ".csv")
            file.append((["Time (s)"] + columns).map { "\"\($0)\"" }.joined(separator: ",") + "\n")
            var clock = SampleClock(plan: plan, rateHz: rate, jitterSeconds: 0.0002, dropFraction: options.dropFraction, stream: tag)
            var noise = SeededGenerator(seed: plan.streamSeed, tags: 200 + tag)
            while let nanos = clock.next() {
                let seconds = Double(nanos) / 1e9
                let line = ([seconds] + values(reading(model, at: seconds), &noise, sigma)).map(javaScientific).joined(separator: ",")
                file.append(line + "\n")
                rows += 1
                try file.flushIfFull()
            }
            bytes += try file.finish()
        }
        var pressure = try OutputFile(path: directory + "/Pressure.csv")
        pressure.append("\"Time (s)\",\"Pressure (hPa)\"\n")
        var clock = SampleClock(plan: plan, rateHz: 5, jitterSeconds: 0.002, dropFraction: options.dropFraction, stream: 34)
        var noise = SeededGenerator(seed: plan.streamSeed, tags: 234)
        let seaLevel = 1013.25 + noise.uniform(-12, 12)
        while let nanos = clock.next() {
            let seconds = Double(nanos) / 1e9
            let p = seaLevel + hectopascalsPerMeter * reading(model, at: seconds).altitude + noise.gaussian(sigma: 0.006)
            pressure.append(javaScientific(seconds) + "," + javaScientific(p) + "\n")
            rows += 1
        }
        bytes += try pressure.finish()

        try Synth.makeDirectory(directory + "/meta")
        let start = startEpochSeconds(subject: subject, recording: recording)
        rows += 10 + 2  // the lines after the headers of meta/device.csv and meta/time.csv
        bytes += try OutputFile.writeSmall("\"property\",\"value\"\n\"version\",\"1.2.0\"\n\"build\",\"1020009\"\n\"fileFormat\",\"1.19\"\n"
            + "\"deviceModel\",\"motionprep synth\"\n\"deviceBrand\",\"synth\"\n\"deviceBoard\",\"\"\n\"deviceManufacturer\",\"motionprep\"\n"
            + "\"deviceBaseOS\",\"\"\n\"deviceCodename\",\"\"\n\"deviceRelease\",\"14\"\n", to: directory + "/meta/device.csv")
        let end = plan.endTime
        bytes += try OutputFile.writeSmall("\"event\",\"experiment time\",\"system time\",\"system time text\"\n"
            + "\"START\",\(javaScientific(0)),\(start).000,\"\(civil(start, dateSeparator: "-", between: " ", timeSeparator: ":")).000 UTC+00:00\"\n"
            + "\"PAUSE\",\(javaScientific(end)),\(String(format: "%.3f", Double(start) + end)),"
            + "\"\(civil(start + Int64(end), dateSeparator: "-", between: " ", timeSeparator: ":")).\(String(format: "%03d", Int((end - end.rounded(.down)) * 1000))) UTC+00:00\"\n",
            to: directory + "/meta/time.csv")
        return (bytes, rows)
    }

    static func array(_ v: SIMD3<Double>) -> [Double] { [v.x, v.y, v.z] }

    // MARK: - AndroSensor

    /// The file name AndroSensor gives a recording started at `epochSeconds` (its local time; UTC here).
    static func androSensorName(subject: Int, recording: Int) -> String {
        let start = startEpochSeconds(subject: subject, recording: recording)
        let c = civil(start, dateSeparator: "", between: "_", timeSeparator: "")
        return "Sensor_record_\(c)_AndroSensor.csv"
    }

    static let androSensorHeader = "ACCELEROMETER X (m/s²);ACCELEROMETER Y (m/s²);ACCELEROMETER Z (m/s²);"
        + "GRAVITY X (m/s²);GRAVITY Y (m/s²);GRAVITY Z (m/s²);"
        + "LINEAR ACCELERATION X (m/s²);LINEAR ACCELERATION Y (m/s²);LINEAR ACCELERATION Z (m/s²);"
        + "GYROSCOPE X (rad/s);GYROSCOPE Y (rad/s);GYROSCOPE Z (rad/s);LIGHT (lux);"
        + "MAGNETIC FIELD X (\u{03BC}T);MAGNETIC FIELD Y (\u{03BC}T);MAGNETIC FIELD Z (\u{03BC}T);"
        + "ATMOSPHERIC PRESSURE (hPa);SOUND LEVEL (dB);"
        + "LOCATION Latitude : ;LOCATION Longitude : ;LOCATION Altitude ( m);LOCATION Speed ( Kmh);LOCATION Accuracy ( m);"
        + "Satellites in range;Time since start in ms ;YYYY-MO-DD HH-MI-SS_SSS"

    /// `value` with at most 4 decimals, trailing zeros and a bare point dropped (`-0.0` as `0`).
    static func androNumber(_ value: Double) -> String {
        var text = String(format: "%.4f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text == "-0" ? "0" : text
    }

    static func writeAndroSensor(plan: RecordingPlan, options: SynthOptions, subject: Int, recording: Int,
                                 to path: String) throws(MotionError) -> (bytes: Int, rows: Int) {
        let model = MotionModel(plan: plan)
        var file = try OutputFile(path: path)
        file.append("sep=;\n" + androSensorHeader + "\n")
        var clock = SampleClock(plan: plan, rateHz: 50, jitterSeconds: 0.001, dropFraction: options.dropFraction, stream: 40)
        var noise = SeededGenerator(seed: plan.streamSeed, tags: 240)
        let seaLevel = 1013.25 + noise.uniform(-12, 12)
        let start = startEpochSeconds(subject: subject, recording: recording)
        var rows = 0
        var lastMillis: Int64 = -1
        while let nanos = clock.next() {
            let millis = (nanos + 500_000) / 1_000_000
            if millis <= lastMillis { continue }
            lastMillis = millis
            let r = reading(model, at: Double(millis) / 1e3)
            let n = { (s: Double) in MotionCollectorWriter.gaussian3(&noise, s) }
            let gravity = r.gravity + n(0.002)
            let linear = r.linear + n(0.05)
            let values = array(gravity + linear) + array(gravity) + array(linear) + array(r.rotationRate + n(0.01))
                + [120 + noise.gaussian(sigma: 5)] + array(r.magnetic + n(0.4))
                + [seaLevel + hectopascalsPerMeter * r.altitude + noise.gaussian(sigma: 0.006), 40 + noise.gaussian(sigma: 2)]
            let wall = start * 1000 + millis
            let date = civil(wall / 1000, dateSeparator: "-", between: " ", timeSeparator: ":") + ":" + String(format: "%03d", Int(wall % 1000))
            file.append(values.map(androNumber).joined(separator: ";")
                + ";50.7753;6.0839;212.4;0;8;0 / 0;\(millis);\(date)\n")
            rows += 1
            try file.flushIfFull()
        }
        return (try file.finish(), rows)
    }

    // MARK: - Calendar

    /// UTC civil time of `epochSeconds` as `YYYY{d}MM{d}DD{between}HH{t}MM{t}SS` (proleptic Gregorian).
    static func civil(_ epochSeconds: Int64, dateSeparator d: String, between: String, timeSeparator t: String) -> String {
        CivilTime(epochSeconds: epochSeconds).text(dateSeparator: d, between: between, timeSeparator: t)
    }
}
