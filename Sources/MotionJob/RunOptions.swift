import MotionInputs
import MotionEngine
/// Command-line options of `motionprep run` that are not part of the pipeline (and so not part of
/// its hash).
public struct RunOptions: Sendable {
    /// Parallel workers (`--jobs`); default: all cores.
    public var jobs: Int
    /// Output folder overriding `output.path` (`--out`), relative to the current directory.
    public var outputDirectory: String?
    /// Receives warning and notice lines (stderr in the CLI).
    public var log: @Sendable (String) -> Void
    /// Called on the writer's thread after every recording.
    public var progress: @Sendable (RunProgress) -> Void
    /// `--worker I/N`: process only this worker's recordings and write a part for `merge`.
    public var worker: WorkerSlot?
    /// `--resume`: reuse the finished recordings of an interrupted run.
    public var resume: Bool
    /// `--partitions N` (`output.partitioned` only): the partitions one machine writes, the same
    /// files as N `--worker I/N` parts merged; nil for 1 (or a worker's count).
    public var partitions: Int?
    /// Polled before each recording starts; true stops the run (SIGINT).
    public var isCancelled: @Sendable () -> Bool
    /// A test hook: called on the writer's thread at named points of the run, `before-manifest`
    /// (SHA256SUMS written, manifest.json not yet) and `before-commit` (the dataset complete in
    /// `DIR.partial/`, not yet moved into place). The CLI sets it only for the crash-safety tests
    /// (`MOTIONPREP_TEST_PAUSE_AT`); it does nothing by default.
    public var checkpoint: @Sendable (String) -> Void = { _ in }
    /// Input bytes per block: every recording streams through the stages in blocks, with memory
    /// bounded by the block size instead of the recording's length (docs/streaming.md). The CLI
    /// reads `MOTIONPREP_STREAM_BLOCK_BYTES` (tests set a huge value to read each file in one
    /// block, the "whole" case, and compare).
    public var streamBlockBytes = RunOptions.defaultStreamBlockBytes
    /// The run-wide memory budget in values (4-byte units) that recordings in flight may hold
    /// together, whatever `jobs` (`MemoryBudget`, docs/hardening.md §3); also the most one
    /// recording's grid or windows may need when smaller than the per-recording limits. The
    /// CLI lowers it only for tests (`MOTIONPREP_TEST_MEMORY_BUDGET`).
    public var memoryBudgetValues = ResourceLimits.defaultRunBudgetValues
    public static let defaultStreamBlockBytes = StreamDefaults.blockBytes

    public init(jobs: Int, outputDirectory: String? = nil, worker: WorkerSlot? = nil, resume: Bool = false,
                log: @escaping @Sendable (String) -> Void = { _ in },
                progress: @escaping @Sendable (RunProgress) -> Void = { _ in },
                isCancelled: @escaping @Sendable () -> Bool = { false }) {
        self.jobs = jobs
        self.outputDirectory = outputDirectory
        self.worker = worker
        self.resume = resume
        self.log = log
        self.progress = progress
        self.isCancelled = isCancelled
    }
}

/// `--worker I/N`.
public struct WorkerSlot: Sendable, Equatable, CustomStringConvertible {
    public var index: Int
    public var count: Int
    /// The most workers a run may be split into: `run --worker I/N` refuses a larger N (64) and
    /// `merge` a part naming more (65), so that every part `run` writes can be merged.
    public static let maxWorkers = 1_000_000
    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }
    /// Parses `I/N` with 0 ≤ I < N.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, i >= 0, i < n else { return nil }
        self.init(index: i, count: n)
    }
    public var description: String { "\(index)/\(count)" }
}

/// What a run did: the numbers behind the summary and `--json`.
public struct RunSummary: Sendable {
    public var outputDirectory: String
    public var recordings: Int
    public var rowsRead: Int
    public var rowsDropped: [String: Int]
    public var windowsDropped: [String: Int]
    public var recordingsDropped: [String: Int]
    public var skipped: [(recording: String, reason: String)]
    public var gaps: Int
    public var gapSeconds: Double
    public var windowsPerSplit: [(split: String, windows: Int)]
    public var warnings: [String]
    public var bytesWritten: Int
    /// Recordings loaded from `--resume` state instead of being processed again.
    public var resumed: Int = 0
    /// Recordings streamed through the stages (every one processed; not those resumed).
    public var streamed: Int = 0
    /// Recordings whose windows the writer read back from their record files (resumed or merged
    /// ones, and those whose windows did not fit in memory: `RecordWriter`); the others' were
    /// handed over in memory.
    public var readBack: Int = 0
    /// The most values reserved from the memory budget at once, and the most recordings holding
    /// a reservation at once (`MemoryBudget`).
    public var memoryBudgetPeak: Int = 0
    public var memoryBudgetPeakHolders: Int = 0
    /// `output.type: createml`: the stretches and rows written per split (the windows in
    /// `windowsPerSplit` are then those cut, not written); nil for the other outputs.
    public var createmlPerSplit: [(split: String, stretches: Int, rows: Int)]? = nil
    /// `merge` of a partitioned run: data files moved from the parts, and how many of them were
    /// copied (another filesystem) rather than linked.
    public var movedFiles: Int = 0
    public var copiedFiles: Int = 0
}
