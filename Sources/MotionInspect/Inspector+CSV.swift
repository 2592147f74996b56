import Foundation
import MotionConfig
import MotionCore
import MotionEngine
import MotionIngest
import MotionResample
import MotionInputs

/// `motionprep inspect FILE.csv`: a delimited text file that no pipeline describes yet
/// (docs/commands.md, "inspect").
public struct CSVFileReport: Sendable {
    public var path: String
    public var guess: CSVSniffer.Guess
    /// The file read with the guess as a csv input would read it; nil when it could not be
    /// (then `error` says why).
    public var recording: RecordingReport?
    public var error: String?

    /// A pipeline `inputs` entry that reads the file as guessed, YAML, indented by 2 spaces.
    public var inputYAML: String {
        var lines = ["- type: csv", "  paths: [\(YAMLText.quoted(Glob.escape(PathText.lastComponent(path))))]"]
        if guess.delimiter != UInt8(ascii: ",") && !guess.sepLine { lines.append("  delimiter: \(YAMLText.quoted(guess.delimiterText))") }
        if guess.skipLines > 0 { lines.append("  skip_lines: \(guess.skipLines)") }
        if let t = guess.timeColumn {
            lines.append("  time: {column: \(YAMLText.quoted(t)), unit: \(guess.timeUnit?.rawValue ?? "s")}"
                         + "   # \(YAMLText.comment(guess.timeReason))")
        } else {
            lines.append("  time: {column: ?, unit: s}   # \(YAMLText.comment(guess.timeReason))")
        }
        let names = CSVFileReport.channelNames(guess.valueColumns)
        lines.append("  channels:")
        for (name, column) in zip(names, guess.valueColumns) { lines.append("    \(name): \(YAMLText.quoted(column))") }
        return lines.joined(separator: "\n")
    }

    /// Channel names for columns: lowercase words joined by `_`, units in brackets dropped
    /// (`Acceleration x (m/s^2)` → `acceleration_x`), made unique with a number.
    public static func channelNames(_ columns: [String]) -> [String] {
        var out: [String] = []
        var taken = Set<String>()  // a linear search per column was quadratic in a wide header
        for c in columns {
            var base = c
            for (open, close) in [("(", ")"), ("[", "]")] {
                while let o = base.firstIndex(of: Character(open)), let e = base[o...].firstIndex(of: Character(close)) {
                    base.removeSubrange(o...e)
                }
            }
            var name = ""
            for ch in base.lowercased() {
                if ch.isLetter || ch.isNumber, ch.isASCII { name.append(ch) } else if !name.isEmpty && name.last != "_" { name.append("_") }
            }
            while name.last == "_" { name.removeLast() }
            if name.isEmpty || name.first!.isNumber { name = "c" + name }
            var unique = name, n = 2
            while taken.contains(unique) { unique = "\(name)_\(n)"; n += 1 }
            out.append(unique)
            taken.insert(unique)
        }
        return out
    }

    public var json: JSONValue {
        .object([
            "path": .string(path), "format": .string("csv"),
            "delimiter": .string(guess.delimiterText), "delimiter_reason": .string(guess.delimiterReason),
            "sep_line": .bool(guess.sepLine), "skip_lines": .int(guess.skipLines), "header_line": .int(guess.headerLine),
            "columns": .array(guess.columns.map {
                .object(["name": .string($0.name), "kind": .string($0.kind.rawValue), "examples": .array($0.examples.map { .string($0) })])
            }),
            "time": .object(["column": guess.timeColumn.map { .string($0) } ?? .null,
                             "unit": guess.timeUnit.map { .string($0.rawValue) } ?? .null,
                             "reason": .string(guess.timeReason)]),
            "label_column": guess.labelColumn.map { .string($0) } ?? .null,
            "recording": recording?.json ?? .null,
            "error": error.map { .string($0) } ?? .null,
            "input": .string(inputYAML),
        ])
    }
}

/// YAML scalars as the pipeline snippets write them.
public enum YAMLText {
    /// `s` plain when YAML reads it back as the same string (letters, digits, `_`, `-`, `.`,
    /// `/`, not starting with a digit, `-` or `.`, not a word YAML types), else ``doubleQuoted(_:)``.
    /// Every name init writes (folders, labels, columns) goes through here or ``doubleQuoted(_:)``,
    /// so that no name can end the scalar or the line and add keys (docs/hardening.md, "Data safety: names").
    public static func quoted(_ s: String) -> String {
        let plainSafe = !s.isEmpty && s.unicodeScalars.allSatisfy { u in
                (u.properties.isAlphabetic || u.properties.numericType != nil || u.properties.generalCategory == .nonspacingMark
                 || "_-./".unicodeScalars.contains(u)) && !u.properties.isWhitespace && !Text.isUnsafeForTerminal(u) && u != "\u{FEFF}"
            }
            && !["true", "false", "null", "yes", "no", "on", "off", "~", "y", "n"].contains(s.lowercased())
            && !(s.first!.isNumber || s.first == "-" || s.first == ".")
            && s.unicodeScalars.first!.properties.generalCategory != .nonspacingMark
        if plainSafe { return s }
        return doubleQuoted(s)
    }

    /// `s` as a YAML double-quoted scalar: `"` and `\` escaped, and every control character,
    /// DEL, C1 control, line or paragraph separator, bidirectional control and byte-order mark
    /// written as an escape (`\n`, `\t`, `\x1B`, `\u2028`), so the scalar stays on its line.
    public static func doubleQuoted(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\0": out += "\\0"
            default:
                if Text.isUnsafeForTerminal(u) || u == "\u{FEFF}" {
                    out += u.value <= 0xFF ? String(format: "\\x%02X", u.value) : String(format: "\\u%04X", u.value)
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }

    /// `s` for a YAML comment: every line break and control character escaped as
    /// ``Text/terminalSafe(_:)`` writes it, so a name in a comment cannot start a new line.
    public static func comment(_ s: String) -> String {
        Text.terminalSafe(s).replacingOccurrences(of: "\u{FEFF}", with: "\\u{FEFF}")
    }
}

extension Inspector {
    /// Sniffs a delimited text file (``CSVSniffer``) and reads it with the guess as a csv input
    /// would: every number column a channel, the label column's values as row labels.
    ///
    /// - Throws: `MotionError` (65) when the file is not delimited text with a header, naming
    ///   why; 66/74 when it cannot be read.
    ///
    /// The file is read in blocks of `blockBytes` when it has at least `streamBytes` (by default
    /// always), in bounded memory (`StreamedInspection`), else whole.
    public static func inspect(csvFile path: String, blockBytes: Int = StreamDefaults.blockBytes) throws -> CSVFileReport {
        try inspect(csvFile: path, streamBytes: 0, blockBytes: blockBytes)
    }

    /// With `streamBytes`, files under that size are read whole: `init`'s small files, and the
    /// whole reading the tests compare the blocks with (`streamBytes: .max`).
    package static func inspect(csvFile path: String, streamBytes: Int,
                          blockBytes: Int = StreamDefaults.blockBytes) throws -> CSVFileReport {
        var head = try readHead(path, bytes: CSVSniffer.headBytes + 1)
        var isWholeFile = head.count <= CSVSniffer.headBytes
        if !isWholeFile { head.removeLast() }
        // A header and a row do not fit in the first 256 KiB: read the first lines up to the
        // readers' line limit, so that a line over it is named as the readers name it (not "no
        // header line was found"), and a long header under it is still guessed from
        // (docs/hardening.md, "Data safety: bounded work on odd input").
        if !isWholeFile, head.lazy.filter({ $0 == 0x0A }).count < 2 {
            let longHead = 2 * (CSVSniffer.maxLineBytes + 2)
            head = try readHead(path, bytes: longHead + 1)
            isWholeFile = head.count <= longHead
            if !isWholeFile { head.removeLast() }
            if let line = CSVSniffer.firstTooLongLine(head) {
                throw MotionError(.dataError, "\(path):\(line): line is longer than \(CSVSniffer.maxLineBytes) bytes (is a quote left open, or is this not a delimited text file?)")
            }
        }
        let (found, problem) = CSVSniffer.sniff(head, isWholeFile: isWholeFile)
        guard let guess = found else {
            throw MotionError(.dataError, "\(path): not a format `inspect` recognises: \(problem) (expected a MotionCollector CSV, a delimited text file with a header line, a pipeline .yaml, a dataset folder or a .tar.zst or .tar shard)")
        }
        var report = CSVFileReport(path: path, guess: guess, recording: nil, error: nil)
        guard let time = guess.timeColumn, let unit = guess.timeUnit else {
            report.error = "no time column: \(guess.timeReason)"
            return report
        }
        let names = CSVFileReport.channelNames(guess.valueColumns)
        let format = CSVFormat(delimiter: guess.delimiter, timeColumn: time, timeUnit: unit,
                               channels: zip(names, guess.valueColumns).map { CSVFormat.Channel(name: $0, column: $1) },
                               labelColumn: guess.labelColumn, skipLines: guess.skipLines)
        do {
            var r = RecordingReport(name: PathText.stem(path), subject: nil, files: [path], format: "csv", rows: 0, rowsDropped: [:],
                                    streams: [], labels: [], labelSource: "none", warnings: [], error: nil)
            if PathText.textSize(path, probingUpTo: streamBytes) >= streamBytes {
                let scan = try StreamedInspection.scan([{
                    try CSVBlockReader(path: path, displayPath: path, format: format, units: [:], unitSystem: .native,
                                       wideSensorName: PathText.stem(path), keep: nil, blockBytes: blockBytes)
                }], maxGap: { _ in 0.25 }, gapFromMedian: { max(0.25, 2.5 * $0) })
                scan.fill(&r, preferMarkers: false)
                report.recording = r
                return report
            }
            let csv = try CSVReader.read(path: path, displayPath: path, format: format, units: [:], unitSystem: .native,
                                         wideSensorName: PathText.stem(path), keep: nil)
            let file = InputFile(inputIndex: 0, path: path, manifestPath: path)
            let raw = RawRecording(raw: [0: csv.streams.map { ($0, file) }], rowLabels: csv.rowLabels, markers: LabelEvents(),
                                   rowsRead: csv.rowsRead, dropped: csv.rowsDropped, warnings: [])
            // No pipeline says what a gap is: an interval over max(0.25 s, 2.5 × the stream's median interval).
            var gapLimit: [String: Double] = [:]
            for stream in csv.streams {
                gapLimit[stream.name] = max(0.25, 2.5 * Antialias.medianInterval(stream.times.sorted()))
            }
            fill(&r, raw, maxGap: { gapLimit[$0] ?? 0.25 }, preferMarkers: false)
            report.recording = r
        } catch let e as UserFacingError {
            report.error = e.message
        }
        return report
    }
}

extension Inspector {
    /// The first `bytes` bytes of the file at `path` (fewer when it is shorter), for recognising
    /// its format.
    ///
    /// - Throws: `MotionError` 66 when it cannot be opened, 74 when reading fails, naming the reason.
    /// A compressed file's head is its text's (docs/inputs.md, "Compressed files"), decompressed
    /// as the readers decompress it (a damaged stream is 65).
    package static func readHead(_ path: String, bytes: Int) throws -> [UInt8] {
        switch RegularFile.readHead(path, count: bytes) {
        case .success(let head):
            guard TextHead.compression(head) != nil else { return head }
            return try TextHead.read(path: path, displayPath: path, count: bytes)
        case .failure(.notRegular(let kind)): throw RegularFile.refusal(path, kind: kind)
        case .failure(let failure): throw MotionError(.noInput, "cannot read \(path): \(failure.reason)")
        }
    }
}
