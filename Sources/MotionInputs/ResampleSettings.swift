import MotionConfig
import MotionCore
import MotionResample

/// The resample settings of one stream, by its name as read (a per-sensor `method` or
/// `max_gap_s`, docs/signal.md, "Resampling and gaps"), and the anti-aliasing warning, for the
/// engine (`StreamingRecording`: `run`, `apply`, `report --recordings`).
extension PipelineSpec {
    package func resampleMethod(for stream: String) -> ResampleMethod {
        resample.method.value(for: stream)
    }

    package func maxGapS(for stream: String) -> Double { resample.maxGapS.value(for: stream) }

    /// The warning for `runs` runs of `stream` left unfiltered (15 samples or fewer, scipy's pad
    /// length for the contract's (docs/signal.md, "Resampling and gaps") filter).
    package static func unfilteredWarning(recording: String, runs: Int, stream: String) -> String {
        "\(recording): \(runs) run(s) of \(stream) between gaps had 15 samples or fewer and were left unfiltered"
    }
}
