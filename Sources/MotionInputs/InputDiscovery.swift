#if canImport(Glibc)
import Glibc
#endif
import MotionConfig
import MotionCore
import MotionIngest
import MotionOutput

/// One matched input file.
public struct InputFile: Sendable, Equatable {
    /// Index of the `inputs` entry that matched it.
    public var inputIndex: Int
    /// The path to open and to name in messages: the pipeline folder joined with the match,
    /// lexically normalized (relative to the current directory when the pipeline path was).
    public var path: String
    /// The path relative to the pipeline file's folder, as written into the manifest.
    public var manifestPath: String

    package init(inputIndex: Int, path: String, manifestPath: String) {
        self.inputIndex = inputIndex
        self.path = path
        self.manifestPath = manifestPath
    }
}

/// The files that make one recording, with its name and subject (docs/inputs.md, "Recordings, subjects and channels").
public struct RecordingSource: Sendable, Equatable {
    public var name: String
    public var subject: String
    /// Files in pipeline input order, then sorted path order.
    public var files: [InputFile]

    /// The bytes of its files now, on disk (what progress counts).
    package var fileBytes: Int { files.reduce(0) { $0 + PathText.fileSize($1.path) } }

    /// The bytes of text its files may give (`PathText.textSize`: a compressed file counts as
    /// larger than any limit): what decides streaming, and keeping blocks for a second pass.
    package var textBytes: Int { files.reduce(0) { Swift.min(PathText.unknownTextBytes, $0 + PathText.textSize($1.path)) } }

    /// `textBytes`, with compressed files of at most `limit` bytes of text measured
    /// (`PathText.textSize(_:probingUpTo:)`).
    package func textBytes(probingUpTo limit: Int) -> Int {
        files.reduce(0) { Swift.min(PathText.unknownTextBytes, $0 + PathText.textSize($1.path, probingUpTo: limit)) }
    }

    package init(name: String, subject: String, files: [InputFile]) {
        self.name = name
        self.subject = subject
        self.files = files
    }
}

/// Finds input files and groups them into recordings.
public enum InputDiscovery {
    /// A pattern that matched nothing.
    public struct Unmatched: Sendable, Equatable {
        public var inputIndex: Int
        public var pattern: String
    }

    /// A matched path that is not a regular file (a FIFO, device or socket, or a link to one).
    public struct Irregular: Sendable, Equatable {
        public var inputIndex: Int
        public var pattern: String
        public var path: String
        /// "a FIFO", "a character device", …
        public var kind: String
    }

    /// A matched path that is the same file as an earlier match of the same input (a hard or
    /// symbolic link): it is left out, and read once under `keptPath`.
    public struct Alias: Sendable, Equatable {
        public var inputIndex: Int
        public var path: String
        public var keptPath: String
    }

    /// Every regular file each input's patterns match, in sorted order, each file once per input
    /// (by device and inode); the patterns matching nothing; the matches that are not regular
    /// files; the matches left out as another name of a file already matched.
    public static func match(_ spec: PipelineSpec) -> (files: [[InputFile]], unmatched: [Unmatched], irregular: [Irregular], aliases: [Alias]) {
        let m = scan(spec)
        return (m.files, m.unmatched, m.irregular, m.aliases)
    }

    /// `match`, plus the identity of every file kept (from the one `stat` that checked it), for
    /// the check across inputs in `recordings`.
    ///
    /// An input with `files` (`motionprep apply`) reads those, each taken as written, never as a
    /// glob pattern; one that does not exist is unmatched.
    private static func scan(_ spec: PipelineSpec) -> (files: [[InputFile]], unmatched: [Unmatched], irregular: [Irregular],
                                                       aliases: [Alias], identity: [Text.Bytes: FileID]) {
        // Paths are keyed by their bytes: `café` in NFC and in NFD are two files, which String's
        // `==` (canonical equivalence) would take for one (docs/inputs.md, "Names").
        var identity: [Text.Bytes: FileID] = [:]
        var all: [[InputFile]] = []
        var unmatched: [Unmatched] = []
        var irregular: [Irregular] = []
        var aliases: [Alias] = []
        for (i, input) in spec.inputs.enumerated() {
            var seen = Set<Text.Bytes>()
            var candidates: [(path: String, pattern: String)] = []
            for pattern in input.files ?? input.paths {
                let resolved = PathText.join(spec.baseDirectory, pattern)
                var found = input.files == nil ? Glob.files(matching: resolved) : (access(resolved, F_OK) == 0 ? [PathText.normalize(resolved)] : [])
                if input.files == nil, let preset = input.preset, preset.app.readsFolders {
                    // An export folder's file compressed under its name and a suffix
                    // (`Accelerometer.csv.gz`; docs/inputs.md, "Compressed files").
                    for suffix in PathText.compressionSuffixes { found += Glob.files(matching: resolved + suffix) }
                    found.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                }
                if found.isEmpty { unmatched.append(Unmatched(inputIndex: i, pattern: pattern)) }
                for f in found where seen.insert(Text.Bytes(f)).inserted { candidates.append((f, pattern)) }
            }
            candidates.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
            var byIdentity: [FileID: Int] = [:]
            var files: [InputFile] = []
            for (f, pattern) in candidates {
                var st = stat()
                guard stat(f, &st) == 0 else { continue }  // vanished since the glob listed it
                guard (st.st_mode & S_IFMT) == S_IFREG else {
                    irregular.append(Irregular(inputIndex: i, pattern: pattern, path: f, kind: OutputFiles.Kind(mode: st.st_mode).phrase))
                    continue
                }
                let id = FileID(st)
                let file = InputFile(inputIndex: i, path: f, manifestPath: PathText.relative(f, to: spec.baseDirectory))
                identity[Text.Bytes(f)] = id
                if let k = byIdentity[id] {
                    // The file's own name wins over a symbolic link to it; else the first in order.
                    if isLink(files[k].path) && !isLink(f) {
                        aliases.append(Alias(inputIndex: i, path: files[k].path, keptPath: f))
                        files[k] = file
                    } else {
                        aliases.append(Alias(inputIndex: i, path: f, keptPath: files[k].path))
                    }
                    continue
                }
                byIdentity[id] = files.count
                files.append(file)
            }
            files.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
            all.append(files)
        }
        return (all, unmatched, irregular, aliases, identity)
    }

    private static func isLink(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK
    }

    /// Groups matched files into recordings, sorted by (subject, name) by UTF-8 bytes.
    ///
    /// Throws `MotionError(.noInput)` when a pattern matches nothing, and `.config` when two files
    /// of one recording disagree on its subject.
    /// - Parameter log: receives a notice for each path left out as another name of a file
    ///   already matched (read once, under its first name in sorted order).
    /// - Throws: also `MotionError(.noInput)` for a match that is not a regular file (never
    ///   opened, so a FIFO cannot make the run wait), and `.config` when one file is matched
    ///   into two different recordings (by two inputs, under two names).
    ///   An input's `files` (`motionprep apply`) that does not exist is `MotionError(.noInput)` naming it.
    public static func recordings(_ spec: PipelineSpec, log: (String) -> Void = { _ in }) throws -> [RecordingSource] {
        let (matched, unmatched, irregular, aliases, identity) = scan(spec)
        if let u = unmatched.first {
            if spec.inputs[u.inputIndex].files != nil {
                throw MotionError(.noInput, "cannot read input \(u.pattern): no such file")
            }
            throw MotionError(.noInput, unmatchedMessage(u, spec: spec, file: spec.file))
        }
        if let bad = irregular.first {
            if spec.inputs[bad.inputIndex].files != nil {
                throw MotionError(.noInput, "input \(bad.path) is \(bad.kind), not a regular file; motionprep reads only regular files and never waits on a pipe, device or socket")
            }
            throw MotionError(.noInput, "\(bad.path) (matched by `\(bad.pattern)` in \(spec.inputName(bad.inputIndex)) of \(spec.file)) is \(bad.kind), not a regular file; motionprep reads only regular files and never waits on a pipe, device or socket: move it out of the folder or narrow the pattern")
        }
        for a in aliases {
            log("notice: \(a.path) is the same file as \(a.keptPath) (a link); \(spec.inputName(a.inputIndex)) reads it once, as \(a.keptPath)")
        }
        var byName: [Text.Bytes: RecordingSource] = [:]
        var order: [Text.Bytes] = []
        // The inputs one preset entry expanded into name their recordings from one common folder,
        // so that the folders of all their sensors get the same names.
        var presetFiles: [Int: [String]] = [:]
        for (i, input) in spec.inputs.enumerated() {
            if let entry = input.preset?.entry { presetFiles[entry, default: []] += matched[i].map { PathText.absolute($0.path) } }
        }
        for (i, input) in spec.inputs.enumerated() {
            let files = matched[i]
            let common = commonFolder(input.preset.flatMap { presetFiles[$0.entry] } ?? files.map { PathText.absolute($0.path) })
            for file in files {
                // `{device_id}` and `{session_id}` come from a CWA file's header (docs/inputs.md, "Axivity CWA (cwa)").
                var fields: [String: String] = [:]
                if input.type == .cwa, (input.subject + (input.recording ?? "")).contains("_id}") {
                    let header = try CWAFormat.header(path: file.path, displayPath: file.path)
                    fields = ["device_id": String(header.deviceID), "session_id": String(header.sessionID)]
                } else if input.type == .gt3x, (input.subject + (input.recording ?? "")).contains("{device_id}") {
                    // A GT3X file's `{device_id}` is `info.txt`'s serial number (docs/inputs.md, "ActiGraph GT3X (gt3x)").
                    let archive = try GT3XFormat.archive(path: file.path, displayPath: file.path)
                    fields = ["device_id": archive.info.serialNumber ?? ""]
                }
                let subject = render(input.subject, file: file.path, base: spec.baseDirectory, fields: fields)
                let name: String
                if let template = input.recording {
                    let value = render(template, file: file.path, base: spec.baseDirectory, fields: fields)
                    if template.contains("{dirpath}") {
                        let folder = PathText.absolute(PathText.join(spec.baseDirectory, value))
                        let rel = PathText.relative(folder, to: common)
                        name = (rel == "." || rel.hasPrefix("..")) ? PathText.lastComponent(folder) : rel
                    } else {
                        name = value
                    }
                } else if files.count == 1 {
                    name = PathText.stem(file.path)
                } else {
                    name = PathText.dropExtension(PathText.relative(PathText.absolute(file.path), to: common))
                }
                if var existing = byName[Text.Bytes(name)] {
                    if !Text.sameBytes(existing.subject, subject) {
                        throw MotionError(.config, "recording `\(name)` gets subject `\(existing.subject)` from \(existing.files[0].path) but `\(subject)` from \(file.path); the `subject` template must give every file of a recording the same subject")
                    }
                    existing.files.append(file)
                    byName[Text.Bytes(name)] = existing
                } else {
                    byName[Text.Bytes(name)] = RecordingSource(name: name, subject: subject, files: [file])
                    order.append(Text.Bytes(name))
                }
            }
        }
        // One file in two recordings (two inputs, two names) would be two recordings of the
        // same samples, which can land in two splits.
        var recordingOf: [FileID: (name: String, file: InputFile)] = [:]
        for key in order {
            let name = byName[key]!.name
            for file in byName[key]!.files {
                guard let id = identity[Text.Bytes(file.path)] else { continue }
                if let other = recordingOf[id], !Text.sameBytes(other.name, name) {
                    throw MotionError(.config, "\(file.path) (\(spec.inputName(file.inputIndex))) is the same file as \(other.file.path) (\(spec.inputName(other.file.inputIndex))) but would be read into recording `\(name)` as well as `\(other.name)`; a file belongs to one recording, so narrow the patterns of \(spec.file)")
                }
                recordingOf[id] = (name, file)
            }
        }
        let sorted = order.map { byName[$0]! }.sorted {
            if !Text.sameBytes($0.subject, $1.subject) { return Text.utf8Less($0.subject, $1.subject) }
            return Text.utf8Less($0.name, $1.name)
        }
        try refuseLookalikeNames(sorted, spec: spec)
        // Inputs that share channels must not meet in one recording (docs/inputs.md, "Recordings, subjects and channels").
        if spec.inputs.count > 1 { try ChannelLayout.make(spec).checkShared(sorted, spec: spec) }
        return sorted
    }

    /// Two recordings (or subjects) whose names differ only in Unicode normalisation (`café` as
    /// NFC `caf\u{E9}` and as NFD `cafe\u{301}`) are refused, naming both: their files are
    /// told apart by their bytes and read, but the names would look the same in the dataset, and
    /// tools that compare text canonically (Swift, many Unicode-aware readers) would take them for one.
    package static func refuseLookalikeNames(_ recordings: [RecordingSource], spec: PipelineSpec) throws {
        func shown(_ s: String) -> String {
            var out = ""
            for u in s.unicodeScalars { out += u.isASCII && !Text.isUnsafeForTerminal(u) ? String(u) : "\\u{\(String(u.value, radix: 16, uppercase: true))}" }
            return out
        }
        var byRecording: [String: RecordingSource] = [:]
        var bySubject: [String: RecordingSource] = [:]
        for r in recordings {
            if let other = byRecording[r.name], !Text.sameBytes(other.name, r.name) {
                throw MotionError(.config, "recordings `\(shown(other.name))` (\(other.files[0].path)) and `\(shown(r.name))` (\(r.files[0].path)) of \(spec.file) have names that differ only in Unicode normalisation (NFC and NFD); motionprep reads names as bytes but refuses two that look the same: rename one file or folder so that the names differ in more than normalisation")
            }
            byRecording[r.name] = byRecording[r.name] ?? r
            if let other = bySubject[r.subject], !Text.sameBytes(other.subject, r.subject) {
                throw MotionError(.config, "subjects `\(shown(other.subject))` (\(other.files[0].path)) and `\(shown(r.subject))` (\(r.files[0].path)) of \(spec.file) have names that differ only in Unicode normalisation (NFC and NFD); motionprep reads names as bytes but refuses two that look the same: rename one folder so that the names differ in more than normalisation")
            }
            bySubject[r.subject] = bySubject[r.subject] ?? r
        }
    }

    /// "`PATTERN` in inputs[i] of FILE matches no file", or for a preset, which folder pattern
    /// has no folder holding the sensor's file (docs/inputs.md, "Phone-logger presets").
    /// - Parameter file: how the sentence names the pipeline file (`of FILE`); nil leaves the
    ///   clause out, for a diagnostic whose location already names it.
    public static func unmatchedMessage(_ u: Unmatched, spec: PipelineSpec, file: String?) -> String {
        let of = file.map { " of \($0)" } ?? ""
        let relative = "paths are relative to the pipeline file's folder `\(spec.baseDirectory)`"
        let input = spec.inputs.indices.contains(u.inputIndex) ? spec.inputs[u.inputIndex] : nil
        guard let preset = input?.preset else {
            return "`\(u.pattern)` in inputs[\(u.inputIndex)]\(of) matches no file (\(relative))"
        }
        guard preset.app.readsFolders, let slash = u.pattern.lastIndex(of: "/") else {
            return "`\(u.pattern)` in \(spec.inputName(u.inputIndex))\(of) matches no file (\(relative))"
        }
        let folder = String(u.pattern[..<slash]), name = String(u.pattern[u.pattern.index(after: slash)...])
        return "no folder matched by `\(folder.isEmpty ? "/" : folder)` in \(spec.inputName(u.inputIndex))\(of) holds `\(name)` "
            + "(\(relative); leave out of `sensors` the sensors that were not recorded)"
    }

    /// The longest folder containing every path (absolute paths).
    package static func commonFolder(_ paths: [String]) -> String {
        guard var common = paths.first.map({ PathText.parent($0).split(separator: "/").map(String.init) }) else { return "/" }
        for p in paths.dropFirst() {
            let parts = PathText.parent(p).split(separator: "/").map(String.init)
            var i = 0
            while i < common.count && i < parts.count && Text.sameBytes(common[i], parts[i]) { i += 1 }
            common.removeLast(common.count - i)
        }
        return "/" + common.joined(separator: "/")
    }

    /// Renders `{stem}`, `{dir}`, `{dir:N}` and `{dirpath}` for `file`, and the placeholders in
    /// `fields` (`device_id`, `session_id` of a CWA file; empty when not given).
    package static func render(_ template: String, file: String, base: String, fields: [String: String] = [:]) -> String {
        let absolute = PathText.absolute(file)
        var ancestors = absolute.split(separator: "/").map(String.init)
        ancestors.removeLast() // the file name
        var out = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            let key = rest[rest.index(after: open)..<close]
            switch key {
            case "stem": out += PathText.stem(file)
            case "dirpath": out += PathText.relative(PathText.parent(absolute), to: base)
            case "device_id", "session_id": out += fields[String(key)] ?? ""
            default:
                var level = 1
                if key.hasPrefix("dir:"), let n = Int(key.dropFirst(4)) { level = n }
                out += ancestors.count >= level ? ancestors[ancestors.count - level] : ""
            }
            rest = rest[rest.index(after: close)...]
        }
        out += rest
        return out
    }
}
