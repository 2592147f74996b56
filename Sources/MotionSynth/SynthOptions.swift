/// The file format `motionprep synth` writes (docs/commands.md; docs/inputs.md).
public enum SynthFormat: String, Sendable, CaseIterable {
    /// MotionCollector CSV (docs/inputs.md, "MotionCollector"): `subjectNN/rec-NN.csv`, sensors A, G, M, D interleaved.
    case motioncollector
    /// Phone-logger CSV (docs/inputs.md, "Delimited text (csv)", wide): `subjectNN/rec-NN/Accelerometer.csv` (100 Hz, g)
    /// and `Barometer.csv` (1 Hz, kPa and m), activities `walk` and `stairs`.
    case csv
    /// Raw IIO buffer capture (docs/inputs.md, "IIO buffer dumps (iio)"): `subjectNN/rec-NN.bin`, 3 × `le:s16` accelerometer
    /// plus an s64 timestamp per 16-byte scan, with the layout in `subjectNN/sysfs/`.
    case iio
    /// Sensor Logger export folders (docs/inputs.md, "Phone-logger presets"): `subjectNN/rec-NN/Accelerometer.csv`,
    /// `Gravity.csv`, `TotalAcceleration.csv`, `Gyroscope.csv`, `Magnetometer.csv`, `Orientation.csv`,
    /// `Barometer.csv`, `Annotation.csv`, `Metadata.csv`.
    case sensorlogger
    /// phyphox multi-sensor experiment exports (CSV, comma, decimal point): `subjectNN/rec-NN/Accelerometer.csv`,
    /// `Linear Acceleration.csv`, `Gyroscope.csv`, `Magnetometer.csv`, `Pressure.csv`, `meta/device.csv`, `meta/time.csv`.
    case phyphox
    /// AndroSensor files: `subjectNN/Sensor_record_YYYYMMDD_HHMMSS_AndroSensor.csv`, `sep=;` and one row of all sensors every 20 ms.
    case androsensor
    /// Axivity CWA files (docs/inputs.md, "Axivity CWA (cwa)"): `subjectNN/rec-NN.cwa`, 100 Hz, the device of `cwaDevice`.
    case cwa
    /// ActiGraph GT3X files (docs/inputs.md, "ActiGraph GT3X (gt3x)"): `subjectNN/rec-NN.gt3x`, 30 Hz, the records of `gt3xRecord`.
    case gt3x
}

/// The activity record type `motionprep synth --format gt3x` writes.
public enum SynthGT3XRecord: String, Sendable, CaseIterable {
    /// ACTIVITY2 (0x1A): int16 x, y, z at 256 LSB/g, a wGT3X-BT (serial MOS…).
    case activity2
    /// ACTIVITY (0x00): 12-bit y, x, z packed, 341 LSB/g, a GT3X+ (serial NEO…).
    case activity
}

/// The device and sample packing `motionprep synth --format cwa` writes.
public enum SynthCWADevice: String, Sendable, CaseIterable {
    /// AX3, 10-bit values with an exponent packed in 32 bits, 120 samples per block.
    case ax3Packed = "ax3-packed"
    /// AX3, three int16 per sample, 80 samples per block.
    case ax3Unpacked = "ax3-unpacked"
    /// AX6 with the gyroscope: six int16 per sample (gyro, then acc), 40 samples per block.
    case ax6
}

/// How `motionprep synth` writes MotionCollector sensor values (docs/commands.md, "synth").
public enum SynthPrecision: String, Sendable, CaseIterable {
    /// Rounded to 6 decimals, trailing zeros dropped (`-0.012346`, `1.0`, `0.0`): the default,
    /// and the bytes synth has always written.
    case fixed6
    /// Full float64 precision, as phone apps write doubles: C's `%.17g`, the value correctly
    /// rounded to 17 significant digits with trailing zeros dropped, not the shortest round-trip
    /// form (`-0.10893726348876953`, `9.8066501617431641` where the shortest is
    /// `9.806650161743164`; `45.200000000000003`; below 10⁻⁴ with an exponent,
    /// `3.1999999999999999e-05`; zero as `0` or `-0`). Nearly every synthetic value takes all 17
    /// digits. Every value reads back (with a correctly rounded parser) to exactly the double the
    /// model computed.
    case full
}

/// What `Synth.write` generates. Everything follows from these values: the same options give
/// byte-identical files.
public struct SynthOptions: Sendable {
    /// Folder to write into; created (with parents) when missing. Existing files of the same
    /// names are replaced, other files are left alone.
    public var outDirectory: String
    /// Number of subjects (`subject01`, `subject02`, …), at least 1. Each subject has its own
    /// cadence, gait amplitudes and phone orientation.
    public var subjects: Int = 3
    /// Length of each recording in minutes (> 0). Sample times run from a small start offset
    /// (about 0.01–0.03 s) to `minutes × 60` seconds.
    public var minutes: Double = 2
    /// Seed of every random choice.
    public var seed: UInt64 = 1
    /// File format.
    public var format: SynthFormat = .motioncollector
    /// Recordings per subject (`rec-01`, `rec-02`, …), at least 1.
    public var recordingsPerSubject: Int = 2
    /// MotionCollector only: write the older variant (header `Type, When, …`, numeric sources
    /// 0 A, 1 D, 2 G, 3 M, no label column, marker rows `4,<time>` when walking starts and
    /// `5,<time>` when turning starts).
    public var legacy: Bool = false
    /// Mean number of app pauses (0.3–1.5 s without any sample, all sensors) per minute of
    /// recording; 0 for none. They are spread out, not clustered: with spacing s = 60 /
    /// `gapsPerMinute` seconds, the first comes 5 s + [0, s) into a recording and later ones
    /// [0.5 s, 1.5 s) apart (by default 5–125 s, then 60–180 s apart).
    public var gapsPerMinute: Double = 0.5
    /// Fraction of samples silently dropped, per sensor, independently (0 ≤ p < 1).
    public var dropFraction: Double = 0.005
    /// MotionCollector only: the sensors to write rows for (the app lets users switch sensors
    /// off); nil writes A, G, M and D. Leaving a sensor out changes no other sensor's values.
    public var sensors: Set<String>? = nil
    /// MotionCollector only: how sensor values are written (`When` is unaffected: times are
    /// always microseconds written as `Double.description`). `.full` rows are about twice as long.
    public var precision: SynthPrecision = .fixed6
    /// cwa only: the device and packing.
    public var cwaDevice: SynthCWADevice = .ax3Packed
    /// cwa only: blocks per recording followed by a damaged block (a failed checksum, a repeated
    /// block, a block back in time, in turn); 0 for none.
    public var cwaDamagedBlocks: Int = 0
    /// gt3x only: the activity record type (and device).
    public var gt3xRecord: SynthGT3XRecord = .activity2
    /// gt3x only: activity records per recording followed by a damaged record (a failed
    /// checksum, a repeated second, a second back in time, in turn); 0 for none.
    public var gt3xDamagedRecords: Int = 0
    /// gt3x only: seconds of idle sleep mode in the middle of each recording; 0 for none.
    public var gt3xIdleSeconds: Int = 0

    /// Creates options; only the output folder is required.
    public init(outDirectory: String, subjects: Int = 3, minutes: Double = 2, seed: UInt64 = 1,
                format: SynthFormat = .motioncollector, recordingsPerSubject: Int = 2,
                legacy: Bool = false, gapsPerMinute: Double = 0.5, dropFraction: Double = 0.005) {
        self.outDirectory = outDirectory
        self.subjects = subjects
        self.minutes = minutes
        self.seed = seed
        self.format = format
        self.recordingsPerSubject = recordingsPerSubject
        self.legacy = legacy
        self.gapsPerMinute = gapsPerMinute
        self.dropFraction = dropFraction
    }
}

/// What `Synth.write` wrote.
public struct SynthSummary: Sendable, Equatable {
    /// Every file written, relative to `outDirectory` with `/` separators, sorted by UTF-8 bytes
    /// (sysfs layout files included for `iio`).
    public var files: [String]
    /// Total size of those files in bytes.
    public var bytes: Int
    /// Data rows written: CSV lines after the header (MotionCollector marker rows included,
    /// both phone-logger files counted; for the phone-app formats every CSV file's, metadata
    /// files included, and AndroSensor's after its `sep=;` line and header) or IIO scans.
    public var rows: Int

    public init(files: [String], bytes: Int, rows: Int) {
        self.files = files
        self.bytes = bytes
        self.rows = rows
    }
}
