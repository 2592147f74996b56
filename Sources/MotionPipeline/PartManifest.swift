import Foundation
import MotionConfig
import MotionCore

/// `part.json` of a `--worker I/N` output: the pipeline it ran (as YAML text, so `merge` can
/// rebuild the plan), every recording of the whole run, and the ones this part holds.
enum PartManifest {
    static let fileName = "part.json"

    static func write(plan: RunPlan, worker: WorkerSlot, owned: [Int], failures: [(Int, String)], staging: DatasetStaging) throws {
        let yaml = (try? String(contentsOfFile: plan.spec.file, encoding: .utf8)) ?? ""
        let json: JSONValue = .object([
            "format": .string("motionprep.part"),
            "format_version": .int(1),
            "worker": .int(worker.index),
            "workers": .int(worker.count),
            "pipeline_sha256": .string(plan.pipelineSHA256),
            "pipeline": .object(["file": .string(PathText.lastComponent(plan.spec.file)), "yaml": .string(yaml)]),
            "recordings": .array(plan.sources.map { s in
                .object(["name": .string(s.name), "subject": .string(s.subject),
                         "files": .array(s.files.map { .object(["input_index": .int($0.inputIndex), "path": .string($0.manifestPath)]) })])
            }),
            "owned": .array(owned.map { .int($0) }),
            "failures": .array(failures.map { .object(["recording": .int($0.0), "error": .string($0.1)]) }),
            "label_rows_ignored": plan.ignoredLabelRows?.json ?? .null,
        ])
        try staging.write(fileName, json.pretty() + "\n")
    }

    struct Part {
        var directory: String
        var worker: Int
        var workers: Int
        var pipelineSHA256: String
        var yaml: String
        var file: String
        var sources: [RecordingSource]
        var owned: Set<Int>
        var failures: [Int: String]
        /// What the worker's plan counted of the intervals file (nil without one).
        var ignoredLabelRows: IgnoredLabelRows?
    }

    static func read(_ dir: String) throws -> Part {
        let path = dir + "/" + fileName
        guard let data = FileManager.default.contents(atPath: path) else {
            throw MotionError(.noInput, "\(dir) is not a `motionprep run --worker` output: \(path) is missing")
        }
        guard let o = try? JSONSerialization.jsonObject(with: data) as? [String: Any], o["format"] as? String == "motionprep.part",
              let worker = (o["worker"] as? NSNumber)?.intValue, let workers = (o["workers"] as? NSNumber)?.intValue,
              let hash = o["pipeline_sha256"] as? String, let pipeline = o["pipeline"] as? [String: Any],
              let recs = o["recordings"] as? [[String: Any]], let owned = o["owned"] as? [NSNumber] else {
            throw MotionError(.dataError, "\(path) is not a valid part manifest (format motionprep.part, version 1)")
        }
        let sources = recs.map { r in
            RecordingSource(name: r["name"] as? String ?? "", subject: r["subject"] as? String ?? "",
                            files: ((r["files"] as? [[String: Any]]) ?? []).map {
                                let p = $0["path"] as? String ?? ""
                                return InputFile(inputIndex: ($0["input_index"] as? NSNumber)?.intValue ?? 0, path: p, manifestPath: p)
                            })
        }
        var failures: [Int: String] = [:]
        for f in (o["failures"] as? [[String: Any]]) ?? [] {
            if let i = (f["recording"] as? NSNumber)?.intValue { failures[i] = f["error"] as? String ?? "" }
        }
        return Part(directory: dir, worker: worker, workers: workers, pipelineSHA256: hash,
                    yaml: pipeline["yaml"] as? String ?? "", file: pipeline["file"] as? String ?? "pipeline.yaml",
                    sources: sources, owned: Set(owned.map(\.intValue)), failures: failures,
                    ignoredLabelRows: IgnoredLabelRows(json: o["label_rows_ignored"]))
    }
}

/// A failure recorded by a worker, replayed by `merge`.
struct RecordedFailure: Error, CustomStringConvertible {
    var description: String
}

extension PipelineRunner {
    /// `motionprep merge OUT_DIR PART_DIR…`: joins the parts of `--worker I/N` runs into exactly
    /// the dataset one run would have written.
    public static func merge(outputDirectory: String, parts partDirs: [String], options: RunOptions) throws -> RunSummary {
        let parts = try partDirs.map(PartManifest.read)
        let first = parts[0]
        for p in parts where p.pipelineSHA256 != first.pipelineSHA256 || p.workers != first.workers {
            throw MotionError(.dataError, "\(p.directory) was made by a different pipeline or worker count than \(first.directory) (pipeline \(p.pipelineSHA256.prefix(12))… of \(p.workers) workers vs \(first.pipelineSHA256.prefix(12))… of \(first.workers)); merge parts of one run only")
        }
        var byWorker: [Int: PartManifest.Part] = [:]
        for p in parts {
            if let other = byWorker[p.worker] {
                throw MotionError(.usage, "worker \(p.worker)/\(p.workers) is given twice: \(other.directory) and \(p.directory)")
            }
            byWorker[p.worker] = p
        }
        let missing = (0..<first.workers).filter { byWorker[$0] == nil }
        if !missing.isEmpty {
            throw MotionError(.noInput, "missing part(s) for worker(s) \(missing.map { "\($0)/\(first.workers)" }.joined(separator: ", ")); merge needs all \(first.workers)")
        }
        let spec = try PipelineLoader.load(yaml: first.yaml, file: first.file, baseDirectory: ".")
        var replanned = try RunPlan(spec: spec, sources: first.sources, readLabels: false)
        replanned.ignoredLabelRows = first.ignoredLabelRows
        let plan = replanned
        guard plan.pipelineSHA256 == first.pipelineSHA256 else {
            throw MotionError(.dataError, "the pipeline stored in \(first.directory) no longer hashes to its recorded value; the part is damaged")
        }
        let partsByWorker = byWorker
        let owner: [Int] = plan.sources.indices.map { i in byWorker.values.first { $0.owned.contains(i) }?.worker ?? -1 }
        if let lost = owner.firstIndex(of: -1) {
            throw MotionError(.dataError, "no part holds recording `\(plan.sources[lost].name)`; the parts are incomplete")
        }
        let staging = DatasetStaging(outputDirectory: PathText.normalize(outputDirectory))
        var reads = parts.map { (path: $0.directory, role: "part folder") }
        for p in parts { reads.append((p.directory + "/" + PartManifest.fileName, "part manifest")) }
        let lock = try PipelineRunner.takeOutput(staging, reads: reads, log: options.log)
        defer { lock.release() }
        try staging.begin()
        var finished = false
        defer { if !finished { staging.abandon() } }
        let writer = try DatasetWriter(plan: plan, staging: staging, jobs: options.jobs, log: options.log)
        defer { if !finished { writer.abandon() } }
        var progress = RunProgress(total: plan.sources.count)
        try OrderedExecutor<Void, Result<RecordingRecord, Error>>().run(
            count: plan.sources.count, jobs: options.jobs, maxInFlight: options.jobs * 2, makeWorker: {},
            work: { _, i in
                let part = partsByWorker[owner[i]]!
                if let failure = part.failures[i] { return .failure(RecordedFailure(description: failure)) }
                let path = part.directory + "/records/" + RecordStore.fileName(for: i)
                return Result {
                    guard let r = try RecordStore.load(path: path, source: plan.sources[i]), r.pipelineSHA256 == plan.pipelineSHA256 else {
                        throw MotionError(.dataError, "\(path) is missing or damaged; rerun worker \(owner[i])/\(first.workers)")
                    }
                    return r.record
                }
            },
            consume: { i, outcome in
                if case .failure(let e) = outcome, !(e is RecordedFailure) { throw e }
                try writer.append(i, outcome)
                progress.add(windows: (try? outcome.get().windowCount) ?? 0, bytes: 0)
                options.progress(progress)
            })
        let summary = try writer.finish()
        try staging.commit(log: options.log)
        finished = true
        return summary
    }
}
