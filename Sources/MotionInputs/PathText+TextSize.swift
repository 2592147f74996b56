import MotionCore
import MotionIngest

extension PathText {
    /// The bytes of text the file at `path` may give, for choosing between whole and streamed
    /// reading: its size, or, compressed (by its magic), `unknownTextBytes` (always streamed,
    /// its blocks never kept in memory).
    package static func textSize(_ path: String) -> Int {
        TextHead.compression(ofFileAt: path) == nil ? fileSize(path) : unknownTextBytes
    }

    /// `textSize`, except that a compressed file whose text is at most `limit` bytes (at most
    /// 16 MiB) is measured, by decompressing it up to the limit: `inspect` and `init` read such
    /// small files whole, as their plain ones, rather than in blocks with the streamed
    /// statistics (which cost more than the reading: thousands of small `.csv.gz` files).
    package static func textSize(_ path: String, probingUpTo limit: Int) -> Int {
        guard TextHead.compression(ofFileAt: path) != nil else { return fileSize(path) }
        guard limit > 0, limit <= 16 << 20,
              let head = try? TextHead.read(path: path, displayPath: path, count: limit + 1), head.count <= limit else {
            return unknownTextBytes
        }
        return head.count
    }
}
