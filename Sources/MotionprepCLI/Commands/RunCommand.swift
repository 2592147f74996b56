import Foundation
import MotionConfig
import MotionCore
import MotionPipeline

/// `motionprep run PIPELINE.yaml [--jobs N] [--out DIR] [--quiet] [--json]`.
enum RunCommand {
    static let help = """
        usage: motionprep run PIPELINE.yaml [--jobs N] [--out DIR] [--worker I/N] [--resume] [--quiet] [--json]

        Runs the pipeline and writes the dataset (HDF5 files or shards, SHA256SUMS, manifest.json).
        The dataset is built in DIR.partial/ and moved into place only when complete.

        options:
          --jobs N      recordings processed in parallel (default: all cores); output is identical for any N
          --out DIR     write here instead of the pipeline's output.path (relative to the current folder)
          --quiet       print no progress and no summary (warnings and errors still go to stderr)
          --json        print a machine-readable summary on stdout at the end
          --worker I/N  (not in this build yet)
          --resume      (not in this build yet)
        """

    static func run(_ args: [String]) throws -> ExitStatus {
        if args.contains("--help") || args.contains("-h") { Diagnostics.stdout(help); return .success }
        let a = try ArgumentScanner(args, valueOptions: ["--jobs", "--out", "--worker"], flagOptions: ["--resume", "--quiet", "--json"], command: "run")
        guard a.positionals.count == 1 else {
            throw UsageError(message: a.positionals.isEmpty ? "`motionprep run` needs a pipeline file, e.g. `motionprep run pipelines/walk.yaml`"
                                                           : "`motionprep run` takes one pipeline file, got \(a.positionals.count): \(a.positionals.joined(separator: " "))")
        }
        if a.value("--worker") != nil || a.flag("--resume") {
            throw UsageError(message: "`--worker` and `--resume` are not available in this build yet (see README.md, \"Status\")")
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let jobs = try a.int("--jobs", in: 1...4096, command: "run") ?? cores
        let spec = try PipelineLoader.load(path: a.positionals[0])
        let quiet = a.flag("--quiet")
        let options = RunOptions(jobs: jobs, outputDirectory: a.value("--out"), log: { line in
            if quiet && !line.hasPrefix("warning") && !line.hasPrefix("skipped") { return }
            Diagnostics.stderr(line)
        })
        let summary = try PipelineRunner.run(spec, options: options)
        if !quiet { Diagnostics.stderr(text(summary)) }
        if a.flag("--json") { Diagnostics.stdout(json(summary).pretty()) }
        return .success
    }

    static func text(_ s: RunSummary) -> String {
        var lines: [String] = []
        lines.append("wrote \(s.outputDirectory): " + s.windowsPerSplit.map { "\($0.split) \($0.windows)" }.joined(separator: ", ") + " windows (\(s.bytesWritten) bytes)")
        lines.append("read \(s.recordings) recording(s), \(s.rowsRead) rows")
        func reasons(_ d: [String: Int]) -> String { d.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") }
        if !s.rowsDropped.isEmpty { lines.append("rows dropped: " + reasons(s.rowsDropped)) }
        if !s.windowsDropped.isEmpty { lines.append("windows dropped: " + reasons(s.windowsDropped)) }
        if !s.recordingsDropped.isEmpty { lines.append("recordings dropped: " + reasons(s.recordingsDropped)) }
        for sk in s.skipped { lines.append("  skipped \(sk.recording): \(sk.reason)") }
        if s.gaps > 0 { lines.append(String(format: "gaps: %d, costing %.2f s of signal", s.gaps, s.gapSeconds)) }
        return lines.joined(separator: "\n")
    }

    static func json(_ s: RunSummary) -> JSONValue {
        .object([
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
            "warnings": .array(s.warnings.map { .string($0) }),
        ])
    }
}
