#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MotionChecksum
import MotionCore

/// The one output policy of every command that writes (docs/hardening.md, "One output policy"):
///
/// - a new file is created exclusively (never over something that appeared meanwhile);
/// - an existing file is replaced only when motionprep wrote it and it is unchanged since (its
///   seal, a last line holding the SHA-256 of everything above it, still matches), or when the
///   user says so with `--force`;
/// - a folder is filled only when it is new, empty, or motionprep's by content (a listing of
///   every file with its size and SHA-256 that still matches every entry);
/// - nothing is ever written inside a motionprep dataset or part, or inside the command's
///   inputs.
///
/// `run`, `apply` and `merge` follow the same rules through `DatasetStaging`.
public enum OutputPolicy {
    /// How a single output file carries motionprep's seal: its last line.
    public enum Seal: Sendable {
        /// `<!-- motionprep: sha256 of the bytes above: HEX -->` (report pages).
        case html
        /// `# motionprep: sha256 of the bytes above: HEX` (pipeline files).
        case yaml

        package var prefix: String { self == .html ? "<!-- motionprep: sha256 of the bytes above: " : "# motionprep: sha256 of the bytes above: " }
        package var suffix: String { self == .html ? " -->\n" : "\n" }

        /// `bytes` with the seal appended (`bytes` must end in a newline, or one is added).
        public func sealed(_ bytes: [UInt8]) -> [UInt8] {
            var body = bytes
            if body.last != UInt8(ascii: "\n") { body.append(UInt8(ascii: "\n")) }
            return body + Array((prefix + SHA256.hex(of: body) + suffix).utf8)
        }

        /// True when `bytes` end with this seal and the seal's hash is that of the bytes above.
        public func holds(_ bytes: [UInt8]) -> Bool {
            let tail = prefix.utf8.count + 64 + suffix.utf8.count
            guard bytes.count >= tail else { return false }
            let body = bytes[..<(bytes.count - tail)]
            guard body.isEmpty || body.last == UInt8(ascii: "\n") else { return false }
            return Array(bytes[(bytes.count - tail)...]) == Array((prefix + SHA256.hex(of: Array(body)) + suffix).utf8)
        }
    }

    /// Writes `bytes` (sealed with `seal`) as the file `path` by the policy's rules.
    ///
    /// - Parameters:
    ///   - what: what is written, for messages ("the report").
    ///   - inputs: folders and files the command reads, which `path` must not be inside.
    ///   - force: replace an existing regular file even when motionprep did not write it.
    ///   - flag: the option that says so, for messages (`--force`).
    /// - Throws: `MotionError(.cannotCreate)` (73) for a refused path, `.ioError` (74) for a
    ///   failed write.
    public static func writeFile(_ bytes: [UInt8], to path: String, what: String, seal: Seal,
                                 inputs: [(path: String, role: String)] = [], force: Bool = false) throws {
        try checkFile(path, what: what, seal: seal, inputs: inputs, force: force)
        let sealed = seal.sealed(bytes)
        switch OutputFiles.kind(path) {
        case .missing:
            try OutputFiles.createAtomically(sealed, at: path, what: what)
        default:
            try OutputFiles.write(sealed, to: path, what: what)
        }
    }

    /// Writes a file that has no seal (JSON): only where nothing is, created atomically (a
    /// temporary file linked into place), so that nothing motionprep did not write is replaced;
    /// an existing file is refused with one sentence.
    public static func writeNewFile(_ bytes: [UInt8], to path: String, what: String,
                                    inputs: [(path: String, role: String)] = []) throws {
        try checkNewFile(path, what: what, inputs: inputs)
        try OutputFiles.createAtomically(bytes, at: path, what: what)
    }

    /// The checks of `writeNewFile`, without writing, for a command to run before its work.
    public static func checkNewFile(_ path: String, what: String, inputs: [(path: String, role: String)] = []) throws {
        try checkOutsideDatasets(path, what: what)
        try checkOutside(path, inputs: inputs, what: what)
        guard OutputFiles.kind(path) == .missing else {
            throw MotionError(.cannotCreate, "refusing to write \(what) to `\(path)`: something is there already, and motionprep replaces only files it can tell it wrote; remove it or give another name")
        }
    }

    /// The checks of `writeFile`, without writing: a command runs them before its work, so a
    /// refused output costs nothing (and `writeFile` runs them again just before writing).
    public static func checkFile(_ path: String, what: String, seal: Seal,
                                 inputs: [(path: String, role: String)] = [], force: Bool = false) throws {
        try checkOutsideDatasets(path, what: what)
        try checkOutside(path, inputs: inputs, what: what)
        switch OutputFiles.kind(path) {
        case .regularFile:
            if !force {
                guard let fd = StagingEntry.openRegular(path) else {
                    throw MotionError(.cannotCreate, "cannot write \(what) to `\(path)`: it cannot be read to check that motionprep wrote it")
                }
                var st = stat()
                fstat(fd, &st)
                let old = st.st_size <= 256 << 20 ? StagingEntry.read(fd, at: 0, count: Int(st.st_size)) : []
                close(fd)
                if !seal.holds(old) {
                    throw MotionError(.cannotCreate, "refusing to replace `\(path)` with \(what): the file exists and motionprep did not write it, or it was changed since (its last line is not motionprep's seal of what is above it); give another name, move the file away, or pass `--force` to replace it")
                }
            }
        case .symbolicLink, .directory, .blockDevice, .socket:
            // OutputFiles.write refuses these with its messages.
            try OutputFiles.write([], to: path, what: what)
        default: break
        }
    }

    /// Refuses `path` (a file or folder to be written) when it is, or is inside, a motionprep
    /// dataset, applied output or `--worker` part: its files are listed in its manifest, and a
    /// file written there would make it fail `validate` (or replace the manifest itself).
    public static func checkOutsideDatasets(_ path: String, what: String) throws {
        var folder = OutputFolder.resolved(path)
        while true {
            if folder != OutputFolder.resolved(path) || OutputFiles.kind(folder) == .directory {
                let part = isPart(folder)
                if part || OutputFolder.datasetClaims(folder) != nil {
                    let kind = part ? "a motionprep `--worker` part" : "a motionprep dataset"
                    throw MotionError(.cannotCreate, "refusing to write \(what) to `\(path)`: it is \(folder == OutputFolder.resolved(path) ? "" : "inside ")\(kind) (`\(folder)`), whose files its manifest lists; motionprep never writes inside a dataset, so give a path outside it")
                }
            }
            if folder == "/" || folder.isEmpty { return }
            folder = PathText.parent(folder)
        }
    }

    /// Refuses `path` when it is, or is inside, one of `inputs`.
    public static func checkOutside(_ path: String, inputs: [(path: String, role: String)], what: String) throws {
        let target = OutputFolder.resolved(path)
        for (input, role) in inputs {
            let r = OutputFolder.resolved(input)
            if target == r || target.hasPrefix(r == "/" ? "/" : r + "/") {
                throw MotionError(.cannotCreate, "refusing to write \(what) to `\(path)`: it is \(target == r ? "" : "inside ")the \(role) `\(input)` this command reads; motionprep never writes inside its inputs, so give a path outside it")
            }
        }
    }

    package static func isPart(_ folder: String) -> Bool {
        (try? OutputFolder.readJSON(folder + "/part.json")?["format"].string()) == "motionprep.part"
    }
}

/// A folder that a command fills with files of its own (`synth --out`, `inspect --samples`),
/// owned by content: a listing file in it (`marker`) names every file written, with its size
/// and SHA-256 (docs/hardening.md, "One output policy").
public struct OwnedFolder: Sendable {
    public let directory: String
    public let marker: String
    /// "`motionprep synth`", for messages.
    public let writer: String

    public init(directory: String, marker: String, writer: String) {
        self.directory = directory
        self.marker = marker
        self.writer = writer
    }

    /// Makes the folder ready: creates it when missing; accepts it empty; when it is ours
    /// (every entry a listed file, unchanged, or a folder above one), removes the listed
    /// files and the folders they leave empty. Anything else is refused (73), naming the first
    /// entry in the way, and nothing is touched.
    public func prepare() throws {
        try OutputPolicy.checkOutsideDatasets(directory, what: "the files of \(writer)")
        switch OutputFiles.kind(directory) {
        case .missing:
            do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
                throw MotionError(.cannotCreate, "cannot create `\(directory)`: \((error as NSError).localizedDescription)")
            }
            return
        case .directory: break
        case .symbolicLink:
            throw MotionError(.cannotCreate, "cannot write to `\(directory)`: it is a symbolic link, and motionprep does not write through links; give the folder itself")
        default:
            throw MotionError(.cannotCreate, "cannot write to `\(directory)`: it exists and is not a folder")
        }
        let entries = OutputFolder.walk(directory)
        if entries.isEmpty { return }
        guard let listed = listing() else {
            throw MotionError(.cannotCreate, "refusing to write into `\(directory)`: the folder is not empty and \(writer) did not write it (it has no readable \(marker) listing its files); give a new or empty folder, or move its files away")
        }
        for e in entries where e.path != marker {
            let full = directory + "/" + e.path
            if e.isDirectory {
                if listed.keys.contains(where: { $0.hasPrefix(e.path + "/") }) { continue }
                throw refusal(e.path, "is a folder \(writer) did not make")
            }
            guard e.isRegular else { throw refusal(e.path, "is \(OutputFolder.describe(e.mode)), which \(writer) never writes") }
            guard let claim = listed[e.path] else { throw refusal(e.path, "was not written by \(writer) (\(marker) does not list it)") }
            if claim.bytes != e.size || !HashCache.shared.matches(full, sha256: claim.sha256) {
                throw refusal(e.path, "was changed since \(writer) wrote it (its size or SHA-256 is not the one \(marker) lists)")
            }
        }
        OutputFolder.removeEntries(directory, entries: entries.map(\.path))
    }

    /// Writes the listing of every regular file now below the folder (but the listing itself).
    public func seal() throws {
        var files: [JSONValue] = []
        for e in OutputFolder.walk(directory) where e.isRegular && e.path != marker {
            let (hex, bytes) = try SHA256.hexOfFile(path: directory + "/" + e.path)
            files.append(.object(["path": .string(e.path), "bytes": .int(bytes), "sha256": .string(hex)]))
        }
        let text = JSONValue.object(["format": .string("motionprep.files"), "written_by": .string(writer),
                                     "note": .string("motionprep replaces these files on a rerun only while each is unchanged"),
                                     "files": .array(files)]).pretty() + "\n"
        let path = directory + "/" + marker
        if OutputFiles.kind(path) == .regularFile { unlink(path) }
        try OutputFiles.create(Array(text.utf8), at: path)
    }

    private func listing() -> [String: OutputFolder.Claim]? {
        let path = directory + "/" + marker
        guard let listing = OutputFolder.readJSON(path), (try? listing["format"].string()) == "motionprep.files",
              let files = try? listing["files"].items() else { return nil }
        var out: [String: OutputFolder.Claim] = [:]
        for f in files {
            guard let claim = try? f.decode(OutputFolder.Claim.self) else { return nil }
            out[claim.path] = claim
        }
        return out
    }

    private func refusal(_ entry: String, _ why: String) -> MotionError {
        MotionError(.cannotCreate, "refusing to write into `\(directory)`: `\(entry)` in it \(why); move it away or give another folder")
    }
}
