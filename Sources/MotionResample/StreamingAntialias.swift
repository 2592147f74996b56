#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Antialias {
    /// The filter docs/signal.md, "Resampling and gaps" prescribes for a stream with median sampling interval `median`, or nil
    /// when the stream is not sampled fast enough to need one (median ≥ 0.9 / rateHz, or no
    /// interval at all).
    public static func lowPass(medianInterval median: Double, rateHz: Double) -> Butterworth? {
        guard median > 0 && median < 0.9 / rateHz else { return nil }
        return Butterworth.lowPass(order: 4, cutoffHz: 0.4 * rateHz, sampleRateHz: 1 / median)
    }
}

/// `Antialias.apply` for a stream that arrives a sample at a time (issue 8, streamed recordings):
/// the same runs between gaps, the same odd padding and steady-state initial conditions, the
/// forward pass carried exactly from sample to sample.
///
/// The backward pass needs a run's end. When a run ends (a gap, or the end of the stream) its
/// unsent samples are finished exactly as `Butterworth.filtfilt` would. Inside a run longer than
/// `overlap + chunk` samples, the samples more than `overlap` behind the newest are sent early:
/// their backward pass starts at the newest sample from the steady state there instead of at
/// the run's end. The difference decays like the filter's slowest pole to the power `overlap`,
/// which is chosen so that it is below 2⁻⁶⁰ of the signal: the values then match whole
/// processing within float32 rounding (the documented contract allows no more; issue 8 allows exactly this).
///
/// Stage contract (ARCHITECTURE.md, "The chain"): **in**, one stream's settled samples
/// (`push`); **out**, the same samples filtered, as soon as they are final (into the caller's
/// arrays); **finish**, `finish` ends the last run; **state**, the current run's unsent samples
/// and the forward pass's state. It sits inside its stream's `StreamBuffer`.
public final class StreamingRunFilter {
    public let filter: Butterworth
    public let channels: Int
    public let maxGapS: Double
    /// Samples kept behind the newest before a sample is sent mid-run.
    public let overlap: Int
    /// Samples sent at a time mid-run (amortises the backward pass over the overlap).
    let chunk: Int
    let pad: Int
    private let zi: [(Double, Double)]

    /// Runs that had `pad` (15) samples or fewer and were left unfiltered.
    public private(set) var unfilteredRuns = 0

    // The current run: buffered samples from run index `bufferStart`.
    private var runCount = 0
    private var bufferStart = 0
    private var emitted = 0
    private var lastTime = 0.0
    private var times: [Double] = []
    private var raw: [[Double]]
    private var forward: [[Double]]
    private var started = false
    /// Forward state per channel and section.
    private var state: [[(Double, Double)]]

    /// - Parameter chunk: samples sent at a time mid-run; by default max(4096, overlap), which
    ///   amortises the backward pass over the overlap. A live stream passes a few samples, so
    ///   that filtered samples come about `overlap` samples after they arrive (the values are the
    ///   same either way: see above).
    public init(filter: Butterworth, channels: Int, maxGapS: Double, chunk: Int? = nil) {
        self.filter = filter
        self.channels = channels
        self.maxGapS = maxGapS
        pad = filter.padLength
        zi = filter.stepInitialState()
        var r = 0.0
        for s in filter.sections { r = Swift.max(r, s.a2.squareRoot()) }
        overlap = r > 0 && r < 1 ? Int((-60 * log(2.0) / log(r)).rounded(.up)) + 2 * pad : 1 << 16
        self.chunk = Swift.max(1, chunk ?? Swift.max(4096, overlap))
        raw = Array(repeating: [], count: channels)
        forward = Array(repeating: [], count: channels)
        state = Array(repeating: [], count: channels)
    }

    /// Takes the next sample (times strictly increasing); filtered samples that are ready are
    /// appended to `outTimes` / `outValues` in order.
    public func push(time t: Double, values: [Double], outTimes: inout [Double], outValues: inout [[Double]]) {
        if runCount > 0 && t - lastTime > maxGapS { endRun(outTimes: &outTimes, outValues: &outValues) }
        times.append(t)
        for c in 0..<channels { raw[c].append(values[c]) }
        runCount += 1
        lastTime = t
        if !started {
            if runCount == pad + 1 { start() }
        } else {
            for c in 0..<channels { forward[c].append(step(values[c], &state[c])) }
        }
        if started && runCount - emitted >= overlap + chunk { sendEarly(outTimes: &outTimes, outValues: &outValues) }
    }

    /// Takes samples `range` of `times` / `values` (one array per channel) in order, as many
    /// `push(time:values:outTimes:outValues:)` calls would, with the same values out. Inside a
    /// started run, the stretches between a gap and an early send are filtered channel by
    /// channel over contiguous memory (each sample through every section, in the same order as
    /// one at a time); a run's first pad + 1 samples go through `push(time:…)`.
    public func push(times ts: [Double], values vs: [[Double]], range: Range<Int>,
                     outTimes: inout [Double], outValues: inout [[Double]]) {
        var j = range.lowerBound
        let end = range.upperBound
        while j < end {
            if runCount > 0 && ts[j] - lastTime > maxGapS { endRun(outTimes: &outTimes, outValues: &outValues) }
            if !started {
                push(time: ts[j], values: vs.map { $0[j] }, outTimes: &outTimes, outValues: &outValues)
                j += 1
                continue
            }
            // The stretch [j, e): no gap inside, and no more samples than the next early send needs.
            let room = Swift.max(1, overlap + chunk - (runCount - emitted))
            var e = j + 1
            while e < end && e - j < room && !(ts[e] - ts[e - 1] > maxGapS) { e += 1 }
            times.append(contentsOf: ts[j..<e])
            for c in 0..<channels {
                raw[c].append(contentsOf: vs[c][j..<e])
                var z = state[c]
                var out = [Double](repeating: 0, count: e - j)
                vs[c].withUnsafeBufferPointer { x in
                    z.withUnsafeMutableBufferPointer { z in
                        for i in j..<e { out[i - j] = step(x[i], z) }
                    }
                }
                state[c] = z
                forward[c].append(contentsOf: out)
            }
            runCount += e - j
            lastTime = ts[e - 1]
            if runCount - emitted >= overlap + chunk { sendEarly(outTimes: &outTimes, outValues: &outValues) }
            j = e
        }
    }

    /// Ends the stream: finishes the current run exactly.
    public func finish(outTimes: inout [Double], outValues: inout [[Double]]) {
        if runCount > 0 { endRun(outTimes: &outTimes, outValues: &outValues) }
    }

    /// One sample through every section (direct form II transposed), updating `z`. Section by
    /// section over a whole array (`Butterworth.filter`) does the same operations per section.
    @inline(__always)
    private func step(_ x: Double, _ z: inout [(Double, Double)]) -> Double {
        z.withUnsafeMutableBufferPointer { step(x, $0) }
    }

    /// `step` on state held in a buffer (the one definition of the recurrence).
    @inline(__always)
    private func step(_ x: Double, _ z: UnsafeMutableBufferPointer<(Double, Double)>) -> Double {
        var v = x
        for s in 0..<filter.sections.count {
            let sec = filter.sections[s]
            let y = sec.b0 * v + z[s].0
            z[s].0 = sec.b1 * v - sec.a1 * y + z[s].1
            z[s].1 = sec.b2 * v - sec.a2 * y
            v = y
        }
        return v
    }

    private func scaledState(_ x0: Double) -> [(Double, Double)] { zi.map { ($0.0 * x0, $0.1 * x0) } }

    /// The run reached `pad + 1` samples: run the forward pass over the odd extension before it
    /// and the samples so far.
    private func start() {
        started = true
        for c in 0..<channels {
            let x = raw[c]
            let x0 = x[0]
            let e0 = 2 * x0 - x[pad]
            var z = scaledState(e0)
            for i in 0..<pad { _ = step(2 * x0 - x[pad - i], &z) }
            forward[c] = x.map { step($0, &z) }
            state[c] = z
        }
    }

    /// Sends the samples more than `overlap` behind the newest, their backward pass started at
    /// the newest sample.
    private func sendEarly(outTimes: inout [Double], outValues: inout [[Double]]) {
        let last = runCount - 1
        let end = runCount - overlap
        for c in 0..<channels {
            var z = scaledState(forward[c][last - bufferStart])
            var out = [Double](repeating: 0, count: end - emitted)
            var i = last
            while i >= emitted {
                let y = step(forward[c][i - bufferStart], &z)
                if i < end { out[i - emitted] = y }
                i -= 1
            }
            outValues[c].append(contentsOf: out)
        }
        outTimes.append(contentsOf: times[(emitted - bufferStart)..<(end - bufferStart)])
        emitted = end
        // Keep the unsent samples, and the last pad + 1 raw ones for the end's extension.
        let keep = Swift.min(emitted, runCount - pad - 1)
        let drop = keep - bufferStart
        if drop > 0 {
            times.removeFirst(drop)
            for c in 0..<channels {
                raw[c].removeFirst(drop)
                forward[c].removeFirst(drop)
            }
            bufferStart = keep
        }
    }

    /// Finishes the current run: exact `filtfilt` for its unsent samples (or the raw samples of
    /// a run too short to filter).
    private func endRun(outTimes: inout [Double], outValues: inout [[Double]]) {
        let n = runCount
        if !started {
            unfilteredRuns += 1
            outTimes.append(contentsOf: times)
            for c in 0..<channels { outValues[c].append(contentsOf: raw[c]) }
        } else {
            for c in 0..<channels {
                let x = raw[c]
                let xl = x[n - 1 - bufferStart]
                var z = state[c]
                var tail = [Double](repeating: 0, count: pad)
                for i in 0..<pad { tail[i] = step(2 * xl - x[n - 2 - i - bufferStart], &z) }
                var back = scaledState(tail[pad - 1])
                for i in stride(from: pad - 1, through: 0, by: -1) { _ = step(tail[i], &back) }
                var out = [Double](repeating: 0, count: n - emitted)
                var i = n - 1
                while i >= emitted {
                    out[i - emitted] = step(forward[c][i - bufferStart], &back)
                    i -= 1
                }
                outValues[c].append(contentsOf: out)
            }
            outTimes.append(contentsOf: times[(emitted - bufferStart)...])
        }
        runCount = 0
        bufferStart = 0
        emitted = 0
        started = false
        times.removeAll(keepingCapacity: true)
        for c in 0..<channels {
            raw[c].removeAll(keepingCapacity: true)
            forward[c].removeAll(keepingCapacity: true)
        }
    }
}
