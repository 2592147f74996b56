import Dispatch
import Foundation
import MotionConfig
import MotionCore
#if canImport(Glibc)
import Glibc
import MotionJob
#endif

/// `motionprep run PIPELINE.yaml [--jobs N] [--out DIR] [--worker I/N|auto [--workers N]] [--partitions N] [--resume] [--quiet] [--json]`.
enum RunCommand {
    static let help = """
        usage: motionprep run PIPELINE.yaml [--jobs N] [--out DIR] [--worker I/N|auto [--workers N]] [--partitions N] [--resume] [--quiet] [--json]

        Runs the pipeline and writes the dataset (HDF5 files, SHA256SUMS, manifest.json). The dataset
        is built in DIR.partial/ and moved into place only when complete; a previous dataset in DIR
        stays intact until then.

        options:
          --jobs N      recordings processed in parallel (default: the CPUs this process may use: affinity,
                        cgroup quota, SLURM_CPUS_PER_TASK); output is identical for any N
          --out DIR     write here instead of the pipeline's output.path (relative to the current folder)
          --worker I/N  process only the recordings whose name hashes to I modulo N (I from 0) and write a
                        part (default folder: OUT-part-I-of-N) for `motionprep merge`
          --worker auto I and N from the array task's environment (Slurm, SGE, PBS/Torque, LSF, AWS Batch,
                        Kubernetes Indexed Job; docs/scale.md)
          --workers N   the worker count for `--worker auto` where the scheduler gives none
          --partitions N  with `output.partitioned: true`: write N partitions on this machine, the same files
                        as N `--worker I/N` parts merged (default 1; docs/scale.md)
          --resume      finish an interrupted run from DIR.partial/ without redoing finished recordings;
                        refused when the pipeline or an input file changed since
          --quiet       no progress bar and no summary (warnings and errors still go to stderr)
          --json        print a machine-readable summary on stdout at the end

        Ctrl-C stops cleanly (exit 130) and keeps the finished recordings for --resume.
        """

    static func run(_ args: [String]) throws -> ExitStatus {
        if args.contains("--help") || args.contains("-h") { try Diagnostics.stdout(help); return .success }
        let a = try ArgumentScanner(args, valueOptions: CommandCatalogue["run"].valueOptions, flagOptions: CommandCatalogue["run"].flagOptions, command: "run")
        guard a.positionals.count == 1 else {
            throw UsageError(message: a.positionals.isEmpty ? "`motionprep run` needs a pipeline file, e.g. `motionprep run pipelines/walk.yaml`"
                                                           : "`motionprep run` takes one pipeline file, got \(a.positionals.count): \(a.positionals.joined(separator: " "))")
        }
        var worker: WorkerSlot?
        var workerOrigin = "from --worker"
        let workers = try a.int("--workers", in: 1...WorkerSlot.maxWorkers, command: "run")
        if let w = a.value("--worker") {
            if w == "auto" {
                let found = try WorkerSlot.fromEnvironment(ProcessInfo.processInfo.environment, workers: workers)
                worker = found.slot
                workerOrigin = found.origin
            } else {
                guard let slot = WorkerSlot(parsing: w) else {
                    throw UsageError(message: "option `--worker` of `motionprep run` must be I/N with 0 ≤ I < N (e.g. `--worker 0/4`) or `auto` (the array task's slot, from the scheduler's environment), not `\(w)`")
                }
                guard slot.count <= WorkerSlot.maxWorkers else {
                    throw UsageError(message: "option `--worker` of `motionprep run` splits the run into at most \(WorkerSlot.maxWorkers) workers (the most `motionprep merge` takes), not \(slot.count) in `\(w)`")
                }
                if workers != nil {
                    throw UsageError(message: "option `--workers` of `motionprep run` goes only with `--worker auto`; `--worker \(w)` already names the count")
                }
                worker = slot
            }
        } else if let workers {
            throw UsageError(message: "option `--workers` of `motionprep run` goes only with `--worker auto`, not alone (got `--workers \(workers)`)")
        }
        let partitions = try a.int("--partitions", in: 1...WorkerSlot.maxWorkers, command: "run")
        let allowance = CPUAllowance.jobs(option: try a.int("--jobs", in: 1...4096, command: "run"))
        let jobs = allowance.count
        let spec = try PipelineLoader.load(path: a.positionals[0])
        let quiet = a.flag("--quiet")
        let hooks = TestHooks()
        let bar = ProgressBar(enabled: !quiet && Diagnostics.stderrIsTerminal, interval: hooks.progressIntervalNanoseconds)
        let cancel = CancelFlag()
        let signals = cancel.installSIGINTHandler()
        defer { signals.cancel(); signal(SIGINT, SIG_DFL) }
        var options = RunOptions(
            jobs: jobs, outputDirectory: a.value("--out"), worker: worker, resume: a.flag("--resume"),
            log: { line in bar.clear(); Diagnostics.log(line) },
            progress: { bar.draw($0) },
            isCancelled: { cancel.isSet })
        options.partitions = partitions
        hooks.apply(to: &options)
        let summary: RunSummary
        do {
            summary = try PipelineRunner.run(spec, options: options)
        } catch {
            bar.clear()
            throw error
        }
        bar.clear()
        if let testBudget = hooks.memoryBudgetValues {
            Diagnostics.stderr("motionprep: test hook: memory budget peak \(summary.memoryBudgetPeak) of \(testBudget) values, at most \(summary.memoryBudgetPeakHolders) recording(s) holding a reservation at once; \(summary.readBack) recording(s) read back from their record files")
        }
        if !quiet { Diagnostics.stderr(text(summary, worker: worker.map { (slot: $0, origin: workerOrigin) }, jobs: allowance)) }
        if a.flag("--json") { try Diagnostics.stdout(json(summary, jobs: allowance, worker: worker.map { (slot: $0, origin: workerOrigin) }).pretty()) }
        return .success
    }

    /// Test hook for tests/python/test_crash_safety.py, test_output_safety.py and
    /// test_provenance.py (docs/hardening.md): at checkpoint `point` the run says so on stderr and
    /// stops there until it is killed, or, with `MOTIONPREP_TEST_CONTINUE_WHEN=PATH`, until PATH
    /// exists. Not a user feature.
    /// The text summary; `jobs: N (source)` is its last line.
    static func text(_ s: RunSummary, worker: (slot: WorkerSlot, origin: String)?, jobs: CPUAllowance) -> String {
        if let worker {
            return "wrote part \(worker.slot) to \(s.outputDirectory): \(s.recordings) recording(s); join the parts with `motionprep merge OUT_DIR PART_DIR...`\n"
                + "worker \(worker.slot) (\(worker.origin))\njobs: \(jobs)"
        }
        var lines: [String] = []
        if let cml = s.createmlPerSplit {
            lines.append("wrote \(s.outputDirectory) for Create ML: " + cml.map { "\($0.split) \($0.stretches) stretches (\($0.rows) rows)" }.joined(separator: ", ") + " (\(s.bytesWritten) bytes)")
            lines.append("windows cut (not written): " + s.windowsPerSplit.map { "\($0.split) \($0.windows)" }.joined(separator: ", "))
        } else {
            lines.append("wrote \(s.outputDirectory): " + s.windowsPerSplit.map { "\($0.split) \($0.windows)" }.joined(separator: ", ") + " windows (\(s.bytesWritten) bytes)")
        }
        lines.append("read \(s.recordings) recording(s), \(s.rowsRead) rows")
        func reasons(_ d: [String: Int]) -> String { d.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") }
        if !s.rowsDropped.isEmpty { lines.append("rows dropped: " + reasons(s.rowsDropped)) }
        if !s.windowsDropped.isEmpty { lines.append("windows dropped: " + reasons(s.windowsDropped)) }
        if !s.recordingsDropped.isEmpty { lines.append("recordings dropped: " + reasons(s.recordingsDropped)) }
        for sk in s.skipped { lines.append("  skipped \(sk.recording): \(sk.reason)") }
        if s.gaps > 0 { lines.append(String(format: "gaps: %d, costing %.2f s of signal", s.gaps, s.gapSeconds)) }
        lines.append("jobs: \(jobs)")
        return lines.joined(separator: "\n")
    }

    /// `jobs` is the number of recordings processed at once (and of every thread pool),
    /// `jobs_from` where it came from; `worker` and `worker_from` only for a part.
    static func json(_ s: RunSummary, jobs: CPUAllowance, worker: (slot: WorkerSlot, origin: String)? = nil) -> JSONValue {
        var o: [String: JSONValue] = [
            "output": .string(s.outputDirectory),
            "recordings": .int(s.recordings),
            "rows_read": .int(s.rowsRead),
            "rows_dropped": .object(s.rowsDropped.mapValues { .int($0) }),
            "windows_dropped": .object(s.windowsDropped.mapValues { .int($0) }),
            "recordings_dropped": .object(s.recordingsDropped.mapValues { .int($0) }),
            "skipped": .array(s.skipped.map { .object(["recording": .string($0.recording), "error": .string($0.reason)]) }),
            "gaps": .int(s.gaps),
            "gap_seconds": .double(s.gapSeconds),
            "windows": .object(Dictionary(uniqueKeysWithValues: s.windowsPerSplit.map { ($0.split, JSONValue.int($0.windows)) })),
            "bytes_written": .int(s.bytesWritten),
            "resumed_recordings": .int(s.resumed),
            "streamed_recordings": .int(s.streamed),
            "warnings": .array(s.warnings.map { .string($0) }),
            "jobs": .int(jobs.count),
            "jobs_from": .string(jobs.source),
        ]
        if let cml = s.createmlPerSplit {
            o["createml"] = .object(Dictionary(uniqueKeysWithValues: cml.map {
                ($0.split, JSONValue.object(["stretches": .int($0.stretches), "rows": .int($0.rows)]))
            }))
        }
        if let worker {
            o["worker"] = .string(worker.slot.description)
            o["worker_from"] = .string(worker.origin)
        }
        return .object(o)
    }
}

/// Set from the SIGINT handler, polled by the run between recordings.
final class CancelFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }

    func set() { lock.lock(); value = true; lock.unlock() }

    /// Routes SIGINT to this flag (a second Ctrl-C exits at once).
    func installSIGINTHandler() -> DispatchSourceSignal {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { [self] in
            if isSet { _exit(130) }
            set()
            Diagnostics.stderr("\nmotionprep: stopping after the recordings in progress (Ctrl-C again to quit at once)")
        }
        source.resume()
        return source
    }
}

/// A one-line progress bar on stderr: recordings, windows, MB/s, ETA. Drawn only on a terminal.
final class ProgressBar: @unchecked Sendable {
    private let enabled: Bool
    private let start = DispatchTime.now().uptimeNanoseconds
    private let lock = NSLock()
    private let interval: UInt64
    private var lastDraw: UInt64 = 0
    private var shown = false

    /// `interval`: the least time between two draws, in nanoseconds (100 ms by default); the last
    /// draw, with every recording done, is always made.
    init(enabled: Bool, interval: UInt64? = nil) {
        self.enabled = enabled
        self.interval = interval ?? 100_000_000
    }

    func draw(_ p: RunProgress) {
        guard enabled else { return }
        lock.lock(); defer { lock.unlock() }
        let now = DispatchTime.now().uptimeNanoseconds
        guard lastDraw == 0 || now - lastDraw >= interval || p.done == p.total else { return }
        lastDraw = now
        let elapsed = Double(now - start) / 1e9
        let fraction = p.fraction
        let width = 24
        let filled = Int(fraction * Double(width))
        let rate = elapsed > 0 ? Double(p.inputBytes) / 1e6 / elapsed : 0
        let eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0
        let line = String(format: "\r[%@%@] %d/%d recordings, %d windows, %.0f MB/s, ETA %d:%02d ",
                          String(repeating: "#", count: filled), String(repeating: ".", count: width - filled),
                          p.done, p.total, p.windows, rate, Int(eta) / 60, Int(eta) % 60)
        Diagnostics.stderrRaw(line)
        shown = true
    }

    func clear() {
        guard enabled else { return }
        lock.lock(); defer { lock.unlock() }
        if shown { Diagnostics.stderrRaw("\r\u{1B}[K") }
        shown = false
    }
}
