import Foundation
import MotionConfig
import MotionCore
import MotionIngest
import MotionInputs
import MotionInspect

// Files of one kind and name grouped into inputs, and sequential recordings merged (docs/commands.md, "init").

extension PipelineDraft {
    // MARK: - Groups

    /// What a text file's first bytes say it is.
    package enum Sniffed {
        case preset(PhonePreset.Match)
        case motionCollector(MotionCollectorFile.Variant)
        case other
        case unreadable(String)
    }

    package static func isText(_ rel: String) -> Bool {
        // A compressed text file by its name (`rec.csv.gz`); it is read by its magic.
        let lower = PathText.dropCompressionSuffix(rel).lowercased()
        return lower.hasSuffix(".csv") || lower.hasSuffix(".txt") || lower.hasSuffix(".tsv")
    }

    package enum Kind {
        case preset(PhonePreset.Match)
        case motioncollector
        case csv(CSVSniffer.Guess, stem: String)
        case iio(layout: String)
        case cwa(gyro: Bool)
        case gt3x
    }

    package struct Group {
        package var kind: Kind
        package var key: String
        package var files: [String] = []
        package var labels: [String] = []
        /// `rows` or `markers` (MotionCollector's legacy variant).
        package var labelSource = "rows"
        /// Effective rate of each stream of each file.
        package var rates: [Double] = []
        /// Stream names every file has (nil before the first file), and those some file has.
        package var commonStreams: [String]?
        /// Presets: the app's sensors seen, by recording unit (the export folder, or the file for AndroSensor).
        package var presetSensors: [String] = []
        package var sensorsByUnit: [String: Set<String>] = [:]
        package var rateBySensor: [String: [Double]] = [:]
        /// Effective rate of each stream by its name (MotionCollector's `A`, `G`, …).
        package var rateByStream: [String: [Double]] = [:]
        package var anyStreams: [String] = []
        /// csv: the header, delimiter and time unit; groups with the same one can be one input.
        package var signature: String?
        /// csv: the file names' stems, in order of appearance.
        package var stems: [String] = []
    }

    /// The groups in order of their first file, found by key in constant time (a folder of
    /// thousands of differently named files makes thousands of groups before they are merged).
    package struct Groups {
        package var list: [Group] = []
        package var index: [Text.Bytes: Int] = [:]
        package var isEmpty: Bool { list.isEmpty }
        package subscript(i: Int) -> Group {
            get { list[i] }
            _modify { yield &list[i] }
        }
    }

    /// Adds `file` to the group of `key` (made when new); returns the group's index.
    @discardableResult
    package static func add(_ groups: inout Groups, key: String, kind: Kind, file: String, finding: inout Finding, report: RecordingReport? = nil) -> Int {
        let i: Int
        if let j = groups.index[Text.Bytes(key)] { i = j } else {
            groups.list.append(Group(kind: kind, key: key))
            i = groups.list.count - 1
            groups.index[Text.Bytes(key)] = i
        }
        groups[i].files.append(file)
        if case .csv(_, let stem) = kind, groups[i].stems.isEmpty { groups[i].stems = [stem] }
        if let report {
            for l in finding.labels where !groups[i].labels.contains(l) { groups[i].labels.append(l) }
            groups[i].rates += report.streams.compactMap(\.effectiveRateHz)
            for st in report.streams { if let r = st.effectiveRateHz { groups[i].rateByStream[st.sensor, default: []].append(r) } }
            if report.labelSource == "markers" { groups[i].labelSource = "markers" }
            let names = report.streams.map(\.sensor)
            groups[i].commonStreams = groups[i].commonStreams.map { c in c.filter(names.contains) } ?? names
            for n in names where !groups[i].anyStreams.contains(n) { groups[i].anyStreams.append(n) }
        }
        return i
    }

    /// Joins csv groups with the same header, delimiter and time unit into one input whose files
    /// are recordings each, unless they are the streams of one recording: two files of one
    /// folder are streams when their names differ in more than digits (`Accelerometer.csv`,
    /// `Gyroscope.csv`) and their times overlap; numbered files (`rec-01.csv`, `rec-02.csv`) and
    /// files one after the other in time are recordings (docs/commands.md, "init").
    package static func mergeSequentialRecordings(_ groups: [Group], spans: [Text.Bytes: ClosedRange<Double>]) -> [Group] {
        var out: [Group] = []
        // Per merged group: its name families (stems with digits dropped) and its files' spans by folder.
        var families: [Set<String>] = []
        var spansByFolder: [[Text.Bytes: [ClosedRange<Double>]]] = []
        var bySignature: [Text.Bytes: [Int]] = [:]
        func folderSpans(_ g: Group) -> [Text.Bytes: [ClosedRange<Double>]] {
            var d: [Text.Bytes: [ClosedRange<Double>]] = [:]
            for f in g.files { if let s = spans[Text.Bytes(f)] { d[Text.Bytes(parentDirectory(f)), default: []].append(s) } }
            return d
        }
        for g in groups {
            guard case .csv = g.kind, let sig = g.signature else { out.append(g); families.append([]); spansByFolder.append([:]); continue }
            let family = stemFamily(g.stems.first ?? "")
            let mine = folderSpans(g)
            let target = bySignature[Text.Bytes(sig), default: []].first { j in
                if families[j].contains(family) { return true }
                // Streams of one recording: a folder where a file of each overlaps in time.
                for (folder, ss) in mine {
                    guard let theirs = spansByFolder[j][folder] else { continue }
                    if ss.contains(where: { a in theirs.contains { $0.overlaps(a) } }) { return false }
                }
                return true
            }
            if let j = target {
                out[j].files += g.files
                for l in g.labels where !out[j].labels.contains(l) { out[j].labels.append(l) }
                out[j].rates += g.rates
                if g.labelSource == "markers" { out[j].labelSource = "markers" }
                out[j].commonStreams = out[j].commonStreams.map { c in c.filter { (g.commonStreams ?? []).contains($0) } } ?? g.commonStreams
                for n in g.anyStreams where !out[j].anyStreams.contains(n) { out[j].anyStreams.append(n) }
                // Stems are distinct across groups (a stem is part of the group's key); a few are enough for the comment.
                if out[j].stems.count < 4 { out[j].stems += g.stems }
                families[j].insert(family)
                for (folder, ss) in mine { spansByFolder[j][folder, default: []] += ss }
            } else {
                bySignature[Text.Bytes(sig), default: []].append(out.count)
                out.append(g)
                families.append([family])
                spansByFolder.append(mine)
            }
        }
        // Files in the order they were listed (sorted by bytes) within each merged group.
        for j in out.indices where out[j].stems.count > 1 { out[j].files.sort(by: Text.utf8Less) }
        return out
    }

    /// A file stem with its digits dropped: `rec-01` and `rec-02` are one family.
    package static func stemFamily(_ stem: String) -> String {
        String(stem.unicodeScalars.filter { !($0.value >= 0x30 && $0.value <= 0x39) })
    }

    /// The block size init reads a file in: the file's size (a small file is one small read),
    /// at most the run's block size, so that thousands of small files never each get a
    /// block of megabytes.
    package static func blockBytes(_ path: String) -> Int {
        max(4096, min(StreamDefaults.blockBytes, PathText.fileSize(path) + 1))
    }

    /// Files under this size are read whole (bounded by it) rather than streamed: the streamed
    /// statistics set up megabytes of histograms per stream, which for thousands of small files
    /// cost more than the reading (19 000 files: minutes instead of seconds).
    package static let wholeReadBytes = 1 << 20

    package static func describe(_ f: inout Finding, _ r: RecordingReport) {
        for s in r.streams {
            let rate = s.effectiveRateHz.map { String(format: "%.1f Hz", $0) } ?? "rate unknown"
            f.streams.append("\(s.sensor) \(rate), \(s.samples) samples, \(s.channels.count) channel(s)")
        }
        for seg in r.labels { if let l = seg.label, !f.labels.contains(l) { f.labels.append(l) } }
    }

    // MARK: - Presets

    /// The phone-app preset whose export `rel` looks like (its header line: the first line, or the
    /// one after Excel's `sep=` line).
    package static func presetMatch(_ rel: String, head: [UInt8]) -> PhonePreset.Match? {
        // `Accelerometer.csv.gz` is the app's `Accelerometer.csv`, compressed (docs/inputs.md, "Compressed files").
        let rel = PathText.dropCompressionSuffix(rel)
        let lines = head.split(separator: 0x0A, maxSplits: 2, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard let first = lines.first else { return nil }
        let bare = first.hasPrefix("\u{FEFF}") ? String(first.dropFirst()) : first
        if bare.lowercased().hasPrefix("sep="), lines.count > 1 {
            return PhonePreset.match(path: rel, headerLine: lines[1])
        }
        return PhonePreset.match(path: rel, headerLine: first)
    }

    /// The keys of a preset entry that the file's header decides (phyphox's `delimiter` when not
    /// `,`, `raw_data`), as entry lines: what `init` writes and `inspect FILE` prints.
    package static func presetOptionLines(_ m: PhonePreset.Match) -> [String] {
        var lines: [String] = []
        if m.app == .phyphox && m.delimiter != UInt8(ascii: ",") { lines.append("    delimiter: \(m.delimiter == 9 ? "\"\\t\"" : "\";\"")") }
        if m.rawData { lines.append("    raw_data: true") }
        return lines
    }

    /// The recording a preset file belongs to: its export folder (Sensor Logger, phyphox) or itself.
    static func unitOf(_ rel: String, _ match: PhonePreset.Match) -> String {
        match.app.readsFolders ? parentDirectory(rel) : rel
    }
}
