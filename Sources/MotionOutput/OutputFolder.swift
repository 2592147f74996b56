#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MotionChecksum
import MotionCore

/// The ownership rules for the folders a run writes (docs/hardening.md, "Data safety: output
/// folders"): motionprep replaces a folder only when it is empty or is one of its own datasets
/// (or `--worker` parts) holding nothing but the files that dataset lists; it never writes into a
/// folder that holds an input, the pipeline file or a part being merged; it never follows a
/// symbolic link in place of the output folder.
package enum OutputFolder {
    /// What is at a path that a run would replace.
    package enum Kind: Equatable {
        case absent
        case empty
        /// A motionprep dataset or part; `entries` are every file and folder in it (relative
        /// paths), all of them known to belong to it.
        case own(entries: [String])
        /// A folder holding the staging mark and only what motionprep writes while staging: a
        /// staging folder moved into place a moment before its mark was removed, or an empty
        /// folder of the user's that a commit was filling (`DatasetStaging.commit`). Its entries
        /// are removed one by one, and the folder itself is kept and filled again.
        case filling(entries: [String])
        /// Anything else, with the reason as a sentence fragment ("it holds notes.txt").
        case foreign(String)
    }

    /// The mark written into every staging folder motionprep creates (`DIR.partial/`).
    package static let stagingMark = ".motionprep-partial"
    package static let stagingMarkText = "This folder is a motionprep run in progress (or interrupted: `motionprep run --resume`). motionprep deletes it when the run ends.\n"
    /// The mark a two-step commit writes into the previous dataset just before it renames it to
    /// `DIR.previous/`, so that only a folder motionprep set aside is ever put back or removed.
    package static let previousMark = ".motionprep-previous"
    package static let previousMarkText = "This folder is a motionprep dataset set aside while a newer one replaced it. motionprep removes it, or puts it back, on the next run.\n"

    /// Classifies `path` without following a symbolic link at `path` itself.
    ///
    /// Ownership is decided by content, as `git status` decides that a checkout is clean
    /// (docs/hardening.md, "Data safety: output folders"): a folder is an own dataset only when
    /// every entry in it is a file its `manifest.json` lists, with the listed size and SHA-256
    /// (or `manifest.json` and a `SHA256SUMS` that agrees with it), and an own part only when
    /// `part.json` matches `part.json.sha256` and every record starts and ends as a record does.
    package static func classify(_ path: String) -> Kind {
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
        if hasMark(path + "/" + stagingMark, text: stagingMarkText) {
            // A staging folder moved into place whose mark was not yet removed, or an empty
            // folder of the user's being filled (`DatasetStaging.commit`): staging rules.
            switch classifyStaging(path, entries: entries) {
            case .own(let e): return .filling(entries: e)
            default: break
            }
        }
        if let claims = datasetClaims(path) {
            if let problem = firstForeign(path, entries: entries, claims: claims) {
                return .foreign(problem)
            }
            return .own(entries: entries.map(\.path))
        }
        if let problem = partProblem(path, entries: entries) {
            return .foreign(problem)
        }
        if FileManager.default.fileExists(atPath: path + "/part.json") {
            return .own(entries: entries.map(\.path))
        }
        return .foreign("it is not a motionprep dataset (no motionprep manifest.json or part.json) and holds \(list(entries.filter { !$0.isDirectory }.map(\.path), or: entries.map(\.path)))")
    }

    /// Classifies a staging folder (`DIR.partial/`) by what motionprep writes there
    /// (docs/hardening.md, "Staging folders"): `.own` when every entry is one of the files a
    /// run, `apply` or `merge` writes into it, each starting as such a file starts; anything
    /// else is `.foreign`, naming the first entry in the way. The mark itself is not required
    /// here (see `isOwnStaging`).
    package static func classifyStaging(_ path: String, entries: [Entry]? = nil) -> Kind {
        var st = stat()
        guard lstat(path, &st) == 0 else { return .absent }
        guard (st.st_mode & S_IFMT) == S_IFDIR else { return .foreign("it is \(describe(st.st_mode)), not a folder") }
        let entries = entries ?? walk(path)
        if entries.isEmpty { return .empty }
        for e in entries {
            if let why = StagingEntry.problem(root: path, entry: e) {
                return .foreign("it holds \(e.path), which \(why)")
            }
        }
        return .own(entries: entries.map(\.path))
    }

    /// True when `path` is a staging folder motionprep made: it carries `stagingMark` with the
    /// mark's exact text, and every entry in it is one motionprep writes there.
    package static func isOwnStaging(_ path: String) -> Bool {
        var st = stat()
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { return false }
        guard hasMark(path + "/" + stagingMark, text: stagingMarkText) else { return false }
        if case .own = classifyStaging(path) { return true }
        return false
    }

    /// True when `path` is a regular file holding exactly `text` (a mark motionprep wrote).
    package static func hasMark(_ path: String, text: String) -> Bool {
        var st = stat()
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size == text.utf8.count else { return false }
        return (FileManager.default.contents(atPath: path)).map { Array($0) == Array(text.utf8) } ?? false
    }

    /// Removes an own folder's `entries` (as `classify` listed them: files, then folders deepest
    /// first), never anything else: a file that appeared since stays, with its folders.
    ///
    /// - Returns: the entries that were left (empty when the folder is gone).
    @discardableResult
    package static func remove(_ root: String, entries: [String]) -> [String] {
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

    /// Removes `entries` below `root` (files, then folders deepest first), keeping `root`.
    package static func removeEntries(_ root: String, entries: [String]) {
        let ordered = entries.sorted { $0.split(separator: "/").count > $1.split(separator: "/").count }
        for e in ordered {
            let p = root + "/" + e
            var st = stat()
            guard lstat(p, &st) == 0 else { continue }
            if (st.st_mode & S_IFMT) == S_IFDIR { rmdir(p) } else { unlink(p) }
        }
    }

    /// Refuses an output folder (or its staging folder) that is, or is a parent of, a file or
    /// folder the run reads: a recording, a label file, an IIO layout folder, the pipeline file,
    /// a part being merged. Paths are compared after resolving symbolic links, so a link to the
    /// input folder is caught too.
    ///
    /// - Parameter reads: (path, what it is) pairs, e.g. `("data/s01/rec.csv", "input file")`.
    package static func checkOutside(output: String, reads: [(path: String, role: String)]) throws {
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
    package static func resolved(_ path: String) -> String {
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

    package struct Entry {
        package var path: String
        package var mode: mode_t
        package var size: Int = 0
        package var isDirectory: Bool { (mode & S_IFMT) == S_IFDIR }
        package var isRegular: Bool { (mode & S_IFMT) == S_IFREG }
    }

    /// Every entry below `root` (relative paths, sorted), without following links.
    package static func walk(_ root: String) -> [Entry] {
        var out: [Entry] = []
        func visit(_ rel: String) {
            let dir = rel.isEmpty ? root : root + "/" + rel
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
            for name in names {
                let r = rel.isEmpty ? name : rel + "/" + name
                var st = stat()
                guard lstat(root + "/" + r, &st) == 0 else { continue }
                out.append(Entry(path: r, mode: st.st_mode, size: Int(st.st_size)))
                if (st.st_mode & S_IFMT) == S_IFDIR { visit(r) }
            }
        }
        visit("")
        return out
    }

    /// A file a motionprep manifest (or a part's `partition_summary`) lists, with the size and
    /// SHA-256 it lists, decoded through `JSONNode`: a path inside the folder, a whole number of
    /// bytes ≥ 0, 64 lowercase hex digits.
    package struct Claim: JSONDecodable {
        package var path: String
        package var bytes: Int
        package var sha256: String

        package init(json: JSONNode) throws(JSONProblem) {
            path = try json["path"].relativePath(inside: "the folder")
            bytes = try json["bytes"].int(min: 0)
            sha256 = try json["sha256"].sha256()
        }
    }

    /// What the motionprep manifest at `root` claims: every listed data file with its size and
    /// hash. Nil when there is no motionprep manifest (or it lists a file without both).
    package static func datasetClaims(_ root: String) -> [String: Claim]? {
        guard let manifest = readJSON(root + "/manifest.json"),
              ["motionprep.dataset", "motionprep.applied"].contains((try? manifest["format"].string()) ?? "") else { return nil }
        var claims: [String: Claim] = [:]
        for (_, split) in (try? manifest["splits"].members()) ?? [] {
            for file in (try? split["files"].items()) ?? [] {
                guard let claim = try? file.decode(Claim.self) else { return nil }
                claims[claim.path] = claim
            }
        }
        return claims
    }

    /// The first reason an entry of a dataset folder is not the manifest's (as a sentence
    /// fragment), or nil when every entry is: a listed file with the listed size and SHA-256,
    /// a folder above listed files, `manifest.json`, a `SHA256SUMS` naming exactly the listed
    /// files with their hashes, the marks of a commit.
    package static func firstForeign(_ root: String, entries: [Entry], claims: [String: Claim]) -> String? {
        for e in entries {
            let full = root + "/" + e.path
            if e.isDirectory {
                if !claims.keys.contains(where: { $0.hasPrefix(e.path + "/") }) { return "it holds \(e.path), which is not part of the motionprep dataset there" }
                continue
            }
            guard e.isRegular else { return "it holds \(e.path) (\(describe(e.mode))), which is not part of the motionprep dataset there" }
            switch e.path {
            case "manifest.json": continue
            case stagingMark: if hasMark(full, text: stagingMarkText) { continue }
            case previousMark: if hasMark(full, text: previousMarkText) { continue }
            case "SHA256SUMS":
                if let why = sumsProblem(full, claims: claims) { return "its SHA256SUMS \(why), so it is not the motionprep dataset's" }
                continue
            default: break
            }
            guard let claim = claims[e.path] else { return "it holds \(e.path), which is not part of the motionprep dataset there" }
            if e.size != claim.bytes {
                return "it holds \(e.path) of \(e.size) bytes, where its manifest.json lists \(claim.bytes): not the file motionprep wrote"
            }
            if !HashCache.shared.matches(full, sha256: claim.sha256) {
                return "it holds \(e.path), whose SHA-256 is not the one its manifest.json lists: not the file motionprep wrote"
            }
        }
        return nil
    }

    /// Why a `SHA256SUMS` file does not name exactly the claimed files with their hashes.
    package static func sumsProblem(_ path: String, claims: [String: Claim]) -> String? {
        guard let data = FileManager.default.contents(atPath: path), data.count < 64 << 20,
              let text = String(data: data, encoding: .utf8) else { return "is not readable text" }
        var seen = Set<String>()
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[1].hasPrefix(" ") else { return "is not in `sha256sum` format" }
            let name = PathText.normalize(String(parts[1].dropFirst()))
            guard let claim = claims[name], claim.sha256 == parts[0].lowercased() else { return "names \(name) with a hash manifest.json does not list" }
            seen.insert(name)
        }
        return seen.count == claims.count ? nil : "does not name every file manifest.json lists"
    }

    /// Why `root` is not an own `--worker` part, or nil when it is one (or is no part at all:
    /// no `part.json`): `part.json` must match `part.json.sha256`, and besides them only
    /// `state.json` (a JSON object), `records/` with record files (starting and ending with the
    /// record format's magic), and the marks may be there.
    package static func partProblem(_ root: String, entries: [Entry]) -> String? {
        guard let part = readJSON(root + "/part.json"), (try? part["format"].string()) == "motionprep.part" else { return nil }
        guard let bytes = FileManager.default.contents(atPath: root + "/part.json"),
              let sums = FileManager.default.contents(atPath: root + "/" + OutputNames.partChecksums),
              String(decoding: sums, as: UTF8.self) == SHA256.hex(of: Array(bytes)) + "  part.json\n" else {
            return "its part.json does not match \(OutputNames.partChecksums), so it is not a part motionprep wrote"
        }
        // A partitioned part's data files (`output.partitioned`): each listed with its size and SHA-256.
        var claims: [String: Claim] = [:]
        for file in (try? part["partition_summary"]["files"].items()) ?? [] {
            if let claim = try? file.decode(Claim.self) { claims[claim.path] = claim }
        }
        for e in entries {
            let full = root + "/" + e.path
            if e.isDirectory, claims.keys.contains(where: { $0.hasPrefix(e.path + "/") }) { continue }
            // A `createml` part's split folder holds no CSV when none of its recordings gave one.
            if e.isDirectory, StagingEntry.splitNames.contains(e.path), !part["partition_summary"]["createml"].isMissing { continue }
            if e.isRegular, let claim = claims[e.path] {
                if e.size == claim.bytes && HashCache.shared.matches(full, sha256: claim.sha256) { continue }
                return "it holds \(e.path), which is not the file its part.json lists (size or SHA-256 differ)"
            }
            switch e.path {
            case "part.json", OutputNames.partChecksums: continue
            case "records" where e.isDirectory: continue
            case OutputNames.runState where e.isRegular && readJSON(full) != nil: continue
            case stagingMark where hasMark(full, text: stagingMarkText): continue
            case previousMark where hasMark(full, text: previousMarkText): continue
            default:
                if e.isRegular, e.path.hasPrefix("records/"), !e.path.dropFirst(8).contains("/"), e.path.hasSuffix(".mprec"),
                   StagingEntry.isRecord(full, complete: true) { continue }
                return "it holds \(e.path), which is not part of the motionprep part there"
            }
        }
        return nil
    }

    /// The JSON object in the regular file `path` (at most 256 MiB), or nil.
    package static func readJSON(_ path: String) -> JSONNode? {
        var st = stat()
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size < 256 << 20,
              let data = (try? RegularFile.contents(atPath: path)) ?? nil,
              let root = try? JSONFile.parse(Array(data), file: path).object() else { return nil }
        return root
    }

    /// "a.txt", "a.txt and b.txt", "a.txt, b.txt and 3 other entries".
    package static func list(_ preferred: [String], or all: [String]) -> String {
        let names = preferred.isEmpty ? all : preferred
        switch names.count {
        case 0: return "nothing"
        case 1: return names[0]
        case 2: return "\(names[0]) and \(names[1])"
        default: return "\(names[0]), \(names[1]) and \(names.count - 2) other entr\(names.count == 3 ? "y" : "ies")"
        }
    }

    package static func describe(_ mode: mode_t) -> String { OutputFiles.Kind(mode: mode).phrase }
}
