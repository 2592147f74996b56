/// Text appended to an `OutputFile`'s buffer without going through `String` formatting.
extension OutputFile {
    /// Appends ASCII/UTF-8 text.
    @inline(__always)
    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { buffer.append(contentsOf: $0) }
    }

    /// Appends UTF-8 text.
    mutating func append(_ text: String) {
        buffer.append(contentsOf: text.utf8)
    }

    /// Appends one byte.
    @inline(__always)
    mutating func append(byte: UInt8) {
        buffer.append(byte)
    }

    /// Appends `value` as Swift's `Double.description` prints it (`0.0102`, `12.5`, `1e-05`),
    /// the form MotionCollector uses for `When`.
    mutating func appendDescription(_ value: Double) {
        var text = value.description
        text.withUTF8 { buffer.append(contentsOf: $0) }
    }

    /// Appends a non-negative integer in decimal.
    mutating func appendDecimal(_ value: UInt64) {
        Self.appendDecimal(value, to: &buffer)
    }

    /// Appends `value` rounded to 6 decimals in fixed-point form, trailing zeros dropped but at
    /// least one decimal kept: `-0.012346`, `1.0`, `45.2`, `0.0` (never `-0.0`). The text parses
    /// back (with any correctly rounded decimal parser) to `fixed6(value)`.
    mutating func appendFixed6(_ value: Double) {
        Self.appendFixed6(value, to: &buffer)
    }

    /// `value` rounded to the nearest multiple of 1e-6, as the text of `appendFixed6` reads back.
    static func fixed6(_ value: Double) -> Double {
        Double(micros(value)) / 1e6
    }

    @inline(__always)
    static func micros(_ value: Double) -> Int64 {
        let scaled = (value * 1e6).rounded()
        // Synthetic values are far below this; the clamp only keeps Int64() from trapping.
        return Int64(Swift.max(-9e15, Swift.min(9e15, scaled)))
    }

    static func appendFixed6(_ value: Double, to buffer: inout [UInt8]) {
        var m = micros(value)
        if m == 0 {
            buffer.append(contentsOf: [0x30, 0x2E, 0x30])  // "0.0"
            return
        }
        if m < 0 {
            buffer.append(0x2D)  // "-"
            m = -m
        }
        let whole = UInt64(m / 1_000_000)
        var fraction = UInt64(m % 1_000_000)
        appendDecimal(whole, to: &buffer)
        buffer.append(0x2E)  // "."
        if fraction == 0 {
            buffer.append(0x30)
            return
        }
        var digits = 6
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        appendPadded(fraction, digits: digits, to: &buffer)
    }

    static func appendDecimal(_ value: UInt64, to buffer: inout [UInt8]) {
        var digits = 1
        var v = value
        while v >= 10 {
            v /= 10
            digits += 1
        }
        appendPadded(value, digits: digits, to: &buffer)
    }

    /// Appends `value` as exactly `digits` decimal digits, zero-padded on the left.
    static func appendPadded(_ value: UInt64, digits: Int, to buffer: inout [UInt8]) {
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0x30, count: digits))
        var v = value
        var i = start + digits - 1
        while i >= start {
            buffer[i] = 0x30 &+ UInt8(truncatingIfNeeded: v % 10)
            v /= 10
            i -= 1
        }
    }
}
