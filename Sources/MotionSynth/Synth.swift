#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import MotionCore
import Synchronization

/// `motionprep synth`: realistic synthetic recordings for demos, tests and benchmarks.
public enum Synth {
    /// Writes `options.subjects × options.recordingsPerSubject` recordings into
    /// `options.outDirectory`, creating folders as needed.
    ///
    /// Layout (`NN` is 1-based, at least two digits):
    /// - `motioncollector`: `subjectNN/rec-NN.csv`
    /// - `csv`: `subjectNN/rec-NN/Accelerometer.csv` and `subjectNN/rec-NN/Barometer.csv`
    /// - `iio`: `subjectNN/rec-NN.bin`, with the device layout in `subjectNN/sysfs/`
    /// - `sensorlogger`, `phyphox`: export folders `subjectNN/rec-NN/` (docs/inputs.md, "Phone-logger presets")
    /// - `androsensor`: `subjectNN/Sensor_record_YYYYMMDD_HHMMSS_AndroSensor.csv`
    ///
    /// The same options always give byte-identical files: every random choice comes from a
    /// generator seeded by `options.seed`, the subject and the recording. Recordings are
    /// written in parallel (one Dispatch worker per core), which changes no byte.
    ///
    /// - Returns: the files written (relative, sorted), their total size and the data rows.
    /// - Throws: `MotionError` with status `.usage` for impossible options (no subjects,
    ///   non-positive minutes, a drop fraction outside [0, 1)), `.cannotCreate` when a folder
    ///   or file cannot be created and `.ioError` when a write fails; the message names the path.
    public static func write(_ options: SynthOptions) throws -> SynthSummary {
        try validate(options)
        let root = options.outDirectory.isEmpty ? "." : options.outDirectory
        var files: [String] = []
        var bytes = 0, rows = 0
        var jobs: [(subject: Int, recording: Int)] = []

        // Folders and small files first, in order; then the recordings, in parallel.
        try makeDirectory(root)
        for subject in 1...options.subjects {
            let subjectFolder = "subject" + twoDigits(subject)
            try makeDirectory(root + "/" + subjectFolder)
            if options.format == .iio {
                for (name, text) in IIOCaptureWriter.sysfsFiles {
                    let relative = subjectFolder + "/sysfs/" + name
                    let path = root + "/" + relative
                    try makeDirectory(String(path[..<path.lastIndex(of: "/")!]))
                    bytes += try OutputFile.writeSmall(text, to: path)
                    files.append(relative)
                }
            }
            for recording in 1...options.recordingsPerSubject {
                let stem = subjectFolder + "/rec-" + twoDigits(recording)
                switch options.format {
                case .motioncollector:
                    files.append(stem + ".csv")
                case .csv:
                    try makeDirectory(root + "/" + stem)
                    files.append(stem + "/Accelerometer.csv")
                    files.append(stem + "/Barometer.csv")
                case .iio:
                    files.append(stem + ".bin")
                case .cwa:
                    files.append(stem + ".cwa")
                case .gt3x:
                    files.append(stem + ".gt3x")
                case .sensorlogger:
                    try makeDirectory(root + "/" + stem)
                    files += ["Accelerometer.csv", "Annotation.csv", "Barometer.csv", "Gravity.csv", "Gyroscope.csv", "Magnetometer.csv",
                              "Metadata.csv", "Orientation.csv", "TotalAcceleration.csv"].map { stem + "/" + $0 }
                case .phyphox:
                    try makeDirectory(root + "/" + stem)
                    files += ["Accelerometer.csv", "Gyroscope.csv", "Linear Acceleration.csv", "Magnetometer.csv", "Pressure.csv",
                              "meta/device.csv", "meta/time.csv"].map { stem + "/" + $0 }
                case .androsensor:
                    files.append(subjectFolder + "/" + PhoneAppWriter.androSensorName(subject: subject, recording: recording))
                }
                jobs.append((subject, recording))
            }
        }

        let work = jobs
        let results = Mutex([Result<(bytes: Int, rows: Int), MotionError>?](repeating: nil, count: jobs.count))
        DispatchQueue.concurrentPerform(iterations: work.count) { index in
            let result = Result { () throws(MotionError) in
                try writeRecording(options, root: root, subject: work[index].subject, recording: work[index].recording)
            }
            results.withLock { $0[index] = result }
        }
        // The first failure in recording order, whatever order the workers finished in.
        for result in results.withLock({ $0 }) {
            let written = try result!.get()
            bytes += written.bytes
            rows += written.rows
        }
        files.sort(by: Text.utf8Less)
        return SynthSummary(files: files, bytes: bytes, rows: rows)
    }

    /// Writes one recording's file(s); its folders exist already.
    static func writeRecording(_ options: SynthOptions, root: String, subject: Int,
                               recording: Int) throws(MotionError) -> (bytes: Int, rows: Int) {
        let stem = root + "/subject" + twoDigits(subject) + "/rec-" + twoDigits(recording)
        switch options.format {
        case .motioncollector:
            let plan = RecordingPlan(options: options, subject: subject, recording: recording, scenario: .walkAndTurn)
            return try MotionCollectorWriter.write(plan: plan, options: options, to: stem + ".csv")
        case .csv:
            let plan = RecordingPlan(options: options, subject: subject, recording: recording, scenario: .walkAndStairs)
            return try PhoneLoggerWriter.write(plan: plan, options: options, to: stem)
        case .iio:
            let plan = RecordingPlan(options: options, subject: subject, recording: recording, scenario: .walkAndTurn)
            return try IIOCaptureWriter.write(plan: plan, options: options, to: stem + ".bin")
        case .cwa:
            let plan = RecordingPlan(options: options, subject: subject, recording: recording, scenario: .walkAndTurn)
            return try CWAWriter.write(plan: plan, options: options, subject: subject, recording: recording, to: stem + ".cwa")
        case .gt3x:
            let plan = RecordingPlan(options: options, subject: subject, recording: recording, scenario: .walkAndTurn)
            return try GT3XWriter.write(plan: plan, options: options, subject: subject, recording: recording, to: stem + ".gt3x")
        case .sensorlogger:
            let plan = RecordingPlan(options: options, subject: subject, recording: recording, scenario: .walkAndStairs)
            return try PhoneAppWriter.writeSensorLogger(plan: plan, options: options, subject: subject, recording: recording, to: stem)
        case .phyphox:
            let plan = RecordingPlan(options: options, subject: subject, recording: recording, scenario: .walkAndStairs)
            return try PhoneAppWriter.writePhyphox(plan: plan, options: options, subject: subject, recording: recording, to: stem)
        case .androsensor:
            let plan = RecordingPlan(options: options, subject: subject, recording: recording, scenario: .walkAndStairs)
            let path = root + "/subject" + twoDigits(subject) + "/" + PhoneAppWriter.androSensorName(subject: subject, recording: recording)
            return try PhoneAppWriter.writeAndroSensor(plan: plan, options: options, subject: subject, recording: recording, to: path)
        }
    }

    static func validate(_ options: SynthOptions) throws(MotionError) {
        func fail(_ what: String) -> MotionError { MotionError(.usage, "synth: \(what).") }
        guard options.subjects >= 1 else { throw fail("--subjects must be at least 1, got \(options.subjects)") }
        guard options.recordingsPerSubject >= 1 else {
            throw fail("recordings per subject must be at least 1, got \(options.recordingsPerSubject)")
        }
        guard options.minutes > 0, options.minutes.isFinite else {
            throw fail("--minutes must be a positive number, got \(options.minutes)")
        }
        guard options.dropFraction >= 0, options.dropFraction < 1 else {
            throw fail("the drop fraction must be in [0, 1), got \(options.dropFraction)")
        }
        guard options.gapsPerMinute >= 0, options.gapsPerMinute.isFinite else {
            throw fail("gaps per minute must be a non-negative number, got \(options.gapsPerMinute)")
        }
        guard options.precision == .fixed6 || options.format == .motioncollector else {
            throw fail("--precision \(options.precision.rawValue) is for --format motioncollector only, not \(options.format.rawValue)")
        }
    }

    /// `7` → `07`, `123` → `123`.
    static func twoDigits(_ n: Int) -> String {
        n < 10 ? "0\(n)" : "\(n)"
    }

    /// Creates `path` and its missing parents (`mkdir -p`).
    static func makeDirectory(_ path: String) throws(MotionError) {
        var isDirectory = stat()
        if stat(path, &isDirectory) == 0, isDirectory.st_mode & S_IFMT == S_IFDIR { return }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            try makeDirectory(String(path[..<slash]))
        }
        if mkdir(path, 0o755) != 0, errno != EEXIST {
            throw MotionError(.cannotCreate, "cannot create folder `\(path)`: \(OutputFile.reason(errno)).")
        }
        if stat(path, &isDirectory) != 0 || isDirectory.st_mode & S_IFMT != S_IFDIR {
            throw MotionError(.cannotCreate, "cannot create folder `\(path)`: a file of that name is in the way.")
        }
    }
}
