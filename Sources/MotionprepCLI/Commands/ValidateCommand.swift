import Foundation
import MotionConfig
import MotionCore
import MotionPipeline

/// `motionprep validate PIPELINE.yaml…` (dataset validation comes with issue 7).
enum ValidateCommand {
    static let help = """
        usage: motionprep validate PIPELINE.yaml...
               motionprep validate DATASET_DIR [--expect FILE] [--format text|json|junit]   (not in this build yet)

        Checks pipeline files without running them: the schema, every stage option, and that every
        input path matches at least one file. Exit 0 when all are fine, 78 when a file has a
        pipeline problem (all problems are listed), else 66 when a path matches nothing.
        """

    static func run(_ args: [String]) throws -> ExitStatus {
        if args.contains("--help") || args.contains("-h") { Diagnostics.stdout(help); return .success }
        let a = try ArgumentScanner(args, valueOptions: ["--expect", "--format"], flagOptions: [], command: "validate")
        guard !a.positionals.isEmpty else {
            throw UsageError(message: "`motionprep validate` needs a pipeline file or a dataset folder")
        }
        var worst = ExitStatus.success
        for path in a.positionals {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue {
                throw UsageError(message: "validating a dataset folder (\(path)) is not available in this build yet; `motionprep validate` checks pipeline files")
            }
            do {
                let spec = try PipelineLoader.load(path: path)
                do {
                    _ = try ChannelLayout.make(spec)
                } catch let e as UserFacingError {
                    Diagnostics.stderr("motionprep: " + e.message)
                    worst = .config
                    continue
                }
                let (_, unmatched) = InputDiscovery.match(spec)
                if unmatched.isEmpty {
                    Diagnostics.stdout("\(path): ok")
                } else {
                    for u in unmatched {
                        Diagnostics.stderr("motionprep: `\(u.pattern)` in inputs[\(u.inputIndex)] of \(path) matches no file (paths are relative to `\(spec.baseDirectory)`)")
                    }
                    if worst == .success { worst = .noInput }
                }
            } catch {
                let status = Diagnostics.report(error)
                if status == .config || worst == .success { worst = status }
            }
        }
        return worst
    }
}
