import Foundation
import MotionInputs
import MotionJob

/// The hooks that tests set through the environment, read in one place for `run` and `apply`.
/// None is meant for users; each is documented where the behaviour it exposes is:
/// - `MOTIONPREP_TEST_PAUSE_AT=POINT` (with `MOTIONPREP_TEST_CONTINUE_WHEN=PATH`): stop at a named
///   point of the run (docs/hardening.md §2);
/// - `MOTIONPREP_STREAM_BLOCK_BYTES`: the input bytes per block (docs/streaming.md; a huge value
///   reads each file in one block);
/// - `MOTIONPREP_TEST_MEMORY_BUDGET=N`: a lowered run-wide memory budget, in values (docs/hardening.md §3);
/// - `MOTIONPREP_TEST_PROGRESS_INTERVAL_MS=N`: the progress bar's least interval between draws
///   (100 ms by default), so that a test on a fast machine sees every draw.
struct TestHooks {
    var checkpoint: (@Sendable (String) -> Void)?
    var streamBlockBytes: Int?
    var memoryBudgetValues: Int?
    var progressIntervalNanoseconds: UInt64?

    init(environment env: [String: String] = ProcessInfo.processInfo.environment) {
        if let point = env["MOTIONPREP_TEST_PAUSE_AT"] {
            checkpoint = Self.pause(at: point, continueWhen: env["MOTIONPREP_TEST_CONTINUE_WHEN"])
        }
        if let v = env["MOTIONPREP_STREAM_BLOCK_BYTES"], let n = Int(v), n >= 1 { streamBlockBytes = n }
        if let v = env["MOTIONPREP_TEST_MEMORY_BUDGET"], let n = Int(v), n >= 1 { memoryBudgetValues = n }
        if let v = env["MOTIONPREP_TEST_PROGRESS_INTERVAL_MS"], let n = UInt64(v) { progressIntervalNanoseconds = n * 1_000_000 }
    }

    /// The block size with its default, for the commands that only read (`inspect`,
    /// `report --recordings`).
    var blockBytes: Int { streamBlockBytes ?? StreamDefaults.blockBytes }

    /// Applies the hooks that were set to a run's options.
    func apply(to options: inout RunOptions) {
        if let checkpoint { options.checkpoint = checkpoint }
        if let streamBlockBytes { options.streamBlockBytes = streamBlockBytes }
        if let memoryBudgetValues { options.memoryBudgetValues = memoryBudgetValues }
    }

    /// Applies the hooks that were set to an apply's options.
    func apply(to options: inout ApplyOptions) {
        if let checkpoint { options.checkpoint = checkpoint }
        if let streamBlockBytes { options.streamBlockBytes = streamBlockBytes }
        if let memoryBudgetValues { options.memoryBudgetValues = memoryBudgetValues }
    }

    /// A checkpoint that, at `point`, says so on stderr and waits: until `path` exists, or forever
    /// (the test then kills the process).
    static func pause(at point: String, continueWhen path: String? = nil) -> @Sendable (String) -> Void {
        { reached in
            guard reached == point else { return }
            Diagnostics.stderr("motionprep: test hook: paused at \(point)")
            if let path {
                while access(path, F_OK) != 0 { usleep(2000) }
                return
            }
            while true { sleep(60) }
        }
    }
}
