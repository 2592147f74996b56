import MotionCore

/// Writes one MotionCollector CSV (docs/inputs.md, "MotionCollector"): sensors A, G (100 Hz), M (50 Hz) and D (100 Hz)
/// interleaved in time order, as the iOS app writes them.
///
/// Times are rounded to the microsecond and printed as `Double.description` prints them;
/// values with `appendFixed6`, or with `appendSignificant17` for `SynthPrecision.full`. Labels:
/// empty while standing before the first walk, then `W` / `T`. The legacy variant has numeric
/// sources (0 A, 1 D, 2 G, 3 M), no label column, and marker rows `4,<t>` / `5,<t>` at the start
/// of each walking / turning segment (also when that falls in an app pause).
enum MotionCollectorWriter {
    static let header: StaticString = "Source, Label, When, X, Y, Z, UA_X, UA_Y, UA_Z, Pitch, Roll, Yaw\n"
    static let legacyHeader: StaticString = "Type, When, X, Y, Z, UA_X, UA_Y, UA_Z, Pitch, Roll, Yaw\n"

    /// Sensors in tie-breaking order (rows with the same time are written in this order).
    enum Sensor: Int, CaseIterable {
        case accelerometer, gyroscope, magnetometer, deviceMotion

        var rateHz: Double { self == .magnetometer ? 50 : 100 }
        var code: UInt8 { [UInt8(ascii: "A"), UInt8(ascii: "G"), UInt8(ascii: "M"), UInt8(ascii: "D")][rawValue] }
        var legacyCode: UInt8 { [UInt8(ascii: "0"), UInt8(ascii: "2"), UInt8(ascii: "3"), UInt8(ascii: "1")][rawValue] }
    }

    /// Standard deviations of the sensor noise.
    static let accelerometerNoiseG = 0.01
    static let gyroscopeNoiseRadPerS = 0.01
    static let magnetometerNoiseMicroTesla = 0.4
    static let deviceMotionRateNoise = 0.002
    static let deviceMotionAccelerationNoiseG = 0.004
    /// Standard deviation of timestamp jitter.
    static let jitterSeconds = 0.0005

    /// Writes the recording to `path`; returns (bytes, data rows).
    static func write(plan: RecordingPlan, options: SynthOptions, to path: String) throws(MotionError) -> (bytes: Int, rows: Int) {
        let model = MotionModel(plan: plan)
        let profile = plan.profile
        let legacy = options.legacy
        let full = options.precision == .full
        let numberBytes = full ? maxSignificant17Bytes : maxNumberBytes
        var file = try OutputFile(path: path)
        file.append(legacy ? legacyHeader : header)

        var clocks = Sensor.allCases.map {
            SampleClock(plan: plan, rateHz: $0.rateHz, jitterSeconds: jitterSeconds,
                        dropFraction: options.dropFraction, stream: UInt64($0.rawValue))
        }
        var noise = Sensor.allCases.map { SeededGenerator(seed: plan.streamSeed, tags: 200 + UInt64($0.rawValue)) }
        // Next time of each sensor in microseconds; Int64.max when exhausted.
        var next = clocks.indices.map { microseconds(clocks[$0].next()) }
        // Legacy markers: (time µs, code) at each walking or turning segment's start.
        let markers: [(Int64, UInt8)] = legacy ? plan.segments.compactMap { segment in
            guard segment.start <= plan.endTime else { return nil }
            switch segment.activity {
            case .walking: return (Int64((segment.start * 1e6).rounded()), UInt8(ascii: "4"))
            case .turning: return (Int64((segment.start * 1e6).rounded()), UInt8(ascii: "5"))
            default: return nil
            }
        } : []
        var markerIndex = 0
        var rows = 0

        while true {
            var sensorIndex = 0
            for i in 1..<next.count where next[i] < next[sensorIndex] { sensorIndex = i }
            let micros = next[sensorIndex]
            if markerIndex < markers.count, markers[markerIndex].0 <= micros {
                let (markerMicros, code) = markers[markerIndex]
                markerIndex += 1
                file.appendRow(maxBytes: 8 + maxTimeBytes) { out in
                    out.append(code)
                    out.append(ascii: ",")
                    out.appendSeconds(micros: markerMicros)
                    out.append(ascii: "\n")
                }
                rows += 1
                continue
            }
            if micros == .max { break }
            next[sensorIndex] = microseconds(clocks[sensorIndex].next())

            let sensor = Sensor(rawValue: sensorIndex)!
            if let keep = options.sensors, !keep.contains(String(UnicodeScalar(sensor.code))) { continue }
            let motion = model.sample(at: Double(micros) / 1e6)
            // Values first (they draw noise), then the row in one go.
            var values = InlineArray<9, Double>(repeating: 0)
            switch sensor {
            case .accelerometer:
                let value = motion.acceleration + gaussian3(&noise[sensorIndex], accelerometerNoiseG)
                (values[0], values[1], values[2]) = (value.x, value.y, value.z)
            case .gyroscope:
                let value = motion.rotationRate + profile.gyroBias + gaussian3(&noise[sensorIndex], gyroscopeNoiseRadPerS)
                (values[0], values[1], values[2]) = (value.x, value.y, value.z)
            case .magnetometer:
                let value = model.magneticField(motion) + profile.magnetometerOffset
                    + gaussian3(&noise[sensorIndex], magnetometerNoiseMicroTesla)
                (values[0], values[1], values[2]) = (value.x, value.y, value.z)
            case .deviceMotion:
                let rate = motion.rotationRate + gaussian3(&noise[sensorIndex], deviceMotionRateNoise)
                let user = motion.userAcceleration + gaussian3(&noise[sensorIndex], deviceMotionAccelerationNoiseG)
                let angles = motion.attitude.eulerAngles
                (values[0], values[1], values[2]) = (rate.x, rate.y, rate.z)
                (values[3], values[4], values[5]) = (user.x, user.y, user.z)
                (values[6], values[7], values[8]) = (angles.pitch, angles.roll, angles.yaw)
            }
            let count = sensor == .deviceMotion ? 9 : 3
            file.appendRow(maxBytes: 8 + maxTimeBytes + 9 * (1 + numberBytes)) { out in
                if legacy {
                    out.append(sensor.legacyCode)
                } else {
                    out.append(sensor.code)
                    out.append(ascii: ",")
                    switch motion.activity {
                    case .walking: out.append(ascii: "W")
                    case .turning: out.append(ascii: "T")
                    case .standing, .stairs: break
                    }
                }
                out.append(ascii: ",")
                out.appendSeconds(micros: micros)
                for i in 0..<count {
                    out.append(ascii: ",")
                    if full {
                        out.appendSignificant17(values[i])
                    } else {
                        out.appendFixed6(values[i])
                    }
                }
                out.append(ascii: "\n")
            }
            rows += 1
            try file.flushIfFull()
        }
        return (try file.finish(), rows)
    }

    @inline(__always)
    static func microseconds(_ nanos: Int64?) -> Int64 {
        guard let nanos else { return .max }
        return (nanos + 500) / 1000
    }

    @inline(__always)
    static func gaussian3(_ rng: inout SeededGenerator, _ sigma: Double) -> SIMD3<Double> {
        SIMD3(rng.gaussian(sigma: sigma), rng.gaussian(sigma: sigma), rng.gaussian(sigma: sigma))
    }
}
