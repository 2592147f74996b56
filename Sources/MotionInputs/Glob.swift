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
package enum Glob {
    /// Files (not folders) matching `pattern`. A pattern without wildcards matches itself if it is a file.
    ///
    /// `**` descends into real folders only, never into a symbolic link to a folder (as git,
    /// rsync without `-L` and Python's `pathlib` do), so a link cannot make a cycle or bring a
    /// tree in twice; a link named in the pattern itself, or matched by `*`, is followed. The
    /// results may include FIFOs, devices and sockets: `InputDiscovery` refuses them by name.
    package static func files(matching pattern: String) -> [String] {
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
    package static func escape(_ name: String) -> String {
        var out = ""
        for ch in name {
            if "*?[]{}\\".contains(ch) { out.append("\\") }
            out.append(ch)
        }
        return out
    }

    /// A folder's identity, so that `**` never walks one folder twice (bind mounts).
    private struct FolderID: Hashable {
        var id: FileID
        /// The pattern parts left after this `**` (two `**` of one pattern are two walks).
        var partsLeft: Int
    }

    /// True for a real folder (not a link to one).
    private static func isRealDirectory(_ path: String) -> Bool {
        var st = stat()
        return lstat(path.isEmpty ? "." : path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    private static func folderID(_ path: String, partsLeft: Int) -> FolderID? {
        FileID(path: path.isEmpty ? "." : path, followingLinks: true).map { FolderID(id: $0, partsLeft: partsLeft) }
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
