// motionprep-bench: times single stages on one core, for `make bench` (bench/bench.py prints
// them next to the pandas/numpy way of doing the same job). Not installed; not a test.
import Foundation
import MotionCore
import MotionFeatures
import MotionIngest
import MotionResample

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// User + system CPU time of this process so far (getrusage), in seconds: steadier than wall
/// time on a shared machine.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return s(usage.ru_utime) + s(usage.ru_stime)
}

func emit(_ fields: [String: JSONValue]) { print(JSONValue.object(fields).compact()) }

let args = Array(CommandLine.arguments.dropFirst())
guard let mode = args.first else {
    FileHandle.standardError.write(Data("usage: motionprep-bench ingest [--reps N] FILE… | resample | features\n".utf8))
    exit(64)
}

switch mode {
case "ingest":
    // Parse every file once to warm the page cache, then time `--reps` more passes (default 1)
    // and report the one with the least CPU time (the steadiest figure on a shared machine).
    var files = Array(args.dropFirst())
    var reps = 1
    if files.count >= 2 && files[0] == "--reps" {
        reps = max(1, Int(files[1]) ?? 1)
        files.removeFirst(2)
    }
    for f in files { _ = try MotionCollectorReader.read(path: f, displayPath: f, units: .si, keep: nil) }
    var best: (cpu: Double, wall: Double, bytes: Int, rows: Int)?
    for _ in 0..<reps {
        var bytes = 0, rows = 0
        let cpu0 = cpuSeconds()
        let t = try seconds {
            for f in files {
                let r = try MotionCollectorReader.read(path: f, displayPath: f, units: .si, keep: nil)
                rows += r.rowsRead
                bytes += (try FileManager.default.attributesOfItem(atPath: f)[.size] as? Int) ?? 0
            }
        }
        let cpu = cpuSeconds() - cpu0
        if best == nil || cpu < best!.cpu { best = (cpu, t, bytes, rows) }
    }
    let (cpu, t, bytes, rows) = best!
    emit(["stage": .string("ingest"), "seconds": .double(t), "cpu_seconds": .double(cpu), "bytes": .int(bytes),
          "rows": .int(rows), "reps": .int(reps), "mb_per_s": .double(Double(bytes) / 1e6 / t),
          "rows_per_s": .double(Double(rows) / t), "cpu_mb_per_s": .double(Double(bytes) / 1e6 / cpu)])

case "resample":
    // Three-axis 100 Hz stream with jitter, 1 hour, onto 50 Hz linear.
    let n = 360_000
    var state: UInt64 = 1
    func rnd() -> Double { state = state &* 6364136223846793005 &+ 1442695040888963407; return Double(state >> 11) * 0x1p-53 }
    var times = [Double](repeating: 0, count: n)
    for i in 1..<n { times[i] = times[i - 1] + 0.01 + (rnd() - 0.5) * 0.001 }
    let chans = (0..<3).map { c in (0..<n).map { sin(Double($0) * 0.01 * Double(c + 1)) } }
    let stream = SensorStream(name: "A", channelNames: ["x", "y", "z"], channelUnits: ["1", "1", "1"], times: times, channels: chans)
    var out = 0
    let reps = 10
    let lines = [Int32](repeating: 0, count: n)
    let t = seconds {
        for _ in 0..<reps {
            // The engine's resampler (`StreamingGrid`), the stream handed over in one block.
            var buffer = StreamBuffer(channels: 3)
            buffer.maxGapS = 0.25
            buffer.append(name: stream.name, times: stream.times, channels: stream.channels, lines: lines)
            buffer.finish()
            let grid = StreamingGrid(streams: [buffer], rateHz: 100, magnitudes: [])
            var rows: [Float] = [], valid: [Bool] = []
            if grid.start(), let limit = grid.finalLimit { _ = grid.compute(through: limit, rows: &rows, valid: &valid) }
            out += rows.count
        }
    }
    emit(["stage": .string("resample_linear_3axis"), "seconds": .double(t), "output_samples": .int(out),
          "output_samples_per_s": .double(Double(out) / t)])

case "features":
    let T = 128, C = 10, N = 20_000
    var state: UInt64 = 7
    func rnd() -> Float { state = state &* 6364136223846793005 &+ 1442695040888963407; return Float(state >> 40) / Float(1 << 24) - 0.5 }
    let x = (0..<(N * T * C)).map { _ in rnd() }
    let names = (["acc", "gyro", "mag"].flatMap { s in ["x", "y", "z"].map { "\(s)_\($0)" } }) + ["acc_mag"]
    let plan = FeaturePlan(features: FeatureCatalogue.names, channelNames: names, rateHz: 50, windowLength: T)
    let extractor = FeatureExtractor(plan: plan)
    var out = [Float](repeating: 0, count: N * plan.count)
    let t = seconds {
        x.withUnsafeBufferPointer { xp in
            out.withUnsafeMutableBufferPointer { op in extractor.extract(windows: xp, count: N, into: op) }
        }
    }
    emit(["stage": .string("features_full_catalogue_128x10"), "seconds": .double(t), "windows": .int(N),
          "features": .int(plan.count), "windows_per_s": .double(Double(N) / t)])

default:
    FileHandle.standardError.write(Data("unknown mode \(mode)\n".utf8))
    exit(64)
}
