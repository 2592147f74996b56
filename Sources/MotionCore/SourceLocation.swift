/// Where in an input something was found: a file plus a line and column (text, 1-based)
/// or a byte offset (binary).
public struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
    /// The path as the user wrote it or as it is displayed (never made absolute).
    public var file: String
    /// 1-based physical line, when the input is text.
    public var line: Int?
    /// 1-based character column where the offending field starts.
    public var column: Int?
    /// 0-based byte offset, when the input is binary.
    public var byteOffset: Int?

    public init(file: String, line: Int? = nil, column: Int? = nil, byteOffset: Int? = nil) {
        self.file = file
        self.line = line
        self.column = column
        self.byteOffset = byteOffset
    }

    /// `file:line:column`, `file:line`, `file at byte N`, or `file`.
    public var description: String {
        if let line {
            if let column { return "\(file):\(line):\(column)" }
            return "\(file):\(line)"
        }
        if let byteOffset { return "\(file) at byte \(byteOffset)" }
        return file
    }
}
