#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MotionConfig
import MotionCore

/// The folder `inspect --samples DIR` writes into, and what makes it safe to write there
/// (docs/hardening.md, "Data safety: faults"): DIR is new, empty, or ours (it holds
/// ``markerName``, listing the entries an earlier run wrote, which a rerun removes and writes
/// again); it is never a link, never inside a folder the pipeline's inputs are read from and
/// never holds one; every folder below it is made by us and no link is followed.
enum SamplesFolder {
    /// The file that marks a folder as written by `inspect --samples`.
    static let markerName = ".motionprep-samples"
    /// The marker's first line.
    static let markerHeader = "motionprep inspect --samples: a rerun replaces the entries listed below"

    /// The entry of DIR that holds recording `name`: its first path component.
    static func topEntry(of name: String) -> String {
        name.split(separator: "/", omittingEmptySubsequences: false).first.map(String.init) ?? name
    }

    /// Refuses a recording name that would not stay a folder inside DIR (`..`, `.`, empty
    /// components, a leading `/`, or the marker's name).
    static func checkRecordingName(_ name: String, directory: String) throws {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        if parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) || parts.first.map(String.init) == markerName {
            throw MotionError(.cannotCreate, "cannot write the samples of recording `\(name)` into `\(directory)`: its name is not a relative path of plain folder names (no empty, `.` or `..` component), so it could leave the folder; change the input's `recording` template")
        }
    }

    /// A file name inside a recording's folder, refused when it is no plain name.
    static func fileName(_ name: String, directory: String) throws -> String {
        if name.contains("/") || name == "." || name == ".." || name.isEmpty {
            throw MotionError(.cannotCreate, "cannot write samples file `\(name)` into `\(directory)`: a sensor's name must be a plain file name")
        }
        return name
    }

    /// Refuses DIR when it is inside one of the folders the pipeline's inputs are read from (the
    /// fixed part of each pattern, e.g. `datasets/walk` for `datasets/walk/**/*.csv`), or holds
    /// one. Paths are compared component by component after resolving links (`realpath`), so
    /// `./data/../data` or a link to the input folder is caught too.
    static func checkOutsideInputs(_ directory: String, spec: PipelineSpec) throws {
        let target = OutputFolder.resolved(directory).split(separator: "/").map(String.init)
        for (i, input) in spec.inputs.enumerated() {
            for pattern in input.paths {
                let base = fixedBase(of: PathText.join(spec.baseDirectory, pattern))
                guard let real = realPath(base) else { continue }
                let baseParts = real.split(separator: "/").map(String.init)
                if target.starts(with: baseParts) {
                    throw MotionError(.cannotCreate, "cannot write samples to `\(directory)`: it is inside `\(base)`, the folder inputs[\(i)] of \(spec.file) reads (`\(pattern)`); write them outside the folders the pipeline reads")
                }
                if baseParts.starts(with: target) {
                    throw MotionError(.cannotCreate, "cannot write samples to `\(directory)`: it holds `\(base)`, the folder inputs[\(i)] of \(spec.file) reads (`\(pattern)`); write them outside the folders the pipeline reads")
                }
            }
        }
    }

    /// The folder part of a pattern before its first wildcard component (`*`, `?`, `[`); for a
    /// pattern without wildcards (one file), its folder.
    static func fixedBase(of pattern: String) -> String {
        let absolute = pattern.hasPrefix("/")
        let parts = pattern.split(separator: "/").map(String.init)
        var fixed: [String] = []
        for part in parts.dropLast() {
            if part.contains("*") || part.contains("?") || part.contains("[") { break }
            fixed.append(part)
        }
        let joined = fixed.joined(separator: "/")
        if absolute { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }

    /// `realpath`, or nil when the path does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Makes DIR ready: creates it when missing; accepts it empty; when it holds the marker,
    /// removes the entries the marker lists (refusing any entry it does not list); then writes
    /// the marker listing `entries`.
    static func prepare(_ directory: String, entries: [String]) throws {
        let fm = FileManager.default
        switch OutputFiles.kind(directory) {
        case .missing:
            do {
                try fm.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw MotionError(.cannotCreate, "cannot create `\(directory)`: \(reason(error))")
            }
        case .directory:
            let names: [String]
            do { names = try fm.contentsOfDirectory(atPath: directory) } catch {
                throw MotionError(.cannotCreate, "cannot list `\(directory)`: \(reason(error))")
            }
            if !names.isEmpty {
                let marker = directory + "/" + markerName
                guard OutputFiles.kind(marker) == .regularFile,
                      let bytes = try? RegularFile.readAll(marker).get(), let text = String(validating: bytes, as: UTF8.self),
                      text.hasPrefix(markerHeader + "\n") else {
                    throw MotionError(.cannotCreate, "cannot write samples to `\(directory)`: the folder is not empty and was not written by `motionprep inspect --samples` (it has no \(markerName)); give a new or empty folder")
                }
                let ours = Set(text.split(separator: "\n").dropFirst().map(String.init))
                for name in names.sorted() where name != markerName && !ours.contains(name) {
                    throw MotionError(.cannotCreate, "cannot replace the samples in `\(directory)`: `\(name)` in it was not written by `motionprep inspect --samples` (\(markerName) does not list it); move it away or give another folder")
                }
                for name in names where name != markerName {
                    // removeItem does not follow links: a link is removed, not what it points to.
                    do { try fm.removeItem(atPath: directory + "/" + name) } catch {
                        throw MotionError(.cannotCreate, "cannot remove the earlier samples `\(directory)/\(name)`: \(reason(error))")
                    }
                }
            }
        case .symbolicLink:
            throw MotionError(.cannotCreate, "cannot write samples to `\(directory)`: it is a symbolic link, and motionprep does not write through links; give the folder itself")
        default:
            throw MotionError(.cannotCreate, "cannot write samples to `\(directory)`: it exists and is not a folder")
        }
        var unique: [String] = []
        for e in entries where !unique.contains(e) { unique.append(e) }
        let marker = ([markerHeader] + unique).joined(separator: "\n") + "\n"
        let path = directory + "/" + markerName
        if OutputFiles.kind(path) != .missing { unlink(path) }
        try OutputFiles.create(Array(marker.utf8), at: path)
    }

    /// Creates the folders of recording `name` under DIR, one component at a time, refusing
    /// anything on the way that is not a real folder (a link in particular).
    /// - Returns: the recording's folder.
    static func makeFolders(_ directory: String, recording name: String) throws -> String {
        var folder = directory
        for part in name.split(separator: "/") {
            folder += "/" + part
            switch OutputFiles.kind(folder) {
            case .missing:
                if mkdir(folder, 0o755) != 0 && errno != EEXIST {
                    throw MotionError(.cannotCreate, "cannot create `\(folder)`: \(OutputFiles.reason(errno))")
                }
                guard OutputFiles.kind(folder) == .directory else {
                    throw MotionError(.cannotCreate, "cannot write samples into `\(folder)`: it is not a folder")
                }
            case .directory:
                continue
            default:
                throw MotionError(.cannotCreate, "cannot write samples into `\(folder)`: it is not a folder (a link or a file), and motionprep does not write through links")
            }
        }
        return folder
    }

    private static func reason(_ error: Error) -> String {
        if let e = error as? CocoaError, let u = e.underlying as? POSIXError { return String(cString: strerror(u.code.rawValue)) }
        return (error as NSError).localizedDescription
    }
}
