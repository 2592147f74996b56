import Foundation
import MotionCore
import MotionJob

/// `motionprep merge OUT_DIR PART_DIR...`.
enum MergeCommand {
    static let help = """
        usage: motionprep merge OUT_DIR PART_DIR... [--jobs N] [--quiet] [--json]

        Joins the parts written by `motionprep run PIPELINE.yaml --worker I/N` (one per I) into one
        dataset: exactly the files a single run would have written, byte for byte. The parts may come
        from `--worker I/N` or `--worker auto` runs alike.

        options:
          --jobs N      HDF5 compression lanes and shard lanes (default: the CPUs this process may use,
                        as `run`); output is identical for any N
          --quiet       no summary
          --json        print a machine-readable summary on stdout at the end
        """

    static func run(_ args: [String]) throws -> ExitStatus {
        if args.contains("--help") || args.contains("-h") { try Diagnostics.stdout(help); return .success }
        let a = try ArgumentScanner(args, valueOptions: CommandCatalogue["merge"].valueOptions, flagOptions: CommandCatalogue["merge"].flagOptions, command: "merge")
        guard a.positionals.count >= 2 else {
            throw UsageError(message: "`motionprep merge` needs an output folder and at least one part folder: `motionprep merge OUT_DIR PART_DIR...`")
        }
        let allowance = CPUAllowance.jobs(option: try a.int("--jobs", in: 1...4096, command: "merge"))
        var options = RunOptions(jobs: allowance.count, log: { Diagnostics.log($0) })
        // The crash-safety checkpoints (a partitioned merge stops at `before-commit` in the tests).
        TestHooks().apply(to: &options)
        let summary = try PipelineRunner.merge(outputDirectory: a.positionals[0], parts: Array(a.positionals.dropFirst()), options: options)
        if !a.flag("--quiet") { Diagnostics.stderr(RunCommand.text(summary, worker: nil, jobs: allowance)) }
        if a.flag("--json") { try Diagnostics.stdout(RunCommand.json(summary, jobs: allowance).pretty()) }
        return .success
    }
}
