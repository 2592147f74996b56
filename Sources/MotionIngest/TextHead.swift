import MotionCore
import MotionDecompress

/// The first bytes of a text input as its readers see them (docs/inputs.md, "Compressed
/// files"): decompressed when the file's own first bytes are a gzip, zstd, xz or bzip2 magic.
/// For `inspect` and `init`, which guess a file's format from its head.
public enum TextHead {
    /// The compression whose magic `fileHead` (a file's first bytes, at least 10 of them when the
    /// file has them) starts with: `gzip`, `zstd`, `xz`, `bzip2`, or nil for anything else.
    public static func compression(_ fileHead: [UInt8]) -> String? {
        CompressionFormat.detect(fileHead)?.rawValue
    }

    /// The compression of the file at `path` (from its first 10 bytes), or nil when it is plain
    /// or cannot be read (its readers then say why).
    public static func compression(ofFileAt path: String) -> String? {
        guard case .success(let head) = RegularFile.readHead(path, count: CompressionFormat.magicBytes) else { return nil }
        return compression(head)
    }

    /// The first `count` bytes of the text of `path` (fewer when the text is shorter),
    /// decompressed as the readers decompress it. Binary bytes are returned as they are: the
    /// caller's sniffing says what the file is not.
    ///
    /// - Throws: `IngestError` `.cannotOpen` (66), `.readFailed` (74), `.decompression` (65)
    ///   when the stream is damaged or ends within the first `count` bytes of its text.
    public static func read(path: String, displayPath: String, count: Int) throws -> [UInt8] {
        try _ChunkedFile.withOpenFile(path: path, displayPath: displayPath, refusesBinary: false) { input, _ in
            var bytes: [UInt8] = []
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Swift.max(1, Swift.min(count, 1 << 20)), alignment: 64)
            defer { buffer.deallocate() }
            while bytes.count < count {
                let n = try input.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Swift.min(buffer.count, count - bytes.count)]))
                if n == 0 { break }
                bytes.append(contentsOf: buffer[0..<n])
            }
            return bytes
        }
    }
}
