import MotionCore

/// Writes one phone-logger recording (docs/inputs.md, "Delimited text (csv)", wide CSV, one folder per recording):
/// `Accelerometer.csv` (`time,x,y,z,activity`, 100 Hz, g) and `Barometer.csv`
/// (`time,pressure,relative_altitude,activity`, 1 Hz, kPa and m), on one clock.
///
/// Activities are `walk` and `stairs` (empty while standing at the start). On stairs each step
/// rises or falls 0.17 m and the pressure follows at −0.012 kPa/m; `relative_altitude` is
/// derived from the measured pressure, as phones do, and is 0 at the first barometer sample.
enum PhoneLoggerWriter {
    static let accelerometerHeader: StaticString = "time,x,y,z,activity\n"
    static let barometerHeader: StaticString = "time,pressure,relative_altitude,activity\n"
    /// Pressure change with height near sea level, kPa per metre.
    static let kilopascalsPerMeter = -0.012
    static let pressureNoiseKilopascals = 0.0006
    static let accelerometerNoiseG = 0.01

    /// Writes both files into the folder `directory` (which must exist); returns (bytes, rows).
    static func write(plan: RecordingPlan, options: SynthOptions, to directory: String) throws(MotionError) -> (bytes: Int, rows: Int) {
        let model = MotionModel(plan: plan)
        var bytes = 0, rows = 0

        var accelerometer = try OutputFile(path: directory + "/Accelerometer.csv")
        accelerometer.append(accelerometerHeader)
        var clock = SampleClock(plan: plan, rateHz: 100, jitterSeconds: 0.0005,
                                dropFraction: options.dropFraction, stream: 10)
        var noise = SeededGenerator(seed: plan.streamSeed, tags: 210)
        while let nanos = clock.next() {
            let micros = MotionCollectorWriter.microseconds(nanos)
            let motion = model.sample(at: Double(micros) / 1e6)
            let value = motion.acceleration + MotionCollectorWriter.gaussian3(&noise, accelerometerNoiseG)
            accelerometer.appendRow(maxBytes: 16 + maxTimeBytes + 3 * (1 + maxNumberBytes)) { out in
                out.appendSeconds(micros: micros)
                out.appendVector(value)
                out.appendActivity(motion.activity)
            }
            rows += 1
            try accelerometer.flushIfFull()
        }
        bytes += try accelerometer.finish()

        var barometer = try OutputFile(path: directory + "/Barometer.csv")
        barometer.append(barometerHeader)
        clock = SampleClock(plan: plan, rateHz: 1, jitterSeconds: 0.004,
                            dropFraction: options.dropFraction, stream: 11)
        noise = SeededGenerator(seed: plan.streamSeed, tags: 211)
        let seaLevel = 101.325 + noise.uniform(-1.2, 1.2)
        var reference: Double?
        while let nanos = clock.next() {
            let micros = MotionCollectorWriter.microseconds(nanos)
            let motion = model.sample(at: Double(micros) / 1e6)
            let pressure = OutputFile.fixed6(seaLevel + kilopascalsPerMeter * motion.altitude
                                             + noise.gaussian(sigma: pressureNoiseKilopascals))
            let start = reference ?? pressure
            reference = start
            barometer.appendRow(maxBytes: 16 + maxTimeBytes + 2 * (1 + maxNumberBytes)) { out in
                out.appendSeconds(micros: micros)
                out.append(ascii: ",")
                out.appendFixed6(pressure)
                out.append(ascii: ",")
                out.appendFixed6((pressure - start) / kilopascalsPerMeter)
                out.appendActivity(motion.activity)
            }
            rows += 1
        }
        bytes += try barometer.finish()
        return (bytes, rows)
    }
}

extension OutputSpan<UInt8> {
    /// Appends `,activity\n` (an empty activity while standing).
    fileprivate mutating func appendActivity(_ activity: RecordingPlan.Segment.Activity) {
        switch activity {
        case .walking, .turning: append(",walk\n")
        case .stairs: append(",stairs\n")
        case .standing: append(",\n")
        }
    }
}
