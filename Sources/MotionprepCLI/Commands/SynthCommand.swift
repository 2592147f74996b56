import Foundation
import MotionCore
import MotionSynth
import MotionOutput
import MotionJob

/// `motionprep synth --out DIR [--subjects N] [--minutes M] [--seed S] [--format …]`.
enum SynthCommand {
    static let help = """
        usage: motionprep synth --out DIR [--subjects N] [--minutes M] [--seed S] [--format motioncollector|csv|iio|sensorlogger|phyphox|androsensor|cwa|gt3x] [--legacy]
                               [--precision fixed6|full] [--cwa-device ax3-packed|ax3-unpacked|ax6] [--cwa-damaged-blocks N]
                               [--gt3x-record activity2|activity] [--gt3x-damaged-records N] [--gt3x-idle-seconds N]

        Writes realistic synthetic recordings, deterministic from the seed:
          motioncollector  DIR/subjectNN/rec-NN.csv, interleaved A/G/M/D rows at ~100 Hz with jitter,
                           dropped samples, rare gaps and W/T label segments (--legacy: the older variant
                           with numeric sources and marker rows)
          csv              phone-logger folders DIR/subjectNN/rec-NN/{Accelerometer,Barometer}.csv
          iio              raw IIO buffer dumps DIR/subjectNN/rec-NN.bin with a sysfs copy
          sensorlogger     Sensor Logger export folders DIR/subjectNN/rec-NN/{Accelerometer,Gyroscope,…}.csv
          phyphox          phyphox experiment exports DIR/subjectNN/rec-NN/{Accelerometer,Gyroscope,…}.csv + meta/
          androsensor      AndroSensor files DIR/subjectNN/Sensor_record_YYYYMMDD_HHMMSS_AndroSensor.csv
          cwa              Axivity CWA files DIR/subjectNN/rec-NN.cwa, 100 Hz, one device per subject
          gt3x             ActiGraph GT3X files DIR/subjectNN/rec-NN.gt3x, 30 Hz, one device per subject

        options:
          --subjects N   subjects (default 3)
          --minutes M    minutes per recording (default 2)
          --recordings R recordings per subject (default 2)
          --seed S       seed (default 1)
          --sensors A,G  motioncollector: write rows only for these sensors (default A,G,M,D)
          --precision P  motioncollector: fixed6 (default) writes values rounded to 6 decimals;
                         full writes them as phones do, 17 significant digits (%.17g)
          --cwa-device D cwa: ax3-packed (default; 10-bit packed), ax3-unpacked (16-bit) or ax6
                         (16-bit, with the gyroscope)
          --cwa-damaged-blocks N
                         cwa: N blocks per recording are followed by a damaged one: a failed
                         checksum, a repeated block, a block back in time, in turn (default 0)
          --gt3x-record R
                         gt3x: activity2 (default; int16, 256 LSB/g, a wGT3X-BT) or activity
                         (12-bit packed, 341 LSB/g, a GT3X+)
          --gt3x-damaged-records N
                         gt3x: N activity records per recording are followed by a damaged one: a
                         failed checksum, a repeated second, a second back in time, in turn (default 0)
          --gt3x-idle-seconds N
                         gt3x: N seconds of idle sleep mode in the middle of each recording (default 0)
        """

    static func run(_ args: [String]) throws -> ExitStatus {
        if args.contains("--help") || args.contains("-h") { try Diagnostics.stdout(help); return .success }
        let a = try ArgumentScanner(args, valueOptions: CommandCatalogue["synth"].valueOptions, flagOptions: CommandCatalogue["synth"].flagOptions, command: "synth")
        guard a.positionals.isEmpty else {
            throw UsageError(message: "`motionprep synth` takes no positional argument (got `\(a.positionals[0])`); give the folder with `--out DIR`")
        }
        guard let out = a.value("--out") else { throw UsageError(message: "`motionprep synth` needs `--out DIR`") }
        var options = SynthOptions(outDirectory: out)
        options.subjects = try a.int("--subjects", in: 1...10_000, command: "synth") ?? options.subjects
        options.recordingsPerSubject = try a.int("--recordings", in: 1...1000, command: "synth") ?? options.recordingsPerSubject
        if let m = a.value("--minutes") {
            guard let v = Double(m), v > 0, v <= 7 * 24 * 60 else {
                throw UsageError(message: "option `--minutes` of `motionprep synth` must be a number of minutes above 0 and at most 10080, not `\(m)`")
            }
            options.minutes = v
        }
        if let s = a.value("--seed") {
            guard let v = UInt64(s) else { throw UsageError(message: "option `--seed` of `motionprep synth` must be a non-negative whole number, not `\(s)`") }
            options.seed = v
        }
        if let f = a.value("--format") {
            guard let v = SynthFormat(rawValue: f) else {
                throw UsageError(message: "option `--format` of `motionprep synth` must be \(Text.alternatives(SynthFormat.allCases.map(\.rawValue))), not `\(f)`")
            }
            options.format = v
        }
        options.legacy = a.flag("--legacy")
        if let list = a.value("--sensors") {
            let codes = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard !codes.isEmpty, codes.allSatisfy({ ["A", "G", "M", "D"].contains($0) }) else {
                throw UsageError(message: "option `--sensors` of `motionprep synth` must list MotionCollector sensors from A, G, M, D separated by commas (e.g. `A,G`), not `\(list)`")
            }
            options.sensors = Set(codes)
        }
        if let p = a.value("--precision") {
            guard let v = SynthPrecision(rawValue: p) else {
                throw UsageError(message: "option `--precision` of `motionprep synth` must be \(Text.alternatives(SynthPrecision.allCases.map(\.rawValue))), not `\(p)`")
            }
            options.precision = v
        }
        if let d = a.value("--cwa-device") {
            guard let v = SynthCWADevice(rawValue: d) else {
                throw UsageError(message: "option `--cwa-device` of `motionprep synth` must be \(Text.alternatives(SynthCWADevice.allCases.map(\.rawValue))), not `\(d)`")
            }
            options.cwaDevice = v
        }
        options.cwaDamagedBlocks = try a.int("--cwa-damaged-blocks", in: 0...1_000_000, command: "synth") ?? 0
        if let r = a.value("--gt3x-record") {
            guard let v = SynthGT3XRecord(rawValue: r) else {
                throw UsageError(message: "option `--gt3x-record` of `motionprep synth` must be \(Text.alternatives(SynthGT3XRecord.allCases.map(\.rawValue))), not `\(r)`")
            }
            options.gt3xRecord = v
        }
        options.gt3xDamagedRecords = try a.int("--gt3x-damaged-records", in: 0...1_000_000, command: "synth") ?? 0
        options.gt3xIdleSeconds = try a.int("--gt3x-idle-seconds", in: 0...1_000_000, command: "synth") ?? 0
        // docs/hardening.md, "One output policy": the folder is new, empty, or an earlier synth's
        // output whose every file is unchanged (listed in .motionprep-synth), never the user's.
        let folder = OwnedFolder(directory: out.isEmpty ? "." : out, marker: ".motionprep-synth", writer: "`motionprep synth`")
        try folder.prepare()
        defer { try? folder.seal() }
        let summary = try Synth.write(options)
        Diagnostics.stderr("wrote \(summary.files.count) file(s), \(summary.rows) rows, \(summary.bytes) bytes to \(out)")
        return .success
    }
}
