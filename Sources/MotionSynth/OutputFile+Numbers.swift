/// Row text written straight into the output buffer: each row reserves room once
/// (`OutputFile.appendRow`) and writes its fields through an `OutputSpan`, so no `String` is
/// built per number.
extension OutputFile {
    /// Appends one row of at most `maxBytes` bytes, written by `body`.
    @inline(__always)
    mutating func appendRow(maxBytes: Int, _ body: (inout OutputSpan<UInt8>) -> Void) {
        buffer.append(addingCapacity: maxBytes, initializingWith: body)
    }

    /// Appends UTF-8 text.
    mutating func append(_ text: String) {
        buffer.append(contentsOf: text.utf8)
    }

    /// Appends ASCII/UTF-8 text.
    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { buffer.append(contentsOf: $0) }
    }

    /// `value` rounded to the nearest multiple of 1e-6, as the text of `appendFixed6` reads back.
    static func fixed6(_ value: Double) -> Double {
        Double(micros(value)) / 1e6
    }

    /// round(value × 10⁶), clamped to ±9e15 (synthetic values are far inside; the clamp only
    /// keeps the conversion from trapping).
    @inline(__always)
    static func micros(_ value: Double) -> Int64 {
        let scaled = (value * 1e6).rounded()
        return Int64(Swift.max(-9e15, Swift.min(9e15, scaled)))
    }
}

/// The longest text `appendFixed6` writes: sign, 10 digits, point, 6 digits.
let maxNumberBytes = 18
/// The longest text `appendSignificant17` writes: sign, 17 digits, point, `e-308`.
let maxSignificant17Bytes = 24
/// The longest text `appendSeconds` writes (a `Double.description` is at most 24 bytes).
let maxTimeBytes = 32

extension OutputSpan<UInt8> {
    @inline(__always)
    mutating func append(ascii: Unicode.Scalar) {
        append(UInt8(ascii: ascii))
    }

    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { for byte in $0 { append(byte) } }
    }

    /// Appends `value` rounded to 6 decimals in fixed-point form, trailing zeros dropped but at
    /// least one decimal kept: `-0.012346`, `1.0`, `45.2`, `0.0` (never `-0.0`). The text parses
    /// back (with any correctly rounded decimal parser) to `OutputFile.fixed6(value)`.
    @inline(__always)
    mutating func appendFixed6(_ value: Double) {
        appendMicros(OutputFile.micros(value))
    }

    /// Appends `value` as C's `printf("%.17g")` writes it (`SynthPrecision.full`): correctly
    /// rounded to 17 significant digits, trailing zeros dropped (`0.10000000000000001`, `1`,
    /// `45.200000000000003`); an exponent below 10⁻⁴ and from 10¹⁷ (`3.1999999999999999e-05`,
    /// `1e+17`); `0` and `-0` for zeros. Parses back to exactly `value`.
    /// - Precondition: `value` is finite (synthetic values always are).
    mutating func appendSignificant17(_ value: Double) {
        precondition(value.isFinite, "appendSignificant17: synthetic values are finite, got \(value)")
        let text = _NumberTextKernels.significant17(value)
        for i in 0..<text.count { append(text.bytes[i]) }
    }

    /// Appends `micros / 10⁶` as `appendFixed6` does.
    mutating func appendMicros(_ micros: Int64) {
        var m = micros
        if m < 0 {
            append(ascii: "-")
            m = -m
        }
        appendDecimal(UInt64(m / 1_000_000))
        append(ascii: ".")
        var fraction = UInt64(m % 1_000_000)
        if fraction == 0 {
            append(ascii: "0")
            return
        }
        var digits = 6
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        appendDigits(fraction, count: digits)
    }

    /// Appends a time of `micros` µs as seconds, exactly as Swift's `Double.description` prints
    /// `Double(micros) / 1e6` (`0.0102`, `12.5`, `120.0`, `1e-05`).
    ///
    /// For 10⁻⁴ s ≤ t < 10⁹ s the shortest round-trip digits of that double are the decimal
    /// digits of `micros` (1 µs is far above the double's resolution there), and Swift prints
    /// such values without an exponent, so the fixed-point form is the description; outside that
    /// range this falls back to `description`.
    mutating func appendSeconds(micros: Int64) {
        if micros >= 100, micros < 1_000_000_000_000_000 {
            appendMicros(micros)
        } else {
            for byte in (Double(micros) / 1e6).description.utf8 { append(byte) }
        }
    }

    /// Appends a non-negative integer in decimal.
    @inline(__always)
    mutating func appendDecimal(_ value: UInt64) {
        var count = 1
        var v = value
        while v >= 10 {
            v /= 10
            count += 1
        }
        appendDigits(value, count: count)
    }

    /// Appends the lowest `count` decimal digits of `value` (at most 20), zero-padded.
    @inline(__always)
    mutating func appendDigits(_ value: UInt64, count: Int) {
        var digits = InlineArray<20, UInt8>(repeating: 0x30)
        var v = value
        var i = count - 1
        while i >= 0 {
            digits[i] = 0x30 &+ UInt8(truncatingIfNeeded: v % 10)
            v /= 10
            i -= 1
        }
        for j in 0..<count { append(digits[j]) }
    }

    /// Appends `,x,y,z`.
    @inline(__always)
    mutating func appendVector(_ v: SIMD3<Double>) {
        append(ascii: ",")
        appendFixed6(v.x)
        append(ascii: ",")
        appendFixed6(v.y)
        append(ascii: ",")
        appendFixed6(v.z)
    }
}
