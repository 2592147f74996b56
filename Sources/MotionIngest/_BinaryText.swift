/// Whether a text input's first bytes are text (docs/inputs.md, "Compressed files"): a file
/// that is binary is refused as "binary, not text" with what it looks like, before a parser
/// would print its bytes as a header.
///
/// Binary: a known binary magic number (zip, 7z, rar, lz4, compress `.Z`, HDF5, parquet, ELF,
/// PNG, OLE2/`.xls`, a tar archive), a UTF-16 or UTF-32 byte-order mark, or at least 10 % of the
/// first `sniffBytes` bytes being NUL, other C0 controls (not tab, line feed, vertical tab, form
/// feed, carriage return or escape), DEL, or bytes of invalid UTF-8. A few stray NUL or invalid
/// bytes in text stay the parsers' errors, at their line and column.
enum _BinaryText {
    /// The bytes looked at.
    static let sniffBytes = 4096

    /// Known binary formats by their first bytes, with what to say.
    private static let magics: [(bytes: [UInt8], what: String)] = [
        ([0x50, 0x4B, 0x03, 0x04], "a zip archive (an ActiGraph .gt3x, an .xlsx or a zipped folder; unzip a zipped CSV first)"),
        ([0x50, 0x4B, 0x05, 0x06], "an empty zip archive"),
        ([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C], "a 7-Zip archive"),
        ([0x52, 0x61, 0x72, 0x21, 0x1A, 0x07], "a RAR archive"),
        ([0x04, 0x22, 0x4D, 0x18], "lz4 data (not read: decompress it, or recompress it with gzip, zstd, xz or bzip2)"),
        ([0x1F, 0x9D], "compress (.Z) data (not read: decompress it, or recompress it with gzip, zstd, xz or bzip2)"),
        ([0x89, 0x48, 0x44, 0x46, 0x0D, 0x0A, 0x1A, 0x0A], "an HDF5 file"),
        ([0x50, 0x41, 0x52, 0x31], "a Parquet file"),
        ([0x7F, 0x45, 0x4C, 0x46], "an ELF executable"),
        ([0x89, 0x50, 0x4E, 0x47], "a PNG image"),
        ([0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1], "an OLE2 file (an old .xls?)"),
    ]

    /// Nil when `head` (the text's first bytes; `isWholeText` when it is all of it) is text,
    /// else what it looks like: `starts 50 4b 03 04 14 00 08 00 …: a zip archive (…)`.
    static func binaryDescription(_ head: UnsafeRawBufferPointer, isWholeText: Bool) -> String? {
        let bytes = Array(head.prefix(sniffBytes))
        guard !bytes.isEmpty else { return nil }
        let shown = bytes.prefix(12).map { hex($0) }.joined(separator: " ") + (bytes.count > 12 ? " …" : "")
        func says(_ what: String) -> String { "its first bytes are \(shown): \(what)" }
        for (magic, what) in magics where bytes.starts(with: magic) { return says(what) }
        if bytes.count >= 262, Array(bytes[257..<262]) == Array("ustar".utf8) { return says("a tar archive (extract it first)") }
        if bytes.starts(with: [0xFF, 0xFE, 0x00, 0x00]) || bytes.starts(with: [0x00, 0x00, 0xFE, 0xFF]) {
            return says("UTF-32 text (motionprep reads UTF-8: convert it, e.g. `iconv -f UTF-32 -t UTF-8`)")
        }
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            return says("UTF-16 text (motionprep reads UTF-8: convert it, e.g. `iconv -f UTF-16 -t UTF-8`)")
        }
        let suspicious = suspiciousBytes(bytes, cut: !isWholeText || head.count > sniffBytes)
        guard suspicious * 10 >= bytes.count else { return nil }
        let nul = bytes.filter { $0 == 0 }.count
        let why = nul > 0 ? "\(nul) NUL byte\(nul == 1 ? "" : "s") and \(suspicious - nul) other control or invalid UTF-8 bytes"
            : "\(suspicious) control or invalid UTF-8 bytes"
        return says("\(why) in the first \(bytes.count), an unknown binary format (expected UTF-8 text, or text compressed with gzip, zstd, xz or bzip2)")
    }

    /// The count of bytes that text does not hold: controls and bytes of invalid UTF-8 (an
    /// incomplete sequence at the end of a `cut` head is not counted).
    static func suspiciousBytes(_ bytes: [UInt8], cut: Bool) -> Int {
        var count = 0
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b < 0x80 {
                if (b < 0x20 && !(0x09...0x0D).contains(b) && b != 0x1B) || b == 0x7F { count += 1 }
                i += 1
                continue
            }
            let length = b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0
            if length == 0 { count += 1; i += 1; continue }
            if i + length > bytes.count {
                if !cut { count += bytes.count - i }
                break
            }
            if bytes[(i + 1)..<(i + length)].allSatisfy({ $0 & 0xC0 == 0x80 }) {
                i += length
            } else {
                count += 1
                i += 1
            }
        }
        return count
    }

    private static func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(b >> 4)], digits[Int(b & 0x0F)]])
    }
}
