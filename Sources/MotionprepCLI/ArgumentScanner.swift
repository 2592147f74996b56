import MotionCore

/// A usage error: exit 64 with a sentence and the command's usage line.
struct UsageError: UserFacingError {
    var message: String
    var exitStatus: ExitStatus { .usage }
}

/// Splits a command's arguments into options (`--name value`, `--name=value`, flags) and
/// positionals, rejecting unknown options with a "did you mean".
struct ArgumentScanner {
    private(set) var positionals: [String] = []
    private var values: [String: String] = [:]
    private var flags: Set<String> = []

    /// - Parameters:
    ///   - arguments: the command's arguments (after the subcommand).
    ///   - valueOptions: options taking a value (`--jobs`).
    ///   - flagOptions: options taking none (`--quiet`).
    ///   - command: the command name for messages.
    init(_ arguments: [String], valueOptions: [String], flagOptions: [String], command: String) throws {
        var i = 0
        var onlyPositionals = false
        while i < arguments.count {
            let a = arguments[i]
            i += 1
            if onlyPositionals || !a.hasPrefix("-") || a == "-" {
                positionals.append(a)
                continue
            }
            if a == "--" { onlyPositionals = true; continue }
            var name = a
            var inline: String?
            if let eq = a.firstIndex(of: "=") {
                name = String(a[..<eq])
                inline = String(a[a.index(after: eq)...])
            }
            if name == "-o" { name = "-o" }
            if valueOptions.contains(name) {
                if let inline { values[name] = inline; continue }
                guard i < arguments.count else {
                    throw UsageError(message: "option `\(name)` of `motionprep \(command)` needs a value")
                }
                values[name] = arguments[i]
                i += 1
            } else if flagOptions.contains(name) {
                if inline != nil { throw UsageError(message: "option `\(name)` of `motionprep \(command)` takes no value") }
                flags.insert(name)
            } else {
                var msg = "unknown option `\(name)` for `motionprep \(command)`"
                if let s = Text.suggestion(for: name, among: valueOptions + flagOptions) { msg += "; did you mean `\(s)`?" }
                else { msg += "; see `motionprep \(command) --help`" }
                throw UsageError(message: msg)
            }
        }
    }

    func value(_ name: String) -> String? { values[name] }
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// An integer option within a range.
    func int(_ name: String, in range: ClosedRange<Int>, command: String) throws -> Int? {
        guard let v = values[name] else { return nil }
        guard let n = Int(v), range.contains(n) else {
            throw UsageError(message: "option `\(name)` of `motionprep \(command)` must be a whole number from \(range.lowerBound) to \(range.upperBound), not `\(v)`")
        }
        return n
    }
}
