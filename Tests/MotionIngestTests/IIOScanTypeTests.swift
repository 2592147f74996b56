import MotionCore
import Testing
@testable import MotionIngest

/// docs/iio-format.md §2: the `_type` grammar and the §2.2 validation table.
@Suite struct IIOScanTypeTests {
    static let source = "dev/scan_elements/in_accel_x_type"
    static let form = "expected `[be|le]:[s|u]realbits/storagebits[Xrepeat][>>shift]` with storagebits 8, 16, 32 or 64, such as `le:s16/16>>0`"

    struct Accepted: Sendable, CustomTestStringConvertible {
        var text: String
        var type: IIOScanType
        var warnings: [String]
        var testDescription: String { text.debugDescription }
    }

    static let accepted: [Accepted] = [
        Accepted(text: "le:s16/16>>0", type: IIOScanType(byteOrder: .little, isSigned: true, realBits: 16, storageBits: 16), warnings: []),
        Accepted(text: "le:s16/16>>0\n", type: IIOScanType(byteOrder: .little, isSigned: true, realBits: 16, storageBits: 16), warnings: []),
        Accepted(text: " be:u12/16>>4 \n", type: IIOScanType(byteOrder: .big, isSigned: false, realBits: 12, storageBits: 16, shift: 4), warnings: []),
        Accepted(text: "le:s12/16>>4", type: IIOScanType(byteOrder: .little, isSigned: true, realBits: 12, storageBits: 16, shift: 4), warnings: []),
        Accepted(text: "be:s32/32>>0", type: IIOScanType(byteOrder: .big, isSigned: true, realBits: 32, storageBits: 32), warnings: []),
        Accepted(text: "le:u8/8>>0", type: IIOScanType(byteOrder: .little, isSigned: false, realBits: 8, storageBits: 8), warnings: []),
        Accepted(text: "le:u24/32>>0", type: IIOScanType(byteOrder: .little, isSigned: false, realBits: 24, storageBits: 32), warnings: []),
        Accepted(text: "le:s64/64>>0", type: IIOScanType(byteOrder: .little, isSigned: true, realBits: 64, storageBits: 64), warnings: []),
        Accepted(text: "le:s48/64>>2", type: IIOScanType(byteOrder: .little, isSigned: true, realBits: 48, storageBits: 64, shift: 2), warnings: []),
        Accepted(text: "le:s1/8>>7", type: IIOScanType(byteOrder: .little, isSigned: true, realBits: 1, storageBits: 8, shift: 7), warnings: []),
        Accepted(text: "le:s16/32X4>>0", type: IIOScanType(byteOrder: .little, isSigned: true, realBits: 16, storageBits: 32, repeatCount: 4), warnings: []),
        Accepted(text: "le:s32/32X4>>0", type: IIOScanType(byteOrder: .little, isSigned: true, realBits: 32, storageBits: 32, repeatCount: 4), warnings: []),
        Accepted(text: "le:u8/8X2>>0", type: IIOScanType(byteOrder: .little, isSigned: false, realBits: 8, storageBits: 8, repeatCount: 2), warnings: []),
        Accepted(text: "le:s16/16", type: IIOScanType(byteOrder: .little, isSigned: true, realBits: 16, storageBits: 16), warnings: ["W_TYPE_NO_SHIFT"]),
        Accepted(text: "le:s16/16X1>>0", type: IIOScanType(byteOrder: .little, isSigned: true, realBits: 16, storageBits: 16), warnings: ["W_REPEAT_ONE"]),
        Accepted(text: "be:s16/16X1", type: IIOScanType(byteOrder: .big, isSigned: true, realBits: 16, storageBits: 16), warnings: ["W_TYPE_NO_SHIFT", "W_REPEAT_ONE"]),
        Accepted(text: "le:s16/32X4", type: IIOScanType(byteOrder: .little, isSigned: true, realBits: 16, storageBits: 32, repeatCount: 4), warnings: ["W_TYPE_NO_SHIFT"]),
    ]

    @Test(arguments: accepted)
    func accepts(_ row: Accepted) throws {
        let (type, warnings) = try IIOScanType.parse(row.text, channel: "in_accel_x", source: Self.source)
        #expect(type == row.type)
        #expect(codes(warnings) == row.warnings)
    }

    @Test func warningMessages() throws {
        let (_, w1) = try IIOScanType.parse("le:s16/16\n", channel: "in_accel_x", source: Self.source)
        #expect(w1.map(\.message) == ["dev/scan_elements/in_accel_x_type: `in_accel_x` has type `le:s16/16` without `>>shift` (the kernel always prints one); using shift 0 (W_TYPE_NO_SHIFT)"])
        let (_, w2) = try IIOScanType.parse("le:s16/16X1>>0", channel: "in_accel_x", source: Self.source)
        #expect(w2.map(\.message) == ["dev/scan_elements/in_accel_x_type: `in_accel_x` has type `le:s16/16X1>>0` with `X1` (the kernel prints `X` only for repeat 2 or more); using repeat 1 (W_REPEAT_ONE)"])
    }

    @Test func descriptionIsTheKernelForm() throws {
        #expect(try IIOScanType.parse("le:s16/16", channel: "c", source: "s").type.description == "le:s16/16>>0")
        #expect(try IIOScanType.parse("be:u12/16X1>>4", channel: "c", source: "s").type.description == "be:u12/16>>4")
        #expect(try IIOScanType.parse("le:s16/32X4>>0", channel: "c", source: "s").type.description == "le:s16/32X4>>0")
        #expect(try IIOScanType.parse("le:s16/32X4>>0", channel: "c", source: "s").type.elementBytes == 16)
    }

    struct Rejected: Sendable, CustomTestStringConvertible {
        var text: String
        var code: String
        /// nil: the grammar's "it does not follow the grammar".
        var problem: String?
        var testDescription: String { "\(code) \(text.debugDescription)" }
    }

    /// Every row of §2.2, with the examples the table names.
    static let rejected: [Rejected] = [
        Rejected(text: "cpu:s16/16>>0", code: "E_TYPE_MALFORMED"),
        Rejected(text: "LE:s16/16>>0", code: "E_TYPE_MALFORMED"),
        Rejected(text: "le:S16/16>>0", code: "E_TYPE_MALFORMED"),
        Rejected(text: "le:U16/16>>0", code: "E_TYPE_MALFORMED"),
        Rejected(text: "le:s/16>>0", code: "E_TYPE_MALFORMED"),
        Rejected(text: "le:s16/>>0", code: "E_TYPE_MALFORMED"),
        Rejected(text: "le:s16/16>>", code: "E_TYPE_MALFORMED"),
        Rejected(text: "le:s16/16X>>0", code: "E_TYPE_MALFORMED"),
        Rejected(text: "le:s16 /16>>0", code: "E_TYPE_MALFORMED"),
        Rejected(text: "le: s16/16>>0", code: "E_TYPE_MALFORMED"),
        Rejected(text: "le:s16/16>>-1", code: "E_TYPE_MALFORMED"),
        Rejected(text: "le:s16/16>>0junk", code: "E_TYPE_MALFORMED"),
        Rejected(text: "le:s16/16>>0>>1", code: "E_TYPE_MALFORMED"),
        Rejected(text: "le:s16/16x4>>0", code: "E_TYPE_MALFORMED"),
        Rejected(text: "le:s16/16>>0X4", code: "E_TYPE_MALFORMED"),
        Rejected(text: "le:+16/16>>0", code: "E_TYPE_MALFORMED"),
        Rejected(text: "les16/16>>0", code: "E_TYPE_MALFORMED"),
        Rejected(text: "le:s16/16>0", code: "E_TYPE_MALFORMED"),
        Rejected(text: "le:s16.0/16>>0", code: "E_TYPE_MALFORMED"),
        Rejected(text: "le:s24/24>>0", code: "E_STORAGEBITS", problem: "storagebits 24 is not 8, 16, 32 or 64"),
        Rejected(text: "le:s12/12>>0", code: "E_STORAGEBITS", problem: "storagebits 12 is not 8, 16, 32 or 64"),
        Rejected(text: "le:s128/128>>0", code: "E_STORAGEBITS", problem: "storagebits 128 is not 8, 16, 32 or 64"),
        Rejected(text: "le:u0/0>>0", code: "E_STORAGEBITS", problem: "storagebits 0 is not 8, 16, 32 or 64"),
        Rejected(text: "le:s0/16>>0", code: "E_REALBITS", problem: "realbits 0 is not between 1 and the storagebits 16"),
        Rejected(text: "le:s17/16>>0", code: "E_REALBITS", problem: "realbits 17 is not between 1 and the storagebits 16"),
        Rejected(text: "be:u65/64>>0", code: "E_REALBITS", problem: "realbits 65 is not between 1 and the storagebits 64"),
        Rejected(text: "le:s12/16>>5", code: "E_SHIFT", problem: "shift 5 + realbits 12 exceeds the storagebits 16"),
        Rejected(text: "le:u64/64>>1", code: "E_SHIFT", problem: "shift 1 + realbits 64 exceeds the storagebits 64"),
        Rejected(text: "le:s1/8>>8", code: "E_SHIFT", problem: "shift 8 + realbits 1 exceeds the storagebits 8"),
        Rejected(text: "le:s32/32X0>>0", code: "E_REPEAT", problem: "repeat X0 declares no element"),
        Rejected(text: "le:s16/16X3>>0", code: "E_REPEAT_ALIGN", problem: "the element of 3 × 2 = 6 bytes is not a power of two bytes, so its alignment is undefined"),
        Rejected(text: "le:s32/32X6>>0", code: "E_REPEAT_ALIGN", problem: "the element of 6 × 4 = 24 bytes is not a power of two bytes, so its alignment is undefined"),
        Rejected(text: "le:u8/8X5", code: "E_REPEAT_ALIGN", problem: "the element of 5 × 1 = 5 bytes is not a power of two bytes, so its alignment is undefined"),
    ]

    @Test(arguments: rejected)
    func rejects(_ row: Rejected) {
        let problem = row.problem ?? "it does not follow the grammar"
        let expected = "dev/scan_elements/in_accel_x_type: `in_accel_x` has type `\(row.text)`: \(problem) (\(row.code); \(Self.form))"
        let got = ingestErrorMessage { _ = try IIOScanType.parse(row.text + "\n", channel: "in_accel_x", source: Self.source) }
        #expect(got?.message == expected)
        #expect(got?.status == .dataError)
    }

    @Test func emptyAndBlankTypesAreMalformed() {
        for text in ["", "\n", "  \t\n"] {
            let got = ingestErrorMessage { _ = try IIOScanType.parse(text, channel: "in_temp", source: "layout.channels[0].type") }
            #expect(got?.message == "layout.channels[0].type: `in_temp` has an empty type: it does not follow the grammar (E_TYPE_MALFORMED; \(Self.form))")
        }
    }

    @Test func hugeNumbersFailTheRangeChecksWithoutOverflow() {
        let got = ingestErrorMessage { _ = try IIOScanType.parse("le:s16/99999999999999999999999>>0", channel: "c", source: "s") }
        #expect(got?.message.contains("(E_STORAGEBITS;") == true)
        let shift = ingestErrorMessage { _ = try IIOScanType.parse("le:s16/16>>99999999999999999999999", channel: "c", source: "s") }
        #expect(shift?.message.contains("(E_SHIFT;") == true)
    }
}
