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
package enum SamplesFolder {
    /// The file that marks a folder as written by `inspect --samples`.
    package static let markerName = ".motionprep-samples"

    /// The entry of DIR that holds recording `name`: its first path component.
    package static func topEntry(of name: String) -> String {
        name.split(separator: "/", omittingEmptySubsequences: false).first.map(String.init) ?? name
    }

    /// Refuses a recording name that would not stay a folder inside DIR (`..`, `.`, empty
    /// components, a leading `/`, or the marker's name).
    package static func checkRecordingName(_ name: String, directory: String) throws {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        if parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) || parts.first.map(String.init) == markerName {
            throw MotionError(.cannotCreate, "cannot write the samples of recording `\(name)` into `\(directory)`: its name is not a relative path of plain folder names (no empty, `.` or `..` component), so it could leave the folder; change the input's `recording` template")
        }
    }

    /// A file name inside a recording's folder, refused when it is no plain name.
    package static func fileName(_ name: String, directory: String) throws -> String {
        if name.contains("/") || name == "." || name == ".." || name.isEmpty {
            throw MotionError(.cannotCreate, "cannot write samples file `\(name)` into `\(directory)`: a sensor's name must be a plain file name")
        }
        return name
    }

    /// Refuses DIR when it is inside one of the folders the pipeline's inputs are read from (the
    /// fixed part of each pattern, e.g. `datasets/walk` for `datasets/walk/**/*.csv`), or holds
    /// one. Paths are compared component by component after resolving links (`realpath`), so
    /// `./data/../data` or a link to the input folder is caught too.
    package static func checkOutsideInputs(_ directory: String, spec: PipelineSpec) throws {
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
    package static func fixedBase(of pattern: String) -> String {
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
    package static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// DIR as an owned folder (docs/hardening.md, "One output policy"): ``markerName`` lists
    /// every file an earlier run wrote, with its size and SHA-256.
    package static func owned(_ directory: String) -> OwnedFolder {
        OwnedFolder(directory: directory, marker: markerName, writer: "`motionprep inspect --samples`")
    }

    /// Makes DIR ready: creates it when missing; accepts it empty; when it is ours (every entry
    /// a file the marker lists, unchanged since), removes those files; anything else in it
    /// (a file of the user's, even inside a recording's folder) is refused and kept.
    package static func prepare(_ directory: String) throws {
        try owned(directory).prepare()
    }

    /// Creates the folders of recording `name` under DIR, one component at a time, refusing
    /// anything on the way that is not a real folder (a link in particular).
    /// - Returns: the recording's folder.
    package static func makeFolders(_ directory: String, recording name: String) throws -> String {
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
}
