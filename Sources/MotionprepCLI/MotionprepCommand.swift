#if canImport(Glibc)
import Glibc
#endif
import MotionCore

/// The `motionprep` command: dispatches to subcommands.
public enum MotionprepCommand {
    public static let version = "0.1.0"

    static var commands: [(name: String, summary: String)] { CommandCatalogue.all.map { ($0.name, $0.summary) } }

    /// The command column's width: the longest name and two spaces.
    static var nameWidth: Int { (commands.map(\.name.count).max() ?? 8) + 2 }

    static var usage: String {
        """
        motionprep \(version): motion-sensor recordings → windowed training datasets

        usage: motionprep <command> [options]

        commands:
        \(commands.map { "  " + $0.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + $0.summary }.joined(separator: "\n"))

        `motionprep help <command>` (or `motionprep <command> --help`) describes a command. Exit codes: 0 ok, 1 a validate check failed,
        64 usage, 65 bad input data, 66 input missing, 73 cannot create output, 74 I/O error,
        78 bad pipeline file.
        """
    }

    /// Runs the command line and exits with its status.
    public static func main(_ arguments: [String]) -> Never {
        Diagnostics.ignoreSIGPIPE()
        let status = run(Array(arguments.dropFirst()))
        exit(status.rawValue)
    }

    /// Runs a command line (without the program name) and returns the exit status.
    public static func run(_ args: [String]) -> ExitStatus {
        guard let first = args.first else {
            Diagnostics.stderr(usage)
            return .usage
        }
        let rest = Array(args.dropFirst())
        do {
            switch first {
            case "help" where !rest.isEmpty:
                let name = rest[0]
                if name == "help" { try Diagnostics.stdout(CommandCatalogue.helpHelp); return .success }
                guard CommandCatalogue.spec(name) != nil else {
                    var msg = "`motionprep help` knows no command `\(name)`"
                    if let s = Text.suggestion(for: name, among: commands.map(\.name)) { msg += "; did you mean `\(s)`?" }
                    else { msg += "; the commands are " + Text.alternatives(commands.map(\.name)) }
                    throw UsageError(message: msg)
                }
                return run([name, "--help"])
            case "--help", "-h", "help":
                try Diagnostics.stdout(usage)
                return .success
            case "--version":
                try Diagnostics.stdout("motionprep \(version)")
                return .success
            case "run": return try RunCommand.run(rest)
            case "apply": return try ApplyCommand.run(rest)
            case "live-vectors": return try LiveVectorsCommand.run(rest)
            case "validate": return try ValidateCommand.run(rest)
            case "synth": return try SynthCommand.run(rest)
            case "merge": return try MergeCommand.run(rest)
            case "report": return try ReportCommand.run(rest)
            case "inspect": return try InspectCommand.run(rest)
            case "init": return try InitCommand.run(rest)
            case "completions": return try CompletionsCommand.run(rest)
            default:
                var msg = "unknown command `\(first)`"
                if let s = Text.suggestion(for: first, among: commands.map(\.name)) { msg += "; did you mean `\(s)`?" }
                else { msg += "; the commands are " + Text.alternatives(commands.map(\.name)) }
                throw UsageError(message: msg)
            }
        } catch {
            return Diagnostics.report(error)
        }
    }
}
