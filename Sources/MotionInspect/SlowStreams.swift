import Foundation
import MotionConfig
import MotionCore
import MotionIngest
import MotionInputs
import MotionEngine

/// Streams whose samples are further apart than their `resample.max_gap_s`: every interval of
/// such a stream is a gap, so its grid points are all invalid and `run` cuts no window
/// (docs/signal.md, "Resampling and gaps"). `init` avoids them (a stream slower than 12.5 Hz gets
/// `max_gap_s` of 2.5 of its intervals), `validate PIPELINE` finds them in each input's first
/// file (an error, 65), and `run`'s "produced no window" names them.
///
/// A stream is slow when more than half of its intervals between consecutive samples (positive
/// ones, in file order) exceed its `max_gap_s`: its median interval is above the limit. The value
/// that would work is the same rule as `init`'s: 2.5 × the median interval, rounded up to 0.1 s
/// (to 0.001 s below 0.1 s).
package enum SlowStreams {
    /// A slow stream found in a file or recording.
    package struct Finding: Sendable, Equatable {
        /// The stream's name as read (`AndroSensor`, `Barometer`, a file's stem), the name a
        /// `max_gap_s` override takes.
        package var stream: String
        /// Where it was found (a file, or a recording's name).
        package var place: String
        /// Its median positive interval, seconds (of its first ``Tally/medianSampleLimit`` intervals).
        package var medianIntervalS: Double
        /// The intervals counted, and how many exceed `max_gap_s`.
        package var intervals: Int
        package var overLimit: Int
        /// The stream's `max_gap_s` in the pipeline.
        package var maxGapS: Double
        /// The `max_gap_s` that would work: 2.5 of its median intervals, rounded up.
        package var suggestedMaxGapS: Double { SlowStreams.suggestedMaxGap(medianIntervalS: medianIntervalS) }
    }

    /// The rate below which `init` gives a stream its own `max_gap_s`: 2.5 intervals of a
    /// 12.5 Hz stream are the 0.2 s `init` writes as the default.
    package static let slowBelowHz = 12.5

    /// `init`'s rule: 2.5 intervals, rounded up to 0.1 s (0.001 s for values below 0.1 s).
    package static func suggestedMaxGap(medianIntervalS m: Double) -> Double {
        let v = 2.5 * m
        if v >= 0.1 { return (v * 10).rounded(.up) / 10 }
        return Swift.max(0.001, (v * 1000).rounded(.up) / 1000)
    }

    /// Counts one stream's intervals in bounded memory: all of them against `max_gap_s`, the first
    /// ``medianSampleLimit`` for the median.
    package struct Tally {
        package static let medianSampleLimit = 100_000
        package var maxGapS: Double
        package var last: Double?
        package var intervals = 0
        package var overLimit = 0
        package var sample: [Double] = []

        package mutating func add(_ times: [Double]) {
            for t in times {
                defer { last = t }
                guard let p = last, t > p else { continue }
                let d = t - p
                intervals += 1
                if d > maxGapS { overLimit += 1 }
                if sample.count < Self.medianSampleLimit { sample.append(d) }
            }
        }

        /// Slow: more than half of the intervals exceed the limit.
        package var isSlow: Bool { intervals > 0 && overLimit * 2 > intervals }

        /// The upper middle of the sampled intervals, as `init` takes its medians.
        package var median: Double? { SlowStreams.median(sample) }
    }

    /// Tallies by stream name, in order of first appearance.
    package struct Tallies {
        package var names: [String] = []
        package var byName: [String: Tally] = [:]

        package mutating func add(_ raw: RawStream, spec: PipelineSpec) {
            if byName[raw.name] == nil {
                names.append(raw.name)
                byName[raw.name] = Tally(maxGapS: spec.maxGapS(for: raw.name))
            }
            byName[raw.name]!.add(raw.times)
        }

        package func findings(place: String) -> [Finding] {
            names.compactMap { n in
                let t = byName[n]!
                guard t.isSlow, let m = t.median else { return nil }
                return Finding(stream: n, place: place, medianIntervalS: m, intervals: t.intervals, overLimit: t.overLimit, maxGapS: t.maxGapS)
            }
        }

        package init(names: [String] = [], byName: [String: Tally] = [:]) {
            self.names = names
            self.byName = byName
        }
    }

    /// Reads every file of `source` (in blocks, as `run` reads them) and returns its slow streams.
    package static func check(_ source: RecordingSource, spec: PipelineSpec, layout: ChannelLayout) throws -> [Finding] {
        // A stream comes from one file of a recording (docs/inputs.md), so one tally per name.
        var tallies = Tallies()
        for file in source.files {
            guard let reader = try RecordingReader.blockReader(file, spec: spec, layout: layout,
                                                                  blockBytes: StreamDefaults.blockBytes, ledger: nil) else { continue }
            while let block = try reader.next() { for raw in block.streams { tallies.add(raw, spec: spec) } }
        }
        return tallies.findings(place: source.name)
    }

    /// The `resample.max_gap_s` mapping with the suggested values in place:
    /// `{default: 0.25, AndroSensor: 1.3}`.
    package static func suggestedSetting(_ findings: [Finding], spec: PipelineSpec) -> String {
        var entries: [(String, Double)] = spec.resample.maxGapS.overrides.map { ($0.key, $0.value) }
        for f in findings {
            let v = findings.filter { $0.stream == f.stream }.map(\.suggestedMaxGapS).max()!
            if let i = entries.firstIndex(where: { $0.0 == f.stream }) { entries[i].1 = v } else { entries.append((f.stream, v)) }
        }
        let parts = ["default: \(MessageNumber.number(spec.resample.maxGapS.defaultValue))"]
            + entries.map { "\(YAMLText.quoted($0.0)): \(MessageNumber.number($0.1))" }
        return "max_gap_s: {" + parts.joined(separator: ", ") + "}"
    }

    /// One sentence per stream (the first place it was found): `stream `AndroSensor` (in
    /// data/a.csv): its samples are 0.5 s apart (median interval; 231 of 231 intervals), more
    /// than its `max_gap_s` of 0.25 s, so they are all gaps`.
    package static func describe(_ findings: [Finding]) -> String {
        var seen: Set<String> = []
        var parts: [String] = []
        for f in findings where seen.insert(f.stream).inserted {
            parts.append("stream `\(f.stream)` (in \(f.place)): its samples are \(String(format: "%.4g", f.medianIntervalS)) s apart (median interval), more than its `max_gap_s` of \(MessageNumber.number(f.maxGapS)) s, so \(f.overLimit) of its \(f.intervals) intervals are gaps")
        }
        return parts.joined(separator: "; ")
    }

    /// The recordings `explain` reads again, at most.
    package static let recordingsExplained = 5

    /// The cause of a run without windows when it is slow streams: the first
    /// ``recordingsExplained`` recordings are read again (only then, on the failure path); nil
    /// when none of their streams is slow (or they cannot be read).
    package static func explain(_ plan: RunPlan) -> String? {
        var found: [Finding] = []
        for source in plan.sources.prefix(recordingsExplained) {
            if let f = try? check(source, spec: plan.spec, layout: plan.layout) { found += f }
        }
        guard !found.isEmpty else { return nil }
        return describe(found) + "; set `\(suggestedSetting(found, spec: plan.spec))` in `resample` of \(plan.spec.file) (2.5 of each stream's intervals; `motionprep validate \(plan.spec.file)` finds this before a run)"
    }

    /// The middle value of `xs` (the upper one of an even count), nil for none.
    package static func median(_ xs: [Double]) -> Double? {
        guard !xs.isEmpty else { return nil }
        let s = xs.sorted()
        return s[s.count / 2]
    }
}
