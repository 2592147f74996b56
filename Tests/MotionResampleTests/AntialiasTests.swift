import Foundation
import MotionTestSupport
import MotionCore
import Testing
import MotionReference
@testable import MotionResample

/// Runs a Python snippet in the test venv (numpy + scipy) and returns the numbers it prints.
/// The venv is `TestPython.path` (`$MOTIONPREP_PYTHON`, set by `make test`, or `.venv/bin/python`).
enum PythonReference {
    static var python: String? { TestPython.path }

    static func numbers(_ script: String, input: [Double]) throws -> [Double] {
        guard let python else { throw MotionError(.noInput, "no Python venv: run `make venv` (or set MOTIONPREP_PYTHON)") }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mp-ref-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let inPath = dir.appendingPathComponent("in.txt")
        try input.map { "\($0)" }.joined(separator: "\n").write(to: inPath, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = ["-c", "import numpy as np, scipy.signal as ss\nx = np.loadtxt('\(inPath.path)', ndmin=1)\n" + script]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw MotionError(.ioError, "python reference failed") }
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
    }
}

@Suite struct AntialiasTests {
    private func signal(_ n: Int, seed: UInt64) -> [Double] {
        var s = seed
        return (0..<n).map { i in
            s = s &* 6364136223846793005 &+ 1442695040888963407
            let noise = Double(s >> 11) * 0x1p-53 - 0.5
            return sin(Double(i) * 0.3) * 2 + noise + (i % 37 == 0 ? 3 : 0)
        }
    }

    @Test(arguments: [(100.0, 50.0), (200.0, 25.0), (100.0, 30.0), (1000.0, 50.0)])
    func designMatchesScipyButter(_ fs: Double, _ rate: Double) throws {
        let f = Butterworth.lowPass(order: 4, cutoffHz: 0.4 * rate, sampleRateHz: fs)
        let ref = try PythonReference.numbers("print(*ss.butter(4, 0.4 * \(rate), fs=\(fs), output='sos').ravel())", input: [0])
        #expect(ref.count == 12)
        for (i, s) in f.sections.enumerated() {
            let row = [s.b0, s.b1, s.b2, 1, s.a1, s.a2]
            for j in 0..<6 { #expect(abs(row[j] - ref[i * 6 + j]) <= 1e-12 * max(1, abs(ref[i * 6 + j])), "section \(i) coef \(j)") }
        }
    }

    @Test(arguments: [16, 17, 40, 501])
    func filtfiltMatchesScipySosfiltfiltIncludingEdges(_ n: Int) throws {
        let x = signal(n, seed: UInt64(n))
        let f = Butterworth.lowPass(order: 4, cutoffHz: 20, sampleRateHz: 100)
        let y = f.filtfilt(x)
        let ref = try PythonReference.numbers("print(*ss.sosfiltfilt(ss.butter(4, 20.0, fs=100.0, output='sos'), x))", input: x)
        #expect(ref.count == n)
        let range = x.max()! - x.min()!
        for i in 0..<n { #expect(abs(y[i] - ref[i]) <= 1e-6 * range, "sample \(i)") }
    }

    @Test func passesLowToneAndStopsHighTone() throws {
        let rate = 25.0, fs = 100.0 // stream at 4 × rate
        let times = (0..<2000).map { Double($0) / fs }
        func tone(_ hz: Double) -> SensorStream {
            SensorStream(name: "A", channelNames: ["v"], channelUnits: ["1"], times: times,
                         channels: [times.map { sin(2 * Double.pi * hz * $0) }])
        }
        func amplitude(_ s: SensorStream) -> Double { s.channels[0][500..<1500].map(abs).max()! }
        let low = try Antialias.apply(tone(0.2 * rate), rateHz: rate, maxGapS: 0.1).stream
        #expect(abs(amplitude(low) - 1) <= 0.01)
        let high = try Antialias.apply(tone(0.8 * rate), rateHz: rate, maxGapS: 0.1).stream
        #expect(20 * log10(amplitude(high)) <= -40)
    }

    @Test func shortRunsBetweenGapsAreLeftUnfilteredAndCounted() throws {
        // 10 samples, a 1 s gap, then 100 samples at 100 Hz.
        let times = (0..<10).map { Double($0) / 100 } + (0..<100).map { 1.1 + Double($0) / 100 }
        let values = times.map { sin($0 * 40) }
        let s = SensorStream(name: "A", channelNames: ["v"], channelUnits: ["1"], times: times, channels: [values])
        let r = try Antialias.apply(s, rateHz: 25, maxGapS: 0.1)
        #expect(r.unfilteredRuns == 1)
        #expect(Array(r.stream.channels[0][0..<10]) == Array(values[0..<10]))
        #expect(Array(r.stream.channels[0][10...]) != Array(values[10...]))
    }

    @Test func streamsNotFasterThanTheGridAreUntouched() throws {
        let times = (0..<100).map { Double($0) / 50 }
        let s = SensorStream(name: "A", channelNames: ["v"], channelUnits: ["1"], times: times, channels: [times])
        let r = try Antialias.apply(s, rateHz: 50, maxGapS: 0.1)
        #expect(r.stream == s && r.unfilteredRuns == 0)
    }
}
