import MotionCore
import Testing

@testable import MotionSinks

@Suite struct NPYHeaderTests {
    @Test(arguments: [
        ([Int](), "()"), ([0], "(0,)"), ([5], "(5,)"), ([0, 128, 18], "(0, 128, 18)"),
        ([8192, 128, 18], "(8192, 128, 18)"), ([3, 36], "(3, 36)"), ([123_456_789_012, 1], "(123456789012, 1)"),
    ])
    func headerIsAlignedAndParsesBack(shape: [Int], literal: String) throws {
        for descr in ["<f4", "<f8", "<i4", "<i8"] {
            let bytes = NPYHeader(descr: descr, shape: shape).encoded()
            #expect(bytes.count % 64 == 0, "\(descr) \(shape): \(bytes.count) bytes")
            #expect(Array(bytes[0..<8]) == [0x93, 0x4E, 0x55, 0x4D, 0x50, 0x59, 1, 0])
            #expect(Int(bytes[8]) | Int(bytes[9]) << 8 == bytes.count - 10)
            #expect(bytes.last == UInt8(ascii: "\n"))
            let dict = String(decoding: bytes[10...], as: UTF8.self)
            let expected = "{'descr': '\(descr)', 'fortran_order': False, 'shape': \(literal), }"
            #expect(dict.hasPrefix(expected))
            #expect(dict.dropFirst(expected.count).dropLast().allSatisfy { $0 == " " })
            let (parsed, offset) = try NPYHeader.parse(bytes[...])
            #expect(parsed == NPYHeader(descr: descr, shape: shape))
            #expect(offset == bytes.count)
        }
    }

    @Test func headerSizesStepAt64Bytes() {
        // Every shape length lands on a 64-byte boundary, whatever the digits.
        for n in [0, 9, 10, 99, 100, 999_999, 1_000_000, Int(Int32.max)] {
            for rank in 1...4 {
                let h = NPYHeader(descr: "<f4", shape: [Int](repeating: n, count: rank)).encoded()
                #expect(h.count % 64 == 0)
            }
        }
    }

    @Test func parseRejectsGarbage() {
        #expect(throws: MotionError.self) { try NPYHeader.parse(Array("not an npy file".utf8)[...]) }
        var h = NPYHeader(descr: "<f4", shape: [2]).encoded()
        h[8] = 0xFF  // header length beyond the data
        #expect(throws: MotionError.self) { try NPYHeader.parse(h[...]) }
    }
}
