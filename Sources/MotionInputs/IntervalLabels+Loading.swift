import Foundation
import MotionConfig
import MotionCore
import MotionIngest

extension IntervalLabels {
    /// One row of an intervals file, as read.
    public struct Row: Sendable, Equatable {
        public var recording: String
        public var start: Double
        public var end: Double
        public var label: String
        /// The row's first physical line.
        public var line: Int
    }

    /// Reads an intervals file (docs/signal.md, "Windows and labels"): header `recording,start_s,end_s,label`, start inclusive,
    /// end exclusive; uncovered time has no label; overlapping intervals of a recording are an error.
    /// Records are split by the csv input's rules (`CSVRecords`: RFC 4180 quoting, CRLF, a BOM) and
    /// times parsed by its number grammar (`DecimalParser`: no hex, `inf` or `nan`).
    ///
    /// - Parameters:
    ///   - path: the file to open and name in messages.
    ///   - ledger: hears the bytes parsed (the manifest's `labels` input).
    /// - Throws: `.noInput` when missing, `.dataError` (or `IngestError`) for a bad row or an
    ///   overlap, `.ioError` when it cannot be read (or, with a ledger, changes while it is read).
    package static func load(path: String, ledger: InputLedger? = nil) throws -> IntervalLabels {
        let bytes: [UInt8]
        do {
            bytes = try WholeFile.read(path: path, displayPath: path, observer: ledger?.observer(.labels))
        } catch let e as IngestError {
            guard case .cannotOpen(let reason, _) = e.kind else { throw e }
            throw MotionError(.noInput, "cannot read labels file \(path): \(reason)")
        }
        let records: [CSVRecord]
        do {
            records = try CSVRecords.split(bytes, displayPath: path)
        } catch let e as IngestError {
            guard case .recordTooLong(let limit) = e.kind else { throw e }
            throw MotionError(.dataError, "\(e.location): line is longer than \(limit) bytes (is a quote left open, or is this not an intervals file, `recording,start_s,end_s,label`?)")
        }
        let columns = ["recording", "start_s", "end_s", "label"]
        guard let header = records.first, header.fields == columns else {
            let first = records.first.map { $0.fields.joined(separator: ",") } ?? ""
            let shown = first.count > 80 ? first.prefix(80) + "…" : Substring(first)
            throw MotionError(.dataError, "\(records.first?.locations.first ?? SourceLocation(file: path, line: 1)): the header must be `recording,start_s,end_s,label`, not `\(shown)`")
        }
        func seconds(_ r: CSVRecord, _ i: Int) throws -> Double {
            if case .value(let v) = DecimalParser.parse(r.fields[i]) { return v }
            throw MotionError(.dataError, "\(r.locations[i]): \(columns[i]) `\(Self.shown(r.fields[i]))` is not a number of seconds (expected a decimal such as `12.5` or `1.2e3`; hex, `inf`, `nan` and empty values are not accepted)")
        }
        var rows: [Row] = []
        var byRecording: [String: [Row]] = [:]
        for r in records.dropFirst() {
            guard r.fields.count == 4 else {
                throw MotionError(.dataError, "\(path):\(r.line): expected 4 fields (recording,start_s,end_s,label), found \(r.fields.count) (a field that contains a comma must be quoted)")
            }
            let s = try seconds(r, 1), e = try seconds(r, 2)
            guard e > s else {
                throw MotionError(.dataError, "\(r.locations[2]): end_s `\(Self.shown(r.fields[2]))` must be a number of seconds greater than start_s \(r.fields[1])")
            }
            let row = Row(recording: r.fields[0], start: s, end: e, label: r.fields[3], line: r.line)
            rows.append(row)
            byRecording[row.recording, default: []].append(row)
        }
        var tracks: [String: LabelTrack] = [:]
        for (name, items) in byRecording {
            let sorted = items.sorted { $0.start < $1.start || ($0.start == $1.start && $0.line < $1.line) }
            var names: [String] = []
            var times: [Double] = []
            var labels: [Int32] = []
            for (j, it) in sorted.enumerated() {
                if j > 0, it.start < sorted[j - 1].end {
                    throw MotionError(.dataError, "\(path):\(it.line): interval [\(it.start), \(it.end)) of recording `\(name)` overlaps the one at line \(sorted[j - 1].line); intervals must not overlap")
                }
                let idx: Int32
                if let k = names.firstIndex(of: it.label) { idx = Int32(k) } else { idx = Int32(names.count); names.append(it.label) }
                if let last = times.last, last == it.start {
                    labels[labels.count - 1] = idx
                } else {
                    times.append(it.start)
                    labels.append(idx)
                }
                times.append(it.end)
                labels.append(-1)
            }
            tracks[name] = LabelTrack(names: names, times: times, labels: labels)
        }
        return IntervalLabels(tracks: tracks, rows: rows, path: path)
    }

    /// A value as shown in a message: at most 60 characters.
    package static func shown(_ s: String) -> String {
        s.count > 60 ? String(s.prefix(60)) + "…" : s
    }
}
