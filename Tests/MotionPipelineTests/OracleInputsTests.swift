import Foundation
import MotionConfig
import MotionCore
import MotionSynth
import MotionTestSupport
import Testing
@testable import MotionInputs
@testable import MotionRecords
@testable import MotionEngine
@testable import MotionJob

/// The engine against the test oracle (`WholeReference`) on the input types the random
/// differential test does not draw: phone-logger csv exports (a recording is a folder of files,
/// one per sensor, read interleaved by time), a Sensor Logger preset (several csv inputs per
/// folder), and IIO dumps (binary scans, a layout folder beside them). Every recording, at random
/// block sizes and in one block, must give the oracle's record: counts, warnings, moments and
/// every window, or the same error (docs/streaming.md, "One path").
@Suite struct OracleInputsTests {
    static func compare(_ yaml: String, in dir: TemporaryDirectory, seed: UInt64, sourceLabel: String) throws {
        try yaml.write(toFile: dir.path("p.yaml"), atomically: true, encoding: .utf8)
        let spec = try PipelineLoader.load(path: dir.path("p.yaml"))
        let sources = try InputDiscovery.recordings(spec)
        let plan = try RunPlan(spec: spec, sources: sources)
        try #require(!sources.isEmpty)
        var g = SeededGenerator(seed: seed)
        for (k, source) in sources.enumerated() {
            let isTrain = k % 2 == 0
            let oracle = StreamingDifferentialTests.outcome {
                RecordingRecord(processed: try WholeReference.process(source, spec: spec, layout: plan.layout, isTrain: isTrain,
                                                                      intervals: nil),
                                inputs: [], stored: nil)
            }
            for block in [Int.random(in: 300...5000, using: &g), StreamingDifferentialTests.oneBlock] {
                let engine = StreamingDifferentialTests.outcome {
                    try RecordingProcessor(spec: spec, layout: plan.layout, streamBlockBytes: block)
                        .processToRecord(source, isTrain: isTrain, intervals: nil,
                                         ledger: InputLedger(baseDirectory: spec.baseDirectory),
                                         recordPath: dir.path("r\(k)-\(block).mprec"), pipelineSHA256: plan.pipelineSHA256,
                                         isCancelled: { false })
                }
                #expect(oracle.error == engine.error, "\(sourceLabel) \(source.name), block \(block)")
                #expect(oracle.summary == engine.summary, "\(sourceLabel) \(source.name), block \(block)")
                #expect(oracle.x == engine.x && oracle.y == engine.y && oracle.features == engine.features
                        && oracle.starts == engine.starts, "windows differ: \(sourceLabel) \(source.name), block \(block)")
            }
            #expect(oracle.error != nil || !oracle.starts.isEmpty, "\(sourceLabel) \(source.name) gave no window")
        }
    }

    static func synth(_ format: SynthFormat, in dir: TemporaryDirectory, seed: UInt64) throws {
        var options = SynthOptions(outDirectory: dir.path("data"), subjects: 2, minutes: 1.5, seed: seed, recordingsPerSubject: 1,
                                   gapsPerMinute: 2, dropFraction: 0.01)
        options.format = format
        _ = try Synth.write(options)
    }

    /// Accelerometer (100 Hz, labelled) and barometer (1 Hz) files of each recording folder.
    @Test(arguments: [(UInt64(1), true), (2, false)])
    func phoneCSVInTwoFiles(seed: UInt64, antialias: Bool) throws {
        let dir = try TemporaryDirectory(label: "oracle-phone")
        defer { dir.remove() }
        try Self.synth(.csv, in: dir, seed: seed)
        try Self.compare("""
        version: 1
        name: phone
        inputs:
          - {type: csv, paths: ["data/*/*/Accelerometer.csv"], recording: "{dirpath}", subject: "{dir:2}",
             time: {column: time, unit: s}, channels: {acc_x: x, acc_y: y, acc_z: z}, units: {acc_x: g, acc_y: g, acc_z: g},
             label_column: activity}
          - {type: csv, paths: ["data/*/*/Barometer.csv"], recording: "{dirpath}", subject: "{dir:2}",
             time: {column: time, unit: s}, channels: {pressure: pressure, relative_altitude: relative_altitude},
             units: {pressure: kPa, relative_altitude: m}, label_column: activity}
        resample: {rate_hz: 50, antialias: \(antialias), method: {default: linear, Barometer: previous}, max_gap_s: {default: 0.2, Barometer: 1.5}}
        window: {length_s: 2.0, stride_s: 1.0}
        labels: {min_fraction: 0.7, classes: [walk, stairs]}
        features: [mean, std, range]
        magnitude: [acc]
        output: {type: hdf5, path: out}

        """, in: dir, seed: seed, sourceLabel: "phone csv")
    }

    /// Sensor Logger folders: a preset that expands to one csv input per sensor file.
    @Test func sensorLoggerPreset() throws {
        let dir = try TemporaryDirectory(label: "oracle-sl")
        defer { dir.remove() }
        try Self.synth(.sensorlogger, in: dir, seed: 5)
        try Self.compare("""
        version: 1
        name: sl
        inputs:
          - type: sensorlogger
            paths: ["data/*/*"]
            sensors: [TotalAcceleration, Gyroscope, Barometer]
        resample: {rate_hz: 50, max_gap_s: {default: 0.3, Barometer: 2.5}}
        window: {length_samples: 50, stride_samples: 25}
        features: [mean, max]
        output: {type: hdf5, path: out}

        """, in: dir, seed: 5, sourceLabel: "sensorlogger")
    }

    /// `sort: true`: rows out of time order (blocks of rows reversed, some rows repeated) are
    /// sorted per stream; the engine joins the file's blocks and sorts them (`_SortedFile`), the
    /// oracle sorts the whole stream.
    @Test(arguments: [UInt64(6), 7])
    func sortedInputs(seed: UInt64) throws {
        let dir = try TemporaryDirectory(label: "oracle-sort")
        defer { dir.remove() }
        var options = SynthOptions(outDirectory: dir.path("data"), subjects: 2, minutes: 1, seed: seed, recordingsPerSubject: 1,
                                   gapsPerMinute: 1, dropFraction: 0)
        options.sensors = ["A", "G"]
        _ = try Synth.write(options)
        var g = SeededGenerator(seed: seed)
        let files = (FileManager.default.enumerator(atPath: dir.path("data"))?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".csv") }.sorted().map { dir.path("data/" + $0) }
        try #require(files.count == 2)
        for path in files {
            var lines = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")
            var i = 1
            while i + 40 < lines.count - 1 {
                if Bool.random(using: &g) { lines[i..<(i + 40)].reverse() }
                if Int.random(in: 0..<4, using: &g) == 0 { lines.insert(lines[i + 3], at: i + 20) }
                i += 40 + Int.random(in: 0...200, using: &g)
            }
            try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        }
        try Self.compare("""
        version: 1
        name: sorted
        inputs:
          - {type: motioncollector, paths: ["data/**/*.csv"], sensors: [A, G], sort: true}
        resample: {rate_hz: 50, max_gap_s: 0.2}
        window: {length_s: 2.0, stride_s: 1.0}
        labels: {map: {W: walk, T: turn}}
        features: [mean, std]
        output: {type: hdf5, path: out}

        """, in: dir, seed: seed, sourceLabel: "sort: true")
    }

    /// IIO dumps with their layout folders, with and without anti-aliasing and a transform chain.
    @Test(arguments: [(UInt64(3), true, false), (4, false, true)])
    func iioDumps(seed: UInt64, antialias: Bool, transforms: Bool) throws {
        let dir = try TemporaryDirectory(label: "oracle-iio")
        defer { dir.remove() }
        try Self.synth(.iio, in: dir, seed: seed)
        let chain = transforms ? """
        transforms:
          - median: {channels: [imu], samples: 3}
          - gravity: {channels: [imu], cutoff_hz: 0.3}
          - derivative: {channels: [acc_body]}

        """ : ""
        try Self.compare("""
        version: 1
        name: iio
        inputs:
          - {type: iio, paths: ["data/**/*.bin"], layout: "{dirpath}/sysfs", sensor: imu}
        resample: {rate_hz: 40, antialias: \(antialias), max_gap_s: 0.2}
        window: {length_samples: 64, stride_samples: 32}
        features: [mean, std]
        \(chain)output: {type: hdf5, path: out}

        """, in: dir, seed: seed, sourceLabel: "iio")
    }
}
