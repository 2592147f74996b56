import Foundation
import Testing
import MotionSynth

@Suite struct IIOCaptureTests {
    let options = SynthOptions(outDirectory: "", subjects: 1, minutes: 0.5, seed: 11, format: .iio,
                               recordingsPerSubject: 1)

    func write(_ dir: String) throws -> [UInt8] {
        var options = self.options
        options.outDirectory = dir
        _ = try Synth.write(options)
        return try readBytes(dir + "/subject01/rec-01.bin")
    }

    @Test func firstScanDecodedByHand() throws {
        try withTemporaryDirectory { dir in
            let bytes = try write(dir)
            #expect(bytes.count % 16 == 0)
            #expect(bytes.count / 16 > 2900 && bytes.count / 16 <= 3000)
            // docs/iio-format.md §7.1 layout: x, y, z le:s16 at 0, 2, 4; padding 6–7; le:s64 ts at 8.
            let x = Int16(bitPattern: UInt16(bytes[0]) | UInt16(bytes[1]) << 8)
            let y = Int16(bitPattern: UInt16(bytes[2]) | UInt16(bytes[3]) << 8)
            let z = Int16(bitPattern: UInt16(bytes[4]) | UInt16(bytes[5]) << 8)
            #expect(bytes[6] == 0xA5 && bytes[7] == 0xA5)
            var ts: Int64 = 0
            for i in (8..<16).reversed() { ts = ts << 8 | Int64(bytes[i]) }

            let intended = Synth.intendedIIOScans(options, subject: 1, recording: 1, count: 1)[0]
            #expect(IIOScan(x: x, y: y, z: z, timestampNanos: ts) == intended)

            // And what was intended is the physics: −(Core Motion acceleration) × g / scale,
            // up to sensor noise (σ 0.01 g ≈ 164 counts), at the recording time ts − boot offset.
            let boot = Synth.iioBootOffsetNanos(options, subject: 1, recording: 1)
            let seconds = Double(ts - boot) / 1e9
            #expect(seconds > 0.0102 && seconds < 0.05)
            let motion = Synth.intendedMotion(options, subject: 1, recording: 1, scenario: .walkAndTurn, at: seconds)
            let counts = -motion.acceleration * Synth.standardGravity / Synth.iioScale
            #expect(abs(Double(x) - counts.x) < 820 && abs(Double(y) - counts.y) < 820 && abs(Double(z) - counts.z) < 820)
        }
    }

    @Test func everyScanIsWellFormed() throws {
        try withTemporaryDirectory { dir in
            let bytes = try write(dir)
            var times: [Int64] = [], magnitudes: [Double] = []
            for start in stride(from: 0, to: bytes.count, by: 16) {
                #expect(bytes[start + 6] == 0xA5 && bytes[start + 7] == 0xA5)
                var ts: Int64 = 0
                for i in (start + 8..<start + 16).reversed() { ts = ts << 8 | Int64(bytes[i]) }
                times.append(ts)
                let axes = (0..<3).map { Double(Int16(bitPattern: UInt16(bytes[start + 2 * $0]) | UInt16(bytes[start + 2 * $0 + 1]) << 8)) }
                magnitudes.append(norm(Vector(axes[0], axes[1], axes[2])) * 0.000598205)
            }
            let steps = differences(times.map { Double($0) / 1e9 })
            #expect(steps.allSatisfy { $0 > 0 })
            #expect(abs(median(steps) - 0.01) < 0.0005)
            let mean = magnitudes.reduce(0, +) / Double(magnitudes.count)
            #expect(abs(mean - 9.80665) < 0.3, "mean |acc| \(mean) m/s²")
            #expect(Synth.intendedIIOScans(options, subject: 1, recording: 1, count: 5).map(\.timestampNanos) == Array(times.prefix(5)))
        }
    }

    @Test func sysfsLayoutCopy() throws {
        try withTemporaryDirectory { dir in
            _ = try write(dir)
            let sysfs = dir + "/subject01/sysfs/"
            var expected: [String: String] = [
                "in_accel_scale": "0.000598205\n", "sampling_frequency": "100\n",
                "current_timestamp_clock": "monotonic\n", "name": "lsm6dsx\n",
                "scan_elements/in_timestamp_en": "1\n", "scan_elements/in_timestamp_index": "3\n",
                "scan_elements/in_timestamp_type": "le:s64/64>>0\n",
            ]
            for (i, axis) in ["x", "y", "z"].enumerated() {
                expected["scan_elements/in_accel_\(axis)_en"] = "1\n"
                expected["scan_elements/in_accel_\(axis)_index"] = "\(i)\n"
                expected["scan_elements/in_accel_\(axis)_type"] = "le:s16/16>>0\n"
            }
            for (name, text) in expected {
                #expect(try readText(sysfs + name) == text, "\(name)")
            }
            let written = try FileManager.default.subpathsOfDirectory(atPath: sysfs)
                .filter { !$0.hasSuffix("scan_elements") }
            #expect(Set(written) == Set(expected.keys))
        }
    }
}
