import MotionCore

/// Lists the members of an in-memory ustar archive of regular files (the inverse of
/// `TarWriter`), checking each header's checksum and the end-of-archive blocks.
package enum TarReader {
    package struct Member: Sendable, Equatable {
        package var name: String
        /// Where the content sits in the archive.
        package var data: Range<Int>
        /// Offset of the member's header in the archive.
        package var headerOffset: Int
    }

    /// The members in archive order.
    /// - Throws: `MotionError(.dataError)` naming the byte offset of the first problem.
    package static func members(_ archive: [UInt8]) throws -> [Member] {
        let block = TarWriter.blockSize
        var out: [Member] = []
        var offset = 0
        while true {
            guard offset + block <= archive.count else {
                throw MotionError(.dataError, "the tar archive ends at byte \(archive.count) without its two zero end blocks")
            }
            let header = archive[offset..<(offset + block)]
            if header.allSatisfy({ $0 == 0 }) {
                guard offset + 2 * block <= archive.count,
                      archive[(offset + block)..<(offset + 2 * block)].allSatisfy({ $0 == 0 }) else {
                    throw MotionError(.dataError, "the tar archive has a single zero block at byte \(offset); expected two at the end")
                }
                guard archive[(offset + 2 * block)...].allSatisfy({ $0 == 0 }) else {
                    throw MotionError(.dataError, "data follows the tar end blocks at byte \(offset + 2 * block)")
                }
                return out
            }
            let h = Array(header)
            guard Array(h[257..<262]) == Array("ustar".utf8) else {
                throw MotionError(.dataError, "the tar header at byte \(offset) is not a ustar header")
            }
            guard let recorded = octal(h[148..<156]) else {
                throw MotionError(.dataError, "the tar header at byte \(offset) has an unreadable checksum field")
            }
            let sum = h.enumerated().reduce(0) { $0 + ((148..<156).contains($1.offset) ? 32 : Int($1.element)) }
            guard recorded == sum else {
                throw MotionError(.dataError, "the tar header at byte \(offset) has checksum \(recorded); its bytes sum to \(sum)")
            }
            let type = h[156]
            guard type == UInt8(ascii: "0") || type == 0 else {
                throw MotionError(.dataError, "tar member at byte \(offset) has type `\(Character(Unicode.Scalar(type)))`; expected regular files only")
            }
            let name = field(h[0..<100])
            let prefix = field(h[345..<500])
            guard let size = octal(h[124..<136]) else {
                throw MotionError(.dataError, "tar member `\(name)` at byte \(offset) has an unreadable size field")
            }
            let start = offset + block
            guard start + size <= archive.count else {
                throw MotionError(.dataError, "tar member `\(name)` at byte \(offset) claims \(size) bytes; the archive ends first")
            }
            out.append(Member(name: prefix.isEmpty ? name : prefix + "/" + name, data: start..<(start + size), headerOffset: offset))
            offset = start + TarWriter.paddedSize(size)
        }
    }

    /// A NUL-terminated text field.
    private static func field(_ bytes: ArraySlice<UInt8>) -> String {
        let end = bytes.firstIndex(of: 0) ?? bytes.endIndex
        return String(decoding: bytes[bytes.startIndex..<end], as: UTF8.self)
    }

    /// An octal number field, terminated by NUL or space, leading spaces allowed.
    private static func octal(_ bytes: ArraySlice<UInt8>) -> Int? {
        var value = 0
        var digits = 0
        for b in bytes {
            if b == 0 || (b == 32 && digits > 0) { break }
            if b == 32 { continue }
            guard (48...55).contains(b) else { return nil }
            value = value * 8 + Int(b - 48)
            digits += 1
        }
        return digits > 0 ? value : nil
    }
}
