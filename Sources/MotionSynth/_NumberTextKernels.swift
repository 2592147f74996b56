#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one libc formatting call of MotionSynth: `vsnprintf("%.17g")`, for
/// `OutputSpan.appendSignificant17` (`SynthPrecision.full`). libc's conversion is exact (glibc
/// and musl print the correctly rounded digits of the double's binary value), which no
/// shortest-digits routine of the standard library gives at a fixed 17 digits.
enum _NumberTextKernels {
    /// The text of one number, at most 32 bytes.
    struct Text {
        var bytes = InlineArray<32, UInt8>(repeating: 0)
        var count = 0
    }

    /// `value` as `%.17g` writes it.
    /// - Complexity: O(1); no allocation.
    static func significant17(_ value: Double) -> Text {
        var text = Text()
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 32) { buffer in
            let written = withVaList([value]) { vsnprintf(buffer.baseAddress, 32, "%.17g", $0) }
            precondition(written > 0 && written < 32, "vsnprintf(%.17g) of \(value) wrote \(written) bytes")
            for i in 0..<Int(written) { text.bytes[i] = UInt8(bitPattern: buffer[i]) }
            text.count = Int(written)
        }
        return text
    }
}
