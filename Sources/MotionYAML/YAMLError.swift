/// A YAML document that cannot be turned into a node tree: what went wrong and where.
///
/// `message` is one sentence naming the file, `line:column` and the problem, e.g.
/// "invalid YAML at walk.yaml:3:1: found character that cannot start any token; indent with
/// spaces, not tabs".
public struct YAMLError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// libyaml's scanner or parser rejected the text (`problem` is its wording).
        case syntax
        /// An alias (`*name`) was used; aliases are refused so that no document can expand
        /// exponentially ("billion laughs").
        case alias
        /// A second document (`---`) follows the first.
        case multipleDocuments
        /// A mapping key occurs twice; `first` is where it was first given.
        case duplicateKey(key: String, first: YAMLMark)
        /// The bytes are not UTF-8.
        case invalidUTF8
        /// An explicit tag other than `!!str`, `!!seq`, `!!map` or `!`.
        case unsupportedTag(String)
        /// Nesting deeper than the parser's limit.
        case tooDeep(limit: Int)
    }
    /// The file as the user named it.
    public var file: String
    /// 1-based line of the problem.
    public var line: Int
    /// 1-based column (characters) of the problem.
    public var column: Int
    public var kind: Kind
    /// The problem in words (libyaml's text for syntax errors, without a trailing period).
    public var problem: String

    public init(file: String, line: Int, column: Int, kind: Kind, problem: String) {
        self.file = file
        self.line = line
        self.column = column
        self.kind = kind
        self.problem = problem
    }

    /// `file:line:column`.
    public var location: String { "\(file):\(line):\(column)" }

    /// One sentence for people.
    public var message: String {
        switch kind {
        case .syntax:
            return "invalid YAML at \(location): \(problem)"
        case .alias:
            return "YAML aliases are not supported: \(problem) at \(location); write the value out in full"
        case .multipleDocuments:
            return "a second YAML document starts at \(location); only one document per file is supported"
        case .duplicateKey(let key, let first):
            return "duplicate key `\(key)` at \(location); it is already set at \(first)"
        case .invalidUTF8:
            return "invalid UTF-8 at \(location) (\(problem)); save the file as UTF-8"
        case .unsupportedTag(let tag):
            return "YAML tag `\(tag)` at \(location) is not supported; remove it"
        case .tooDeep(let limit):
            return "YAML nesting deeper than \(limit) levels at \(location) is not supported"
        }
    }

    public var description: String { message }
}

/// A YAML file that cannot be read.
public struct YAMLFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path as the user gave it.
    public var path: String
    /// The C `errno` of the failing call (`ENOENT`, `EACCES`, …), or 0 for `tooLarge`.
    public var errno: Int32
    /// The file exceeds the size limit passed to the parser.
    public var tooLarge: Bool
    /// A short reason: "no such file", "permission denied", "it is a folder", ….
    public var reason: String
    /// The path is a FIFO, device or socket, refused without waiting on it (`reason` says which).
    public var notRegularFile: Bool

    public init(path: String, errno: Int32, tooLarge: Bool = false, notRegularFile: Bool = false, reason: String) {
        self.path = path
        self.errno = errno
        self.tooLarge = tooLarge
        self.notRegularFile = notRegularFile
        self.reason = reason
    }

    /// Whether the file (or a folder on its path) does not exist (`ENOENT`, `ENOTDIR`).
    public var isMissing: Bool { !tooLarge && (errno == 2 || errno == 20) }

    public var description: String { "cannot read `\(path)`: \(reason)" }
}
