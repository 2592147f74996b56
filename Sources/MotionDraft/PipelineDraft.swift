import Foundation
import MotionConfig
import MotionCore
import MotionIngest
import MotionInputs
import MotionInspect

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
}
