/// Why a compressed stream could not be read to its end; `byteOffset` is a position in the
/// compressed file (0-based), where the decoder stopped.
public struct DecompressionError: Error, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The file ends inside a stream (a member, frame or block is incomplete): a copy or a
        /// download cut short. `byteOffset` is the file's size; `streamStart` where the
        /// unfinished member, frame or stream began.
        case truncated(streamStart: Int)
        /// The decoder refused the data (`reason` is the library's own words: a bad header, a
        /// checksum that does not match, an invalid code).
        case corrupt(reason: String)
        /// Bytes after a complete stream that do not start another one of the same format.
        case trailingData(afterStreams: Int)
        /// The stream needs more memory than motionprep lets a decoder take (an xz dictionary or
        /// a zstd window beyond `limitBytes`).
        case memoryLimit(limitBytes: Int)
        /// The library could not allocate its state.
        case outOfMemory
    }

    public var format: CompressionFormat
    public var kind: Kind
    /// 0-based position in the compressed file.
    public var byteOffset: Int

    public init(_ format: CompressionFormat, _ kind: Kind, at byteOffset: Int) {
        self.format = format
        self.kind = kind
        self.byteOffset = byteOffset
    }

    /// What went wrong, without the file's name: `truncated gzip stream: the file ends at byte
    /// 1234 inside the member that starts at byte 0`.
    public var problem: String {
        let what = format.rawValue
        switch kind {
        case .truncated(let start):
            let unit = format == .gzip ? "member" : format == .zstd ? "frame" : "stream"
            // liblzma reads concatenated streams itself: where the last one starts is not known.
            let inside = format == .xz ? "before its last \(unit) ends" : "inside the \(unit) that starts at byte \(start)"
            return "truncated \(what) data: the file ends at byte \(byteOffset) \(inside) "
                + "(the file was cut short; a whole copy is needed)"
        case .corrupt(let reason):
            return "corrupt \(what) data at byte \(byteOffset): \(reason) (the file is damaged)"
        case .trailingData(let streams):
            let unit = format == .gzip ? "member" : format == .zstd ? "frame" : "stream"
            return "the bytes from byte \(byteOffset) are not \(what) data (after \(streams) complete \(unit)\(streams == 1 ? "" : "s"); "
                + "a file holds one compressed stream, or several of one format one after the other)"
        case .memoryLimit(let limit):
            return "the \(what) data at byte \(byteOffset) needs more than \(limit >> 20) MiB of memory to decompress "
                + "(recompress it with a smaller dictionary or window)"
        case .outOfMemory:
            return "\(format.library) could not allocate memory to decompress the \(what) data at byte \(byteOffset)"
        }
    }
}
