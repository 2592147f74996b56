#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MotionCore

/// The ownership rules for the folders a run writes (docs/hardening.md, "Data safety: output
/// folders"): motionprep replaces a folder only when it is empty or is one of its own datasets
/// (or `--worker` parts) holding nothing but the files that dataset lists; it never writes into a
/// folder that holds an input, the pipeline file or a part being merged; it never follows a
/// symbolic link in place of the output folder.
enum OutputFolder {
    /// What is at a path that a run would replace.
    enum Kind: Equatable {
        case absent
        case empty
        /// A motionprep dataset or part; `entries` are every file and folder in it (relative
        /// paths), all of them known to belong to it.
        case own(entries: [String])
        /// Anything else, with the reason as a sentence fragment ("it holds notes.txt").
        case foreign(String)
    }

    /// The mark written into every staging folder motionprep creates (`DIR.partial/`).
    static let stagingMark = ".motionprep-partial"
    static let stagingMarkText = "This folder is a motionprep run in progress (or interrupted: `motionprep run --resume`). motionprep deletes it when the run ends.\n"

    /// Classifies `path` without following a symbolic link at `path` itself.
    static func classify(_ path: String) -> Kind {
        var st = stat()
        guard lstat(path, &st) == 0 else { return .absent }
        switch st.st_mode & S_IFMT {
        case S_IFDIR: break
        case S_IFLNK:
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
            return .foreign("it is a symbolic link (to \(target)), and motionprep does not write through links in place of its output folder")
        default:
            return .foreign("it is \(describe(st.st_mode)), not a folder")
        }
        let entries = walk(path)
        if entries.isEmpty { return .empty }
        let known: Set<String>
        if let k = datasetFiles(path) {
            known = k
        } else if let k = partFiles(path, entries: entries) {
            known = k
        } else {
            return .foreign("it is not a motionprep dataset (no motionprep manifest.json or part.json) and holds \(list(entries.filter { !$0.isDirectory }.map(\.path), or: entries.map(\.path)))")
        }
        var unknown: [String] = []
        for e in entries {
            if !e.isRegular && !e.isDirectory {
                unknown.append(e.path + " (\(describe(e.mode)))")
            } else if e.isDirectory ? !known.contains(where: { $0.hasPrefix(e.path + "/") }) : !known.contains(e.path) {
                unknown.append(e.path)
            }
        }
        if !unknown.isEmpty {
            return .foreign("it holds \(list(unknown, or: unknown)), which \(unknown.count == 1 ? "is" : "are") not part of the motionprep dataset there")
        }
        return .own(entries: entries.map(\.path))
    }

    /// True when `path` is a staging folder motionprep made: it carries `stagingMark`, or it is
    /// a complete dataset of its own (a run killed after removing the mark, just before the
    /// commit).
    static func isOwnStaging(_ path: String) -> Bool {
        var st = stat()
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { return false }
        var mark = stat()
        if lstat(path + "/" + stagingMark, &mark) == 0, (mark.st_mode & S_IFMT) == S_IFREG { return true }
        if case .own = classify(path) { return true }
        return false
    }

    /// Removes an own folder's `entries` (as `classify` listed them: files, then folders deepest
    /// first), never anything else: a file that appeared since stays, with its folders.
    ///
    /// - Returns: the entries that were left (empty when the folder is gone).
    @discardableResult
    static func remove(_ root: String, entries: [String]) -> [String] {
        let fm = FileManager.default
        var leftovers: [String] = []
        // Deepest first: files and folders sorted by depth, descending.
        let ordered = entries.sorted { $0.split(separator: "/").count > $1.split(separator: "/").count }
        for e in ordered {
            let p = root + "/" + e
            var st = stat()
            guard lstat(p, &st) == 0 else { continue }
            if (st.st_mode & S_IFMT) == S_IFDIR {
                if rmdir(p) != 0 { leftovers.append(e) }
            } else if unlink(p) != 0 {
                leftovers.append(e)
            }
        }
        if rmdir(root) != 0 {
            var st = stat()
            if lstat(root, &st) == 0 {
                let rest = ((try? fm.subpathsOfDirectory(atPath: root)) ?? []).sorted()
                return rest.isEmpty ? leftovers : rest
            }
        }
        return []
    }

    /// Refuses an output folder (or its staging folder) that is, or is a parent of, a file or
    /// folder the run reads: a recording, a label file, an IIO layout folder, the pipeline file,
    /// a part being merged. Paths are compared after resolving symbolic links, so a link to the
    /// input folder is caught too.
    ///
    /// - Parameter reads: (path, what it is) pairs, e.g. `("data/s01/rec.csv", "input file")`.
    static func checkOutside(output: String, reads: [(path: String, role: String)]) throws {
        let out = resolved(output)
        for (path, role) in reads {
            let r = resolved(path)
            if r == out || r.hasPrefix(out == "/" ? "/" : out + "/") {
                let how = r == out ? "is" : "contains"
                throw MotionError(.cannotCreate, "refusing to write the dataset to \(output): it \(how) the \(role) \(path), and a run replaces its output folder whole; choose an output folder outside the inputs (`output.path` or `--out`)")
            }
        }
    }

    /// `path` with every symbolic link resolved; for a path that does not exist yet, its nearest
    /// existing ancestor resolved and the rest appended.
    static func resolved(_ path: String) -> String {
        var head = PathText.absolute(path)
        var tail: [String] = []
        while true {
            if let r = realpath(head, nil) {
                defer { free(r) }
                let base = String(cString: r)
                return tail.isEmpty ? base : PathText.normalize(base + "/" + tail.reversed().joined(separator: "/"))
            }
            if head == "/" { return PathText.absolute(path) }
            tail.append(PathText.lastComponent(head))
            head = PathText.parent(head)
        }
    }

    // MARK: - Internals

    struct Entry {
        var path: String
        var mode: mode_t
        var isDirectory: Bool { (mode & S_IFMT) == S_IFDIR }
        var isRegular: Bool { (mode & S_IFMT) == S_IFREG }
    }

    /// Every entry below `root` (relative paths, sorted), without following links.
    static func walk(_ root: String) -> [Entry] {
        var out: [Entry] = []
        func visit(_ rel: String) {
            let dir = rel.isEmpty ? root : root + "/" + rel
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
            for name in names {
                let r = rel.isEmpty ? name : rel + "/" + name
                var st = stat()
                guard lstat(root + "/" + r, &st) == 0 else { continue }
                out.append(Entry(path: r, mode: st.st_mode))
                if (st.st_mode & S_IFMT) == S_IFDIR { visit(r) }
            }
        }
        visit("")
        return out
    }

    /// The files of a motionprep dataset at `root`, from its manifest: nil when there is no
    /// motionprep manifest.
    static func datasetFiles(_ root: String) -> Set<String>? {
        guard let object = readJSON(root + "/manifest.json"), ["motionprep.dataset", "motionprep.applied"].contains(object["format"]?.stringValue ?? "") else { return nil }
        var known: Set<String> = ["manifest.json", "SHA256SUMS", stagingMark]
        for split in (object["splits"]?.objectValue ?? [:]).values {
            for file in split["files"]?.arrayValue ?? [] {
                if let p = file["path"]?.stringValue, !p.hasPrefix("/"), !p.split(separator: "/").contains("..") { known.insert(PathText.normalize(p)) }
            }
        }
        return known
    }

    /// The files of a `--worker` part at `root`: `part.json`, `state.json` and its record files.
    static func partFiles(_ root: String, entries: [Entry]) -> Set<String>? {
        guard let object = readJSON(root + "/part.json"), object["format"]?.stringValue == "motionprep.part" else { return nil }
        var known: Set<String> = ["part.json", PartManifest.checksumFileName, RunState.fileName, stagingMark, "records/"]
        for e in entries where e.isRegular && e.path.hasPrefix("records/") && !e.path.dropFirst(8).contains("/") && e.path.hasSuffix(".mprec") {
            known.insert(e.path)
        }
        return known
    }

    private static func readJSON(_ path: String) -> JSONValue? {
        var st = stat()
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size < 256 << 20,
              let data = (try? RegularFile.contents(atPath: path)) ?? nil, let value = try? JSONParser.parse(Array(data)),
              value.objectValue != nil else { return nil }
        return value
    }

    /// "a.txt", "a.txt and b.txt", "a.txt, b.txt and 3 other entries".
    static func list(_ preferred: [String], or all: [String]) -> String {
        let names = preferred.isEmpty ? all : preferred
        switch names.count {
        case 0: return "nothing"
        case 1: return names[0]
        case 2: return "\(names[0]) and \(names[1])"
        default: return "\(names[0]), \(names[1]) and \(names.count - 2) other entr\(names.count == 3 ? "y" : "ies")"
        }
    }

    static func describe(_ mode: mode_t) -> String { OutputFiles.Kind(mode: mode).phrase }
}
