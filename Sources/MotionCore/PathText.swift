#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Lexical path helpers (no symlink resolution, so paths stay as the user wrote them).
package enum PathText {
    /// The size of the file at `path` in bytes, 0 when it cannot be read.
    package static func fileSize(_ path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : 0
    }

    /// Removes `.` components and folds `name/..`, keeping leading `..`s.
    package static func normalize(_ path: String) -> String {
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
    package static func join(_ base: String, _ path: String) -> String {
        if path.hasPrefix("/") || base.isEmpty || base == "." { return normalize(path) }
        return normalize(base + "/" + path)
    }

    /// The absolute form of `path` against the current directory.
    package static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return normalize(path) }
        return normalize(FileManager.default.currentDirectoryPath + "/" + path)
    }

    /// `path` relative to folder `base` (both made absolute first).
    package static func relative(_ path: String, to base: String) -> String {
        let p = absolute(path).split(separator: "/"), b = absolute(base).split(separator: "/")
        var i = 0
        // By bytes: a folder named `café` in NFD is not the one named in NFC.
        while i < p.count && i < b.count && p[i].utf8.elementsEqual(b[i].utf8) { i += 1 }
        let ups = Array(repeating: "..", count: b.count - i)
        let rest = p[i...].map(String.init)
        let all = ups + rest
        return all.isEmpty ? "." : all.joined(separator: "/")
    }

    package static func lastComponent(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    package static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// The file name without its last extension, and before it a compression suffix
    /// (`rec-01.csv.gz` → `rec-01`, as `rec-01.csv`; docs/inputs.md, "Compressed files").
    package static func stem(_ path: String) -> String {
        let name = dropCompressionSuffix(lastComponent(path))
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    /// `path` without its last extension (and a compression suffix before it).
    package static func dropExtension(_ path: String) -> String {
        let whole = dropCompressionSuffix(path)
        let name = lastComponent(whole)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return whole }
        return String(whole.dropLast(name.distance(from: dot, to: name.endIndex)))
    }

    /// The suffixes of the compressed files the text readers decompress (by magic; names only
    /// matter for the names derived from them), in any case.
    package static let compressionSuffixes = [".gz", ".gzip", ".zst", ".zstd", ".xz", ".bz2", ".bzip2"]

    /// `name` without a trailing compression suffix (`a.csv.gz` → `a.csv`; `.gz` alone stays).
    package static func dropCompressionSuffix(_ name: String) -> String {
        let lower = name.lowercased()
        for suffix in compressionSuffixes where lower.hasSuffix(suffix) && lower.utf8.count > suffix.utf8.count {
            let kept = String(decoding: name.utf8.dropLast(suffix.utf8.count), as: UTF8.self)
            if kept.hasSuffix("/") { return name }
            return kept
        }
        return name
    }

    /// What `textSize` says for a compressed file: larger than any threshold.
    package static let unknownTextBytes = Int.max >> 8
}
