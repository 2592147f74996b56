// live-replay DATASET_DIR SAMPLES.csv OUT.bin [--interval STREAM=SECONDS]…
//
// Feeds samples, in the order they are listed, to motionprep's live library configured from a
// dataset's manifest, as an app would feed its sensors, and writes every window it emits.
//
// SAMPLES.csv: one sample per line, `stream,time,value,value,…` (the stream's name as the
// manifest's `chain.streams` gives it, the time in seconds, one value per channel in the
// channel's unit), in arrival order: streams interleaved, each stream in time order.
//
// OUT.bin: per window, little-endian: start time (float64), x (float32, length × channels),
// x standardised (float32, same count, when the dataset has train statistics), features
// (float32) and features standardised (when it has them). A line of JSON on standard output
// gives the counts and sizes.
//
// --interval: a stream's median sampling interval, for a dataset whose anti-aliasing filter is
// the whole recording's (`antialias_from: recording`, or made before the key); a dataset of
// `antialias_from: leading` (the default) needs none.
import Foundation
import MotionLive

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("live-replay: \(message)\n".utf8))
    exit(1)
}

var args = Array(CommandLine.arguments.dropFirst())
var intervals: [String: Double] = [:]
while let i = args.firstIndex(of: "--interval"), i + 1 < args.count {
    let spec = args[i + 1].split(separator: "=", maxSplits: 1)
    guard spec.count == 2, let seconds = Double(spec[1]) else { fail("--interval takes STREAM=SECONDS, not \(args[i + 1])") }
    intervals[String(spec[0])] = seconds
    args.removeSubrange(i...(i + 1))
}
guard args.count == 3 else { fail("usage: live-replay DATASET_DIR SAMPLES.csv OUT.bin [--interval STREAM=SECONDS]…") }

do {
    let configuration = try LiveConfiguration(contentsOf: args[0])
    let live = try LiveProcessor(configuration: configuration, sampleIntervals: intervals)
    guard let text = try? String(contentsOfFile: args[1], encoding: .utf8) else { fail("cannot read \(args[1])") }
    var out = Data()
    func write(_ windows: [LiveWindow]) {
        for w in windows {
            withUnsafeBytes(of: w.startTime.bitPattern.littleEndian) { out.append(contentsOf: $0) }
            for part in [w.x, w.xNormalized, w.features, w.featuresNormalized] {
                for v in part { withUnsafeBytes(of: v.bitPattern.littleEndian) { out.append(contentsOf: $0) } }
            }
        }
    }
    var streams: [String: Int] = [:]
    for (i, s) in configuration.streams.enumerated() { streams[s.name] = i }
    var values: [Double] = []
    for (n, line) in text.split(separator: "\n").enumerated() {
        let fields = line.split(separator: ",")
        guard fields.count >= 2, let s = streams[String(fields[0])], let t = Double(fields[1]) else {
            fail("\(args[1]):\(n + 1): expected `stream,time,value,…` with a stream of \(configuration.streams.map(\.name))")
        }
        values.removeAll(keepingCapacity: true)
        for f in fields.dropFirst(2) {
            guard let v = Double(f) else { fail("\(args[1]):\(n + 1): `\(f)` is not a number") }
            values.append(v)
        }
        write(try live.push(stream: s, time: t, values: values))
    }
    write(live.finish())
    try out.write(to: URL(fileURLWithPath: args[2]))
    let c = live.counts
    print("{\"windows\": \(c.windows), \"window_length\": \(configuration.windowLength), \"channels\": \(configuration.channelNames.count), "
          + "\"features\": \(configuration.featureNames.count), \"x_normalized\": \(configuration.xNormalization != nil), "
          + "\"features_normalized\": \(configuration.featureNormalization != nil), \"duplicate_samples\": \(c.duplicateSamples), "
          + "\"gaps\": \(c.gaps), \"short_segment_windows\": \(c.shortSegmentWindows)}")
} catch let e as LiveError {
    fail(e.description)
} catch {
    fail("\(error)")
}
