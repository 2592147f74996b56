/// Every command with its options, in one place: the dispatcher, each command's argument scanner,
/// `motionprep help CMD` and the shell completions (`motionprep completions SHELL`) are all read
/// from it, so they cannot drift apart.
struct CommandSpec {
    /// What an option's value is, for completion.
    enum Value: Equatable {
        case file(extensions: [String])
        case directory
        case choices([String])
        case text
    }

    var name: String
    var summary: String
    var help: String
    /// Options taking a value, with what the value is.
    var values: [(option: String, value: Value)]
    /// Options taking no value.
    var flags: [String]
    /// What positional arguments are.
    var positionals: Value

    var valueOptions: [String] { values.map(\.option) }
    var flagOptions: [String] { flags }
    var allOptions: [String] { values.map(\.option) + flags }

    /// The first line of an option's description in the help text ("" when not described).
    func describe(_ option: String) -> String {
        for line in help.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix(option + " ") || trimmed == option || trimmed.hasPrefix(option + ",") else { continue }
            // "--jobs N      recordings processed …": the description follows two or more spaces.
            guard let gap = trimmed.range(of: "  ") else { return "" }
            return String(trimmed[gap.upperBound...].drop { $0 == " " })
        }
        return ""
    }
}

enum CommandCatalogue {
    static let all: [CommandSpec] = [
        CommandSpec(name: "run", summary: "run a pipeline and write the dataset", help: RunCommand.help,
                    values: [("--jobs", .text), ("--out", .directory), ("--worker", .text), ("--workers", .text), ("--partitions", .text)],
                    flags: ["--resume", "--quiet", "--json"], positionals: .file(extensions: ["yaml", "yml"])),
        CommandSpec(name: "apply", summary: "process new recordings exactly as a dataset's, with its normalisation", help: ApplyCommand.help,
                    values: [("--out", .directory), ("--input", .text), ("--jobs", .text)],
                    flags: ["--quiet", "--json"], positionals: .file(extensions: [])),
        CommandSpec(name: "live-vectors", summary: "write test vectors for an app running the dataset's processing live", help: LiveVectorsCommand.help,
                    values: [("-o", .file(extensions: ["json"])), ("--output", .file(extensions: ["json"])), ("--input", .text)],
                    flags: [], positionals: .file(extensions: [])),
        CommandSpec(name: "validate", summary: "check a pipeline file, or a written dataset", help: ValidateCommand.help,
                    values: [("--expect", .file(extensions: ["yaml", "yml"])), ("--format", .choices(["text", "json", "junit"])),
                             ("--jobs", .text)],
                    flags: [], positionals: .file(extensions: [])),
        CommandSpec(name: "inspect", summary: "describe a recording, a pipeline's inputs or a dataset", help: InspectCommand.help,
                    values: [("--samples", .directory)], flags: ["--json"], positionals: .file(extensions: [])),
        CommandSpec(name: "merge", summary: "merge the outputs of --worker runs into one dataset", help: MergeCommand.help,
                    values: [("--jobs", .text)], flags: ["--quiet", "--json"], positionals: .directory),
        CommandSpec(name: "synth", summary: "write realistic synthetic recordings", help: SynthCommand.help,
                    values: [("--out", .directory), ("--subjects", .text), ("--minutes", .text), ("--seed", .text),
                             ("--format", .choices(["motioncollector", "csv", "iio", "sensorlogger", "phyphox", "androsensor", "cwa", "gt3x"])), ("--recordings", .text),
                             ("--sensors", .text), ("--precision", .choices(["fixed6", "full"])),
                             ("--cwa-device", .choices(["ax3-packed", "ax3-unpacked", "ax6"])), ("--cwa-damaged-blocks", .text),
                             ("--gt3x-record", .choices(["activity2", "activity"])), ("--gt3x-damaged-records", .text),
                             ("--gt3x-idle-seconds", .text)],
                    flags: ["--legacy"], positionals: .text),
        CommandSpec(name: "report", summary: "write an HTML report of a dataset", help: ReportCommand.help,
                    values: [("-o", .file(extensions: ["html"])), ("--output", .file(extensions: ["html"])), ("--examples", .text),
                             ("--histogram-windows", .text), ("--recordings", .file(extensions: ["yaml", "yml"])),
                             ("--max-recordings", .text)],
                    flags: ["--quiet", "--force"], positionals: .directory),
        CommandSpec(name: "init", summary: "draft a pipeline from a folder of recordings", help: InitCommand.help,
                    values: [("-o", .file(extensions: ["yaml", "yml"])), ("--output", .file(extensions: ["yaml", "yml"]))],
                    flags: ["--force"], positionals: .directory),
        CommandSpec(name: "help", summary: "show a command's help (`motionprep help run`)", help: helpHelp,
                    values: [], flags: [], positionals: .choices(["run", "apply", "live-vectors", "validate", "inspect", "init", "merge", "synth", "report", "completions"])),
        CommandSpec(name: "completions", summary: "print shell completions (bash, zsh or fish)", help: CompletionsCommand.help,
                    values: [], flags: [], positionals: .choices(["bash", "zsh", "fish"])),
    ]

    static let helpHelp = """
        usage: motionprep help [COMMAND]

        Prints the help of COMMAND (the same as `motionprep COMMAND --help`), or the list of commands.
        """

    static func spec(_ name: String) -> CommandSpec? {
        all.first { $0.name == name }
    }

    /// The spec of a command that exists (for the commands' own argument scanners).
    static subscript(_ name: String) -> CommandSpec {
        guard let s = spec(name) else { preconditionFailure("no command `\(name)` in CommandCatalogue.all") }
        return s
    }
}
