import Foundation
import MotionCore
import MotionDataset

/// `storage: "createml"` (docs/dataset-format.md, "Create ML folders"): the files hold rows for
/// Create ML, not windows. Each CSV is read through: `files.readable` (UTF-8, a header, every row
/// `1 + C` numbers, the time increasing), `files.metadata` (the header is `time` and the channels
/// of `x`; the file sits in its class's folder), `counts.file` (its rows, first and last time
/// against the manifest's `createml.files` entry); each split's `annotations.csv` must list
/// exactly the split's files with their labels and spans. The window checks do not apply.
extension _ValidationRun {
    static let createMLStorage = "createml"

    /// The checks on windows and arrays, which a Create ML folder has none of.
    static let windowChecks: [CheckID] = [
        .filesContainer, .arraysShape, .arraysDtype, .labelsRange, .indicesRange, .valuesFinite,
        .normalizationStats, .splitsDisjointWindows, .windowsTimeOrder, .featuresRecomputed,
    ]

    struct _CreateMLEntry {
        var path: String
        var label: String
        var recording: String
        var rows: Int
        var startTime: Double
        var endTime: Double
    }

    /// The manifest's `createml.files`, or nil (a `manifest.schema` failure) when it does not decode.
    func createMLEntries() -> [String: _CreateMLEntry]? {
        guard case .object(let top)? = manifest.createml, case .array(let list)? = top["files"] else {
            builder.fail(.manifestSchema, Self.manifestName, "`createml.files` must be a list of the Create ML files")
            return nil
        }
        var out: [String: _CreateMLEntry] = [:]
        for (i, v) in list.enumerated() {
            guard case .object(let o) = v, case .string(let p)? = o["path"], case .string(let l)? = o["label"],
                  case .string(let r)? = o["recording"], case .int(let n)? = o["rows"],
                  let s = o["start_time"]?.doubleValue, let e = o["end_time"]?.doubleValue
            else {
                builder.fail(.manifestSchema, Self.manifestName, "`createml.files[\(i)]` must have `path`, `label`, `recording` (strings), `rows` (a whole number), `start_time` and `end_time` (numbers)")
                return nil
            }
            out[p] = _CreateMLEntry(path: p, label: l, recording: r, rows: Int(n), startTime: s, endTime: e)
        }
        return out
    }

    /// Checks every listed file of a Create ML folder (besides its bytes: `files.*`).
    func checkCreateMLFile(_ file: DatasetManifest.DataFile, entries: [String: _CreateMLEntry]) {
        builder.ran(.filesReadable)
        builder.ran(.filesMetadata)
        builder.ran(.countsFile)
        guard let bytes = try? RegularFile.readAll(path(file.path)).get() else {
            builder.fail(.filesReadable, file.path, "cannot be read")
            incomplete.insert(file.path)
            return
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            builder.fail(.filesReadable, file.path, "is not UTF-8 text")
            return
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.last == "" else {
            builder.fail(.filesReadable, file.path, "does not end with a line break (a file cut short?)")
            return
        }
        let body = lines.dropLast()
        let splitPrefix = file.split.rawValue + "/"
        if file.path == splitPrefix + "annotations.csv" {
            checkAnnotations(file, lines: Array(body), entries: entries)
            return
        }
        guard let entry = entries[file.path] else {
            builder.fail(.filesMetadata, file.path, "is not in the manifest's `createml.files`")
            return
        }
        let folder = splitPrefix + entry.label + "/"
        if !file.path.hasPrefix(folder) || file.path.dropFirst(folder.count).contains("/") {
            builder.fail(.filesMetadata, file.path, "is not in its class's folder `\(folder)` (its label is `\(entry.label)`)")
        }
        let header = (["time"] + manifest.channelNames).joined(separator: ",")
        guard let first = body.first, first == header else {
            builder.fail(.filesMetadata, file.path, "line 1 must be the header `\(header)` (time, then the channels of x), not `\(body.first?.prefix(120) ?? "")`")
            return
        }
        let columns = 1 + manifest.channelNames.count
        var previous = -Double.infinity
        var firstTime: Double?
        var lastTime = Double.nan
        for (i, line) in body.dropFirst().enumerated() {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count == columns else {
                builder.fail(.filesReadable, file.path, "line \(i + 2) has \(fields.count) fields, not \(columns) (time and \(columns - 1) channels)")
                return
            }
            guard let t = Double(fields[0]), t.isFinite, t > previous else {
                builder.fail(.filesReadable, file.path, "line \(i + 2): the time `\(fields[0])` is not a finite number after the row before's \(previous)")
                return
            }
            for (c, f) in fields.dropFirst().enumerated() where Float(f).map({ !$0.isFinite }) ?? true {
                builder.fail(.filesReadable, file.path, "line \(i + 2), channel `\(manifest.channelNames[c])`: `\(f.prefix(40))` is not a finite number")
                return
            }
            previous = t
            if firstTime == nil { firstTime = t }
            lastTime = t
        }
        let rows = body.count - 1
        if rows != entry.rows {
            builder.fail(.countsFile, file.path, "holds \(rows) rows, but the manifest's `createml.files` entry says \(entry.rows)")
        }
        if rows < manifest.windowLength {
            builder.fail(.countsFile, file.path, "holds \(rows) rows, fewer than one window (\(manifest.windowLength)): Create ML cannot cut a prediction window from it")
        }
        if let firstTime, firstTime != entry.startTime || !(lastTime < entry.endTime) {
            builder.fail(.countsFile, file.path, "spans \(firstTime)…\(lastTime) s, but the manifest's entry says [\(entry.startTime), \(entry.endTime))")
        }
    }

    /// A split's `annotations.csv`: the header `file,label,start_time,end_time`, then each of the
    /// split's files (relative to the split folder) with its label and span, in manifest order.
    private func checkAnnotations(_ file: DatasetManifest.DataFile, lines: [Substring], entries: [String: _CreateMLEntry]) {
        let header = "file,label,start_time,end_time"
        guard lines.first == Substring(header) else {
            builder.fail(.filesMetadata, file.path, "line 1 must be the header `\(header)`")
            return
        }
        let prefix = file.split.rawValue + "/"
        let expected = manifest.files.filter { $0.split == file.split && $0.path != file.path }.compactMap { entries[$0.path] }
        if lines.count - 1 != expected.count {
            builder.fail(.countsFile, file.path, "lists \(lines.count - 1) files, but split `\(file.split.rawValue)` has \(expected.count)")
            return
        }
        for (i, (line, e)) in zip(lines.dropFirst(), expected).enumerated() {
            let want = "\(e.path.dropFirst(prefix.count)),\(e.label),\(e.startTime),\(e.endTime)"
            // Names with a comma or a quote are quoted in the file: compared as written.
            if line != Substring(want) && !line.contains("\"") {
                builder.fail(.countsFile, file.path, "line \(i + 2) is `\(line.prefix(160))`, but the manifest gives `\(want)`")
            }
        }
    }
}
