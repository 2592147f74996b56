import Foundation
import MotionCore
import MotionOutput
import MotionDraft
import MotionJob

/// `motionprep init DATA_DIR [-o pipeline.yaml]`.
enum InitCommand {
    static let help = """
        usage: motionprep init DATA_DIR [-o PIPELINE.yaml]

        Looks at every file under DATA_DIR and writes a commented pipeline that runs: MotionCollector
        files, phone-logger exports and any other delimited text (delimiter, header, time column and
        unit guessed as `inspect` does), IIO dumps with a copied `sysfs` folder beside them. Files of
        one kind and name form one input; folders give recordings (several files in one folder are
        one recording), subjects (`subject01`, `p3`, `user_7` … folders) and, when no file has a
        label column, labels (activity folders such as `Walking/`, or recording folders named after
        the activity, `iphone13/Squats/`). Streams slower than 12.5 Hz get `max_gap_s` of 2.5
        intervals; one subject's recordings are split by recording, stratified by label. Prints
        what it found in each file, then where the labels come from (or why there are none).

          -o, --output PIPELINE.yaml   the file to write (default: pipeline.yaml), never inside DATA_DIR
                                       or a dataset; an existing file is replaced only when `init`
                                       wrote it and it is unchanged since (its last line is
                                       motionprep's seal), else refused (73)
          --force                      replace an existing PIPELINE.yaml all the same

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
        // docs/hardening.md, "One output policy": checked before the folder is read.
        let inputs = [(path: a.positionals[0], role: "data folder")]
        try OutputPolicy.checkFile(out, what: "the pipeline", seal: .yaml, inputs: inputs, force: a.flag("--force"))
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
        try OutputPolicy.writeFile(Array(draft.yaml.utf8), to: out, what: "the pipeline", seal: .yaml, inputs: inputs,
                                   force: a.flag("--force"))
        try Diagnostics.stdoutText("wrote \(Text.terminalSafe(out)): \(draft.summary)\nnext: motionprep validate \(Text.terminalSafe(out)) && motionprep run \(Text.terminalSafe(out))")
        return .success
    }
}
