import Foundation
import Testing
@testable import MotionIngest

/// The masked fast path (`maskedRows`, `_RowWindow`, `maskedDecimal`) against `Double(String)`
/// and against the general line parser it stands in for: same values, bit for bit, same counts,
/// same line numbers, same errors.
@Suite struct MaskedRowTests {
    static func digits(_ n: Int, _ rng: inout SeededGenerator) -> String {
        String((0..<n).map { _ in "0123456789".randomElement(using: &rng)! })
    }

    /// Every digit count 1…19, the point after every one of them (and none), both signs, against
    /// `Double(String)`; 0 and 20 digits are declined.
    @Test func maskedDecimalMatchesSwiftDouble() {
        var rng = SeededGenerator(seed: 0x3A5C)
        var checked = 0
        for total in 0...20 {
            for integerDigits in 0...total {
                for hasPoint in [true, false] where hasPoint || integerDigits == total {
                    for negative in [false, true] {
                        for sample in 0..<6 {
                            var d = Self.digits(total, &rng)
                            if sample == 1 && total > 0 {  // leading zeros
                                d = String((String(repeating: "0", count: Int.random(in: 1...total, using: &rng)) + d).prefix(total))
                            }
                            if sample == 2 { d = String(repeating: "9", count: total) }
                            let integer = d.prefix(integerDigits)
                            let fraction = d.dropFirst(integerDigits)
                            let text = (negative ? "-" : "") + integer + (hasPoint ? "." : "") + fraction
                            // What follows the number in a row (loaded, never used): 26+ bytes.
                            let bytes = Array((text + ",123456789.-,123456789012345678901234\n").utf8)
                            let got: Double? = bytes.withUnsafeBufferPointer { b in
                                _NumberKernels.maskedDecimal(b.baseAddress! + (negative ? 1 : 0),
                                                             integerDigits: integerDigits,
                                                             fractionDigits: fraction.count, negative: negative)
                            }
                            if total == 0 || total > 19 {
                                #expect(got == nil, "`\(text)`")
                                continue
                            }
                            let expected = Double(text)!
                            #expect(got?.bitPattern == expected.bitPattern, "`\(text)`: \(String(describing: got)) vs \(expected)")
                            checked += 1
                        }
                    }
                }
            }
        }
        #expect(checked > 2_500)
    }

    /// `_RowWindow` against a byte-by-byte classification, on random bytes and on row-like text.
    @Test func windowMasksMatchTheBytes() {
        var rng = SeededGenerator(seed: 0x71D0)
        let rowBytes = Array("AGMD,,.-0123456789\n\r eE+/:x\t".utf8)
        for i in 0..<2_000 {
            let bytes: [UInt8] = (0..<64).map { _ in
                i % 2 == 0 ? UInt8.random(in: 0...255, using: &rng) : rowBytes.randomElement(using: &rng)!
            }
            let window = bytes.withUnsafeBufferPointer { _RowWindow($0.baseAddress!) }
            var commas: UInt64 = 0, points: UInt64 = 0, minus: UInt64 = 0, other: UInt64 = 0
            for (k, c) in bytes.enumerated() {
                let bit: UInt64 = 1 << UInt64(k)
                switch c {
                case UInt8(ascii: ","): commas |= bit
                case UInt8(ascii: "."): points |= bit
                case UInt8(ascii: "-"): minus |= bit
                case UInt8(ascii: "0")...UInt8(ascii: "9"): break
                default: other |= bit
                }
            }
            #expect(window.commas == commas && window.points == points && window.minus == minus && window.other == other)
        }
    }

    /// A field of the numeric columns: mostly plain decimals of every shape the fast path takes,
    /// sometimes one it must decline (blanks, signs, exponents, two points, missing values,
    /// letters, slashes), sometimes a long one that crosses a 64-byte window.
    static func field(_ rng: inout SeededGenerator, corrupt: Bool) -> String {
        let sign = Bool.random(using: &rng) ? "-" : ""
        if corrupt {
            let bad = [" 1.5", "1.5 ", "+2", "1e3", "1.2.3", "--1", "1-2", "", "NA", "nan", "-", ".", "-.",
                       "1/2", "0x1", "1,5", "\t3", "12345678901234567890", "0.000000000000000000012", "inf", "é"]
            return bad.randomElement(using: &rng)!
        }
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: return sign + digits(Int.random(in: 1...19, using: &rng), &rng)
        case 1: return sign + digits(Int.random(in: 0...3, using: &rng), &rng) + "." + digits(Int.random(in: 1...16, using: &rng), &rng)
        case 2: return sign + digits(Int.random(in: 1...9, using: &rng), &rng) + "."
        case 3: return "\(Double.random(in: -50...50, using: &rng))"  // 17 digits
        case 4: return sign + "0." + String(repeating: "0", count: Int.random(in: 0...5, using: &rng)) + digits(Int.random(in: 1...12, using: &rng), &rng)
        default: return sign + digits(Int.random(in: 1...3, using: &rng), &rng) + "." + digits(6, &rng)
        }
    }

    enum Outcome: Equatable {
        case file(MotionCollectorFile)
        case error(String)
    }

    /// Random current-variant files: the whole buffer (masked rows where 96 bytes are readable)
    /// and 1-byte chunks (every line through the general parser) give the same file or the same
    /// error message; so do 61-byte chunks (plain rows near each chunk end).
    @Test func maskedAndGeneralPathsAgree() throws {
        var rng = SeededGenerator(seed: 0xB0A7)
        var files = 0, errors = 0
        for f in 0..<400 {
            var text = "Source, Label, When, X, Y, Z, UA_X, UA_Y, UA_Z, Pitch, Roll, Yaw" + (f % 7 == 0 ? "\r\n" : "\n")
            let corruptEvery = f % 3 == 0 ? 1_000_000 : Int.random(in: 20...200, using: &rng)
            var label = ""
            for _ in 0..<Int.random(in: 1...60, using: &rng) {
                let sensor = ["A", "G", "M", "D"].randomElement(using: &rng)!
                if Int.random(in: 0..<12, using: &rng) == 0 {
                    label = ["", "W", "T", "walk", String(repeating: "x", count: Int.random(in: 55...70, using: &rng))]
                        .randomElement(using: &rng)!
                }
                let rowLabel = Int.random(in: 0..<5, using: &rng) == 0 ? "" : label
                var fields = [sensor, rowLabel]
                for _ in 0..<(sensor == "D" ? 10 : 4) {
                    fields.append(Self.field(&rng, corrupt: Int.random(in: 0..<corruptEvery, using: &rng) == 0))
                }
                switch Int.random(in: 0..<100, using: &rng) {
                case 0: fields.removeLast()
                case 1: fields.append("")
                case 2: fields.append("7")
                case 3: fields[0] = "Q"
                default: break
                }
                text += fields.joined(separator: ",")
                text += Int.random(in: 0..<10, using: &rng) == 0 ? "\r\n" : "\n"
                if Int.random(in: 0..<40, using: &rng) == 0 { text += "\n" }
            }
            let bytes = Array(text.utf8)
            func read(_ chunks: [[UInt8]]) -> Outcome {
                do {
                    return .file(try MotionCollectorReader.read(chunks: chunks, displayPath: "r.csv", units: .si, keep: nil))
                } catch let e as IngestError {
                    return .error(e.message)
                } catch {
                    return .error("\(error)")
                }
            }
            let whole = read([bytes])
            #expect(whole == read(ChunkBoundaryTests.cut(bytes, every: 1)), "file \(f):\n\(text.prefix(2_000))")
            #expect(whole == read(ChunkBoundaryTests.cut(bytes, every: 61)), "file \(f)")
            files += 1
            if case .error = whole { errors += 1 }
        }
        #expect(files == 400 && errors > 50 && errors < 350)
    }

    /// `read(path:)` on a file whose labels start after the first 64 KiB (the arrays are reserved
    /// from that sample, the label events later) matches the general parser, CRLF part included.
    @Test func lateLabelsAndReservation() throws {
        var rng = SeededGenerator(seed: 0x1A7E)
        var text = "Source, Label, When, X, Y, Z, UA_X, UA_Y, UA_Z, Pitch, Roll, Yaw\n"
        var t = 0.0
        while text.utf8.count < 300_000 {
            t += 0.01
            let label = text.utf8.count < 100_000 ? "" : (Int(t) % 3 == 0 ? "W" : "T")
            let end = text.utf8.count > 200_000 ? "\r\n" : "\n"
            text += "A,\(label),\(String(format: "%.6f", t)),\(Self.field(&rng, corrupt: false)),\(Self.field(&rng, corrupt: false)),-0.5\(end)"
            if Int.random(in: 0..<3, using: &rng) == 0 {
                let values = (0..<9).map { _ in Self.field(&rng, corrupt: false) }.joined(separator: ",")
                text += "D,\(label),\(String(format: "%.6f", t)),\(values)\(end)"
            }
        }
        let bytes = Array(text.utf8)
        let folder = try TemporaryDirectory(label: "masked")
        defer { folder.remove() }
        let path = folder.path("late.csv")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let fromFile = try MotionCollectorReader.read(path: path, displayPath: "late.csv", units: .si, keep: nil)
        let general = try MotionCollectorReader.read(chunks: ChunkBoundaryTests.cut(bytes, every: 7), displayPath: "late.csv",
                                                     units: .si, keep: nil)
        #expect(fromFile == general)
        #expect(fromFile.rowLabels.times.count > 1_000)
    }
}
