import Foundation
import Testing
import MotionSynth

@Suite struct DeterminismTests {
    static let cases: [(SynthFormat, Bool)] = [(.motioncollector, false), (.motioncollector, true), (.csv, false), (.iio, false)]

    @Test(arguments: cases)
    func sameOptionsGiveIdenticalBytes(format: SynthFormat, legacy: Bool) throws {
        try withTemporaryDirectory { dir in
            func options(_ sub: String, seed: UInt64) -> SynthOptions {
                SynthOptions(outDirectory: dir + "/" + sub, subjects: 2, minutes: 0.4, seed: seed, format: format,
                             recordingsPerSubject: 2, legacy: legacy, gapsPerMinute: 4)
            }
            let first = try Synth.write(options("a", seed: 7))
            let second = try Synth.write(options("b", seed: 7))
            let other = try Synth.write(options("c", seed: 8))
            #expect(first == second)
            #expect(first.files == other.files)
            #expect(first.rows > 0)
            var differing = 0
            for file in first.files {
                let a = try readBytes(dir + "/a/" + file)
                #expect(a == (try readBytes(dir + "/b/" + file)), "\(file) differs between identical runs")
                if a != (try readBytes(dir + "/c/" + file)) { differing += 1 }
            }
            // Every recording changes with the seed (sysfs layout files do not).
            let recordings = first.files.filter { !$0.contains("/sysfs/") }
            #expect(differing == recordings.count)
        }
    }

    @Test(arguments: SynthFormat.allCases)
    func summaryListsWhatWasWritten(format: SynthFormat) throws {
        try withTemporaryDirectory { dir in
            let summary = try Synth.write(SynthOptions(outDirectory: dir + "/out", subjects: 3, minutes: 0.2,
                                                       format: format, recordingsPerSubject: 2))
            #expect(summary.files == summary.files.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
            var bytes = 0, rows = 0
            for file in summary.files {
                let data = try readBytes(dir + "/out/" + file)
                bytes += data.count
                if file.hasSuffix(".csv") { rows += lines(String(decoding: data, as: UTF8.self)).count - (format == .androsensor ? 2 : 1) }
                if file.hasSuffix(".bin") { rows += data.count / 16 }
                if file.hasSuffix(".cwa") {
                    // The sample count at offset 28 of each 512-byte block after the 1024-byte header.
                    for at in stride(from: 1024, to: data.count, by: 512) { rows += Int(data[at + 28]) | Int(data[at + 29]) << 8 }
                }
                if file.hasSuffix(".gt3x") {
                    // The stored `log.bin` comes first: records after its 37-byte local header; ACTIVITY2 holds payload / 6 samples.
                    let size = Int(data[18]) | Int(data[19]) << 8 | Int(data[20]) << 16
                    var at = 37
                    while at < 37 + size {
                        let payload = Int(data[at + 6]) | Int(data[at + 7]) << 8
                        if data[at + 1] == 0x1A { rows += payload / 6 }
                        at += 9 + payload
                    }
                }
            }
            #expect(bytes == summary.bytes)
            #expect(rows == summary.rows)
            let expected: [String]
            switch format {
            case .motioncollector: expected = ["subject01/rec-01.csv", "subject01/rec-02.csv", "subject03/rec-02.csv"]
            case .csv: expected = ["subject01/rec-01/Accelerometer.csv", "subject02/rec-02/Barometer.csv"]
            case .iio: expected = ["subject01/rec-01.bin", "subject03/rec-02.bin", "subject02/sysfs/scan_elements/in_timestamp_type"]
            case .sensorlogger: expected = ["subject01/rec-01/Accelerometer.csv", "subject03/rec-02/Metadata.csv", "subject02/rec-01/TotalAcceleration.csv"]
            case .phyphox: expected = ["subject01/rec-01/Linear Acceleration.csv", "subject03/rec-02/meta/time.csv", "subject02/rec-01/Pressure.csv"]
            case .androsensor: expected = ["subject01/Sensor_record_20240501_080000_AndroSensor.csv", "subject03/Sensor_record_20240503_090000_AndroSensor.csv"]
            case .cwa: expected = ["subject01/rec-01.cwa", "subject03/rec-02.cwa"]
            case .gt3x: expected = ["subject01/rec-01.gt3x", "subject03/rec-02.gt3x"]
            }
            for file in expected { #expect(summary.files.contains(file), "missing \(file)") }
            let counts: [SynthFormat: Int] = [.motioncollector: 6, .csv: 12, .iio: 54, .sensorlogger: 54, .phyphox: 42, .androsensor: 6, .cwa: 6, .gt3x: 6]
            #expect(summary.files.count == counts[format])
        }
    }
}
