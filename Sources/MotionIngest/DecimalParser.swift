/// Parses one field as a docs/inputs.md, "Bad rows and time order" decimal, straight from bytes.
///
/// Grammar: surrounding spaces and tabs are ignored; an optional sign; digits with an optional
/// fraction (`5`, `5.`, `.5`, `5.25`; `.` alone is invalid); an optional exponent (`e` or `E`,
/// optional sign, digits). The result is correctly rounded: identical to `Double(String)` and
/// `strtod` for every valid input, including subnormals and `-0`.
///
/// Missing values (the row is left out of its stream): an empty or all-blank field, `NA`, `N/A`,
/// `null`, `nan`, `inf`, `infinity` (the last three with an optional sign), in any case, and
/// decimals beyond the range of a double (`1e999`). Decimals that underflow are values (`1e-400`
/// is 0). Anything else is invalid: `1.2.3`, `0x10`, `abc`, `1e`, `--1`, `1 2`.
public enum DecimalParser {
    /// What a field holds.
    public enum Result: Sendable, Equatable {
        /// A finite decimal.
        case value(Double)
        /// A missing-value marker, or a decimal beyond the range of a double.
        case missing
        /// Not a decimal and not a missing-value marker.
        case invalid
    }

    /// Classifies the bytes of one field (without its delimiters).
    ///
    /// - Parameter bytes: the field, UTF-8; no NUL terminator needed.
    /// - Returns: `.value`, `.missing` or `.invalid`.
    /// - Complexity: O(`bytes.count`); no allocation.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result {
        guard let base = bytes.baseAddress else { return .missing }
        return _NumberKernels.classifyField(base, base + bytes.count)
    }

    /// Classifies the UTF-8 bytes of `text` (a convenience for configuration and tests).
    public static func parse(_ text: String) -> Result {
        _NumberKernels.classify(text)
    }

    /// Classifies the bytes of one field held in an array.
    public static func parse(_ bytes: [UInt8]) -> Result {
        _NumberKernels.classify(bytes)
    }
}
