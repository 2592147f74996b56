import MotionConfig
import MotionCore
import MotionResample

/// The resample settings of one stream, by its name as read (a per-sensor `method` or
/// `max_gap_s`, docs/signal.md, "Resampling and gaps"), and the anti-aliasing step, for every path that resamples: whole
/// recordings (`RecordingProcessor`), report timelines (`RecordingTimeline`) and streamed
/// recordings (`StreamingRecording`).
extension PipelineSpec {
    func resampleMethod(for stream: String) -> ResampleMethod {
        resample.method.value(for: stream)
    }

    func maxGapS(for stream: String) -> Double { resample.maxGapS.value(for: stream) }

    /// The streams of a recording with their settings.
    func resampleInputs(_ streams: [SensorStream]) -> [ResampleInput] {
        streams.map { ResampleInput(stream: $0, method: resampleMethod(for: $0.name), maxGapS: maxGapS(for: $0.name)) }
    }

    /// With `antialias`, low-passes each input in place (docs/signal.md, "Resampling and gaps") and returns the warning for
    /// every stream that had runs too short to filter, in stream order.
    func antialias(_ inputs: inout [ResampleInput], recording: String) throws -> [String] {
        guard resample.antialias else { return [] }
        var warnings: [String] = []
        for i in inputs.indices {
            let filtered = try Antialias.apply(inputs[i].stream, rateHz: resample.rateHz, maxGapS: inputs[i].maxGapS)
            inputs[i].stream = filtered.stream
            if filtered.unfilteredRuns > 0 {
                warnings.append(Self.unfilteredWarning(recording: recording, runs: filtered.unfilteredRuns, stream: inputs[i].stream.name))
            }
        }
        return warnings
    }

    /// The warning for `runs` runs of `stream` left unfiltered (15 samples or fewer, scipy's pad
    /// length for the contract's (docs/signal.md, "Resampling and gaps") filter).
    static func unfilteredWarning(recording: String, runs: Int, stream: String) -> String {
        "\(recording): \(runs) run(s) of \(stream) between gaps had 15 samples or fewer and were left unfiltered"
    }
}
