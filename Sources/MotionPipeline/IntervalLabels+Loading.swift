import Foundation
import MotionCore
import MotionIngest

extension IntervalLabels {
    /// The longest line accepted, as `CSVReader` and `MotionCollectorReader` do.
    static let maxLineBytes = 1 << 20

    /// Reads an intervals file (docs/signal.md, "Windows and labels"): header `recording,start_s,end_s,label`, start inclusive,
    /// end exclusive; uncovered time has no label; overlapping intervals of a recording are an error.
    ///
    /// - Parameters:
    ///   - path: the file to open and name in messages.
    ///   - ledger: hears the bytes parsed (the manifest's `labels` input).
    /// - Throws: `.noInput` when missing, `.dataError` for a bad row, an overlap or a line over
    ///   ``maxLineBytes``, `.ioError` when it cannot be read (or, with a ledger, changes while it
    ///   is read).
    static func load(path: String, ledger: InputLedger? = nil) throws -> IntervalLabels {
        let bytes: [UInt8]
        do {
            bytes = try WholeFile.read(path: path, displayPath: path, observer: ledger?.observer(.labels))
        } catch let e as IngestError {
            guard case .cannotOpen(let reason, _) = e.kind else { throw e }
            throw MotionError(.noInput, "cannot read labels file \(path): \(reason)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw MotionError(.dataError, "\(path): not UTF-8 text")
        }
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" }).map { line -> Substring in
            line.hasSuffix("\r") ? line.dropLast() : line
        }
        if let first = lines.first, first.hasPrefix("\u{FEFF}") { lines[0] = first.dropFirst() }
        // As the csv and MotionCollector readers: a line over 1 MiB is not a labels row.
        if let i = lines.firstIndex(where: { $0.utf8.count > maxLineBytes }) {
            throw MotionError(.dataError, "\(path):\(i + 1): line is longer than \(maxLineBytes) bytes (is this an intervals file, `recording,start_s,end_s,label`?)")
        }
        let header = lines.first.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } } ?? []
        guard header == ["recording", "start_s", "end_s", "label"] else {
            let first = lines.first ?? ""
            let shown = first.count > 80 ? first.prefix(80) + "…" : first
            throw MotionError(.dataError, "\(path):1: the header must be `recording,start_s,end_s,label`, not `\(shown)`")
        }
        var byRecording: [String: [(start: Double, end: Double, label: String, line: Int)]] = [:]
        for (i, line) in lines.enumerated().dropFirst() where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard f.count == 4 else {
                throw MotionError(.dataError, "\(path):\(i + 1): expected 4 fields (recording,start_s,end_s,label), found \(f.count)")
            }
            guard let s = Double(f[1]), s.isFinite else {
                throw MotionError(.dataError, "\(path):\(i + 1): start_s `\(f[1])` is not a number of seconds")
            }
            guard let e = Double(f[2]), e.isFinite, e > s else {
                throw MotionError(.dataError, "\(path):\(i + 1): end_s `\(f[2])` must be a number of seconds greater than start_s \(f[1])")
            }
            byRecording[f[0], default: []].append((s, e, f[3], i + 1))
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
        return IntervalLabels(tracks: tracks)
    }
}
