import Foundation
import MotionCore
import MotionPipeline

/// `motionprep init DATA_DIR [-o pipeline.yaml]`.
enum InitCommand {
    static let help = """
        usage: motionprep init DATA_DIR [-o PIPELINE.yaml]

        Looks at every file under DATA_DIR and writes a commented pipeline that runs: MotionCollector
        files, phone-logger exports and any other delimited text (delimiter, header, time column and
        unit guessed as `inspect` does), IIO dumps with a copied `sysfs` folder beside them. Files of
        one kind and name form one input; folders give recordings (several files in one folder are
        one recording), subjects (`subject01`, `p3`, `user_7` … folders) and, when no file has a
        label column, labels (activity folders such as `Walking/`). Prints what it found in each file.

          -o, --output PIPELINE.yaml   the file to write (default: pipeline.yaml); never replaced:
                                       an existing file is refused (73)

        Then: motionprep validate PIPELINE.yaml && motionprep run PIPELINE.yaml
        """

    static func run(_ args: [String]) throws -> ExitStatus {
        if args.contains("--help") || args.contains("-h") { try Diagnostics.stdout(help); return .success }
        let a = try ArgumentScanner(args, valueOptions: CommandCatalogue["init"].valueOptions, flagOptions: CommandCatalogue["init"].flagOptions, command: "init")
        guard a.positionals.count == 1 else {
            throw UsageError(message: "`motionprep init` takes one folder of recordings (got \(a.positionals.count) arguments)")
        }
        let out = a.value("-o") ?? a.value("--output") ?? "pipeline.yaml"
        guard out.hasSuffix(".yaml") || out.hasSuffix(".yml") else {
            throw UsageError(message: "`-o` names the pipeline file to write, which must end in .yaml or .yml, not `\(out)`")
        }
        var st = stat()
        if lstat(out, &st) == 0 {
            throw MotionError(.cannotCreate, "\(out) already exists; `motionprep init` never replaces a file: choose another name with `-o`")
        }
        let draft = try PipelineDraft.draft(dataDirectory: a.positionals[0], pipelinePath: out)
        var lines: [String] = []
        for f in draft.findings {
            if let why = f.skipped {
                lines.append("\(f.path): not used: \(why)")
                continue
            }
            lines.append("\(f.path): \(f.kind)" + (f.labels.isEmpty ? "" : "; labels \(f.labels.joined(separator: ", "))"))
            for s in f.streams { lines.append("  \(s)") }
        }
        // Names from the data, escaped: one line per name whatever it holds (a newline is `\u{A}`).
        try Diagnostics.stdout(lines.map(Text.terminalSafe).joined(separator: "\n"))
        try OutputFiles.create(Array(draft.yaml.utf8), at: out)
        try Diagnostics.stdoutText("wrote \(Text.terminalSafe(out)): \(draft.summary)\nnext: motionprep validate \(Text.terminalSafe(out)) && motionprep run \(Text.terminalSafe(out))")
        return .success
    }
}
