import MotionConfig
import MotionCore

/// One matched input file.
public struct InputFile: Sendable, Equatable {
    /// Index of the `inputs` entry that matched it.
    public var inputIndex: Int
    /// The path to open and to name in messages: the pipeline folder joined with the match,
    /// lexically normalized (relative to the current directory when the pipeline path was).
    public var path: String
    /// The path relative to the pipeline file's folder, as written into the manifest.
    public var manifestPath: String
}

/// The files that make one recording, with its name and subject (SPEC §3.4).
public struct RecordingSource: Sendable, Equatable {
    public var name: String
    public var subject: String
    /// Files in pipeline input order, then sorted path order.
    public var files: [InputFile]
}

/// Finds input files and groups them into recordings.
public enum InputDiscovery {
    /// A pattern that matched nothing.
    public struct Unmatched: Sendable, Equatable {
        public var inputIndex: Int
        public var pattern: String
    }

    /// Every file each input's patterns match, in sorted order, plus the patterns matching nothing.
    public static func match(_ spec: PipelineSpec) -> (files: [[InputFile]], unmatched: [Unmatched]) {
        var all: [[InputFile]] = []
        var unmatched: [Unmatched] = []
        for (i, input) in spec.inputs.enumerated() {
            var seen = Set<String>()
            var files: [InputFile] = []
            for pattern in input.paths {
                let resolved = PathText.join(spec.baseDirectory, pattern)
                let found = Glob.files(matching: resolved)
                if found.isEmpty { unmatched.append(Unmatched(inputIndex: i, pattern: pattern)) }
                for f in found where seen.insert(f).inserted {
                    files.append(InputFile(inputIndex: i, path: f,
                                           manifestPath: PathText.relative(f, to: spec.baseDirectory)))
                }
            }
            files.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
            all.append(files)
        }
        return (all, unmatched)
    }

    /// Groups matched files into recordings, sorted by (subject, name) by UTF-8 bytes.
    ///
    /// Throws `MotionError(.noInput)` when a pattern matches nothing, and `.config` when two files
    /// of one recording disagree on its subject.
    public static func recordings(_ spec: PipelineSpec) throws -> [RecordingSource] {
        let (matched, unmatched) = match(spec)
        if let u = unmatched.first {
            throw MotionError(.noInput, "`\(u.pattern)` in inputs[\(u.inputIndex)] of \(spec.file) matches no file (paths are relative to the pipeline file's folder `\(spec.baseDirectory)`)")
        }
        var byName: [String: RecordingSource] = [:]
        var order: [String] = []
        for (i, input) in spec.inputs.enumerated() {
            let files = matched[i]
            let common = commonFolder(files.map { PathText.absolute($0.path) })
            for file in files {
                let subject = render(input.subject, file: file.path, base: spec.baseDirectory)
                let name: String
                if let template = input.recording {
                    let value = render(template, file: file.path, base: spec.baseDirectory)
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
                if var existing = byName[name] {
                    if existing.subject != subject {
                        throw MotionError(.config, "recording `\(name)` gets subject `\(existing.subject)` from \(existing.files[0].path) but `\(subject)` from \(file.path); the `subject` template must give every file of a recording the same subject")
                    }
                    existing.files.append(file)
                    byName[name] = existing
                } else {
                    byName[name] = RecordingSource(name: name, subject: subject, files: [file])
                    order.append(name)
                }
            }
        }
        return order.map { byName[$0]! }.sorted {
            if $0.subject != $1.subject { return Text.utf8Less($0.subject, $1.subject) }
            return Text.utf8Less($0.name, $1.name)
        }
    }

    /// The longest folder containing every path (absolute paths).
    static func commonFolder(_ paths: [String]) -> String {
        guard var common = paths.first.map({ PathText.parent($0).split(separator: "/").map(String.init) }) else { return "/" }
        for p in paths.dropFirst() {
            let parts = PathText.parent(p).split(separator: "/").map(String.init)
            var i = 0
            while i < common.count && i < parts.count && common[i] == parts[i] { i += 1 }
            common.removeLast(common.count - i)
        }
        return "/" + common.joined(separator: "/")
    }

    /// Renders `{stem}`, `{dir}`, `{dir:N}` and `{dirpath}` for `file`.
    static func render(_ template: String, file: String, base: String) -> String {
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
