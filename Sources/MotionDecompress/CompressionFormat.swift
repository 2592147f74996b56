/// A compression format motionprep reads text inputs through (docs/inputs.md, "Compressed
/// files"), recognised by the magic number its first bytes carry, never by the file's name.
public enum CompressionFormat: String, Sendable, CaseIterable {
    /// RFC 1952 gzip (`gzip`, `pigz`, Python's `gzip`), one member or several (`cat a.gz b.gz`).
    case gzip
    /// Zstandard frames (RFC 8878), one or several, skippable frames included.
    case zstd
    /// The `.xz` container (liblzma), one stream or several.
    case xz
    /// bzip2, one stream or several (`pbzip2`, `cat a.bz2 b.bz2`).
    case bzip2

    /// The bytes `detect` needs to decide (fewer are enough at the end of a short file).
    public static let magicBytes = 10

    /// The format whose magic `head` (a file's first bytes) starts with, or nil.
    ///
    /// - gzip: `1f 8b` and the deflate method `08`;
    /// - zstd: a frame's `28 b5 2f fd`, or a skippable frame's `5? 2a 4d 18`;
    /// - xz: `fd 37 7a 58 5a 00` (`\xfd7zXZ\0`);
    /// - bzip2: `BZh`, a block size digit `1`–`9`, then a block's `31 41 59 26 53 59` or the end
    ///   of stream's `17 72 45 38 50 90`: ten bytes, so that text starting `BZh1` is not taken for it.
    public static func detect<C: Collection>(_ head: C) -> CompressionFormat? where C.Element == UInt8 {
        let b = Array(head.prefix(magicBytes))
        func starts(_ magic: [UInt8]) -> Bool { b.count >= magic.count && Array(b[0..<magic.count]) == magic }
        if starts([0x1F, 0x8B, 0x08]) { return .gzip }
        if starts([0x28, 0xB5, 0x2F, 0xFD]) { return .zstd }
        if b.count >= 4 && b[0] & 0xF0 == 0x50 && Array(b[1..<4]) == [0x2A, 0x4D, 0x18] { return .zstd }
        if starts([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return .xz }
        if starts([0x42, 0x5A, 0x68]) && b.count >= 10 && (0x31...0x39).contains(b[3]) {
            let block = Array(b[4..<10])
            if block == [0x31, 0x41, 0x59, 0x26, 0x53, 0x59] || block == [0x17, 0x72, 0x45, 0x38, 0x50, 0x90] { return .bzip2 }
        }
        return nil
    }

    /// The Debian package whose library decodes it, for messages.
    public var library: String {
        switch self {
        case .gzip: return "zlib"
        case .zstd: return "libzstd"
        case .xz: return "liblzma"
        case .bzip2: return "libbz2"
        }
    }
}
