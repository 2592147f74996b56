import MotionCore

/// A tolerated oddity in an IIO capture or its layout (docs/iio-format.md §2.2, §3, §5, §6).
///
/// `code` is the short identifier of the format document (`W_NO_SCALE`, `W_TRUNCATED_TAIL`);
/// `message` is the sentence shown to the user, naming the file and ending with the code.
public struct IIOWarning: Sendable, Equatable, CustomStringConvertible {
    /// The format document's identifier, e.g. `W_TS_NOT_LAST`.
    public var code: String
    /// The sentence shown to the user.
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// The storage format of one IIO scan element: a parsed `_type` string such as `le:s12/16>>4`
/// (docs/iio-format.md §2).
///
/// Grammar: `endianness ":" sign realbits "/" storagebits [ "X" repeat ] [ ">>" shift ]` with
/// `endianness` `be` or `le`, `sign` `s` or `u` (lowercase only: libiio's `S`/`U` never appear in
/// sysfs), and decimal numbers. Surrounding whitespace (sysfs values end in `"\n"`) is ignored.
public struct IIOScanType: Sendable, Hashable, CustomStringConvertible {
    /// The byte order of each storage word, independent of the host.
    public enum ByteOrder: String, Sendable, Hashable {
        case little = "le"
        case big = "be"
    }

    /// Byte order of each `storageBits` word.
    public var byteOrder: ByteOrder
    /// `s`: two's complement, sign-extended from `realBits`; `u`: unsigned.
    public var isSigned: Bool
    /// Valid data bits, 1…`storageBits`.
    public var realBits: Int
    /// Bits one word occupies in the scan: 8, 16, 32 or 64.
    public var storageBits: Int
    /// Number of consecutive words forming the element (`X4` for quaternions); 1 when absent.
    public var repeatCount: Int
    /// Right shift applied to the unsigned word before masking; 0 when absent.
    public var shift: Int

    /// Creates a type; the values must satisfy the §2.2 rules (use `parse` for user input).
    public init(byteOrder: ByteOrder, isSigned: Bool, realBits: Int, storageBits: Int, repeatCount: Int = 1, shift: Int = 0) {
        precondition([8, 16, 32, 64].contains(storageBits), "IIOScanType: storageBits must be 8, 16, 32 or 64")
        precondition(realBits >= 1 && realBits + shift <= storageBits && shift >= 0, "IIOScanType: bits outside the word")
        precondition(repeatCount >= 1, "IIOScanType: repeatCount must be at least 1")
        self.byteOrder = byteOrder
        self.isSigned = isSigned
        self.realBits = realBits
        self.storageBits = storageBits
        self.repeatCount = repeatCount
        self.shift = shift
    }

    /// Bytes of one word.
    public var storageBytes: Int { storageBits / 8 }
    /// Bytes of the whole element (`storageBytes × repeatCount`); also its alignment (§3.1).
    public var elementBytes: Int { storageBytes * repeatCount }

    /// The string as the kernel prints it (`iio_show_fixed_type()`): `le:s16/16>>0`, with `X<n>`
    /// only when `repeatCount > 1`.
    public var description: String {
        let rep = repeatCount > 1 ? "X\(repeatCount)" : ""
        return "\(byteOrder.rawValue):\(isSigned ? "s" : "u")\(realBits)/\(storageBits)\(rep)>>\(shift)"
    }

    /// What `parse` accepts, quoted in every error message.
    static let expectedForm = "expected `[be|le]:[s|u]realbits/storagebits[Xrepeat][>>shift]` with storagebits 8, 16, 32 or 64, such as `le:s16/16>>0`"

    /// Parses a `_type` string and applies the validation table of docs/iio-format.md §2.2.
    ///
    /// - Parameters:
    ///   - text: the string as read (whitespace around it, such as sysfs's trailing newline, is ignored).
    ///   - channel: the channel it describes (`in_accel_x`), for messages.
    ///   - source: where the string came from (the `_type` file's path, or the pipeline file and
    ///     key), for messages.
    /// - Returns: the type and the warnings `W_TYPE_NO_SHIFT` (no `>>shift`; shift 0) and
    ///   `W_REPEAT_ONE` (`X1`; repeat 1).
    /// - Throws: `IngestError.Kind.iioScanType` (exit 65) with code `E_TYPE_MALFORMED`,
    ///   `E_STORAGEBITS`, `E_REALBITS`, `E_SHIFT`, `E_REPEAT` or `E_REPEAT_ALIGN`; checks run in that
    ///   order and the first failing one is reported.
    public static func parse(_ text: String, channel: String, source: String) throws -> (type: IIOScanType, warnings: [IIOWarning]) {
        let trimmed = IIOText.trimmed(text)
        func fail(_ code: String, _ problem: String) -> IngestError {
            IngestError(.iioScanType(code: code, channel: channel, text: trimmed, problem: problem),
                        at: SourceLocation(file: source))
        }
        guard let f = Fields(trimmed) else {
            throw fail("E_TYPE_MALFORMED", "it does not follow the grammar")
        }
        guard [8, 16, 32, 64].contains(f.storageBits) else {
            throw fail("E_STORAGEBITS", "storagebits \(f.storageBits) is not 8, 16, 32 or 64")
        }
        guard f.realBits >= 1 && f.realBits <= f.storageBits else {
            throw fail("E_REALBITS", "realbits \(f.realBits) is not between 1 and the storagebits \(f.storageBits)")
        }
        guard f.shift + f.realBits <= f.storageBits else {
            throw fail("E_SHIFT", "shift \(f.shift) + realbits \(f.realBits) exceeds the storagebits \(f.storageBits)")
        }
        let repeatCount = f.repeatCount ?? 1
        guard repeatCount >= 1 else {
            throw fail("E_REPEAT", "repeat X0 declares no element")
        }
        let bytes = f.storageBits / 8 * repeatCount
        guard bytes & (bytes - 1) == 0 else {
            throw fail("E_REPEAT_ALIGN", "the element of \(repeatCount) × \(f.storageBits / 8) = \(bytes) bytes is not a power of two bytes, so its alignment is undefined")
        }
        var warnings: [IIOWarning] = []
        if f.shift == -1 {
            warnings.append(IIOWarning(code: "W_TYPE_NO_SHIFT",
                                       message: "\(source): `\(channel)` has type `\(trimmed)` without `>>shift` (the kernel always prints one); using shift 0 (W_TYPE_NO_SHIFT)"))
        }
        if f.repeatCount == 1 {
            warnings.append(IIOWarning(code: "W_REPEAT_ONE",
                                       message: "\(source): `\(channel)` has type `\(trimmed)` with `X1` (the kernel prints `X` only for repeat 2 or more); using repeat 1 (W_REPEAT_ONE)"))
        }
        let type = IIOScanType(byteOrder: f.byteOrder, isSigned: f.isSigned, realBits: f.realBits,
                               storageBits: f.storageBits, repeatCount: repeatCount, shift: max(f.shift, 0))
        return (type, warnings)
    }

    /// The fields of a string that follows the grammar, before the §2.2 value checks.
    private struct Fields {
        var byteOrder: ByteOrder
        var isSigned: Bool
        var realBits: Int
        var storageBits: Int
        /// nil when there is no `X`.
        var repeatCount: Int?
        /// -1 when there is no `>>`.
        var shift: Int

        init?(_ text: String) {
            let b = Array(text.utf8)
            var i = 0
            func eat(_ s: StaticString) -> Bool {
                let n = s.utf8CodeUnitCount
                guard i + n <= b.count else { return false }
                for k in 0..<n where b[i + k] != s.utf8Start[k] { return false }
                i += n
                return true
            }
            /// A decimal of at least one digit, saturating at 2^40 so that huge values still
            /// fail the range checks rather than overflow.
            func number() -> Int? {
                let start = i
                var v = 0
                while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                    v = min(v * 10 + Int(b[i] - 0x30), 1 << 40)
                    i += 1
                }
                return i > start ? v : nil
            }
            if eat("le") { byteOrder = .little } else if eat("be") { byteOrder = .big } else { return nil }
            guard eat(":") else { return nil }
            if eat("s") { isSigned = true } else if eat("u") { isSigned = false } else { return nil }
            guard let real = number(), eat("/"), let storage = number() else { return nil }
            realBits = real
            storageBits = storage
            repeatCount = nil
            if eat("X") {
                guard let r = number() else { return nil }
                repeatCount = r
            }
            shift = -1
            if eat(">>") {
                guard let s = number() else { return nil }
                shift = s
            }
            guard i == b.count else { return nil }
        }
    }
}

/// Small text helpers for sysfs values and channel names.
enum IIOText {
    /// `text` without leading and trailing spaces, tabs, CR, LF, VT and FF.
    static func trimmed(_ text: String) -> String {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0D) }
        let u = Array(text.utf8)
        guard let first = u.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = u.lastIndex(where: { !isSpace($0) })!
        return String(decoding: u[first...last], as: UTF8.self)
    }
}
