import Foundation
import Testing
@testable import MotionResample

/// The transform steps against scipy, computed independently in the test venv
/// (MOTIONPREP_PYTHON, set by the Makefile). Designs must match `scipy.signal.butter(…, output="sos")`
/// to 1e-12 relative; filtered signals to 1e-9 relative to their range (far below float32's 6e-8).
private let referencePython: String? = ProcessInfo.processInfo.environment["MOTIONPREP_PYTHON"]

@Suite(.enabled(if: referencePython != nil)) struct SignalFiltersTests {
    static var python: String? { referencePython }

    /// Runs `code` in the venv with `x` (the input signal) and `rate` defined, returns the JSON it prints.
    /// A vector the script prints with `out(values)`: repr of each float, so every bit survives
    /// (Foundation's JSON parser on Linux rounds some doubles).
    func vector(_ code: String, x: [Double] = [], rate: Double = 50) throws -> [Double] {
        let text = try run("def out(v):\n    print(' '.join(repr(float(e)) for e in np.ravel(v)))\n" + code, x: x, rate: rate)
        return text.split(whereSeparator: \.isWhitespace).map { Double(String($0))! }
    }

    func scipy(_ code: String, x: [Double] = [], rate: Double = 50) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(try run(code, x: x, rate: rate).utf8))
    }

    func run(_ code: String, x: [Double], rate: Double) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.python!)
        let script = "import json, numpy as np, scipy.signal as ss, scipy.ndimage as nd\nx = np.array(json.loads(input()))\nrate = \(rate)\n" + code
        p.arguments = ["-c", script]
        let inPipe = Pipe(), outPipe = Pipe()
        p.standardInput = inPipe
        p.standardOutput = outPipe
        let errPipe = Pipe()
        p.standardError = errPipe
        try p.run()
        // Shortest round-trip text, so Python reads the very same doubles.
        inPipe.fileHandleForWriting.write(Data(("[" + x.map { "\($0)" }.joined(separator: ",") + "]\n").utf8))
        try inPipe.fileHandleForWriting.close()
        let data = outPipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let err = String(decoding: errPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(p.terminationStatus == 0, "\(err)")
        return String(decoding: data, as: UTF8.self)
    }

    func signal(_ n: Int, seed: UInt64 = 1) -> [Double] {
        var state = seed &* 6364136223846793005 &+ 1442695040888963407
        return (0..<n).map { i in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let noise = Double(state >> 11) / Double(1 << 53) - 0.5
            return sin(Double(i) * 0.07) * 3 + cos(Double(i) * 0.9) + noise + 9.81
        }
    }

    func close(_ a: [Double], _ b: [Double], relative: Double) -> Bool {
        guard a.count == b.count else { return false }
        let scale = max(1, b.map(abs).max() ?? 1)
        return zip(a, b).allSatisfy { abs($0 - $1) <= relative * scale }
    }

    @Test(arguments: [
        (1, [5.0], SignalFilters.BandType.lowpass), (2, [5.0], .lowpass), (3, [20.0], .lowpass), (4, [0.3], .lowpass),
        (5, [12.0], .lowpass), (3, [0.3], .highpass), (4, [2.0], .highpass), (1, [1.0], .highpass),
        (2, [0.5, 5.0], .bandpass), (3, [1.0, 20.0], .bandpass), (4, [0.3, 3.0], .bandpass),
    ])
    func butterMatchesScipy(order: Int, cutoff: [Double], type: SignalFilters.BandType) throws {
        let ours = SignalFilters.butter(order: order, cutoffHz: cutoff, type: type, rateHz: 50)
        let wn = cutoff.count == 1 ? "\(cutoff[0])" : "[\(cutoff[0]), \(cutoff[1])]"
        let theirs = try scipy("print(json.dumps(ss.butter(\(order), \(wn), '\(type.rawValue)', fs=rate, output='sos').tolist()))") as! [[Double]]
        #expect(ours.count == theirs.count)
        for (a, b) in zip(ours, theirs) { #expect(close(a, b, relative: 1e-12), "\(a) vs \(b)") }
    }

    @Test func filteringMatchesScipy() throws {
        let x = signal(400)
        for (order, cutoff, type) in [(3, [20.0], SignalFilters.BandType.lowpass), (3, [0.3], .lowpass), (2, [0.5], .highpass), (2, [0.5, 5.0], .bandpass)] {
            let sos = SignalFilters.butter(order: order, cutoffHz: cutoff, type: type, rateHz: 50)
            let wn = cutoff.count == 1 ? "\(cutoff[0])" : "[\(cutoff[0]), \(cutoff[1])]"
            let design = "sos = ss.butter(\(order), \(wn), '\(type.rawValue)', fs=rate, output='sos')\n"
            let zero = try vector(design + "out(ss.sosfiltfilt(sos, x))", x: x)
            #expect(close(SignalFilters.filtfilt(sos, x)!, zero, relative: 1e-9))
            let causal = try vector(design + "out(ss.sosfilt(sos, x, zi=ss.sosfilt_zi(sos) * x[0])[0])", x: x)
            #expect(close(SignalFilters.causal(sos, x), causal, relative: 1e-9))
            let pad = Int(try vector(design + "out([3 * (2 * len(sos) + 1 - min((sos[:, 2] == 0).sum(), (sos[:, 5] == 0).sum()))])", x: x)[0])
            #expect(SignalFilters.padLength(sos) == pad)
        }
    }

    @Test func shortRunsAreRefusedAsScipyRefusesThem() {
        let sos = SignalFilters.butter(order: 3, cutoffHz: [20], type: .lowpass, rateHz: 50)
        #expect(SignalFilters.padLength(sos) == 12)
        #expect(SignalFilters.filtfilt(sos, signal(12)) == nil)
        #expect(SignalFilters.filtfilt(sos, signal(13)) != nil)
    }

    @Test func medianAndDerivativeMatchNumpy() throws {
        let x = signal(57) + [7, 7, 7]
        for size in [1, 2, 3, 4, 5, 9] {
            let theirs = try vector("out(nd.median_filter(x, size=\(size), mode='nearest'))", x: x)
            #expect(SignalFilters.median(x, size: size) == theirs, "size \(size)")
        }
        let d = try vector("d = np.diff(x) * rate\nout(np.concatenate(([d[0]], d)))", x: x)
        #expect(SignalFilters.derivative(x, rateHz: 50) == d)
        #expect(SignalFilters.derivative([3], rateHz: 50) == [0])
        #expect(SignalFilters.median([], size: 3) == [])
    }

    /// Runs shorter than the median (1 to 4 samples), where every output takes repeated edges.
    @Test func medianOfShortRunsMatchesScipy() throws {
        for n in 1...4 {
            let x = Array(signal(n + 3).prefix(n))
            for size in [3, 5] {
                let theirs = try vector("out(nd.median_filter(x, size=\(size), mode='nearest'))", x: x)
                #expect(SignalFilters.median(x, size: size) == theirs, "n \(n), size \(size)")
            }
        }
    }
}
