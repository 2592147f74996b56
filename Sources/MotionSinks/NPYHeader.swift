import MotionCore

/// The header of a `.npy` file, format version 1.0
/// (https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html): the magic
/// `\x93NUMPY`, version bytes 1 0, a little-endian uint16 header length, and a Python dict
/// literal padded with spaces and ending in `\n`, so that the array data starts at a multiple of
/// 64 bytes from the start of the file.
package struct NPYHeader: Sendable, Equatable {
    /// The npy magic string.
    package static let magic: [UInt8] = [0x93] + Array("NUMPY".utf8)
    /// Alignment of the data offset.
    package static let alignment = 64

    /// numpy's dtype string: `<f4`, `<f8`, `<i4`, `<i8`.
    package var descr: String
    package var fortranOrder: Bool
    package var shape: [Int]

    package init(descr: String, shape: [Int], fortranOrder: Bool = false) {
        self.descr = descr
        self.shape = shape
        self.fortranOrder = fortranOrder
    }

    /// Bytes per element of `descr` (the digits after the type letter), or nil when unknown.
    package var itemSize: Int? {
        guard descr.count >= 3, let n = Int(descr.dropFirst(2)), n > 0 else { return nil }
        return n
    }

    /// Number of elements (1 for a 0-d array).
    package var elementCount: Int { shape.reduce(1, *) }

    /// The shape as numpy writes it: `()`, `(5,)`, `(5, 128, 18)`.
    package var shapeLiteral: String {
        switch shape.count {
        case 0: return "()"
        case 1: return "(\(shape[0]),)"
        default: return "(" + shape.map(String.init).joined(separator: ", ") + ")"
        }
    }

    /// The encoded header; its length is a multiple of 64, so the data that follows is aligned.
    package func encoded() -> [UInt8] {
        let dict = "{'descr': '\(descr)', 'fortran_order': \(fortranOrder ? "True" : "False"), 'shape': \(shapeLiteral), }"
        let unpadded = Self.magic.count + 2 + 2 + dict.utf8.count + 1
        let total = (unpadded + Self.alignment - 1) / Self.alignment * Self.alignment
        let headerLength = total - Self.magic.count - 4
        precondition(headerLength <= Int(UInt16.max), "NPYHeader: a \(headerLength)-byte header needs npy format 2.0")
        var out = Self.magic + [1, 0, UInt8(headerLength & 0xFF), UInt8(headerLength >> 8)]
        out += Array(dict.utf8)
        out += [UInt8](repeating: UInt8(ascii: " "), count: total - unpadded)
        out.append(UInt8(ascii: "\n"))
        return out
    }

    /// Parses the header at the start of an npy file.
    /// - Returns: the header and the offset of the data from the start of the file.
    /// - Throws: `MotionError(.dataError)` describing what is wrong.
    package static func parse(_ bytes: ArraySlice<UInt8>) throws -> (header: NPYHeader, dataOffset: Int) {
        let b = Array(bytes)
        guard b.count >= 10, Array(b[0..<6]) == magic else {
            throw MotionError(.dataError, "it does not start with the npy magic \\x93NUMPY")
        }
        let major = b[6]
        let headerLength: Int
        let start: Int
        switch major {
        case 1:
            headerLength = Int(b[8]) | Int(b[9]) << 8
            start = 10
        case 2, 3:
            guard b.count >= 12 else { throw MotionError(.dataError, "its npy header is cut short") }
            headerLength = Int(b[8]) | Int(b[9]) << 8 | Int(b[10]) << 16 | Int(b[11]) << 24
            start = 12
        default:
            throw MotionError(.dataError, "it has npy format version \(major).\(b[7]); expected 1.0")
        }
        guard b.count >= start + headerLength else {
            throw MotionError(.dataError, "its npy header claims \(headerLength) bytes but only \(b.count - start) follow")
        }
        guard let text = String(validating: b[start..<(start + headerLength)], as: UTF8.self) else {
            throw MotionError(.dataError, "its npy header is not valid text")
        }
        guard let descr = Self.value(of: "descr", in: text).flatMap(Self.quoted) else {
            throw MotionError(.dataError, "its npy header has no 'descr': \(text.debugDescription)")
        }
        guard let fortran = Self.value(of: "fortran_order", in: text), fortran == "False" || fortran == "True" else {
            throw MotionError(.dataError, "its npy header has no 'fortran_order': \(text.debugDescription)")
        }
        guard let shapeText = Self.value(of: "shape", in: text), let shape = Self.tuple(shapeText) else {
            throw MotionError(.dataError, "its npy header has no readable 'shape': \(text.debugDescription)")
        }
        return (NPYHeader(descr: descr, shape: shape, fortranOrder: fortran == "True"), start + headerLength)
    }

    /// The text of the value after `'key':` up to the next top-level comma or closing brace.
    private static func value(of key: String, in text: String) -> String? {
        guard let range = text.range(of: "'\(key)':") else { return nil }
        var depth = 0
        var out = ""
        for ch in text[range.upperBound...] {
            if ch == "(" { depth += 1 }
            if ch == ")" { depth -= 1 }
            if depth == 0 && (ch == "," || ch == "}") { break }
            out.append(ch)
            if depth < 0 { return nil }
        }
        return out.trimmingSpaces()
    }

    private static func quoted(_ s: String) -> String? {
        guard s.count >= 2, let q = s.first, q == "'" || q == "\"", s.last == q else { return nil }
        return String(s.dropFirst().dropLast())
    }

    private static func tuple(_ s: String) -> [Int]? {
        guard s.first == "(", s.last == ")" else { return nil }
        let inner = s.dropFirst().dropLast()
        var dims: [Int] = []
        for part in inner.split(separator: ",") {
            let t = String(part).trimmingSpaces()
            if t.isEmpty { continue }
            guard let n = Int(t), n >= 0 else { return nil }
            dims.append(n)
        }
        return dims
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " { s = s.dropFirst() }
        while let l = s.last, l == " " { s = s.dropLast() }
        return String(s)
    }
}
