/// How the text readers (CSV, MotionCollector) show a field in an error message and where they
/// say it starts: one rendering, so the same bad value reads the same whatever the format.
enum _FieldText {
    typealias Pointer = UnsafePointer<UInt8>

    /// The 1-based character column of `field` in the line starting at `lineStart` (UTF-8
    /// continuation bytes do not count).
    static func column(of field: Pointer, lineStart: Pointer) -> Int {
        var column = 1
        var p = lineStart
        while p < field {
            if p.pointee & 0xC0 != 0x80 { column += 1 }
            p += 1
        }
        return column
    }

    /// A field as shown in a message: blanks trimmed, invalid UTF-8 replaced, control characters
    /// escaped (`\0`, `\u{a}` for a quoted line end), at most 60 characters.
    static func display(_ start: Pointer, _ end: Pointer) -> String {
        var s = start, e = end
        while s < e && _NumberKernels.isBlank(s.pointee) { s += 1 }
        while e > s && _NumberKernels.isBlank((e - 1).pointee) { e -= 1 }
        let text = String(decoding: UnsafeBufferPointer(start: s, count: e - s), as: UTF8.self)
        var out = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == 60 { out += "…"; break }
            switch scalar.value {
            case 0: out += "\\0"
            case 0x01..<0x20, 0x7F: out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
            count += 1
        }
        return out
    }
}
