import MotionCore
import Testing
@testable import MotionIngest

/// A plain, safe reading of wide csv text (arrays of bytes, one state machine, no pointers),
/// written from the reader's documented dialect; the unsafe kernels must agree with it.
enum CSVReference {
    /// Records after the BOM: fields unescaped, and the physical line each record starts on.
    static func records(_ input: [UInt8], delimiter: UInt8) -> [(fields: [[UInt8]], line: Int)] {
        var bytes = input[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        var out: [(fields: [[UInt8]], line: Int)] = []
        var fields: [[UInt8]] = []
        var field: [UInt8] = []
        var raw: [UInt8] = []  // the record's bytes, to tell blank lines
        var state = 0  // 0 field start, 1 unquoted, 2 quoted, 3 quote in quoted
        var line = 1, recordLine = 1
        func endRecord() {
            fields.append(field)
            if raw.last == 0x0D, state != 2 { fields[fields.count - 1].removeLast() ; raw.removeLast() }
            let blank = !raw.contains(UInt8(ascii: "\"")) && raw.allSatisfy { $0 == 0x20 || $0 == 0x09 }
            if !blank { out.append((fields, recordLine)) }
            fields = []; field = []; raw = []; state = 0
        }
        for c in bytes {
            if c == 0x0A && state != 2 {
                endRecord()
                line += 1
                recordLine = line
                continue
            }
            if c == 0x0A { line += 1 }
            raw.append(c)
            switch state {
            case 2:
                if c == UInt8(ascii: "\"") { state = 3 } else { field.append(c) }
            default:
                if c == delimiter {
                    fields.append(field); field = []; state = 0
                } else if c == UInt8(ascii: "\"") && state == 0 {
                    field = []; state = 2
                } else if c == UInt8(ascii: "\"") && state == 3 {
                    field.append(c); state = 2
                } else {
                    field.append(c)
                    if state != 0 || (c != 0x20 && c != 0x09) { state = 1 }
                }
            }
        }
        if !raw.isEmpty || !fields.isEmpty || !field.isEmpty { endRecord() }
        return out
    }

    static func trimmed(_ f: [UInt8]) -> [UInt8] {
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard let s = f.firstIndex(where: { !blank($0) }), let e = f.lastIndex(where: { !blank($0) }) else { return [] }
        return Array(f[s...e])
    }

    /// A wide file with `s` times; every field must be a number or a missing value.
    static func read(_ input: [UInt8], format: CSVFormat, factors: [Double]) -> CSVFile {
        let records = records(input, delimiter: format.delimiter)
        let header = records[0].fields.map { String(decoding: trimmed($0), as: UTF8.self) }
        let time = header.firstIndex(of: format.timeColumn)!
        let columns = format.channels.map { header.firstIndex(of: $0.column)! }
        let label = format.labelColumn.map { header.firstIndex(of: $0)! }
        var times: [Double] = [], values = [[Double]](repeating: [], count: columns.count), lines: [Int32] = []
        var events = LabelEvents()
        var missing = 0
        func number(_ f: [UInt8]) -> Double? {
            if case .value(let v) = DecimalParser.parse(f) { return v }
            return nil
        }
        for (fields, line) in records.dropFirst() {
            let t = number(fields[time])
            if let label, let t {
                let name = String(decoding: trimmed(fields[label]), as: UTF8.self)
                if !name.isEmpty {
                    let id = events.names.firstIndex(of: name) ?? events.names.count
                    if id == events.names.count { events.names.append(name) }
                    events.times.append(t)
                    events.labels.append(Int32(id))
                }
            }
            let row = columns.map { number(fields[$0]) }
            guard let t, row.allSatisfy({ $0 != nil }) else { missing += 1; continue }
            times.append(t)
            for c in columns.indices { values[c].append(row[c]! * factors[c]) }
            lines.append(Int32(line))
        }
        let stream = RawStream(name: "S", channelNames: format.channels.map(\.name),
                               channelUnits: format.channels.map { _ in "m/s^2" }, times: times, channels: values, lines: lines)
        return CSVFile(streams: [stream], rowLabels: events, rowsRead: records.count - 1,
                       rowsDropped: missing > 0 ? ["missing_value": missing] : [:])
    }
}

@Suite struct CSVReferenceTests {
    @Test func kernelsAgreeWithTheSafeReference() throws {
        var generator = SeededGenerator(seed: 77)
        let numbers = ["1", "-2.5", " 3e2 ", "NA", "", "\"4\"", " \"5.5\" ", "\"\"", "inf", ".5", "6.", "\"7\"  "]
        let labels = ["walk", "", " stairs ", "\"a,b\"", "\"x\ny\"", "\"q\"\"r\"", "ä", "\"\r\n\"", "\"c\"d", "5\" tall",
                      "\";\"", "\"\t\""]
        for delimiter in [UInt8(ascii: ","), UInt8(ascii: ";"), 0x09] {
            let d = String(UnicodeScalar(delimiter))
            let format = CSVFormat(delimiter: delimiter, timeColumn: "time",
                                   channels: [.init(name: "a", column: "x"), .init(name: "b", column: "y")], labelColumn: "label")
            for _ in 0..<200 {
                var text = Bool.random(using: &generator) ? "\u{FEFF}" : ""
                let newline = Bool.random(using: &generator) ? "\r\n" : "\n"
                text += ["\"label\"", " y", "time", "x "].joined(separator: d) + newline
                for i in 0..<Int.random(in: 1...15, using: &generator) {
                    var fields = [labels.randomElement(using: &generator)!, numbers.randomElement(using: &generator)!,
                                  Int.random(in: 0..<8, using: &generator) == 0 ? "NA" : "\(i)",
                                  numbers.randomElement(using: &generator)!]
                    if delimiter == 0x09 { fields = fields.map { $0.replacingOccurrences(of: "\t", with: " ") } }
                    text += fields.joined(separator: d) + newline
                    if Int.random(in: 0..<6, using: &generator) == 0 { text += " " + newline }
                }
                if Bool.random(using: &generator) { text.removeLast(newline.count) }
                let bytes = Array(text.utf8)
                let expected = CSVReference.read(bytes, format: format, factors: [9.80665, 1])
                let actual = try CSVReader.read(chunks: [bytes], displayPath: "r.csv", format: format,
                                                units: ["a": "g", "b": "m/s^2"], unitSystem: .si, wideSensorName: "S")
                if actual != expected {
                    Issue.record("\(text.debugDescription)\nexpected \(expected)\nactual \(actual)")
                    return
                }
            }
        }
    }

    /// The eight-bytes-at-a-time field split against the reference: every row width from 1 to
    /// 24 columns, fields 0 to 11 bytes long, so delimiters fall on every offset of a word.
    @Test func splitAgreesAtEveryWordOffset() throws {
        var generator = SeededGenerator(seed: 5)
        for columns in 1...24 {
            let names = (0..<columns).map { "c\($0)" }
            let format = CSVFormat(timeColumn: "t", channels: names.map { .init(name: $0, column: $0) })
            var text = (["t"] + names).joined(separator: ",") + "\n"
            for row in 0..<40 {
                let fields = (0..<columns).map { _ -> String in
                    let length = Int.random(in: 0...11, using: &generator)
                    return length == 0 ? "" : String(Int.random(in: 1...9, using: &generator)) + String(repeating: "0", count: length - 1)
                }
                text += (["\(row)"] + fields).joined(separator: ",") + "\n"
            }
            let bytes = Array(text.utf8)
            var expected = CSVReference.read(bytes, format: format, factors: [Double](repeating: 1, count: columns))
            expected.streams[0].channelUnits = [String](repeating: "1", count: columns)
            let actual = try CSVReader.read(chunks: [bytes], displayPath: "r.csv", format: format, unitSystem: .si, wideSensorName: "S")
            #expect(actual == expected, "\(columns) columns")
        }
    }
}
