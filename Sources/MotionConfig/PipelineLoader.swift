import MotionCore
import MotionYAML

/// Reads pipeline files (docs/pipeline.md) into validated `PipelineSpec`s.
///
/// Every problem in a file is collected and reported together in one `PipelineFileError`,
/// sorted by position. Nothing here touches the inputs the pipeline names (paths are not
/// globbed or checked for existence).
public enum PipelineLoader {
    /// Pipeline files larger than this are refused (a resource limit; real ones are a few KB).
    public static let maxFileBytes = 1 << 20

    /// Reads, parses and validates a pipeline file.
    ///
    /// - Parameter path: the file as the user gave it; used as written in messages and never
    ///   made absolute. `baseDirectory` becomes its folder part (`.` when it has none).
    /// - Returns: the pipeline with every default filled in.
    /// - Throws: `MotionError` with `.noInput` (66) when the file does not exist, `.ioError` (74)
    ///   when it cannot be read; `PipelineFileError` (78) listing every problem in it.
    public static func load(path: String) throws -> PipelineSpec {
        let bytes: [UInt8]
        do {
            bytes = try YAMLParser.readFile(path: path, maxBytes: maxFileBytes)
        } catch {
            if error.isMissing {
                throw MotionError(.noInput, "cannot read pipeline file `\(path)`: no such file")
            }
            if error.notRegularFile { throw MotionError(.noInput, "cannot read pipeline file `\(path)`: \(error.reason)") }
            if error.tooLarge {
                throw PipelineFileError(file: path, issues: [ConfigIssue(
                    location: SourceLocation(file: path),
                    message: "the pipeline file `\(path)` is larger than \(maxFileBytes) bytes; "
                        + "a pipeline file should be a few kilobytes")])
            }
            throw MotionError(.ioError, "cannot read pipeline file `\(path)`: \(error.reason)")
        }
        return try load(bytes: bytes, file: path, baseDirectory: directory(of: path))
    }

    /// Parses and validates pipeline text.
    ///
    /// - Parameters:
    ///   - yaml: the file's contents.
    ///   - file: the name used in messages (and for the default `name`, its stem).
    ///   - baseDirectory: recorded in the spec; relative paths resolve against it.
    /// - Throws: `PipelineFileError` (78) listing every problem.
    public static func load(yaml: String, file: String, baseDirectory: String) throws -> PipelineSpec {
        try load(bytes: Array(yaml.utf8), file: file, baseDirectory: baseDirectory)
    }

    static func load(bytes: [UInt8], file: String, baseDirectory: String) throws(PipelineFileError) -> PipelineSpec {
        let root: YAMLNode
        do {
            root = try YAMLParser.parse(bytes: bytes, file: file)
        } catch {
            throw PipelineFileError(file: file, issues: [ConfigIssue(
                location: SourceLocation(file: file, line: error.line, column: error.column),
                message: error.message)])
        }
        let decoder = SpecDecoder(file: file, baseDirectory: baseDirectory)
        let spec = decoder.decodePipeline(root)
        guard let spec, decoder.issues.isEmpty else {
            throw PipelineFileError(file: file, issues: decoder.sortedIssues())
        }
        return spec
    }

    /// The folder part of `path`: `.` for a bare file name, `/` for a file at the root.
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        var dir = path[..<slash]
        while dir.count > 1, dir.hasSuffix("/") { dir = dir.dropLast() }
        return dir.isEmpty ? "/" : String(dir)
    }

    /// The file name without folder and last extension (`pipelines/walk.yaml` → `walk`).
    static func stem(of path: String) -> String {
        let name = path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }
}
