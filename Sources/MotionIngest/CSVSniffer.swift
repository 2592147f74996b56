#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Guesses how a delimited text file is laid out from its first bytes, for `motionprep inspect
/// FILE` and `motionprep init` (docs/commands.md, "inspect"): the delimiter, the header line,
/// which columns are numbers or text, the time column and its unit.
///
/// It only guesses; the csv reader then reads the file with the guess as if a pipeline said so,
/// so what inspect reports is what `run` would read. Each guess carries the reason shown to the
/// user ("a `sep=;` first line", "the header says `ms`", "integers 10 apart: 100 Hz in ms").
public enum CSVSniffer {
    /// How many bytes of the file the guess looks at (whole lines only).
    public static let headBytes = 256 * 1024
    /// The longest line any reader takes (1 MiB, as the csv reader's): `inspect` names a first
    /// line or header longer than that instead of finding no header in its first ``headBytes``.
    public static let maxLineBytes = _CSVParser.maxLineBytes

    /// The first line of `head` (numbered from 1) that is longer than ``maxLineBytes`` (its end is
    /// not within the limit), among the lines starting in `head`; nil when there is none. A last
    /// line cut by the end of `head` counts only when more than ``maxLineBytes`` of it are there.
    public static func firstTooLongLine(_ head: [UInt8]) -> Int? {
        var start = 0, line = 1
        while start < head.count {
            let end = head[start...].firstIndex(of: 0x0A) ?? head.count
            var length = end - start
            if length > 0, end < head.count, head[end - 1] == 0x0D { length -= 1 }
            if length > maxLineBytes { return line }
            start = end + 1
            line += 1
        }
        return nil
    }

    /// A column of the header.
    public struct Column: Sendable, Equatable {
        public enum Kind: String, Sendable {
            /// Every non-missing value in the rows looked at is a decimal.
            case number
            /// Some value is not a decimal (labels, dates, names).
            case text
            /// No value in the rows looked at.
            case empty
        }
        /// The header name, trimmed of blanks (as the csv reader matches it).
        public var name: String
        public var kind: Kind
        /// Up to 8 distinct values, in order of first appearance (text columns only).
        public var examples: [String]
    }

    public struct Guess: Sendable, Equatable {
        /// `,`, `;` or tab.
        public var delimiter: UInt8
        /// Why that delimiter.
        public var delimiterReason: String
        /// A first line `sep=X` (Excel's), which the csv reader skips by itself.
        public var sepLine: Bool
        /// Lines before the header other than a `sep=` line (`skip_lines`).
        public var skipLines: Int
        /// The header's 1-based physical line.
        public var headerLine: Int
        public var columns: [Column]
        /// Data rows looked at.
        public var rowsLooked: Int
        /// The time column's name, nil when none could be told.
        public var timeColumn: String?
        public var timeUnit: CSVFormat.TimeUnit?
        /// Why that column and unit.
        public var timeReason: String
        /// A text column named like a label (`label`, `activity`, `class`…), nil when none.
        public var labelColumn: String?

        /// The `delimiter:` value as a pipeline writes it.
        public var delimiterText: String { delimiter == 9 ? "\\t" : String(UnicodeScalar(delimiter)) }
        /// Numeric columns other than the time column, in file order.
        public var valueColumns: [String] {
            columns.filter { $0.kind == .number && $0.name != timeColumn }.map(\.name)
        }
    }

    /// Guesses the layout of `head` (the file's first bytes, at most ``headBytes``; a last
    /// incomplete line is ignored when the file is longer).
    ///
    /// - Returns: nil when the bytes are not delimited text with a header (binary, one column,
    ///   no header); `problem` then says why, for the message.
    public static func sniff(_ head: [UInt8], isWholeFile: Bool) -> (guess: Guess?, problem: String) {
        var bytes = head
        if bytes.isEmpty { return (nil, "the file is empty") }
        if !isWholeFile, let lastNewline = bytes.lastIndex(of: 0x0A) { bytes.removeSubrange((lastNewline + 1)...) }
        if bytes.contains(0) { return (nil, "it holds NUL bytes, so it is not text") }
        guard String(validating: bytes, as: UTF8.self) != nil else { return (nil, "it is not UTF-8 text") }
        // Excel's `sep=X` first line names the delimiter; the records start after it.
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        var sepLine = false
        var delimiter: UInt8?
        var delimiterReason = ""
        let firstLine = body.prefix { $0 != 0x0A }
        let first = firstLine.last == 0x0D ? firstLine.dropLast() : firstLine
        if first.count == 5, String(decoding: first.prefix(4), as: UTF8.self).lowercased() == "sep=",
           let d = first.last, d == UInt8(ascii: ",") || d == UInt8(ascii: ";") || d == 9 {
            sepLine = true
            delimiter = d
            delimiterReason = "a `sep=` first line"
            body = body.dropFirst(firstLine.count + 1)
        }
        let offset = sepLine ? 1 : 0
        // Split as the csv reader splits (`CSVRecords`: RFC 4180 quoting, blank lines skipped,
        // fields trimmed); a candidate delimiter the records cannot be split by is no candidate.
        func records(_ d: UInt8) -> [CSVRecord]? { try? CSVRecords.split(Array(body), displayPath: "", delimiter: d) }
        let textLines = body.split(separator: 0x0A).filter { line in line.contains { !_NumberKernels.isBlank($0) && $0 != 0x0D } }
        guard !textLines.isEmpty else { return (nil, "it holds only blank lines") }
        if textLines.count == 1 && isWholeFile { return (nil, "it has a single line (a header without rows?)") }
        var split: [CSVRecord] = []
        if let d = delimiter {
            guard let r = records(d) else { return (nil, "its lines cannot be split at its `sep=` delimiter (a quote left open?)") }
            split = r
        } else {
            // The candidate splitting the most records into the same field count (> 1).
            var best: (d: UInt8, score: Int, fields: Int, records: [CSVRecord])?
            for d in [UInt8(ascii: ","), UInt8(ascii: ";"), 9] {
                guard let r = records(d) else { continue }
                let counts = r.prefix(50).map(\.fields.count)
                guard let mode = mostCommon(counts), mode > 1 else { continue }
                let score = counts.filter { $0 == mode }.count
                if best == nil || score > best!.score || (score == best!.score && mode > best!.fields) { best = (d, score, mode, r) }
            }
            guard let best else { return (nil, "no line splits into several fields at `,`, `;` or a tab") }
            delimiter = best.d
            delimiterReason = "\(best.fields) fields per line"
            split = best.records
        }
        let d = delimiter!
        // The header: the first record whose next record has about as many fields and more
        // numbers than it has.
        var headerIndex: Int?
        for i in split.indices.dropLast() where split[i].fields.count > 1 {
            let here = split[i].fields, next = split[i + 1].fields
            let numbersHere = here.filter(isNumber).count, numbersNext = next.filter(isNumber).count
            if next.count >= here.count - 1 && numbersHere < here.count && numbersNext > numbersHere {
                headerIndex = i
                break
            }
        }
        guard let h = headerIndex else {
            return (nil, "no header line was found (a line of column names followed by rows of numbers)")
        }
        let names = split[h].fields
        let rows = split[(h + 1)...].map(\.fields)
        var columns: [Column] = []
        for (c, name) in names.enumerated() {
            var kind = Column.Kind.empty
            var examples: [String] = []
            for r in rows where c < r.count {
                switch DecimalParser.parse(r[c]) {
                case .value: if kind == .empty { kind = .number }
                case .missing: break
                case .invalid:
                    kind = .text
                    if examples.count < 8 && !examples.contains(r[c]) { examples.append(r[c]) }
                }
            }
            if kind != .text { examples = [] }
            columns.append(Column(name: name, kind: kind, examples: examples))
        }
        // `skip_lines` counts the physical lines before the header, after a `sep=` line.
        var guess = Guess(delimiter: d, delimiterReason: delimiterReason, sepLine: sepLine, skipLines: split[h].line - 1,
                          headerLine: split[h].line + offset, columns: columns, rowsLooked: rows.count,
                          timeColumn: nil, timeUnit: nil, timeReason: "", labelColumn: nil)
        guessTime(&guess, rows: Array(rows))
        guess.labelColumn = columns.first { $0.kind == .text && labelNames.contains(normalized($0.name)) }?.name
        return (guess, "")
    }

    // MARK: - Time

    static let labelNames: Set<String> = ["label", "labels", "activity", "class", "classname", "annotation", "state", "gesture", "action"]

    /// Lowercased, without blanks, `_`, `-`.
    static func normalized(_ s: String) -> String {
        String(s.lowercased().filter { !($0.isWhitespace || $0 == "_" || $0 == "-") })
    }

    /// The unit a header names: `Time (s)`, `time_ms`, `Time since start in ms`, `timestamp [ns]`.
    static func unitInName(_ name: String) -> CSVFormat.TimeUnit? {
        let words = name.lowercased().split { !($0.isLetter || $0 == "µ") }.map(String.init)
        for w in words.reversed() {
            switch w {
            case "s", "sec", "secs", "second", "seconds", "elapsed": return .s
            case "ms", "msec", "millis", "milliseconds": return .ms
            case "us", "µs", "usec", "micros", "microseconds": return .us
            case "ns", "nsec", "nanos", "nanoseconds": return .ns
            default: continue
            }
        }
        return nil
    }

    static func isTimeName(_ name: String) -> Bool {
        let n = normalized(name)
        return n == "t" || n.hasPrefix("time") || n.hasSuffix("time") || n.contains("timestamp")
            || n.hasPrefix("secondselapsed") || n == "when" || n == "epoch"
    }

    static func guessTime(_ g: inout Guess, rows: [[String]]) {
        let candidates = g.columns.enumerated().filter { isTimeName($0.element.name) && $0.element.kind != .empty }
        guard let (index, column) = candidates.first(where: { $0.element.kind == .number }) ?? candidates.first else {
            g.timeReason = "no column is named like a time (`time`, `timestamp`, `t`, `Time (s)`…)"
            return
        }
        g.timeColumn = column.name
        let values = rows.compactMap { index < $0.count ? $0[index] : nil }.filter { !$0.isEmpty }
        if column.kind == .text {
            if let v = values.first, case .value = CSVTime.parse(v, unit: .iso8601) {
                g.timeUnit = .iso8601
                g.timeReason = "values such as `\(v)` are ISO 8601 dates"
            } else {
                g.timeReason = "its values (such as `\(values.first ?? "")`) are neither numbers nor ISO 8601 dates; a pipeline can read wall-clock times with `time.format`"
            }
            return
        }
        let numbers = values.compactMap { v -> Double? in if case .value(let x) = DecimalParser.parse(v) { return x }; return nil }
        if let unit = unitInName(column.name) {
            g.timeUnit = unit
            g.timeReason = "the header says `\(unit.rawValue)`"
            return
        }
        let integral = numbers.allSatisfy { $0 == $0.rounded() } && values.allSatisfy { !$0.contains(".") && !$0.lowercased().contains("e") }
        var steps: [Double] = []
        for i in numbers.indices.dropFirst() where numbers[i] > numbers[i - 1] { steps.append(numbers[i] - numbers[i - 1]) }
        steps.sort()
        let median = steps.isEmpty ? nil : steps[steps.count / 2]
        let first = numbers.first.map(abs) ?? 0
        // An epoch tells its unit by its size (1.7e9 s, 1.7e12 ms, 1.7e15 us, 1.7e18 ns).
        if integral && first >= 1e17 { g.timeUnit = .ns; g.timeReason = "integers near \(Int(first)) are Unix times in ns" ; return }
        if integral && first >= 1e14 { g.timeUnit = .us; g.timeReason = "integers near \(Int(first)) are Unix times in us"; return }
        if integral && first >= 1e11 { g.timeUnit = .ms; g.timeReason = "integers near \(Int(first)) are Unix times in ms"; return }
        guard let step = median else {
            g.timeUnit = .s
            g.timeReason = "a guess: too few increasing values to tell the unit"
            return
        }
        if !integral {
            g.timeUnit = .s
            g.timeReason = "decimals \(short(step)) apart: \(short(1 / step)) Hz in seconds"
            return
        }
        // Integers: the unit that puts the median rate between 1 Hz and 2 kHz, smallest first.
        for (unit, scale) in [(CSVFormat.TimeUnit.ms, 1e-3), (.us, 1e-6), (.ns, 1e-9), (.s, 1.0)] {
            let rate = 1 / (step * scale)
            if rate >= 1 && rate <= 2000 {
                g.timeUnit = unit
                g.timeReason = "integers \(short(step)) apart: \(short(rate)) Hz in \(unit.rawValue)"
                return
            }
        }
        g.timeUnit = .s
        g.timeReason = "a guess: integers \(short(step)) apart fit no usual rate"
    }

    /// `x` to 4 significant digits, shortest form (`0.01001`, `99.88`, `20`).
    static func short(_ x: Double) -> String {
        guard x.isFinite, x != 0 else { return "0" }
        let digits = max(0, 3 - Int(log10(abs(x)).rounded(.down)))
        let p = pow(10, Double(digits))
        let r = (x * p).rounded() / p
        if r == r.rounded() && abs(r) < 1e15 { return String(Int(r)) }
        return String(r)
    }

    // MARK: - Splitting

    static func isNumber(_ s: String) -> Bool {
        if case .value = DecimalParser.parse(s) { return true }
        return false
    }

    static func mostCommon(_ xs: [Int]) -> Int? {
        var counts: [Int: Int] = [:]
        for x in xs { counts[x, default: 0] += 1 }
        return counts.max { a, b in a.value != b.value ? a.value < b.value : a.key > b.key }?.key
    }
}
