import Foundation
import MotionConfig
import MotionCore
import MotionDataset
import MotionValidate
import MotionInputs
import MotionJob

/// `motionprep validate PIPELINE.yaml…` and `motionprep validate DATASET_DIR [--expect FILE]
/// [--format text|json|junit]`.
enum ValidateCommand {
    static let help = """
        usage: motionprep validate DATASET_DIR [--expect FILE] [--format text|json|junit] [--jobs N]
               motionprep validate PIPELINE.yaml...

        With a dataset folder: checks the written dataset and reports every failure (docs/validate.md): the
        manifest and its schema, every file's size and SHA-256, no unlisted files, no symlinks or FIFOs,
        no HDF5 links or external/virtual storage, shards no larger than their entry allows, array shapes
        and dtypes, window and class counts per file and split (recomputed from the data), class ids,
        indices, NaN/Inf, normalization statistics, and that no subject or recording is in two splits.
        `--expect FILE` adds dataset-specific rules (see expectations/walk.yaml and docs/validate.md).
        Output: `text` (one line per failure, then a summary with MB/s), `json`, or `junit` (one
        testcase per check). `--jobs N`: HDF5 chunks decoded at once (default: the CPUs this process may use, as `run`); the report
        is the same for any N. Exit 0 when every check passes, 1 when any fails, 64 usage, 66 no such
        folder or expectations file, 78 a bad expectations file.

        With pipeline files: checks them without running them: the schema, every stage option, that
        every input path matches at least one file, that each input's first file reads with the
        input's settings (its columns exist, its times and values parse), and that the labels found
        can reach `labels.classes` through `labels.map`. Problems are printed as
        `FILE:LINE:COL: error|warning: …` on stderr (`--format json`: one JSON document on stdout).
        Exit 0 when all are fine (warnings allowed), 78 when a file has a pipeline problem (all
        problems are listed), else 65 when the data does not match the pipeline (or an iio
        layout folder is unusable), else 66 when a path matches nothing.
        """

    static func run(_ args: [String]) throws -> ExitStatus {
        if args.contains("--help") || args.contains("-h") { try Diagnostics.stdout(help); return .success }
        let a = try ArgumentScanner(args, valueOptions: CommandCatalogue["validate"].valueOptions, flagOptions: CommandCatalogue["validate"].flagOptions, command: "validate")
        guard !a.positionals.isEmpty else {
            throw UsageError(message: "`motionprep validate` needs a pipeline file or a dataset folder")
        }
        if let dataset = a.positionals.first(where: { isDatasetArgument($0) }) {
            guard a.positionals.count == 1 else {
                throw UsageError(message: "`motionprep validate` checks one dataset folder at a time (\(dataset)); got \(a.positionals.count) arguments")
            }
            let jobs = try a.int("--jobs", in: 1...4096, command: "validate")
            let (status, output) = try validateDataset(dataset, expect: a.value("--expect"), format: a.value("--format"), jobs: jobs)
            try Diagnostics.stdout(output)
            return status
        }
        for option in ["--expect", "--jobs"] where a.value(option) != nil {
            throw UsageError(message: "option `\(option)` of `motionprep validate` applies to a dataset folder, not to pipeline files")
        }
        var json = false
        if let format = a.value("--format") {
            guard format == "text" || format == "json" else {
                throw UsageError(message: "option `--format` of `motionprep validate` with pipeline files must be `text` or `json`, not `\(format)`")
            }
            json = format == "json"
        }
        return try validatePipelines(a.positionals, json: json)
    }

    /// A folder, or a path that does not exist and does not look like a pipeline file.
    static func isDatasetArgument(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir) { return isDir.boolValue }
        return !(path.hasSuffix(".yaml") || path.hasSuffix(".yml"))
    }

    /// Validates one dataset folder; returns the exit status and the rendered report.
    ///
    /// - Throws: `UsageError` (64) for a bad `--format`; `MotionError` (66) when the folder or the
    ///   expectations file does not exist; `ExpectationsFileError` (78).
    /// - Parameter jobs: HDF5 chunks decoded at once; the CPUs allowed (`CPUAllowance`) when nil.
    static func validateDataset(_ directory: String, expect: String?, format: String?, jobs: Int? = nil) throws -> (ExitStatus, String) {
        let reportFormat: ReportFormat
        if let format {
            guard let f = ReportFormat(rawValue: format) else {
                let names = ReportFormat.allCases.map(\.rawValue)
                var msg = "option `--format` of `motionprep validate` must be \(Text.alternatives(names)), not `\(format)`"
                if let s = Text.suggestion(for: format, among: names) { msg += "; did you mean `\(s)`?" }
                throw UsageError(message: msg)
            }
            reportFormat = f
        } else {
            reportFormat = .text
        }
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDir), isDir.boolValue else {
            throw MotionError(.noInput, "cannot validate `\(directory)`: no such dataset folder")
        }
        let expectations = try expect.map { try ExpectationsLoader.load(path: $0) }
        let clock = ContinuousClock()
        let start = clock.now
        let storages = DatasetStorages.standard(threads: jobs ?? CPUAllowance.current().count)
        let report = DatasetValidator.validate(directory: directory, options: ValidationOptions(expectations: expectations, storages: storages))
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        let output = report.rendered(reportFormat, timing: ValidationTiming(seconds: seconds))
        return (report.passed ? .success : .checkFailed, output)
    }

    /// - Throws: ``StandardOutputError`` when stdout cannot be written (the other errors are
    ///   reported per file, and the worst status returned).
    /// - Parameter json: print one JSON document on stdout instead of diagnostics on stderr.
    static func validatePipelines(_ paths: [String], json: Bool = false) throws -> ExitStatus {
        var worst = ExitStatus.success
        var documents: [JSONValue] = []
        for path in paths {
            var found: [Diagnostic] = []
            var status = ExitStatus.success
            func add(_ ds: [Diagnostic], _ s: ExitStatus) {
                found += ds
                if ds.contains(where: { $0.severity == .error }) { status = worse(status, s) }
            }
            do {
                let spec = try PipelineLoader.load(path: path)
                do {
                    _ = try ChannelLayout.make(spec)
                    let matched = InputDiscovery.match(spec)
                    for u in matched.unmatched {
                        add([Diagnostic(.error, at: spec.inputs[u.inputIndex].location ?? SourceLocation(file: path),
                                        InputDiscovery.unmatchedMessage(u, spec: spec, file: nil))], .noInput)
                    }
                    for bad in matched.irregular {
                        add([Diagnostic(.error, at: SourceLocation(file: bad.path),
                                        "matched by `\(bad.pattern)` in \(spec.inputName(bad.inputIndex)) of \(path), this is \(bad.kind), not a regular file; motionprep reads only regular files")], .noInput)
                    }
                    if matched.unmatched.isEmpty && matched.irregular.isEmpty {
                        add(PipelineChecks.check(spec), .dataError)
                    }
                } catch let e as UserFacingError {
                    // An iio layout folder whose files are unusable is bad input data (65), one
                    // that cannot be found because the input matches no file a missing path (66);
                    // neither is a pipeline problem (78). Inline layouts are checked by the loader.
                    switch e.exitStatus {
                    case .config: add(e.diagnostics, .config)
                    case .dataError: add(e.diagnostics, .dataError)
                    default: add(e.diagnostics, .noInput)
                    }
                }
            } catch let e as StandardOutputError {
                throw e
            } catch let e as UserFacingError {
                add(e.diagnostics, e.exitStatus == .config ? .config : e.exitStatus)
            }
            worst = worse(worst, status)
            if json {
                documents.append(.object([
                    "path": .string(path), "ok": .bool(status == .success), "exit_status": .int(Int(status.rawValue)),
                    "diagnostics": .array(found.map(Self.json)),
                ]))
            } else {
                Diagnostics.print(found)
                if status == .success {
                    let warnings = found.filter { $0.severity == .warning }.count
                    try Diagnostics.stdout("\(path): ok" + (warnings == 0 ? "" : " (\(warnings) warning\(warnings == 1 ? "" : "s"))"))
                }
            }
        }
        if json {
            try Diagnostics.stdout(JSONValue.object(["pipelines": .array(documents), "ok": .bool(worst == .success)]).pretty())
        }
        return worst
    }

    /// A diagnostic as `validate --format json` lists it.
    static func json(_ d: Diagnostic) -> JSONValue {
        .object([
            "severity": .string(d.severity.rawValue),
            "file": d.location.map { .string($0.file) } ?? .null,
            "line": d.location?.line.map { .int($0) } ?? .null,
            "column": d.location?.column.map { .int($0) } ?? .null,
            "byte_offset": d.location?.byteOffset.map { .int($0) } ?? .null,
            "message": .string(d.message),
            "hints": .array(d.hints.map { .string($0) }),
            "text": .string(d.description),
        ])
    }

    /// The status to exit with when files had `a` and `b`: 78 before 65 before 66 before 0
    /// (others, such as 74 reading the pipeline file, count as 66 does).
    static func worse(_ a: ExitStatus, _ b: ExitStatus) -> ExitStatus {
        func rank(_ s: ExitStatus) -> Int {
            switch s {
            case .success: return 0
            case .config: return 3
            case .dataError: return 2
            default: return 1
            }
        }
        return rank(b) > rank(a) ? b : a
    }
}
