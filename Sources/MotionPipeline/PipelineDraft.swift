import Foundation
import MotionConfig
import MotionCore
import MotionIngest

/// `motionprep init DATA_DIR`: looks at the files and drafts a commented pipeline that runs
/// (docs/commands.md, "init").
///
/// Every file under the folder is recognised — a MotionCollector CSV, a phone logger's export
/// (through the presets' detectors), any other delimited text (``CSVSniffer``), an IIO dump with
/// a copied sysfs folder beside it — and read as `inspect` reads it, so the draft's rates, time
/// units and labels are the data's. Files of one kind and name form one input; the folder
/// layout gives recordings, subjects and (when no file has a label column) labels.
public enum PipelineDraft {
    /// What init found in one file.
    public struct Finding: Sendable {
        /// The path relative to the data folder.
        public var path: String
        /// `motioncollector (current header)`, `csv`, `iio`, or why it is skipped.
        public var kind: String
        /// One line per stream: `acc 100.0 Hz, 1200 samples`.
        public var streams: [String]
        /// Labels found in the file, in order of appearance.
        public var labels: [String]
        /// Set when the file is not used.
        public var skipped: String?
    }

    public struct Draft: Sendable {
        public var findings: [Finding]
        /// The pipeline file's text.
        public var yaml: String
        /// One-line summary for the terminal.
        public var summary: String
    }

    /// The most files looked at; a folder with more is refused (point init at a smaller folder).
    public static let maxFiles = 20_000

    /// Drafts a pipeline for the files under `dataDirectory`, to be written at `pipelinePath`
    /// (paths in the draft are relative to its folder).
    ///
    /// - Throws: `MotionError` 66 when the folder does not exist or holds no usable file.
    public static func draft(dataDirectory: String, pipelinePath: String) throws -> Draft {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dataDirectory, isDirectory: &isDir), isDir.boolValue else {
            throw MotionError(.noInput, "\(dataDirectory): no such folder (`motionprep init` looks at a folder of recordings)")
        }
        let files = try listFiles(dataDirectory)
        // Every text file's first bytes, read once: which app's export, MotionCollector file or
        // other text it is. Export folders of the apps whose presets read folders are noted: their
        // other files (Sensor Logger's Metadata.csv and Annotation.csv, phyphox's meta/) are the
        // app's, not recordings.
        // Keyed by bytes: `café` in NFC and NFD are two files (docs/inputs.md, "Names").
        var sniffed: [Text.Bytes: Sniffed] = [:]
        var exportFolders: [Text.Bytes: PhoneApp] = [:]
        for rel in files where isText(rel) {
            do {
                let head = try Inspector.readHead(PathText.join(dataDirectory, rel), bytes: 4096)
                if let m = presetMatch(rel, head: head) {
                    sniffed[Text.Bytes(rel)] = .preset(m)
                    if m.app.readsFolders { exportFolders[Text.Bytes(parentDirectory(rel))] = m.app }
                } else if let variant = MotionCollectorReader.sniff(head) {
                    sniffed[Text.Bytes(rel)] = .motionCollector(variant)
                } else {
                    sniffed[Text.Bytes(rel)] = .other
                }
            } catch {
                sniffed[Text.Bytes(rel)] = .unreadable("\(error)")
            }
        }
        func exportFolder(of rel: String) -> (String, PhoneApp)? {
            var dir = parentDirectory(rel)
            while dir != "." && !dir.isEmpty {
                if let app = exportFolders[Text.Bytes(dir)] { return (dir, app) }
                dir = parentDirectory(dir)
            }
            return nil
        }
        var findings: [Finding] = []
        var groups = Groups()
        // Each csv file's time span (first and last time of its streams), to tell the streams of
        // one recording (overlapping) from recordings one after the other.
        var spans: [Text.Bytes: ClosedRange<Double>] = [:]
        for rel in files {
            let full = PathText.join(dataDirectory, rel)
            var f = Finding(path: rel, kind: "", streams: [], labels: [], skipped: nil)
            defer { findings.append(f) }
            if isIIOLayoutFile(rel) { f.kind = "iio layout"; f.skipped = "part of a copied sysfs folder"; continue }
            if let layout = iioDump(rel, dataDirectory: dataDirectory) {
                f.kind = "iio"
                let i = add(&groups, key: "iio|" + layout, kind: .iio(layout: layout), file: rel, finding: &f)
                // The rate the device was set to (the IIO ABI's `sampling_frequency`), when the copy has it.
                let sysfs = PathText.join(dataDirectory, (rel.contains("/") ? parentDirectory(rel) + "/" : "") + "sysfs/sampling_frequency")
                if let text = try? String(contentsOfFile: sysfs, encoding: .utf8), let hz = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)), hz > 0 {
                    f.streams.append("sampling_frequency \(MessageNumber.number(hz)) Hz (sysfs)")
                    groups[i].rates.append(hz)
                }
                continue
            }
            if rel.lowercased().hasSuffix(".cwa") {
                // An Axivity AX3 / AX6 file: its header says the model, the rate and whether the gyroscope was on.
                do {
                    let header = try CWAFormat.header(path: full, displayPath: rel)
                    f.kind = "cwa"
                    let i = add(&groups, key: "cwa|" + (header.recordsGyro ? "gyro" : "acc"), kind: .cwa(gyro: header.recordsGyro),
                                file: rel, finding: &f)
                    f.streams.append("\(header.model), \(MessageNumber.number(header.rateHz)) Hz (header)")
                    groups[i].rates.append(header.rateHz)
                } catch let e as UserFacingError { f.skipped = e.message } catch { f.skipped = "\(error)" }
                continue
            }
            if rel.lowercased().hasSuffix(".gt3x") {
                // An ActiGraph file: its info.txt says the serial number and the rate.
                do {
                    let archive = try GT3XFormat.archive(path: full, displayPath: rel)
                    f.kind = "gt3x"
                    let i = add(&groups, key: "gt3x", kind: .gt3x, file: rel, finding: &f)
                    f.streams.append("\(archive.info.serialNumber ?? "no serial number"), \(archive.info.sampleRate) Hz (info.txt)")
                    groups[i].rates.append(Double(archive.info.sampleRate))
                } catch let e as UserFacingError { f.skipped = e.message } catch { f.skipped = "\(error)" }
                continue
            }
            guard let kind = sniffed[Text.Bytes(rel)] else {
                f.skipped = "not a .csv, .txt or .tsv file (plain or compressed: .csv.gz, .csv.zst, .csv.xz, .csv.bz2), nor a .cwa or .gt3x file, nor an iio dump with a `sysfs` folder beside it"
                continue
            }
            switch kind {
            case .unreadable(let why):
                f.skipped = "cannot be read: \(why)"
                continue
            case .preset(let match):
                f.kind = "\(match.app.title) export (`type: \(match.app.rawValue)`), \(match.sensors.joined(separator: ", "))"
                do {
                    // Read as the preset reads it (the samples, rate and channels `run` will see),
                    // by the same code as `inspect FILE` (Inspector+Preset.swift).
                    let rec = try Inspector.inspect(presetFile: full, match: match, streamBytes: wholeReadBytes,
                                                    blockBytes: blockBytes(full)).recording
                    if let e = rec.error { f.skipped = "the `\(match.app.rawValue)` preset cannot read it: \(e)"; continue }
                    describe(&f, rec)
                    let i = add(&groups, key: "preset|\(match.app.rawValue)|\(match.delimiter)|\(match.rawData)", kind: .preset(match),
                                file: rel, finding: &f, report: rec)
                    for s in match.sensors where !groups[i].presetSensors.contains(s) { groups[i].presetSensors.append(s) }
                    groups[i].sensorsByUnit[unitOf(rel, match), default: []].formUnion(match.sensors)
                    if let rate = rec.streams.first?.effectiveRateHz { groups[i].rateBySensor[match.sensors[0], default: []].append(rate) }
                } catch let e as UserFacingError { f.skipped = e.message } catch { f.skipped = "\(error)" }
                continue
            case .motionCollector, .other:
                break
            }
            if let (folder, app) = exportFolder(of: rel) {
                f.kind = "part of \(app.title)'s export \(folder)"
                f.skipped = "not sensor data the `\(app.rawValue)` preset reads"
                continue
            }
            if case .motionCollector(let variant) = kind {
                f.kind = "motioncollector (\(variant.rawValue) header)"
                do {
                    let r = try Inspector.inspect(motionCollectorFile: full, streamBytes: wholeReadBytes, blockBytes: blockBytes(full))
                    describe(&f, r)
                    add(&groups, key: "motioncollector", kind: .motioncollector, file: rel, finding: &f, report: r)
                } catch let e as UserFacingError { f.skipped = e.message }
                continue
            }
            do {
                let r = try Inspector.inspect(csvFile: full, streamBytes: wholeReadBytes, blockBytes: blockBytes(full))
                f.kind = "csv"
                if let e = r.error { f.skipped = e; continue }
                guard r.guess.timeColumn != nil, !r.guess.valueColumns.isEmpty else {
                    f.skipped = r.guess.timeColumn == nil ? "no time column (\(r.guess.timeReason))" : "no number column besides the time"
                    continue
                }
                if let rec = r.recording {
                    describe(&f, rec)
                    let firsts = rec.streams.compactMap(\.firstTime), lasts = rec.streams.compactMap(\.lastTime)
                    if let a = firsts.min(), let b = lasts.max(), a <= b { spans[Text.Bytes(rel)] = a...b }
                }
                let signature = "\(r.guess.columns.map(\.name).joined(separator: "\u{1}"))|\(r.guess.delimiter)|\(r.guess.timeUnit?.rawValue ?? "")"
                let key = "csv|\(PathText.stem(rel))|" + signature
                let i = add(&groups, key: key, kind: .csv(r.guess, stem: PathText.stem(rel)), file: rel, finding: &f, report: r.recording)
                groups[i].signature = signature
            } catch let e as UserFacingError {
                f.kind = "not recognised"
                f.skipped = e.message
            }
        }
        if files.isEmpty {
            throw MotionError(.noInput, "\(dataDirectory): the folder holds no files (hidden ones and links are not looked at)")
        }
        guard !groups.isEmpty else {
            let shown = findings.prefix(3).map { "\($0.path) (\($0.skipped ?? $0.kind))" }.joined(separator: "; ")
            throw MotionError(.noInput, "\(dataDirectory): no recording motionprep can read was found among \(files.count) file(s)\(shown.isEmpty ? "" : ": " + shown)")
        }
        let merged = mergeSequentialRecordings(groups.list, spans: spans)
        let (yaml, notes) = render(merged, dataDirectory: dataDirectory, pipelinePath: pipelinePath, findings: findings)
        let used = merged.reduce(0) { $0 + $1.files.count }
        let summary = "\(merged.count) input(s) over \(used) file(s)" + (findings.count > used ? ", \(findings.count - used) file(s) not used" : "")
            + notes.map { "\n" + $0 }.joined()
        return Draft(findings: findings, yaml: yaml, summary: summary)
    }

    // MARK: - Groups

    /// What a text file's first bytes say it is.
    enum Sniffed {
        case preset(PhonePreset.Match)
        case motionCollector(MotionCollectorFile.Variant)
        case other
        case unreadable(String)
    }

    static func isText(_ rel: String) -> Bool {
        // A compressed text file by its name (`rec.csv.gz`); it is read by its magic.
        let lower = PathText.dropCompressionSuffix(rel).lowercased()
        return lower.hasSuffix(".csv") || lower.hasSuffix(".txt") || lower.hasSuffix(".tsv")
    }

    enum Kind {
        case preset(PhonePreset.Match)
        case motioncollector
        case csv(CSVSniffer.Guess, stem: String)
        case iio(layout: String)
        case cwa(gyro: Bool)
        case gt3x
    }

    struct Group {
        var kind: Kind
        var key: String
        var files: [String] = []
        var labels: [String] = []
        /// `rows` or `markers` (MotionCollector's legacy variant).
        var labelSource = "rows"
        /// Effective rate of each stream of each file.
        var rates: [Double] = []
        /// Stream names every file has (nil before the first file), and those some file has.
        var commonStreams: [String]?
        /// Presets: the app's sensors seen, by recording unit (the export folder, or the file for AndroSensor).
        var presetSensors: [String] = []
        var sensorsByUnit: [String: Set<String>] = [:]
        var rateBySensor: [String: [Double]] = [:]
        /// Effective rate of each stream by its name (MotionCollector's `A`, `G`, …).
        var rateByStream: [String: [Double]] = [:]
        var anyStreams: [String] = []
        /// csv: the header, delimiter and time unit; groups with the same one can be one input.
        var signature: String?
        /// csv: the file names' stems, in order of appearance.
        var stems: [String] = []
    }

    /// The groups in order of their first file, found by key in constant time (a folder of
    /// thousands of differently named files makes thousands of groups before they are merged).
    struct Groups {
        var list: [Group] = []
        var index: [Text.Bytes: Int] = [:]
        var isEmpty: Bool { list.isEmpty }
        subscript(i: Int) -> Group {
            get { list[i] }
            _modify { yield &list[i] }
        }
    }

    /// Adds `file` to the group of `key` (made when new); returns the group's index.
    @discardableResult
    static func add(_ groups: inout Groups, key: String, kind: Kind, file: String, finding: inout Finding, report: RecordingReport? = nil) -> Int {
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
    static func mergeSequentialRecordings(_ groups: [Group], spans: [Text.Bytes: ClosedRange<Double>]) -> [Group] {
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
    static func stemFamily(_ stem: String) -> String {
        String(stem.unicodeScalars.filter { !($0.value >= 0x30 && $0.value <= 0x39) })
    }

    /// The block size init reads a file in: the file's size (a small file is one small read),
    /// at most the run's block size, so that thousands of small files never each get a
    /// block of megabytes.
    static func blockBytes(_ path: String) -> Int {
        max(4096, min(RunOptions.defaultStreamBlockBytes, PathText.fileSize(path) + 1))
    }

    /// Files under this size are read whole (bounded by it) rather than streamed: the streamed
    /// statistics set up megabytes of histograms per stream, which for thousands of small files
    /// cost more than the reading (19 000 files: minutes instead of seconds).
    static let wholeReadBytes = 1 << 20

    static func describe(_ f: inout Finding, _ r: RecordingReport) {
        for s in r.streams {
            let rate = s.effectiveRateHz.map { String(format: "%.1f Hz", $0) } ?? "rate unknown"
            f.streams.append("\(s.sensor) \(rate), \(s.samples) samples, \(s.channels.count) channel(s)")
        }
        for seg in r.labels { if let l = seg.label, !f.labels.contains(l) { f.labels.append(l) } }
    }

    // MARK: - Presets

    /// The phone-app preset whose export `rel` looks like (its header line: the first line, or the
    /// one after Excel's `sep=` line).
    static func presetMatch(_ rel: String, head: [UInt8]) -> PhonePreset.Match? {
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
    static func presetOptionLines(_ m: PhonePreset.Match) -> [String] {
        var lines: [String] = []
        if m.app == .phyphox && m.delimiter != UInt8(ascii: ",") { lines.append("    delimiter: \(m.delimiter == 9 ? "\"\\t\"" : "\";\"")") }
        if m.rawData { lines.append("    raw_data: true") }
        return lines
    }

    /// The recording a preset file belongs to: its export folder (Sensor Logger, phyphox) or itself.
    static func unitOf(_ rel: String, _ match: PhonePreset.Match) -> String {
        match.app.readsFolders ? parentDirectory(rel) : rel
    }

    // MARK: - Files

    /// Regular files under `dir`, relative, sorted by UTF-8 bytes; hidden entries and links are
    /// not followed (as `**` does not follow folder links).
    static func listFiles(_ dir: String) throws -> [String] {
        var out: [String] = []
        var stack = [""]
        while let rel = stack.popLast() {
            let full = rel.isEmpty ? dir : PathText.join(dir, rel)
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: full) else { continue }
            for name in names where !name.hasPrefix(".") {
                let child = rel.isEmpty ? name : rel + "/" + name
                var st = stat()
                guard lstat(PathText.join(dir, child), &st) == 0 else { continue }
                if (st.st_mode & S_IFMT) == S_IFDIR { stack.append(child) } else if (st.st_mode & S_IFMT) == S_IFREG { out.append(child) }
                if out.count > maxFiles {
                    throw MotionError(.dataError, "\(dir) holds more than \(maxFiles) files; point `motionprep init` at a folder of recordings")
                }
            }
        }
        return out.sorted(by: Text.utf8Less)
    }

    /// A file inside a copied sysfs folder (`…/sysfs/scan_elements/in_accel_x_en`).
    static func isIIOLayoutFile(_ rel: String) -> Bool {
        rel.split(separator: "/").dropLast().contains("sysfs")
    }

    /// The layout template of a dump (`.bin`, `.dat`, `.raw`) whose folder holds `sysfs/scan_elements`; nil for other files.
    static func iioDump(_ rel: String, dataDirectory: String) -> String? {
        let lower = rel.lowercased()
        guard lower.hasSuffix(".bin") || lower.hasSuffix(".dat") || lower.hasSuffix(".raw") else { return nil }
        let folder = rel.contains("/") ? String(rel[..<rel.lastIndex(of: "/")!]) : ""
        var isDir: ObjCBool = false
        let scan = PathText.join(dataDirectory, (folder.isEmpty ? "" : folder + "/") + "sysfs/scan_elements")
        guard FileManager.default.fileExists(atPath: scan, isDirectory: &isDir), isDir.boolValue else { return nil }
        return "{dirpath}/sysfs"
    }

    // MARK: - Layout: recordings, subjects, labels from folders

    static let subjectLike = try! NSRegularExpression(pattern: "^(subject|subj|user|participant|person|volunteer|s|p|u|id)[-_ ]?[0-9]+$", options: [.caseInsensitive])

    static func isSubjectLike(_ name: String) -> Bool {
        subjectLike.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) != nil
    }

    static func folders(_ rel: String) -> [String] { rel.split(separator: "/").dropLast().map(String.init) }

    // MARK: - Rendering

    static let niceRates: [Double] = [1, 2, 5, 10, 20, 25, 30, 50, 60, 100, 120, 200, 250, 400, 500, 1000]

    /// The pipeline's text, and the notes for init's summary (where the labels come from, or why
    /// there are none; how the split is made).
    static func render(_ groups: [Group], dataDirectory: String, pipelinePath: String, findings: [Finding]) -> (yaml: String, notes: [String]) {
        var notes: [String] = []
        let base = relativePath(from: parentDirectory(pipelinePath), to: dataDirectory)
        let allFiles = groups.flatMap(\.files)
        let csvGroups = groups.filter { if case .csv = $0.kind { return true }; return false }
        // Files of several inputs in one folder: the folder is the recording.
        let presetFolders = groups.contains { if case .preset(let m) = $0.kind { return m.app.readsFolders }; return false }
        let folderRecordings = presetFolders || (Set(csvGroups.map { parentDirectory($0.files[0]) }).count < csvGroups.reduce(0) { $0 + $1.files.count }
            && csvGroups.count > 1)
        let depth = allFiles.map { folders($0).count }.min() ?? 0
        let recordingLevels = folderRecordings ? 1 : 0
        // Levels above the recording, outermost first (index 0 = first folder under DATA_DIR).
        var subjectLevel: Int?
        var labelLevel: Int?
        let hasRowLabels = groups.contains { !$0.labels.isEmpty }
        // Why each folder level is or is not the labels' (said in init's summary).
        var levelNotes: [String] = []
        func shown(_ names: [String]) -> String {
            names.prefix(3).map { "`\(YAMLText.comment($0))`" }.joined(separator: ", ") + (names.count > 3 ? " …" : "")
        }
        for level in 0..<max(0, depth - recordingLevels) {
            let names = Set(allFiles.map { folders($0)[level] })
            if subjectLevel == nil && names.allSatisfy(isSubjectLike) {
                subjectLevel = level
                levelNotes.append("folders \(shown(distinct(Array(names)))) are subjects")
                continue
            }
            if !hasRowLabels && labelLevel == nil && names.count >= 2 && names.count <= 50
                && names.allSatisfy({ n in n.contains { $0.isLetter } && !isSubjectLike(n) }) {
                labelLevel = level
                continue
            }
            levelNotes.append("folders \(shown(distinct(Array(names)))) " + (names.count < 2 ? "are one name" : names.count > 50 ? "are \(names.count) names (activities are 2–50)" : names.contains { n in !n.contains { $0.isLetter } } ? "include names without letters" : "include subject-like names")
                              + (subjectLevel == nil ? ", taken as the subjects" : ""))
            if subjectLevel == nil { subjectLevel = level }
        }
        // The recording folders themselves named after the activity (`iphone13/Squats/Accelerometer.csv`,
        // `Walking_2/`): names that, without the digits and separators at their ends, are 2–50
        // activities with letters; numbered folders of one kind (`rec-01`, `rec-02`) are not. A
        // folder's name can as well be a person's (`data/alice/`), so the folders must sit in a
        // folder of their own (a device or person), and either one activity name recurs in two
        // such folders (the same activities recorded by each) or most names hold an activity word
        // (`Walking`, `Squats`, `sit_down`: ``activityWords``).
        var labelMap: [(String, String)] = []
        var recordingFolderLabels = false
        if !hasRowLabels && labelLevel == nil && folderRecordings && depth >= 1 {
            let level = depth - 1
            let sameDepth = allFiles.allSatisfy { folders($0).count == depth }
            let names = distinct(allFiles.map { folders($0)[level] })
            let activities = distinct(names.map(activityName))
            var parentsOf: [Text.Bytes: Set<Text.Bytes>] = [:]
            if depth >= 2 {
                for f in allFiles { parentsOf[Text.Bytes(activityName(folders(f)[level])), default: []].insert(Text.Bytes(folders(f)[level - 1])) }
            }
            let recurs = parentsOf.values.contains { $0.count >= 2 }
            let worded = activities.filter(hasActivityWord).count * 2 >= activities.count
            if !sameDepth {
                levelNotes.append("recording folders sit at different depths")
            } else if activities.count < 2 || activities.count > 50 || activities.contains(where: { a in !a.contains { $0.isLetter } })
                        || names.contains(where: isSubjectLike) {
                levelNotes.append("recording folders \(shown(names)) " + (activities.count < 2 ? "are numbered names of one kind" : activities.count > 50 ? "are \(activities.count) different names (activities are 2–50)" : "are not activity names"))
            } else if depth < 2 || !(recurs || worded) {
                levelNotes.append("recording folders \(shown(names)) may be activities or people: "
                                  + (depth < 2 ? "they sit in no folder of their own" : "no name recurs in two folders and most hold no activity word")
                                  + "; if they name activities, set `labels: {from: path, template: \"{dir}\", classes: [...]}`")
            } else {
                labelLevel = level
                recordingFolderLabels = true
                labelMap = names.compactMap { n in activityName(n) == n ? nil : (n, activityName(n)) }
            }
        }
        func template(_ level: Int) -> String {
            // {dir:N} counts up from the file: its folder is {dir:1}.
            let n = depth - level
            return n == 1 ? "{dir}" : "{dir:\(n)}"
        }
        let name = PathText.stem(pipelinePath) == "pipeline" ? PathText.lastComponent(dataDirectory) : PathText.stem(pipelinePath)

        var y: [String] = []
        y.append("# A pipeline drafted by `motionprep init` from \(findings.count) file(s) in \(YAMLText.comment(PathText.lastComponent(dataDirectory))).")
        y.append("# Check the lines marked `check`, then: motionprep validate \(YAMLText.comment(PathText.lastComponent(pipelinePath))) && motionprep run \(YAMLText.comment(PathText.lastComponent(pipelinePath)))")
        y.append("# Every key with its default and unit: docs/pipeline.md.")
        y.append("version: 1")
        y.append("name: \(YAMLText.quoted(sanitizedName(name)))")
        y.append("inputs:")
        var channelNamesUsed: Set<String> = []
        var presetChosen: [String: [String]] = [:]
        var presetCommon: [String: [String]] = [:]
        var rates: [Double] = []
        let allPatterns = patterns(groups, base: base, findings: findings)
        func paths(_ ps: [String], note: String = "") -> String {
            // One pattern on the line; a list of files one per line.
            if ps.count == 1 { return "    paths: [\(YAMLText.doubleQuoted(ps[0]))]" + note }
            return "    paths:" + note + "\n" + ps.map { "      - " + YAMLText.doubleQuoted($0) }.joined(separator: "\n")
        }
        for (gi, g) in groups.enumerated() {
            let pattern = allPatterns[gi]
            let rate = median(g.rates)
            if let r = rate { rates.append(r) }
            let rateNote = rate.map { String(format: "~%.1f Hz", $0) } ?? "rate unknown"
            switch g.kind {
            case .preset(let m):
                // Sensors every recording has; the preset's defaults first, the others listed.
                let units = g.sensorsByUnit.values
                let common = g.presetSensors.filter { s in units.allSatisfy { $0.contains(s) } }
                let preferred = common.filter { ["Accelerometer", "Gyroscope"].contains($0) }
                let chosen = preferred.isEmpty ? common : preferred
                let others = common.filter { !chosen.contains($0) }
                presetChosen[g.key] = chosen
                presetCommon[g.key] = chosen + others
                let missing = g.presetSensors.filter { !common.contains($0) }
                y.append("  # \(m.app.title): \(g.sensorsByUnit.count) recording(s)" + (rate.map { String(format: ", ~%.1f Hz", $0) } ?? "")
                         + "; units as the app writes them, converted to SI (docs/inputs.md, Phone-logger presets)")
                y.append("  - type: \(m.app.rawValue)")
                let depth = g.files.map { folders($0).count }.min() ?? 0
                if m.app.readsFolders {
                    let folderDepth = max(depth, 1)
                    let glob = (base == "." ? "" : Glob.escape(base) + "/") + Array(repeating: "*", count: folderDepth).joined(separator: "/")
                    y.append(paths([glob], note: "   # the export folders, one per recording"))
                } else {
                    y.append(paths(pattern))
                }
                y.append("    sensors: [\(chosen.map(YAMLText.quoted).joined(separator: ", "))]"
                         + (others.isEmpty ? "" : "   # also in every recording: \(YAMLText.comment(others.joined(separator: ", ")))")
                         + (missing.isEmpty ? "" : "; missing from some: \(YAMLText.comment(missing.joined(separator: ", ")))"))
                y += presetOptionLines(m)
            case .motioncollector:
                y.append("  # \(g.files.count) MotionCollector file(s), \(rateNote)" + (g.labels.isEmpty ? "" : ", labels in rows: \(YAMLText.comment(g.labels.joined(separator: ", ")))"))
                y.append("  - type: motioncollector")
                y.append(paths(pattern))
                let common = g.commonStreams ?? []
                if !common.isEmpty {
                    let missing = g.anyStreams.filter { !common.contains($0) }
                    y.append("    sensors: [\(common.map(YAMLText.quoted).joined(separator: ", "))]   # the sensors every file has" + (missing.isEmpty ? "" : " (\(YAMLText.comment(missing.joined(separator: ", "))) missing from some)"))
                }
            case .cwa(let gyro):
                y.append("  # \(g.files.count) Axivity CWA file(s), \(rateNote)" + (gyro ? ", with the gyroscope" : ""))
                y.append("  - type: cwa")
                y.append(paths(pattern))
                y.append("    sensors: [" + (gyro ? "acc, gyro" : "acc") + "]   # also: temperature (one reading per block)")
            case .gt3x:
                y.append("  # \(g.files.count) ActiGraph GT3X file(s), \(rateNote)")
                y.append("  - type: gt3x")
                y.append(paths(pattern))
                y.append("    sensors: [acc]")
            case .iio(let layout):
                y.append("  # \(g.files.count) IIO dump(s) with a copied sysfs folder, \(rateNote)")
                y.append("  - type: iio")
                y.append(paths(pattern))
                y.append("    layout: \(YAMLText.quoted(layout))")
            case .csv(let guess, let stem):
                let named = g.stems.count > 1 ? "\(g.files.count) file(s) with the same columns (\(g.stems.prefix(3).joined(separator: ", "))\(g.stems.count > 3 ? " …" : "")), one recording each"
                    : "\(g.files.count) file(s) named \(stem)"
                y.append("  # \(YAMLText.comment(named)), \(rateNote); time `\(YAMLText.comment(guess.timeColumn!))` in \(guess.timeUnit!.rawValue): \(YAMLText.comment(guess.timeReason))")
                y.append("  - type: csv")
                y.append(paths(pattern))
                if let sensor = streamName(g) { y.append("    sensor: \(YAMLText.quoted(sensor))   # the stream's name in every file (else each file's stem)") }
                if guess.delimiter != UInt8(ascii: ",") && !guess.sepLine { y.append("    delimiter: \(YAMLText.quoted(guess.delimiterText))") }
                if guess.skipLines > 0 { y.append("    skip_lines: \(guess.skipLines)") }
                if folderRecordings { y.append("    recording: \"{dirpath}\"   # the files of one folder are one recording") }
                y.append("    time: {column: \(YAMLText.quoted(guess.timeColumn!)), unit: \(guess.timeUnit!.rawValue)}")
                let prefix = sensorPrefix(stem)
                var names = CSVFileReport.channelNames(guess.valueColumns)
                if groups.count > 1 { names = names.map { $0.hasPrefix(prefix + "_") || $0 == prefix ? $0 : prefix + "_" + $0 } }
                names = names.map { n in var u = n, k = 2; while channelNamesUsed.contains(u) { u = "\(n)_\(k)"; k += 1 }; channelNamesUsed.insert(u); return u }
                y.append("    channels:   # check: output name: column")
                for (n, c) in zip(names, guess.valueColumns) { y.append("      \(n): \(YAMLText.quoted(c))") }
                y.append("    # units: {\(names.prefix(3).map { "\($0): ?" }.joined(separator: ", "))}   # check: each channel's unit as written (g, m/s^2, rad/s, deg/s, uT, kPa…; docs/inputs.md, Units)")
                if let l = guess.labelColumn, !g.labels.isEmpty { y.append("    label_column: \(YAMLText.quoted(l))") }
            }
            if let s = subjectLevel {
                let examples = distinct(g.files.map { folders($0)[s] })
                y.append("    subject: \(YAMLText.quoted(template(s)))   # the folder \(YAMLText.comment(examples.prefix(3).joined(separator: ", ")))\(examples.count > 3 ? " …" : "")")
            } else {
                y.append("    # no subject folders were found: each recording is its own subject; check: set `subject:` if you know who recorded what")
                y.append("    subject: \(YAMLText.quoted(folderRecordings ? "{dirpath}" : "{stem}"))")
            }
        }
        let slowest = rates.filter { $0 >= 10 }.min() ?? rates.min()
        let rate = slowest.map { r in niceRates.last { $0 <= r * 1.05 } ?? 1 } ?? 50
        y.append("resample:")
        y.append("  rate_hz: \(MessageNumber.number(rate))" + (slowest.map { String(format: "   # check: the slowest motion stream runs at ~%.1f Hz", $0) } ?? ""))
        // A stream slower than 12.5 Hz has intervals over the default max_gap_s (0.2 s): give it
        // 2.5 of its intervals, so that its samples are not all gaps. Every kind of input: a
        // preset's sensors every recording has (those left out of `sensors` too, so that adding
        // Sensor Logger's Barometer works as the comment says), AndroSensor's one stream, a csv
        // stream, MotionCollector's sensors; an iio stream (named by each file's stem) raises the default.
        var slow: [(String, Double)] = []
        var slowDefault = 0.2
        func note(_ name: String, _ r: Double?) {
            guard let r, r > 0, r < SlowStreams.slowBelowHz else { return }
            let gap = SlowStreams.suggestedMaxGap(medianIntervalS: 1 / r)
            if let i = slow.firstIndex(where: { $0.0 == name }) { slow[i].1 = Swift.max(slow[i].1, gap) } else { slow.append((name, gap)) }
        }
        for g in groups {
            switch g.kind {
            case .preset(let m) where m.app.readsFolders:
                for sensor in presetCommon[g.key] ?? [] { note(sensor, median(g.rateBySensor[sensor] ?? [])) }
            case .preset:
                note("AndroSensor", median(g.rates))
            case .csv(_, let stem):
                note(streamName(g) ?? stem, median(g.rates))
            case .motioncollector:
                for sensor in g.commonStreams ?? [] { note(sensor, median(g.rateByStream[sensor] ?? [])) }
            case .cwa, .gt3x:
                break
            case .iio:
                if let r = median(g.rates), r < SlowStreams.slowBelowHz { slowDefault = Swift.max(slowDefault, SlowStreams.suggestedMaxGap(medianIntervalS: 1 / r)) }
            }
        }
        if !slow.isEmpty || slowDefault != 0.2 {
            y.append("  max_gap_s: {default: \(MessageNumber.number(slowDefault))" + slow.map { ", \(YAMLText.quoted($0.0)): \(MessageNumber.number($0.1))" }.joined()
                     + "}   # slow streams: 2.5 of their intervals (a sample further apart than max_gap_s is a gap)")
        }
        y.append("window:")
        y.append("  length_s: 2.56     # check: the window your model takes")
        y.append("  stride_s: 1.28")
        let labels = groups.flatMap(\.labels)
        var classes: [String] = []
        for l in distinct(labels) { classes.append(l) }
        if !classes.isEmpty {
            y.append("labels:")
            y.append("  from: \(groups.first { !$0.labels.isEmpty }?.labelSource ?? "rows")")
            y.append("  classes: [\(classes.sorted(by: Text.utf8Less).map(YAMLText.quoted).joined(separator: ", "))]   # every label found in the files")
            notes.append("labels: from the files' label rows (\(classes.count) class(es))")
        } else if let l = labelLevel, recordingFolderLabels {
            let names = distinct(allFiles.map { folders($0)[l] })
            let activities = distinct(names.map(activityName))
            y.append("labels:   # from the name of each recording's folder: one activity per folder")
            y.append("  from: path")
            y.append("  template: \(YAMLText.quoted(template(l)))")
            if !labelMap.isEmpty {
                y.append("  map: {\(labelMap.map { "\(YAMLText.quoted($0.0)): \(YAMLText.quoted($0.1))" }.joined(separator: ", "))}   # the folder name without its number")
            }
            y.append("  classes: [\(activities.map(YAMLText.quoted).joined(separator: ", "))]")
            notes.append("labels: from the recording folders' names (\(shown(activities))): no file has a label column, and each recording folder is named after an activity")
        } else if let l = labelLevel {
            let names = distinct(allFiles.map { folders($0)[l] })
            y.append("labels:   # from the folder each recording sits in")
            y.append("  from: path")
            y.append("  template: \(YAMLText.quoted(template(l)))")
            y.append("  classes: [\(names.map(YAMLText.quoted).joined(separator: ", "))]")
            notes.append("labels: from the folders \(shown(names)) (`\(template(l))`): no file has a label column")
        } else {
            y.append("# no labels were found (no label column, no activity folders): windows are unlabelled (y = -1)")
            notes.append("no labels: no file has a label column, and no folder names activities"
                         + (levelNotes.isEmpty ? " (the files sit in no folder)" : " (" + levelNotes.joined(separator: "; ") + ")"))
        }
        // Subjects (or recordings when no folder names them): with few, fractions that give every
        // split at least one, so that `allocation: exact` leaves none empty.
        let units: Int = {
            if let s = subjectLevel { return distinct(allFiles.map { folders($0)[s] }).count }
            return folderRecordings ? distinct(allFiles.map(parentDirectory)).count : allFiles.count
        }()
        // Hundredths that add up to 1 exactly in decimal: validation and test just under 1/n
        // each, which largest-remainder allocation rounds up to one each.
        func fractions(_ n: Int, _ what: String) -> String? {
            if n >= 3 && n < 10 {
                let hundredths = 100 / n
                let one = String(format: "0.%02d", hundredths), train = String(format: "0.%02d", 100 - 2 * hundredths)
                return "  fractions: {train: \(train), validation: \(one), test: \(one)}   # \(n) \(what): \(n - 2) / 1 / 1"
            }
            if n == 2 { return "  fractions: {train: 0.5, validation: 0, test: 0.5}   # 2 \(what): 1 / 0 / 1" }
            if n == 1 { return "  fractions: {train: 1, validation: 0, test: 0}   # 1 \(what.replacingOccurrences(of: "subjects", with: "subject").replacingOccurrences(of: "recordings", with: "recording")): nothing to hold out" }
            return nil
        }
        // The recordings, and each one's class when the labels come from the path.
        let recordingOf: (String) -> String = { folderRecordings ? parentDirectory($0) : $0 }
        let recordings = distinct(allFiles.map(recordingOf))
        var classOf: [String: String] = [:]
        if classes.isEmpty, let l = labelLevel {
            for f in allFiles { classOf[recordingOf(f)] = recordingFolderLabels ? activityName(folders(f)[l]) : folders(f)[l] }
        }
        y.append("split:")
        // No subject folders with labels from the path: every recording is its own subject
        // anyway, so they are split as recordings, stratified.
        let unnamedSubjects = subjectLevel == nil && !classOf.isEmpty
        if (subjectLevel != nil && units == 1 || unnamedSubjects) && recordings.count >= 3 {
            // One subject, none to hold out: recordings are split instead; with labels from
            // the path, each class's recordings on their own (docs/pipeline.md, "Splits and folds").
            let who = unnamedSubjects ? "no subject folders" : "1 subject"
            y.append(unnamedSubjects
                     ? "  # no subject folders: each recording is its own subject, so recordings are split (check: if one person recorded several, they may sit in several splits)"
                     : "  # 1 subject: none to hold out, so recordings are split (validation and test then measure new recordings of the same person, not new people)")
            y.append("  by: recording")
            y.append("  allocation: exact   # each split gets its share of recordings, by count")
            if !classOf.isEmpty {
                var perClass: [String: Int] = [:]
                for r in recordings { if let c = classOf[r] { perClass[c, default: 0] += 1 } }
                let smallest = perClass.values.min() ?? 0
                y.append("  stratify: label     # each class's recordings are shared out on their own, so every split gets every class it can")
                if let line = fractions(smallest, "recordings in the smallest class") { y.append(line) }
                notes.append("split: \(who), so by recording, stratified by label (\(perClass.count) classes, \(smallest) recording(s) in the smallest)"
                             + (smallest < 3 ? "; a class needs 3 recordings for every split to have it" : ""))
            } else {
                if let line = fractions(recordings.count, "recordings") { y.append(line) }
                notes.append("split: \(who), so by recording" + (classes.isEmpty ? "" : " (not stratified: `stratify: label` needs labels from the path, these come from rows)"))
            }
        } else {
            y.append("  by: subject")
            y.append("  allocation: exact   # each split gets its share of subjects, by count")
            if let line = fractions(units, "subjects") { y.append(line) }
            if units == 2 && recordings.count >= 3 {
                y.append("  # 2 subjects leave none for validation; `by: recording` (with `stratify: label` when labels come from the path) would give every split recordings, mixing the two people across splits")
            }
        }
        y.append("output:")
        y.append("  type: hdf5")
        y.append("  path: \(YAMLText.quoted("build/" + sanitizedName(name)))")
        return (y.joined(separator: "\n") + "\n", notes)
    }

    /// Globs relative to the pipeline's folder matching exactly each group's files: `**/NAME`
    /// when no other file found has that name, `**/*.EXT` when no other file has that
    /// extension, else the files listed; names are escaped (``Glob/escape(_:)``), so that a `*`,
    /// `?`, `[` or backslash in a file or folder name matches only itself.
    static func patterns(_ groups: [Group], base: String, findings: [Finding]) -> [[String]] {
        let prefix = base == "." ? "" : Glob.escape(base) + "/"
        // `csv.gz` for a compressed `rec.csv.gz` (docs/inputs.md, "Compressed files").
        func ext(_ name: String) -> String? {
            let inner = PathText.dropCompressionSuffix(name)
            guard let dot = inner.lastIndex(of: "."), dot != inner.startIndex else { return nil }
            return String(inner[inner.index(after: dot)...]) + name.dropFirst(inner.count)
        }
        // The group whose files have a name (or extension): its index, or -1 when files of
        // several groups, or files not used, have it.
        var nameOwner: [Text.Bytes: Int] = [:], extOwner: [Text.Bytes: Int] = [:]
        var groupOf: [Text.Bytes: Int] = [:]
        for (i, g) in groups.enumerated() { for f in g.files { groupOf[Text.Bytes(f)] = i } }
        for f in findings {
            let owner = groupOf[Text.Bytes(f.path)] ?? -1
            let name = PathText.lastComponent(f.path)
            nameOwner[Text.Bytes(name)] = nameOwner[Text.Bytes(name)].map { $0 == owner ? owner : -1 } ?? owner
            if let e = ext(name) { extOwner[Text.Bytes(e)] = extOwner[Text.Bytes(e)].map { $0 == owner ? owner : -1 } ?? owner }
        }
        return groups.enumerated().map { (i, g) -> [String] in
            var names: [Text.Bytes: String] = [:], exts: [Text.Bytes: String] = [:]
            var noExt = false
            for f in g.files {
                let n = PathText.lastComponent(f)
                names[Text.Bytes(n)] = n
                if let e = ext(n) { exts[Text.Bytes(e)] = e } else { noExt = true }
            }
            if names.count == 1, let n = names.first, nameOwner[n.key] == i {
                return [prefix + "**/" + Glob.escape(n.value)]
            }
            if !noExt, exts.count == 1, let e = exts.first, extOwner[e.key] == i {
                return [prefix + "**/*." + Glob.escape(e.value)]
            }
            return g.files.map { prefix + Glob.escape($0) }
        }
    }

    /// The stream name of a csv input of files named differently (`rec-01.csv`, `rec-02.csv`):
    /// their common name without digits (`rec`), so that every recording has the same stream;
    /// nil when the files share one name (their stem names the stream).
    static func streamName(_ g: Group) -> String? {
        guard case .csv = g.kind, g.stems.count > 1 else { return nil }
        let family = stemFamily(g.stems[0]).trimmingCharacters(in: CharacterSet(charactersIn: "-_ .()"))
        let name = CSVFileReport.channelNames([family.isEmpty ? "csv" : family])[0]
        return name.isEmpty ? "csv" : name
    }

    /// The distinct strings of `xs` by their bytes (NFC and NFD `café` are two), sorted by bytes.
    static func distinct(_ xs: [String]) -> [String] {
        var seen: [Text.Bytes: String] = [:]
        for x in xs { seen[Text.Bytes(x)] = x }
        return seen.keys.sorted().map { seen[$0]! }
    }

    static func sensorPrefix(_ stem: String) -> String {
        let s = stem.lowercased()
        if s.contains("gyro") { return "gyro" }
        if s.contains("magnet") || s.hasPrefix("mag") { return "mag" }
        if s.contains("gravity") { return "grav" }
        if s.contains("linear") || s.contains("useracc") { return "lin" }
        if s.contains("acc") { return "acc" }
        if s.contains("baro") || s.contains("pressure") { return "baro" }
        if s.contains("orient") { return "ori" }
        return CSVFileReport.channelNames([stem])[0]
    }

    /// The folder of `path` (`.` for a bare name).
    static func parentDirectory(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func sanitizedName(_ s: String) -> String {
        let n = CSVFileReport.channelNames([s])[0]
        return n.isEmpty ? "dataset" : n
    }

    static func median(_ xs: [Double]) -> Double? {
        guard !xs.isEmpty else { return nil }
        let s = xs.sorted()
        return s[s.count / 2]
    }

    /// `to` relative to the folder `from` (both relative to the current folder or absolute).
    static func relativePath(from: String, to: String) -> String {
        func absolute(_ p: String) -> [String] {
            let full = p.hasPrefix("/") ? p : FileManager.default.currentDirectoryPath + "/" + p
            var parts: [String] = []
            for c in full.split(separator: "/") {
                if c == "." || c.isEmpty { continue }
                if c == ".." { if !parts.isEmpty { parts.removeLast() } } else { parts.append(String(c)) }
            }
            return parts
        }
        let a = absolute(from.isEmpty ? "." : from), b = absolute(to)
        var i = 0
        while i < a.count && i < b.count && Text.sameBytes(a[i], b[i]) { i += 1 }
        let up = Array(repeating: "..", count: a.count - i)
        let rest = up + b[i...]
        return rest.isEmpty ? "." : rest.joined(separator: "/")
    }
}
