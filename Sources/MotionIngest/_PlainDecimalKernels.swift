#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CFastFloat

/// The fast paths of `scanDecimal` (no blanks, no `+`, at most 19 significant digits):
/// `scanPlainDecimal` and `maskedDecimal`, and the SWAR digit words they are built on.
extension _NumberKernels {
    /// The run of ASCII digits starting at `p` (at most eight, and none at or past `end`) and
    /// its value, found without a branch per digit (SWAR, as in fast_float). Loads eight bytes:
    /// the caller guarantees `p + 8` is readable.
    @inline(__always)
    static func digitRun(_ p: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> (value: UInt64, count: Int) {
        let word = UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
        // A byte is a digit iff its high nibble is 3 and adding 6 keeps it 3.
        let t = (word & 0xF0F0_F0F0_F0F0_F0F0) | (((word &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0) >> 4)
        let x = t ^ 0x3333_3333_3333_3333  // non-zero bytes: not digits
        let nonZero = (x | ((x & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F)) & 0x8080_8080_8080_8080
        let count = min(nonZero.trailingZeroBitCount >> 3, end - p)
        if count == 0 { return (0, 0) }
        // Digit values in the last `count` of eight positions, leading positions zero.
        var v = (word &- 0x3030_3030_3030_3030) << UInt64(8 * (8 - count))
        v = (v &* 10) &+ (v >> 8)
        v = (((v & 0x0000_00FF_0000_00FF) &* 0x000F_4240_0000_0064)
            &+ (((v >> 16) & 0x0000_00FF_0000_00FF) &* 0x0000_2710_0000_0001)) >> 32
        return (v & 0xFFFF_FFFF, count)
    }

    /// The common case of `scanDecimal`, as fast as it goes: `-? digits? (. digits?)? ([eE] [+-]? digits)?`
    /// from `start` (no blanks, no `+`), with at most 19 significant digits. Stops at the first
    /// byte that does not continue the number; the caller checks that it ends the field.
    ///
    /// Returns nil, having changed nothing, when the bytes need `scanDecimal` (and perhaps the
    /// missing-value words): no digits, a leading blank or `+`, more than 19 significant digits,
    /// a value beyond the range of a double, or the rare value Eisel–Lemire cannot decide. A
    /// non-nil result is bit-identical to `scanDecimal`'s (both are correctly rounded).
    ///
    /// With 32 bytes before `end`, numbers with up to 7 integer digits and 23 fraction digits
    /// are read branch-light: one word finds the point, at most three more the fraction's end,
    /// and the digit words convert independently (SWAR). Others take `scanPlainDecimalByRuns`.
    /// No byte at or past `end` is read.
    ///
    /// - Complexity: O(bytes of the number).
    @inline(always)
    static func scanPlainDecimal(_ start: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>)
        -> (value: Double, stop: UnsafePointer<UInt8>)? {
        var p = start
        let negative = p < end && p.pointee == UInt8(ascii: "-")
        if negative { p += 1 }
        guard end - p >= 32 else { return scanPlainDecimalByRuns(start, end) }
        let w0 = load(p)
        let integerDigits = nonDigitMask(w0).trailingZeroBitCount &>> 3
        guard integerDigits < 8 else { return scanPlainDecimalByRuns(start, end) }
        var mantissa: UInt64
        var fractionDigits = 0
        var stop = p + integerDigits
        if stop.pointee == UInt8(ascii: ".") {
            let f = stop + 1
            let w1 = load(f)
            let n1 = nonDigitMask(w1).trailingZeroBitCount &>> 3
            if n1 < 8 && integerDigits &+ n1 <= 8 {
                // Integer and fraction digits together fit one word: join them (the integer
                // digits, then the fraction's; the bytes above are discarded) and convert once.
                let shift = UInt64(8 &* integerDigits)
                let joined = (w0 & ((1 &<< shift) &- 1)) | (w1 &<< shift)
                fractionDigits = n1
                mantissa = parseDigits(joined, integerDigits &+ n1)
                let after = f + n1
                if (after.pointee | 0x20) != UInt8(ascii: "e") && integerDigits &+ n1 != 0 {
                    // At most 8 digits and no exponent: Clinger's case of `toDouble`, always.
                    let v = Double(mantissa) / powersOfTen[n1]
                    return (negative ? -v : v, after)
                }
            } else {
                mantissa = parseDigits(w0, integerDigits)
                let fraction: UInt64
                if n1 < 8 {
                    fractionDigits = n1
                    fraction = parseDigits(w1, n1)
                } else {
                    let w2 = load(f + 8)
                    let n2 = nonDigitMask(w2).trailingZeroBitCount &>> 3
                    if n2 < 8 {
                        fractionDigits = 8 &+ n2
                        guard integerDigits &+ fractionDigits <= 19 else { return scanPlainDecimalByRuns(start, end) }
                        fraction = parseDigits(w1, 8) &* powersOfTenInteger[n2] &+ parseDigits(w2, n2)
                    } else {
                        let w3 = load(f + 16)
                        let n3 = nonDigitMask(w3).trailingZeroBitCount &>> 3
                        fractionDigits = 16 &+ n3
                        guard integerDigits &+ fractionDigits <= 19 else { return scanPlainDecimalByRuns(start, end) }
                        fraction = (parseDigits(w1, 8) &* 100_000_000 &+ parseDigits(w2, 8)) &* powersOfTenInteger[n3]
                            &+ parseDigits(w3, n3)
                    }
                }
                mantissa = mantissa &* powersOfTenInteger[fractionDigits] &+ fraction
            }
            stop = f + fractionDigits
        } else {
            mantissa = parseDigits(w0, integerDigits)
        }
        if integerDigits &+ fractionDigits == 0 { return nil }
        var exponent10 = -fractionDigits
        if (stop.pointee | 0x20) == UInt8(ascii: "e") {
            guard let e = exponent(&stop, end) else { return nil }
            exponent10 += e
        }
        guard let v = toDouble(mantissa, exponent10) else { return nil }
        return (negative ? -v : v, stop)
    }

    /// The decimal whose `integerDigits` digits start at `digits`, followed (when
    /// `fractionDigits` > 0) by a point and `fractionDigits` digits, negated when `negative`;
    /// the caller knows (from `_RowWindow` masks) where the point and the field's end are, and
    /// checks the bytes are digits. Nil when there is no digit or more than 19, or in the rare case
    /// Eisel–Lemire cannot decide. Bit-identical to `scanDecimal` on the same bytes.
    ///
    /// The digits are gathered eight at a time around the point (two overlapping loads and a
    /// byte mask), so 9–16 digit numbers (`123.456789`) take two words and one multiply-add.
    /// Loads up to 26 bytes from `digits`; bytes past the number are loaded, never used.
    @inline(always)
    static func maskedDecimal(_ digits: UnsafePointer<UInt8>, integerDigits: Int, fractionDigits: Int,
                              negative: Bool) -> Double? {
        // Both counts come from bit positions of one window (0…64), so they are ≥ 0; the unchecked
        // table reads below rely on it (checked here in debug builds and tests).
        assert(integerDigits >= 0 && fractionDigits >= 0, "maskedDecimal: negative digit count")
        let total = integerDigits &+ fractionDigits
        var v: Double
        if UInt(bitPattern: total &- 1) < 8 {
            // 0 ≤ integerDigits ≤ 8: the point (if any) is among the eight bytes.
            // integerDigits ∈ 0…8 here (the caller's counts are ≥ 0): no sign check needed.
            let k = UInt64(truncatingIfNeeded: integerDigits) &* 4
            let before = (((1 as UInt64) &<< k) &<< k) &- 1  // two shifts, so that 8 digits give all ones
            let word = (load(digits) & before) | (load(digits + 1) & ~before)
            v = Double(parseDigits(word, total)) / powerOfTen(upTo22: fractionDigits)  // ≤ 8
        } else {
            guard UInt(bitPattern: total &- 9) < 11 else { return nil }  // 9…19 digits
            var mantissa = parseDigits(digitWord(digits, integerDigits), 8)
            if total <= 16 {
                mantissa = mantissa &* integerPowerOfTen(upTo19: total &- 8)  // 1…8
                    &+ parseDigits(digitWord(digits + 8, integerDigits &- 8), total &- 8)
            } else {
                mantissa = (mantissa &* 100_000_000 &+ parseDigits(digitWord(digits + 8, integerDigits &- 8), 8))
                    &* integerPowerOfTen(upTo19: total &- 16)  // 1…3
                    &+ parseDigits(digitWord(digits + 16, integerDigits &- 16), total &- 16)
            }
            guard let d = toDouble(mantissa, -fractionDigits) else { return nil }
            v = d
        }
        // The sign without a branch (half the values are negative: a branch would mispredict).
        return Double(bitPattern: v.bitPattern | (negative ? 1 << 63 : 0))
    }

    /// Eight digits of a number from `p` on, skipping the point that follows the first
    /// `integerDigits` of them (none when `integerDigits` ≥ 8; all when ≤ 0): byte i is `p[i]`
    /// before the point and `p[i + 1]` after it.
    @inline(__always)
    static func digitWord(_ p: UnsafePointer<UInt8>, _ integerDigits: Int) -> UInt64 {
        let k = UInt64(truncatingIfNeeded: min(max(integerDigits, 0), 8))
        let before = ~(UInt64.max << (8 &* k))  // 0 for k = 0, all ones for k = 8
        return (load(p) & before) | (load(p + 1) & ~before)
    }

    /// `mantissa × 10^exponent10` correctly rounded (`mantissa` exact); nil beyond the range of a
    /// double or when Eisel–Lemire cannot decide.
    @inline(__always)
    static func toDouble(_ mantissa: UInt64, _ exponent10: Int) -> Double? {
        if mantissa <= 1 << 53 && exponent10 >= -22 && exponent10 <= 22 {
            // Clinger: both operands exact, one correctly rounded operation (0 stays 0).
            let m = Double(mantissa)
            return exponent10 >= 0 ? m * powerOfTen(upTo22: exponent10) : m / powerOfTen(upTo22: 0 &- exponent10)
        }
        if mantissa == 0 { return 0 }
        let v = eiselLemire(mantissa, exponent10)
        return v.isFinite ? v : nil
    }

    /// The eight bytes at `p`, first byte lowest.
    @inline(__always)
    static func load(_ p: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
    }

    /// A mask whose lowest set bit is the high bit of the first byte of `word` (first = lowest)
    /// that is not an ASCII digit; 0 when all eight are digits. Only the lowest set bit means
    /// anything: use it through `trailingZeroBitCount`.
    ///
    /// Per byte, `b + 0x46` has its high bit set for 0x3A ≤ `b` < 0xBA and `b − 0x30` for `b` < 0x30
    /// (by the borrow) and `b` ≥ 0xB0: every non-digit is flagged. A digit sets neither and,
    /// carrying and borrowing nothing, leaves the bytes above it exact. Bytes above the first non-digit may be flagged wrongly.
    /// Four operations instead of the ten of an exact per-byte mask.
    @inline(__always)
    static func nonDigitMask(_ word: UInt64) -> UInt64 {
        ((word &+ 0x4646_4646_4646_4646) | (word &- 0x3030_3030_3030_3030)) & 0x8080_8080_8080_8080
    }

    /// The value of the first `count` (0…8) bytes of `word`, all ASCII digits (SWAR, as in
    /// fast_float's `parse_eight_digits_unrolled`); the other bytes are ignored.
    @inline(__always)
    static func parseDigits(_ word: UInt64, _ count: Int) -> UInt64 {
        // Shifting the digits to the top leaves leading zero digits; `<<` by 64 (no digit) gives 0.
        var v = (word &- 0x3030_3030_3030_3030) << UInt64(8 &* (8 &- count))
        v = (v &* 10) &+ (v >> 8)
        v = (((v & 0x0000_00FF_0000_00FF) &* 0x000F_4240_0000_0064)
            &+ (((v >> 16) & 0x0000_00FF_0000_00FF) &* 0x0000_2710_0000_0001)) >> 32
        return v & 0xFFFF_FFFF
    }

    /// `scanPlainDecimal` one digit run at a time, for numbers near the end of the buffer, with
    /// eight or more integer digits, or with more than 19 digit characters (`0.000123…`).
    @inline(never)
    static func scanPlainDecimalByRuns(_ start: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>)
        -> (value: Double, stop: UnsafePointer<UInt8>)? {
        var p = start
        let negative = p < end && p.pointee == UInt8(ascii: "-")
        if negative { p += 1 }
        let digitsStart = p
        // Every digit goes into the mantissa, leading zeros too (they add nothing). With more than
        // 19 digit characters the wrapping arithmetic may lose the value; that case is checked below.
        var mantissa: UInt64 = 0
        digits(&p, end, &mantissa)
        var digitCount = p - digitsStart
        var exponent10 = 0
        if p < end && p.pointee == UInt8(ascii: ".") {
            p += 1
            let fractionStart = p
            digits(&p, end, &mantissa)
            let fractionDigits = p - fractionStart
            digitCount += fractionDigits
            exponent10 = -fractionDigits
        }
        if digitCount == 0 { return nil }
        if p < end && (p.pointee | 0x20) == UInt8(ascii: "e") {
            guard let e = exponent(&p, end) else { return nil }
            exponent10 += e
        }
        if digitCount > 19 {
            // Leading zeros (`0.000123…`) are not significant: the mantissa is exact, below 10^19,
            // when what remains has at most 19 digits.
            var q = digitsStart
            var zeros = 0
            while q < p && (q.pointee == UInt8(ascii: "0") || q.pointee == UInt8(ascii: ".")) {
                if q.pointee == UInt8(ascii: "0") { zeros += 1 }
                q += 1
            }
            if digitCount - zeros > 19 { return nil }
        }
        guard let v = toDouble(mantissa, exponent10) else { return nil }
        return (negative ? -v : v, p)
    }

    /// The exponent at `p` (`[eE] [+-]? digits`), saturated far beyond any double; nil (and `p`
    /// unspecified) when no digit follows.
    @inline(never)
    static func exponent(_ p: inout UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> Int? {
        p += 1
        var negative = false
        if p < end && (p.pointee == UInt8(ascii: "-") || p.pointee == UInt8(ascii: "+")) {
            negative = p.pointee == UInt8(ascii: "-")
            p += 1
        }
        let digitsStart = p
        var e = 0
        while p < end {
            let d = p.pointee &- UInt8(ascii: "0")
            if d >= 10 { break }
            if e < 100_000_000 { e = e &* 10 &+ Int(d) }
            p += 1
        }
        if p == digitsStart { return nil }
        return negative ? -e : e
    }

    /// Appends the run of digits at `p` to `mantissa` (wrapping), eight at a time while eight
    /// bytes before `end` remain, and moves `p` past it.
    @inline(__always)
    static func digits(_ p: inout UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>, _ mantissa: inout UInt64) {
        while end - p >= 8 {
            let run = digitRun8(p)
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

    /// `digitRun` when all eight bytes at `p` belong to the buffer (no bound to apply).
    @inline(__always)
    static func digitRun8(_ p: UnsafePointer<UInt8>) -> (value: UInt64, count: Int) {
        let word = UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
        let t = (word & 0xF0F0_F0F0_F0F0_F0F0) | (((word &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0) >> 4)
        let x = t ^ 0x3333_3333_3333_3333
        let nonZero = (x | ((x & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F)) & 0x8080_8080_8080_8080
        let count = nonZero.trailingZeroBitCount &>> 3
        // `<<` by 64 (no digit) gives 0.
        var v = (word &- 0x3030_3030_3030_3030) << UInt64(8 &* (8 &- count))
        v = (v &* 10) &+ (v >> 8)
        v = (((v & 0x0000_00FF_0000_00FF) &* 0x000F_4240_0000_0064)
            &+ (((v >> 16) & 0x0000_00FF_0000_00FF) &* 0x0000_2710_0000_0001)) >> 32
        return (v & 0xFFFF_FFFF, count)
    }
}
