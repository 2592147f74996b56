import Foundation
import MotionConfig
import MotionCore
import MotionIngest
import MotionInputs
import MotionInspect

// The files under the data folder, and the folder layout: recordings, subjects and labels from folders.

extension PipelineDraft {
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
