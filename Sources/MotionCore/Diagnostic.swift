/// One message for a person, in the form editors, CI problem matchers and `grep` read
/// (docs/commands.md, "Messages"):
///
/// ```text
/// walk.yaml:14:3: error: unknown key `lenght_s` in `window`
///   did you mean `length_s`?
/// walk/a.csv: warning: 3 rows label no window
/// motionprep: error: cannot create output folder out: Permission denied
/// ```
///
/// The first line is `FILE:LINE:COL: SEVERITY: sentence` (or `FILE:LINE:`, `FILE:`, or
/// `motionprep:` when nothing names a file); each hint follows on its own line, indented by two
/// spaces: the suggestion, the accepted values, how to silence a warning.
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: String, Sendable {
        case error, warning, note
    }

    public var severity: Severity
    /// Where; nil when the message is about no file in particular.
    public var location: SourceLocation?
    /// The sentence, without location or hints.
    public var message: String
    /// Lines shown indented under the message.
    public var hints: [String]

    public init(_ severity: Severity, at location: SourceLocation? = nil, _ message: String, hints: [String] = []) {
        self.severity = severity
        self.location = location
        self.message = message
        self.hints = hints
    }

    /// The prefix before the severity: `file:line:col`, `file:line`, `file` (a byte offset is
    /// named in the sentence instead, as `at byte N`), or `motionprep`.
    public var prefix: String {
        guard let location else { return "motionprep" }
        var s = location.file
        if let line = location.line {
            s += ":\(line)"
            if let column = location.column { s += ":\(column)" }
        }
        return s
    }

    /// The whole text, lines separated by `\n`, without a final newline.
    public var description: String {
        var message = self.message
        if let offset = location?.byteOffset, location?.line == nil, !message.contains("byte \(offset)") {
            message = "at byte \(offset): " + message
        }
        var out = "\(prefix): \(severity.rawValue): \(message)"
        for h in hints { out += "\n  " + h }
        return out
    }

    /// Splits a sentence that carries its location inside (`FILE:LINE:COL: …` at the start, or
    /// `… at FILE:LINE:COL …` when `known` is that location) and its hints after `; ` (`did you
    /// mean …?`, `accepted: …`) into a diagnostic. Sentences from the library say where first;
    /// this keeps that one place of truth and gives the printed form.
    public static func from(sentence: String, severity: Severity, known: SourceLocation? = nil) -> Diagnostic {
        var body = sentence
        var location = known
        if let known {
            let text = known.description
            if body.hasPrefix(text + ": ") {
                body.removeFirst(text.count + 2)
            } else if let r = body.firstRange(of: " at " + text) {
                body.removeSubrange(r)
            } else if known.line == nil, let r = body.firstRange(of: " (\(known.file))") {
                body.removeSubrange(r)
            }
        } else if let (found, rest) = leadingLocation(body) {
            location = found
            body = rest
        }
        var hints: [String] = []
        // Trailing clauses that are advice, not the problem, become hints, in their order.
        for marker in ["; if this is intended, ", "; did you mean "] {
            if let r = body.ranges(of: marker).last {
                hints.insert(String(body[body.index(r.lowerBound, offsetBy: 2)...]), at: 0)
                body.removeSubrange(r.lowerBound...)
            }
        }
        return Diagnostic(severity, at: location, body, hints: hints)
    }

    /// `FILE:LINE[:COL]: rest`, `FILE at byte N: rest` or `FILE: rest` (FILE with a `/` or a `.`)
    /// at the start of `text`, where FILE has no space or colon and
    /// LINE and COL are decimal; nil otherwise (a sentence such as `cannot open x: …` is not
    /// taken for a location).
    static func leadingLocation(_ text: String) -> (SourceLocation, String)? {
        guard let sep = text.firstRange(of: ": ") else { return nil }
        let head = text[..<sep.lowerBound]
        // `FILE at byte N: …` (a binary input).
        if let at = head.firstRange(of: " at byte "), !head[..<at.lowerBound].contains(" "),
           let offset = Int(head[at.upperBound...]) {
            return (SourceLocation(file: String(head[..<at.lowerBound]), byteOffset: offset), String(text[sep.upperBound...]))
        }
        // `FILE: …` where FILE looks like a path (a `/` or a `.`, no blank, no colon).
        if !head.contains(" "), !head.contains(":"), head.contains("/") || head.contains("."),
           head.first != ".", head.last != "." {
            return (SourceLocation(file: String(head)), String(text[sep.upperBound...]))
        }
        let parts = head.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, !parts[0].isEmpty,
              !parts[0].contains(" "), parts.dropFirst().allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }),
              let line = Int(parts[1]) else { return nil }
        let column = parts.count == 3 ? Int(parts[2]) : nil
        return (SourceLocation(file: String(parts[0]), line: line, column: column), String(text[sep.upperBound...]))
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
