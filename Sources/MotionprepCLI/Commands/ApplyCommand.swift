import Foundation
import MotionConfig
import MotionCore
#if canImport(Glibc)
import Glibc
import MotionJob
#endif

/// `motionprep apply DATASET_DIR INPUT... --out DIR [--input N] [--jobs N] [--quiet] [--json]`
/// (docs/commands.md, "apply").
enum ApplyCommand {
    static let help = """
        usage: motionprep apply DATASET_DIR INPUT... --out DIR [--input N] [--jobs N] [--quiet] [--json]

        Processes new recordings exactly as the dataset's recordings were processed (the pipeline
        in its manifest: channels, units, rate, method, gaps, anti-aliasing, window, features,
        magnitude) and writes every window to DIR (windows.h5, or windows/ shards, as the dataset),
        with x_normalized and features_normalized standardised by the dataset's train statistics.
        y is -1 unless the inputs carry labels the pipeline reads. INPUT is a file or a folder
        (every file below it named like an input's paths). Output safety as `run`: DIR.partial/,
        DIR.lock, only an empty folder or motionprep's own output is replaced.

        options:
          --out DIR     the output folder (required; not inside DATASET_DIR)
          --input N     read every INPUT with inputs[N] of the dataset's pipeline (default: the input
                        whose path patterns' file name matches, or the only input)
          --jobs N      recordings processed in parallel (default: the CPUs this process may use,
                        as `run`); output is identical for any N
          --quiet       no progress bar and no summary (warnings and errors still go to stderr)
          --json        print a machine-readable summary on stdout at the end
        """

    static func run(_ args: [String]) throws -> ExitStatus {
        if args.contains("--help") || args.contains("-h") { try Diagnostics.stdout(help); return .success }
        let spec = CommandCatalogue["apply"]
        let a = try ArgumentScanner(args, valueOptions: spec.valueOptions, flagOptions: spec.flagOptions, command: "apply")
        guard a.positionals.count >= 2 else {
            throw UsageError(message: a.positionals.isEmpty
                ? "`motionprep apply` needs a dataset folder and the recordings to apply it to: `motionprep apply DATASET_DIR INPUT... --out DIR`"
                : "`motionprep apply` needs at least one recording (a file or folder) after the dataset folder: `motionprep apply \(a.positionals[0]) INPUT... --out DIR`")
        }
        guard let out = a.value("--out") else {
            throw UsageError(message: "`motionprep apply` needs `--out DIR`, the folder to write the windows to")
        }
        let allowance = CPUAllowance.jobs(option: try a.int("--jobs", in: 1...4096, command: "apply"))
        let jobs = allowance.count
        let inputIndex = try a.int("--input", in: 0...1_000_000, command: "apply")
        let dataset = try SourceDataset.load(directory: a.positionals[0])
        let quiet = a.flag("--quiet")
        let hooks = TestHooks()
        let bar = ProgressBar(enabled: !quiet && Diagnostics.stderrIsTerminal, interval: hooks.progressIntervalNanoseconds)
        let cancel = CancelFlag()
        let signals = cancel.installSIGINTHandler()
        defer { signals.cancel(); signal(SIGINT, SIG_DFL) }
        var options = ApplyOptions(inputs: Array(a.positionals.dropFirst()), outputDirectory: out, inputIndex: inputIndex, jobs: jobs,
                                   log: { line in bar.clear(); Diagnostics.log(line) },
                                   progress: { bar.draw($0) }, isCancelled: { cancel.isSet })
        hooks.apply(to: &options)
        let summary: RunSummary
        do {
            summary = try ApplyRunner.run(dataset, options: options)
        } catch {
            bar.clear()
            throw error
        }
        bar.clear()
        if !quiet { Diagnostics.stderr(text(summary, dataset: dataset.directory) + "\njobs: \(allowance)") }
        if a.flag("--json") {
            var json = RunCommand.json(summary, jobs: allowance)
            if case .object(var o) = json {
                o["windows_unlabelled"] = o.removeValue(forKey: "windows_dropped")
                json = .object(o)
            }
            try Diagnostics.stdout(json.pretty())
        }
        return .success
    }

    static func text(_ s: RunSummary, dataset: String) -> String {
        let windows = s.windowsPerSplit.reduce(0) { $0 + $1.windows }
        var lines = ["wrote \(s.outputDirectory): \(windows) windows of \(s.recordings) recording(s) processed as \(dataset) (\(s.bytesWritten) bytes)"]
        lines.append("read \(s.rowsRead) rows")
        func reasons(_ d: [String: Int]) -> String { d.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") }
        if !s.rowsDropped.isEmpty { lines.append("rows dropped: " + reasons(s.rowsDropped)) }
        if !s.windowsDropped.isEmpty { lines.append("windows kept unlabelled (y = -1): " + reasons(s.windowsDropped)) }
        if !s.recordingsDropped.isEmpty { lines.append("recordings dropped: " + reasons(s.recordingsDropped)) }
        for sk in s.skipped { lines.append("  skipped \(sk.recording): \(sk.reason)") }
        if s.gaps > 0 { lines.append(String(format: "gaps: %d, costing %.2f s of signal", s.gaps, s.gapSeconds)) }
        return lines.joined(separator: "\n")
    }
}
