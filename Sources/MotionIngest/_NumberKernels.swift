#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CFastFloat

/// The unsafe half of `DecimalParser`: scanning docs/inputs.md, "Bad rows and time order" decimals straight out of a byte buffer.
///
/// Everything here works on `[start, end)` pointer ranges that the caller guarantees are valid.
/// Nothing allocates. Rounding beyond Clinger's fast path is fast_float's (`CFastFloat`), which
/// only ever sees bytes or numbers validated here. The fast paths for plain decimals are in
/// `_PlainDecimalKernels.swift`.
enum _NumberKernels {
    /// How a scan ended.
    enum Status: UInt8 {
        /// A decimal was read; `value` holds it, correctly rounded.
        case value
        /// A decimal was read but it is beyond the range of a double (`1e999`): a missing value.
        case overflow
        /// The bytes at the start are not a decimal (no digits, or an exponent without digits).
        case notANumber
    }

    struct Scan {
        var status: Status
        var value: Double
        /// The first byte not consumed: after the number and any trailing blanks.
        var stop: UnsafePointer<UInt8>
    }

    @inline(__always)
    static func isBlank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }

    /// Exact powers of ten representable in a double (10^0 … 10^22).
    static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// 10^i for 0 ≤ i ≤ 22 without a bounds check, for the number kernels' hot paths: every call
    /// site has established the range just before (and says so). `_debugPrecondition` in
    /// `UnsafeBufferPointer`'s subscript is off in release builds; debug builds and tests check it.
    @inline(__always)
    static func powerOfTen(upTo22 i: Int) -> Double {
        powersOfTen.withUnsafeBufferPointer { $0[i] }
    }

    /// 10^i for 0 ≤ i ≤ 19 as an integer, unchecked like `powerOfTen(upTo22:)`.
    @inline(__always)
    static func integerPowerOfTen(upTo19 i: Int) -> UInt64 {
        powersOfTenInteger.withUnsafeBufferPointer { $0[i] }
    }

    /// 10^0 … 10^19 as integers.
    static let powersOfTenInteger: [UInt64] = [
        1, 10, 100, 1000, 10000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000,
        10_000_000_000, 100_000_000_000, 1_000_000_000_000, 10_000_000_000_000, 100_000_000_000_000,
        1_000_000_000_000_000, 10_000_000_000_000_000, 100_000_000_000_000_000,
        1_000_000_000_000_000_000, 10_000_000_000_000_000_000,
    ]

    /// fast_float's Eisel–Lemire for `mantissa × 10^exponent10` (`mantissa` exact, below 10^19):
    /// correctly rounded; +inf beyond the range of a double; NaN when it cannot decide.
    /// Out of line, so that its stack slot and call stay out of the inlined fast path.
    @inline(never)
    static func eiselLemire(_ mantissa: UInt64, _ exponent10: Int) -> Double {
        var v = 0.0
        return cfastfloat_compute_double(mantissa, Int64(exponent10), &v) == 0 ? .nan : v
    }

    /// Appends the run of digits at `p` to `mantissa` (wrapping), eight at a time while eight
    /// bytes before `readable` remain, and moves `p` past it.
    @inline(__always)
    static func digits(_ p: inout UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>, _ readable: UnsafePointer<UInt8>,
                       _ mantissa: inout UInt64) {
        while readable - p >= 8 {
            let run = digitRun(p, end)
            mantissa = mantissa &* powersOfTenInteger[run.count] &+ run.value
            p += run.count
            if run.count < 8 { return }
        }
        while p < end {
            let d = p.pointee &- UInt8(ascii: "0")
            if d >= 10 { return }
            mantissa = mantissa &* 10 &+ UInt64(d)
            p += 1
        }
    }

    /// Scans `blanks* [+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)? blanks*` from
    /// `start`, never reading at or past `end`.
    ///
    /// The caller decides whether `stop` is an acceptable place for the field to end (the end of
    /// the field, a delimiter); a number followed by anything else is not a number.
    ///
    /// Rounding: up to 19 significant digits are accumulated in a `UInt64`; when the mantissa is
    /// at most 2^53 and the decimal exponent within ±22 (Clinger's fast path), one exact
    /// multiplication or division by an exact power of ten gives the correctly rounded result.
    /// Otherwise fast_float's Eisel–Lemire (`cfastfloat_compute_double`) rounds the same
    /// mantissa and exponent correctly; with more than 19 significant digits, or in the rare case
    /// it cannot decide, fast_float's `from_chars` gets the validated digits.
    ///
    /// - Complexity: O(bytes scanned).
    /// - Parameter readableEnd: bytes up to here may be loaded (eight at a time) but only bytes
    ///   before `end` are ever interpreted; pass `end` when nothing beyond it is readable.
    @inline(__always)
    static func scanDecimal(_ start: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>,
                            readableEnd: UnsafePointer<UInt8>? = nil) -> Scan {
        let readable = readableEnd ?? end
        var p = start
        while p < end && isBlank(p.pointee) { p += 1 }
        var negative = false
        if p < end && (p.pointee == UInt8(ascii: "-") || p.pointee == UInt8(ascii: "+")) {
            negative = p.pointee == UInt8(ascii: "-")
            p += 1
        }
        let digitsStart = p
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var exponent10 = 0
        var truncated = false  // a non-zero digit beyond the 19th significant one was dropped

        let integerStart = p
        while p < end && p.pointee == UInt8(ascii: "0") { p += 1 }
        while readable - p >= 8 {  // eight digits at a time while they fit in the 19
            let run = digitRun(p, end)
            if run.count == 0 || significantDigits + run.count > 19 { break }
            mantissa = mantissa &* powersOfTenInteger[run.count] &+ run.value
            significantDigits += run.count
            p += run.count
            if run.count < 8 { break }
        }
        while p < end {
            let d = p.pointee &- UInt8(ascii: "0")
            if d >= 10 { break }
            if significantDigits < 19 {
                mantissa = mantissa &* 10 &+ UInt64(d)
                significantDigits += 1
            } else {
                exponent10 += 1
                if d != 0 { truncated = true }
            }
            p += 1
        }
        var digitCount = p - integerStart
        if p < end && p.pointee == UInt8(ascii: ".") {
            p += 1
            let fractionStart = p
            if significantDigits == 0 {
                while p < end && p.pointee == UInt8(ascii: "0") { p += 1 }
                exponent10 -= p - fractionStart
            }
            while readable - p >= 8 {
                let run = digitRun(p, end)
                if run.count == 0 || significantDigits + run.count > 19 { break }
                mantissa = mantissa &* powersOfTenInteger[run.count] &+ run.value
                significantDigits += run.count
                exponent10 -= run.count
                p += run.count
                if run.count < 8 { break }
            }
            while p < end {
                let d = p.pointee &- UInt8(ascii: "0")
                if d >= 10 { break }
                if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    significantDigits += 1
                    exponent10 -= 1
                } else if d != 0 {
                    truncated = true
                }
                p += 1
            }
            digitCount += p - fractionStart
        }
        if digitCount == 0 { return Scan(status: .notANumber, value: 0, stop: p) }
        if p < end && (p.pointee | 0x20) == UInt8(ascii: "e") {
            p += 1
            var exponentNegative = false
            if p < end && (p.pointee == UInt8(ascii: "-") || p.pointee == UInt8(ascii: "+")) {
                exponentNegative = p.pointee == UInt8(ascii: "-")
                p += 1
            }
            let exponentStart = p
            var e = 0
            while p < end {
                let d = p.pointee &- UInt8(ascii: "0")
                if d >= 10 { break }
                if e < 100_000_000 { e = e &* 10 &+ Int(d) }  // saturates far beyond any double
                p += 1
            }
            if p == exponentStart { return Scan(status: .notANumber, value: 0, stop: p) }
            exponent10 += exponentNegative ? -e : e
        }
        let numberEnd = p
        while p < end && isBlank(p.pointee) { p += 1 }

        if mantissa == 0 {
            // Every digit was zero (a non-zero digit is always accumulated first).
            return Scan(status: .value, value: negative ? -0.0 : 0.0, stop: p)
        }
        if !truncated && mantissa <= (1 << 53) {
            if exponent10 >= -22 && exponent10 <= 22 {
                let m = Double(mantissa)
                let v = exponent10 >= 0 ? m * powersOfTen[exponent10] : m / powersOfTen[-exponent10]
                return Scan(status: .value, value: negative ? -v : v, stop: p)
            }
            if exponent10 > 22 && exponent10 <= 22 + 15 {
                // 123e30 = (123 × 10^8) × 10^22 when 123 × 10^8 is still an exact integer double.
                let (scaled, overflow) = mantissa.multipliedReportingOverflow(by: UInt64(powersOfTen[exponent10 - 22]))
                if !overflow && scaled <= (1 << 53) {
                    let v = Double(scaled) * powersOfTen[22]
                    return Scan(status: .value, value: negative ? -v : v, stop: p)
                }
            }
        }
        if exponent10 + significantDigits > 400 {
            return Scan(status: .overflow, value: 0, stop: p)  // ≥ 10^400: no need to compute
        }
        if exponent10 + significantDigits < -400 {
            return Scan(status: .value, value: negative ? -0.0 : 0.0, stop: p)  // < 10^-400
        }
        var v = 0.0
        if truncated || cfastfloat_compute_double(mantissa, Int64(exponent10), &v) == 0 {
            v = slowPath(digitsStart, numberEnd)
        }
        if v.isInfinite { return Scan(status: .overflow, value: 0, stop: p) }
        return Scan(status: .value, value: negative ? -v : v, stop: p)
    }

    /// fast_float's `from_chars` on the unsigned decimal `[start, end)`, already validated: more
    /// than 19 significant digits, or the rare case Eisel–Lemire leaves undecided. Correctly
    /// rounded, locale-independent, no allocation.
    @inline(never)
    static func slowPath(_ start: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> Double {
        var v = 0.0
        let consumed = start.withMemoryRebound(to: CChar.self, capacity: end - start) {
            cfastfloat_parse_double($0, $0 + (end - start), &v)
        }
        if consumed == end - start { return v }
        // Unreachable for validated input; Swift's parser is the safe answer should it happen.
        let text = String(decoding: UnsafeBufferPointer(start: start, count: end - start), as: UTF8.self)
        return Double(text) ?? .nan
    }

    /// True when the blank-trimmed field `[start, end)` is a missing-value word (docs/inputs.md, "Bad rows and time order"):
    /// empty, `NA`, `N/A`, `null`, `nan`, `inf`, `infinity`, the last three with an optional sign,
    /// in any case. (`-nan` is what Swift prints for a negative NaN.)
    static func isMissingWord(_ start: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> Bool {
        var s = start, e = end
        while s < e && isBlank(s.pointee) { s += 1 }
        while e > s && isBlank((e - 1).pointee) { e -= 1 }
        if s == e { return true }
        if (s.pointee == UInt8(ascii: "-") || s.pointee == UInt8(ascii: "+")) {
            let rest = s + 1
            return matchesLowercased(rest, e, "nan") || matchesLowercased(rest, e, "inf")
                || matchesLowercased(rest, e, "infinity")
        }
        return matchesLowercased(s, e, "na") || matchesLowercased(s, e, "n/a") || matchesLowercased(s, e, "null")
            || matchesLowercased(s, e, "nan") || matchesLowercased(s, e, "inf") || matchesLowercased(s, e, "infinity")
    }

    @inline(__always)
    private static func matchesLowercased(_ s: UnsafePointer<UInt8>, _ e: UnsafePointer<UInt8>, _ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard e - s == n else { return false }
        let w = word.utf8Start
        for i in 0..<n {
            var c = s[i]
            if c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z") { c |= 0x20 }
            if c != w[i] { return false }
        }
        return true
    }

    /// Classifies the whole field `[start, end)`: a value, a missing value, or invalid.
    static func classifyField(_ start: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> DecimalParser.Result {
        let scan = scanDecimal(start, end)
        if scan.stop == end {
            switch scan.status {
            case .value: return .value(scan.value)
            case .overflow: return .missing
            case .notANumber: break
            }
        }
        return isMissingWord(start, end) ? .missing : .invalid
    }

    static func classify(_ text: String) -> DecimalParser.Result {
        var text = text
        return text.withUTF8 { DecimalParser.parse($0) }
    }

    static func classify(_ bytes: [UInt8]) -> DecimalParser.Result {
        bytes.withUnsafeBufferPointer { DecimalParser.parse($0) }
    }
}
