#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MotionCore
import MotionIngest

/// Expands path patterns with `*`, `?`, `[…]` in a component and `**` for any number of folders;
/// a backslash makes the next character literal (`\*`, `\?`, `\[`, `\]`, `\\`; ``escape(_:)``).
/// Results are sorted by their UTF-8 bytes, so the order files are found in never matters, and
/// two names that differ only in Unicode normalisation (`café` in NFC and NFD) are two files.
enum Glob {
    /// Files (not folders) matching `pattern`. A pattern without wildcards matches itself if it is a file.
    ///
    /// `**` descends into real folders only, never into a symbolic link to a folder (as git,
    /// rsync without `-L` and Python's `pathlib` do), so a link cannot make a cycle or bring a
    /// tree in twice; a link named in the pattern itself, or matched by `*`, is followed. The
    /// results may include FIFOs, devices and sockets: `InputDiscovery` refuses them by name.
    static func files(matching pattern: String) -> [String] {
        let absolute = pattern.hasPrefix("/")
        let parts = pattern.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        // Keyed by bytes: Swift's `==` equates canonically equivalent names, which are two files.
        var results = Set<Text.Bytes>()
        var visited = Set<FolderID>()
        expand(prefix: absolute ? "/" : "", parts: parts[...], into: &results, visited: &visited)
        return results.sorted().map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    /// `name` with the characters a pattern reads as wildcards (`*`, `?`, `[`, `]`) and the
    /// backslash escaped, plus `{` and `}` (literal in a glob, escaped so that no reader takes
    /// them for a template): the pattern that matches exactly that name. `/` is kept.
    static func escape(_ name: String) -> String {
        var out = ""
        for ch in name {
            if "*?[]{}\\".contains(ch) { out.append("\\") }
            out.append(ch)
        }
        return out
    }

    /// A folder's identity, so that `**` never walks one folder twice (bind mounts).
    private struct FolderID: Hashable {
        var device: UInt64
        var inode: UInt64
        /// The pattern parts left after this `**` (two `**` of one pattern are two walks).
        var partsLeft: Int
    }

    /// True for a real folder (not a link to one).
    private static func isRealDirectory(_ path: String) -> Bool {
        var st = stat()
        return lstat(path.isEmpty ? "." : path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    private static func folderID(_ path: String, partsLeft: Int) -> FolderID? {
        var st = stat()
        guard stat(path.isEmpty ? "." : path, &st) == 0 else { return nil }
        return FolderID(device: UInt64(st.st_dev), inode: UInt64(st.st_ino), partsLeft: partsLeft)
    }

    private static func join(_ prefix: String, _ name: String) -> String {
        if prefix.isEmpty { return name }
        if prefix.hasSuffix("/") { return prefix + name }
        return prefix + "/" + name
    }

    /// A component matched by `fnmatch` against the folder's names: one with a wildcard or an
    /// escape (a backslash makes the next character literal, as `fnmatch` without `FNM_NOESCAPE` reads it).
    private static func isWild(_ s: String) -> Bool {
        s.contains("*") || s.contains("?") || s.contains("[") || s.contains("\\")
    }

    private static func kind(_ path: String) -> (exists: Bool, isDirectory: Bool) {
        var st = stat()
        guard stat(path.isEmpty ? "." : path, &st) == 0 else { return (false, false) }
        return (true, (st.st_mode & S_IFMT) == S_IFDIR)
    }

    private static func list(_ dir: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: dir.isEmpty ? "." : dir))?
            .filter { !$0.hasPrefix(".") }
            .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } ?? []
    }

    private static func expand(prefix: String, parts: ArraySlice<String>, into results: inout Set<Text.Bytes>,
                               visited: inout Set<FolderID>) {
        guard let first = parts.first else {
            let k = kind(prefix)
            if k.exists && !k.isDirectory { results.insert(Text.Bytes(prefix)) }
            return
        }
        let rest = parts.dropFirst()
        if first == "**" {
            // Each folder once, whatever the number of `**` or bind mounts that reach it.
            if let id = folderID(prefix, partsLeft: parts.count), !visited.insert(id).inserted { return }
            // Zero folders…
            expand(prefix: prefix, parts: rest, into: &results, visited: &visited)
            // …or one more real folder, recursively.
            for name in list(prefix) {
                let p = join(prefix, name)
                if isRealDirectory(p) { expand(prefix: p, parts: parts, into: &results, visited: &visited) }
            }
        } else if isWild(first) {
            for name in list(prefix) where fnmatch(first, name, 0) == 0 {
                expand(prefix: join(prefix, name), parts: rest, into: &results, visited: &visited)
            }
        } else {
            let p = first == "." ? prefix : join(prefix, first)
            if rest.isEmpty || kind(p).isDirectory || first == ".." {
                expand(prefix: p.isEmpty ? "." : p, parts: rest, into: &results, visited: &visited)
            }
        }
    }
}

/// Lexical path helpers (no symlink resolution, so paths stay as the user wrote them).
enum PathText {
    /// The size of the file at `path` in bytes, 0 when it cannot be read.
    static func fileSize(_ path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : 0
    }

    /// Removes `.` components and folds `name/..`, keeping leading `..`s.
    static func normalize(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var out: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == "..", let last = out.last, last != ".." { out.removeLast(); continue }
            if part == "..", absolute, out.isEmpty { continue }
            out.append(part)
        }
        let joined = out.joined(separator: "/")
        if absolute { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }

    /// `a/b` joined with `c` (an absolute `c` wins), normalized.
    static func join(_ base: String, _ path: String) -> String {
        if path.hasPrefix("/") || base.isEmpty || base == "." { return normalize(path) }
        return normalize(base + "/" + path)
    }

    /// The absolute form of `path` against the current directory.
    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return normalize(path) }
        return normalize(FileManager.default.currentDirectoryPath + "/" + path)
    }

    /// `path` relative to folder `base` (both made absolute first).
    static func relative(_ path: String, to base: String) -> String {
        let p = absolute(path).split(separator: "/"), b = absolute(base).split(separator: "/")
        var i = 0
        // By bytes: a folder named `café` in NFD is not the one named in NFC.
        while i < p.count && i < b.count && p[i].utf8.elementsEqual(b[i].utf8) { i += 1 }
        let ups = Array(repeating: "..", count: b.count - i)
        let rest = p[i...].map(String.init)
        let all = ups + rest
        return all.isEmpty ? "." : all.joined(separator: "/")
    }

    static func lastComponent(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// The file name without its last extension, and before it a compression suffix
    /// (`rec-01.csv.gz` → `rec-01`, as `rec-01.csv`; docs/inputs.md, "Compressed files").
    static func stem(_ path: String) -> String {
        let name = dropCompressionSuffix(lastComponent(path))
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    /// `path` without its last extension (and a compression suffix before it).
    static func dropExtension(_ path: String) -> String {
        let whole = dropCompressionSuffix(path)
        let name = lastComponent(whole)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return whole }
        return String(whole.dropLast(name.distance(from: dot, to: name.endIndex)))
    }

    /// The suffixes of the compressed files the text readers decompress (by magic; names only
    /// matter for the names derived from them), in any case.
    static let compressionSuffixes = [".gz", ".gzip", ".zst", ".zstd", ".xz", ".bz2", ".bzip2"]

    /// `name` without a trailing compression suffix (`a.csv.gz` → `a.csv`; `.gz` alone stays).
    static func dropCompressionSuffix(_ name: String) -> String {
        let lower = name.lowercased()
        for suffix in compressionSuffixes where lower.hasSuffix(suffix) && lower.utf8.count > suffix.utf8.count {
            let kept = String(decoding: name.utf8.dropLast(suffix.utf8.count), as: UTF8.self)
            if kept.hasSuffix("/") { return name }
            return kept
        }
        return name
    }

    /// The bytes of text the file at `path` may give, for choosing between whole and streamed
    /// reading: its size, or, compressed (by its magic), `unknownTextBytes` (always streamed,
    /// its blocks never kept in memory).
    static func textSize(_ path: String) -> Int {
        TextHead.compression(ofFileAt: path) == nil ? fileSize(path) : unknownTextBytes
    }

    /// `textSize`, except that a compressed file whose text is at most `limit` bytes (at most
    /// 16 MiB) is measured, by decompressing it up to the limit: `inspect` and `init` read such
    /// small files whole, as their plain ones, rather than in blocks with the streamed
    /// statistics (which cost more than the reading: thousands of small `.csv.gz` files).
    static func textSize(_ path: String, probingUpTo limit: Int) -> Int {
        guard TextHead.compression(ofFileAt: path) != nil else { return fileSize(path) }
        guard limit > 0, limit <= 16 << 20,
              let head = try? TextHead.read(path: path, displayPath: path, count: limit + 1), head.count <= limit else {
            return unknownTextBytes
        }
        return head.count
    }

    /// What `textSize` says for a compressed file: larger than any threshold.
    static let unknownTextBytes = Int.max >> 8
}
