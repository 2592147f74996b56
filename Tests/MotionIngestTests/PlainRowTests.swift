import Testing
@testable import MotionIngest

/// The reader's fast path (`plainRow`, `scanPlainDecimal`) against `Double(String)` and against
/// the general line parser it stands in for.
@Suite struct PlainRowTests {
    /// Decimal texts of the shapes MotionCollector and other writers produce.
    static func randomDecimal(_ i: Int, _ rng: inout SeededGenerator) -> String {
        func digits(_ n: Int) -> String { String((0..<n).map { _ in "0123456789".randomElement(using: &rng)! }) }
        switch i % 8 {
        case 0:  // shortest round-trip text of a random double, any magnitude (17 digits, exponents)
            while true {
                let d = Double(bitPattern: rng.next())
                if d.isFinite { return "\(d)" }
            }
        case 1, 2:  // 17-digit sensor-like values, some below 1e-4 (`1.234e-05`)
            let scale = [1.0, 20.0, 1e-3, 1e-5, 400.0].randomElement(using: &rng)!
            return "\(Double.random(in: -scale...scale, using: &rng))"
        case 3, 4:  // six decimals, as MotionCollector writes them
            return (Bool.random(using: &rng) ? "-" : "") + String(Int.random(in: 0...99, using: &rng)) + "." + digits(6)
        case 5:  // leading zeros, many digits around the 19-digit limit
            return "0." + String(repeating: "0", count: Int.random(in: 0...6, using: &rng)) + digits(Int.random(in: 1...22, using: &rng))
        case 6:  // integers, `5.`, `.5`, exponents
            let shapes = [digits(Int.random(in: 1...21, using: &rng)), digits(2) + ".", "." + digits(3),
                          digits(3) + "e" + String(Int.random(in: -330...310, using: &rng)),
                          digits(1) + "." + digits(4) + "E+" + String(Int.random(in: 0...30, using: &rng))]
            return (Bool.random(using: &rng) ? "-" : "") + shapes.randomElement(using: &rng)!
        default:  // zeros
            return ["0", "-0", "0.0", "-0.000", "0e5", "00.00"].randomElement(using: &rng)!
        }
    }

    /// A current-variant file of `count` values in A and D rows; labels change every `labelRun` rows.
    static func file(values: [String], labelRun: Int) -> String {
        var text = "Source, Label, When, X, Y, Z, UA_X, UA_Y, UA_Z, Pitch, Roll, Yaw\n"
        var i = 0
        var row = 0
        while i + 12 <= values.count {
            let label = (row / labelRun) % 2 == 0 ? "W" : "T"
            let width = row % 3 == 0 ? 9 : 3
            let sensor = width == 9 ? "D" : "A"
            text += "\(sensor),\(label),\(values[i]),\(values[(i + 1)..<(i + 1 + width)].joined(separator: ","))"
            text += row % 5 == 0 ? "\r\n" : "\n"
            i += 1 + width
            row += 1
        }
        return text
    }

    static func bits(_ file: MotionCollectorFile) -> [[UInt64]] {
        file.streams.flatMap { [$0.times] + $0.channels }.map { $0.map(\.bitPattern) }
    }

    /// Every value read as `Double(String)` reads it, bit for bit (100k values).
    @Test func valuesMatchSwiftDouble() throws {
        var rng = SeededGenerator(seed: 0xF457)
        var values: [String] = []
        while values.count < 100_000 {
            let s = Self.randomDecimal(values.count, &rng)
            if let d = Double(s), d.isFinite { values.append(s) }  // overflow is a missing value elsewhere
        }
        let text = Self.file(values: values, labelRun: 1000)
        let file = try readText(text, units: .native)
        #expect(file.rowsDropped.isEmpty)
        var expectedA: [[UInt64]] = Array(repeating: [], count: 4)
        var expectedD: [[UInt64]] = Array(repeating: [], count: 10)
        var i = 0
        var row = 0
        while i + 12 <= values.count {
            let width = row % 3 == 0 ? 9 : 3
            for c in 0...width {
                let bits = Double(values[i + c])!.bitPattern
                if width == 9 { expectedD[c].append(bits) } else { expectedA[c].append(bits) }
            }
            i += 1 + width
            row += 1
        }
        let got = Self.bits(file)
        #expect(got.count == 14)
        var mismatches: [String] = []
        for (c, (g, e)) in zip(got, expectedA + expectedD).enumerated() where g != e {
            if let k = (0..<min(g.count, e.count)).first(where: { g[$0] != e[$0] }) {
                mismatches.append("column \(c) sample \(k): \(Double(bitPattern: g[k])) vs \(Double(bitPattern: e[k]))")
            } else {
                mismatches.append("column \(c): \(g.count) samples, expected \(e.count)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    /// The same rows through the fast path (label runs) and through the general parser (a new
    /// label on every row sends each row there) give the same samples; blanks and chunking too.
    @Test func fastAndGeneralPathsAgree() throws {
        var rng = SeededGenerator(seed: 0xA9EE)
        let values = (0..<30_000).map { Self.randomDecimal($0, &rng) }.filter { Double($0)?.isFinite == true }
        let fast = try readText(Self.file(values: values, labelRun: 1_000_000))
        let general = try readText(Self.file(values: values, labelRun: 1))
        #expect(Self.bits(fast) == Self.bits(general))
        #expect(fast.streams.map(\.lines) == general.streams.map(\.lines))
        #expect(fast.rowsRead == general.rowsRead)
        let blanks = try readText(Self.file(values: values.map { " \($0)\t" }, labelRun: 1_000_000))
        #expect(Self.bits(blanks) == Self.bits(fast))
        let bytes = Array(Self.file(values: values, labelRun: 7).utf8)
        let whole = try MotionCollectorReader.read(chunks: [bytes], displayPath: "r.csv", units: .native, keep: nil)
        for size in [1, 7, 64, 4093] {
            let cut = ChunkBoundaryTests.cut(bytes, every: size)
            #expect(try MotionCollectorReader.read(chunks: cut, displayPath: "r.csv", units: .native, keep: nil) == whole,
                    "chunk size \(size)")
        }
        let onlyA = try MotionCollectorReader.read(chunks: [bytes], displayPath: "r.csv", units: .native, keep: ["A"])
        #expect(onlyA.streams.map(\.name) == ["A"])
        #expect(onlyA.stream("A") == whole.stream("A"))
        #expect(onlyA.rowLabels == whole.rowLabels)
    }

    /// Rows of a sensor that is not kept: the fast paths convert none of their values and only
    /// count their fields, as the general parser does, so the kept samples, the labels, the rows
    /// and the errors are the same whichever path a row takes.
    @Test func droppedSensorsAreCountedNotConverted() throws {
        var rng = SeededGenerator(seed: 0xD809)
        let values = (0..<24_000).map { Self.randomDecimal($0, &rng) }.filter { Double($0)?.isFinite == true }
        // Valid values: keeping only A gives A's samples and every row's label, as keeping all.
        let text = Self.file(values: values, labelRun: 1_000_000)
        let all = try readText(text)
        let onlyA = try readText(text, keep: ["A"])
        #expect(onlyA.stream("A") == all.stream("A"))
        #expect(onlyA.rowLabels == all.rowLabels && onlyA.rowsRead == all.rowsRead)
        // D's values replaced by what is never converted (letters, empty fields, 25 digits, an
        // exponent): the fast path (one label run) and the general one (a new label every row).
        let junk = ["x", "", "1234567890123456789012345", "1e-05", "-", "1.2.3", " 4 "]
        var k = 0
        func withJunk(_ labelRun: Int) -> String {
            // By bytes: "\r\n" is one Character, so a Character split would not cut it.
            var lines = Self.file(values: values, labelRun: labelRun).utf8.split(separator: 0x0A, omittingEmptySubsequences: false)
                .map { String(decoding: $0, as: UTF8.self) }
            for i in lines.indices where lines[i].hasPrefix("D,") {
                var fields = lines[i].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                for f in 3..<fields.count where (i + f) % 3 == 0 { fields[f] = junk[k % junk.count]; k += 1 }
                lines[i] = fields.joined(separator: ",")
            }
            return lines.joined(separator: "\n")
        }
        let fast = try readText(withJunk(1_000_000), keep: ["A"])
        let general = try readText(withJunk(1), keep: ["A"])
        #expect(fast.stream("A") == onlyA.stream("A") && general.stream("A") == onlyA.stream("A"))
        #expect(fast.rowLabels == onlyA.rowLabels && fast.rowsRead == general.rowsRead)
        // A dropped row with too few or too many fields: the same error on either path.
        let header = "Source, Label, When, X, Y, Z, UA_X, UA_Y, UA_Z, Pitch, Roll, Yaw\n"
        let good = String(repeating: "A,W,0.5,1,2,3\n", count: 40)
        for bad in ["D,W,1.5,1,2,3", "D,W,1.5,1,2,3,4,5,6,7,8,9,10", "D,W,1.5,1,2,3,4,5,6,7,8,9,,", "D,W,1.5,1,2,3,4,5,6,7,8,9\r"] {
            let viaFast = ingestErrorMessage { _ = try readText(header + good + bad + "\n" + good, keep: ["A"]) }
            let viaGeneral = ingestErrorMessage { _ = try readText(header + good + bad.replacingOccurrences(of: ",W,", with: ",T,") + "\n" + good, keep: ["A"]) }
            #expect(viaFast?.message == viaGeneral?.message.replacingOccurrences(of: "`T`", with: "`W`"), "\(bad)")
        }
    }

    /// `scanPlainDecimal` either declines or agrees with `scanDecimal`; digits after `end` are
    /// never taken.
    @Test func plainScanAgreesWithGeneralScan() {
        var rng = SeededGenerator(seed: 0x5CA7)
        let alphabet = Array("0123456789".utf8)
        var accepted = 0
        for i in 0..<60_000 {
            var field = Array(Self.randomDecimal(i, &rng).utf8)
            if i % 11 == 0 && !field.isEmpty { field[Int.random(in: 0..<field.count, using: &rng)] = Array("+-.e 9x".utf8).randomElement(using: &rng)! }
            let padding = (0..<Int.random(in: 0...16, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
            let buffer = field + padding
            buffer.withUnsafeBufferPointer { b in
                let start = b.baseAddress!
                let end = start + field.count
                guard let plain = _NumberKernels.scanPlainDecimal(start, end) else { return }
                accepted += 1
                let general = _NumberKernels.scanDecimal(start, end, readableEnd: start + b.count)
                var stop = plain.stop  // scanDecimal also consumes trailing blanks
                while stop < end && _NumberKernels.isBlank(stop.pointee) { stop += 1 }
                let text = String(decoding: field, as: UTF8.self)
                #expect(general.status == .value && general.stop == stop && general.value.bitPattern == plain.value.bitPattern,
                        "`\(text)`: plain \(plain.value) stop \(plain.stop - start), general \(general.status) \(general.value) stop \(general.stop - start)")
            }
        }
        #expect(accepted > 50_000)
    }
}
