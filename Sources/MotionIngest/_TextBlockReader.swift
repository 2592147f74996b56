import MotionCore

/// A text parser that can hand out what it has parsed so far (the MotionCollector and csv
/// parsers), for `_TextBlockReader`.
protocol _BlockParser {
    /// Parses the complete lines of a chunk, keeping a cut line for the next one.
    mutating func consume(_ chunk: UnsafeRawBufferPointer) throws
    /// Data rows parsed so far.
    var rowsRead: Int { get }
    /// Moves out what was parsed so far (`rowsRead` and `bytesRead` go into the block).
    mutating func takeBlock(rowsRead: Int, bytesRead: Int) -> IngestBlock
    /// Parses the last line and returns what is left, as the whole-file reader's result would
    /// give it, with the file's dropped rows.
    mutating func finishBlock(bytesRead: Int) throws -> (block: IngestBlock, rowsRead: Int, rowsDropped: [String: Int])
    /// Frees what the parser allocated (called once).
    mutating func release()
}

/// The block reader of a text format: `_BlockFile` feeding a `_BlockParser`, a block at a time.
final class _TextBlockReader<Parser: _BlockParser> {
    private let file: _BlockFile
    private(set) var parser: Parser
    private var done = false
    private var rowsBefore = 0
    private(set) var rowsDropped: [String: Int] = [:]

    init(path: String, displayPath: String, chunkBytes: Int, blockBytes: Int, parser: Parser,
         observer: (any FileReadObserver)? = nil) throws {
        file = try _BlockFile(path: path, displayPath: displayPath, chunkBytes: chunkBytes, blockBytes: blockBytes, observer: observer)
        self.parser = parser
    }

    deinit { parser.release() }

    func next() throws -> IngestBlock? {
        guard !done else { return nil }
        if try file.readBlock({ try parser.consume($0) }) {
            return parser.takeBlock(rowsRead: takeRows(parser.rowsRead), bytesRead: file.bytesRead)
        }
        done = true
        var last = try parser.finishBlock(bytesRead: file.bytesRead)
        rowsDropped = last.rowsDropped
        last.block.rowsRead = takeRows(last.rowsRead)
        return last.block
    }

    private func takeRows(_ total: Int) -> Int {
        defer { rowsBefore = total }
        return total - rowsBefore
    }
}
