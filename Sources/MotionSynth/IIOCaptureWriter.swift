import MotionCore

/// Writes a raw IIO buffer capture (docs/inputs.md, "IIO buffer dumps (iio)", docs/iio-format.md §3.2 row 3 and §7.1): an
/// `lsm6dsx`-like accelerometer, 3 × `le:s16/16>>0` at scan indices 0–2 plus the soft timestamp
/// `le:s64/64>>0` at index 3, 100 Hz, scale 0.000598205 m/s² per count.
///
/// Scan (16 bytes, little-endian): x, y, z at 0, 2, 4; padding 6–7 filled with 0xA5 (so a
/// decoder that reads padding shows up); timestamp (ns, `monotonic` clock) at 8.
/// Values follow the IIO/Android sign convention — at rest the axis pointing up reads about
/// +9.81 m/s² — i.e. the negated Core Motion acceleration × 9.80665, then
/// `round(value / scale)` clamped to Int16.
enum IIOCaptureWriter {
    static let scale = 0.000598205
    static let scaleText = "0.000598205"
    static let scanBytes = 16
    static let paddingByte: UInt8 = 0xA5
    static let accelerometerNoiseMetersPerSecond2 = 0.01 * MotionModel.standardGravity
    /// Timestamp jitter: the driver interpolates FIFO batch times, so it is small.
    static let jitterSeconds = 0.0002

    /// The sysfs files written beside each subject's captures (relative path, content).
    static let sysfsFiles: [(String, String)] = [
        ("current_timestamp_clock", "monotonic\n"),
        ("in_accel_scale", scaleText + "\n"),
        ("name", "lsm6dsx\n"),
        ("sampling_frequency", "100\n"),
        ("scan_elements/in_accel_x_en", "1\n"),
        ("scan_elements/in_accel_x_index", "0\n"),
        ("scan_elements/in_accel_x_type", "le:s16/16>>0\n"),
        ("scan_elements/in_accel_y_en", "1\n"),
        ("scan_elements/in_accel_y_index", "1\n"),
        ("scan_elements/in_accel_y_type", "le:s16/16>>0\n"),
        ("scan_elements/in_accel_z_en", "1\n"),
        ("scan_elements/in_accel_z_index", "2\n"),
        ("scan_elements/in_accel_z_type", "le:s16/16>>0\n"),
        ("scan_elements/in_timestamp_en", "1\n"),
        ("scan_elements/in_timestamp_index", "3\n"),
        ("scan_elements/in_timestamp_type", "le:s64/64>>0\n"),
    ]

    /// The raw count for an acceleration in m/s².
    @inline(__always)
    static func counts(_ metersPerSecond2: Double) -> Int16 {
        let raw = (metersPerSecond2 / scale).rounded()
        return Int16(Swift.max(-32768, Swift.min(32767, raw)))
    }

    /// Nanoseconds since boot at the recording clock's zero: 20 min to 1 day of uptime.
    static func bootOffsetNanos(_ plan: RecordingPlan) -> Int64 {
        var rng = SeededGenerator(seed: plan.streamSeed, tags: 320)
        return Int64(rng.uniform(1_200, 86_400) * 1e9)
    }

    /// The scans of a recording, one at a time: (x, y, z counts, timestamp ns).
    struct Scans {
        private let model: MotionModel
        private var clock: SampleClock
        private var noise: SeededGenerator
        private let offset: Int64

        init(plan: RecordingPlan, options: SynthOptions) {
            model = MotionModel(plan: plan)
            clock = SampleClock(plan: plan, rateHz: 100, jitterSeconds: jitterSeconds,
                                dropFraction: options.dropFraction, stream: 20)
            noise = SeededGenerator(seed: plan.streamSeed, tags: 220)
            offset = bootOffsetNanos(plan)
        }

        mutating func next() -> (x: Int16, y: Int16, z: Int16, timestampNanos: Int64)? {
            guard let nanos = clock.next() else { return nil }
            let acceleration = -model.sample(at: Double(nanos) * 1e-9).acceleration * MotionModel.standardGravity
                + MotionCollectorWriter.gaussian3(&noise, accelerometerNoiseMetersPerSecond2)
            return (counts(acceleration.x), counts(acceleration.y), counts(acceleration.z), offset + nanos)
        }
    }

    /// Writes the capture to `path`; returns (bytes, scans).
    static func write(plan: RecordingPlan, options: SynthOptions, to path: String) throws(MotionError) -> (bytes: Int, rows: Int) {
        var file = try OutputFile(path: path)
        var scans = Scans(plan: plan, options: options)
        var rows = 0
        while let scan = scans.next() {
            file.appendRow(maxBytes: scanBytes) { out in
                for value in [scan.x, scan.y, scan.z] {
                    let bits = UInt16(bitPattern: value)
                    out.append(UInt8(truncatingIfNeeded: bits))
                    out.append(UInt8(truncatingIfNeeded: bits >> 8))
                }
                out.append(paddingByte)
                out.append(paddingByte)
                let time = UInt64(bitPattern: scan.timestampNanos)
                for shift in stride(from: 0, to: 64, by: 8) {
                    out.append(UInt8(truncatingIfNeeded: time >> UInt64(shift)))
                }
            }
            rows += 1
            try file.flushIfFull()
        }
        return (try file.finish(), rows)
    }
}
