import Foundation
import MotionChecksum
import MotionConfig
import MotionCore

/// `part.json` of a `--worker I/N` output: the pipeline it ran (as YAML text, so `merge` can
/// rebuild the plan), every recording of the whole run, the ones this part holds, and the
/// run-wide files it read (labels, IIO layout files; each record lists its own). Its SHA-256 is
/// in `part.json.sha256` (`sha256sum` format), so a damaged or edited part.json is refused.
/// `merge` checks every field (docs/hardening.md, "Data safety: provenance and intermediate state").
enum PartManifest {
    static let fileName = "part.json"
    static let checksumFileName = "part.json.sha256"
    static let formatVersion = 2
    /// More workers than this is not a real run; the bound keeps a damaged count from
    /// allocating per-worker tables.
    static let maxWorkers = WorkerSlot.maxWorkers

    static func write(plan: RunPlan, worker: WorkerSlot, owned: [Int], failures: [(Int, String)], runInputs: [InputEntry],
                      staging: DatasetStaging, partition: PartitionSummary? = nil) throws {
        let yaml = ((try? RegularFile.contents(atPath: plan.spec.file)) ?? nil).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let json: JSONValue = .object([
            "format": .string("motionprep.part"),
            "format_version": .int(formatVersion),
            "worker": .int(worker.index),
            "workers": .int(worker.count),
            "pipeline_sha256": .string(plan.pipelineSHA256),
            "pipeline": .object(["file": .string(PathText.lastComponent(plan.spec.file)), "yaml": .string(yaml)]),
            // Only for `merge` to re-check the inputs where it can still reach them.
            "base_directory": .string(PathText.absolute(plan.spec.baseDirectory)),
            "recordings": .array(plan.sources.map { s in
                .object(["name": .string(s.name), "subject": .string(s.subject),
                         "files": .array(s.files.map { .object(["input_index": .int($0.inputIndex), "path": .string($0.manifestPath)]) })])
            }),
            "owned": .array(owned.map { .int($0) }),
            "failures": .array(failures.map { .object(["recording": .int($0.0), "error": .string($0.1)]) }),
            "inputs": .array(runInputs.map(\.json)),
            "label_rows_ignored": plan.ignoredLabelRows?.json ?? .null,
        ].merging(partition.map { ["partition_summary": $0.json] } ?? [:]) { a, _ in a })
        let text = json.pretty() + "\n"
        try staging.write(fileName, text)
        try staging.write(checksumFileName, SHA256Text.hex(text) + "  " + fileName + "\n")
    }

    struct Part {
        var directory: String
        var worker: Int
        var workers: Int
        var pipelineSHA256: String
        var yaml: String
        var file: String
        var baseDirectory: String
        var sources: [RecordingSource]
        var owned: Set<Int>
        var failures: [Int: String]
        var inputs: [InputEntry]
        /// What the worker's plan counted of the intervals file (nil without one).
        var ignoredLabelRows: IgnoredLabelRows?
        /// `partition_summary` of a part of a partitioned run (`output.partitioned`): its data
        /// files, counters and moments; nil for a part of the default layout (records only).
        var partition: PartitionSummary?
    }

    /// Reads and checks `dir/part.json`: its checksum, then every field's type and range.
    ///
    /// - Throws: `.noInput` (66) when it is missing; `.dataError` (65) naming the file and the
    ///   field otherwise.
    static func read(_ dir: String) throws -> Part {
        let path = dir + "/" + fileName
        guard let data = try RegularFile.contents(atPath: path) else {
            throw MotionError(.noInput, "\(dir) is not a `motionprep run --worker` output: \(path) is missing")
        }
        let sumPath = dir + "/" + checksumFileName
        guard let sumData = try RegularFile.contents(atPath: sumPath) else {
            throw MotionError(.dataError, "\(path) has no checksum file \(sumPath) (a part of an older motionprep, or a damaged one); rerun the worker")
        }
        let recorded = String(decoding: sumData, as: UTF8.self).prefix { $0 != " " && $0 != "\n" }
        let actual = SHA256.hex(of: Array(data))
        guard recorded == actual else {
            throw MotionError(.dataError, "\(path) is damaged: its SHA-256 is \(actual.prefix(12))…, \(sumPath) says \(recorded.prefix(12))…; rerun the worker")
        }
        func bad(_ field: String, _ problem: String) -> MotionError {
            MotionError(.dataError, "\(path): `\(field)` \(problem)")
        }
        guard let o = try? JSONParser.parse(Array(data)), o.objectValue != nil else {
            throw MotionError(.dataError, "\(path) is not a JSON object, so not a part manifest")
        }
        guard o["format"]?.stringValue == "motionprep.part" else { throw bad("format", "must be \"motionprep.part\"") }
        func int(_ value: JSONValue?, _ field: String, _ range: ClosedRange<Int>, _ what: String) throws -> Int {
            guard let d = value?.doubleValue, d.isFinite, d == d.rounded(), d >= Double(range.lowerBound),
                  d <= Double(range.upperBound) else {
                throw bad(field, "must be \(what), not \(show(value))")
            }
            return Int(d)
        }
        func string(_ value: JSONValue?, _ field: String, nonEmpty: Bool = false) throws -> String {
            guard let s = value?.stringValue, !nonEmpty || !s.isEmpty else {
                throw bad(field, "must be \(nonEmpty ? "a non-empty" : "a") string, not \(show(value))")
            }
            return s
        }
        func array(_ value: JSONValue?, _ field: String) throws -> [JSONValue] {
            guard let a = value?.arrayValue else { throw bad(field, "must be a list, not \(show(value))") }
            return a
        }
        func object(_ value: JSONValue?, _ field: String) throws -> [String: JSONValue] {
            guard let d = value?.objectValue else { throw bad(field, "must be an object, not \(show(value))") }
            return d
        }
        let version = try int(o["format_version"], "format_version", 0...Int(Int32.max), "a whole number")
        guard version == formatVersion else {
            throw bad("format_version", "is \(version), but this motionprep reads parts of format \(formatVersion) only; rerun the worker with it")
        }
        let workers = try int(o["workers"], "workers", 1...maxWorkers, "a whole number from 1 to \(maxWorkers)")
        let worker = try int(o["worker"], "worker", 0...(workers - 1), "a whole number from 0 to \(workers - 1) (`workers` is \(workers))")
        let hash = try string(o["pipeline_sha256"], "pipeline_sha256")
        guard hash.utf8.count == 64, hash.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw bad("pipeline_sha256", "must be 64 lowercase hex digits, not \(show(.string(hash)))")
        }
        let pipeline = try object(o["pipeline"], "pipeline")
        let yaml = try string(pipeline["yaml"], "pipeline.yaml")
        let file = try string(pipeline["file"], "pipeline.file", nonEmpty: true)
        let base = try string(o["base_directory"], "base_directory", nonEmpty: true)
        var sources: [RecordingSource] = []
        var names = Set<String>()
        for (r, item) in try array(o["recordings"], "recordings").enumerated() {
            let rec = try object(item, "recordings[\(r)]")
            let name = try string(rec["name"], "recordings[\(r)].name", nonEmpty: true)
            guard names.insert(name).inserted else { throw bad("recordings[\(r)].name", "repeats recording \(show(.string(name)))") }
            let subject = try string(rec["subject"], "recordings[\(r)].subject")
            var files: [InputFile] = []
            for (f, fileItem) in try array(rec["files"], "recordings[\(r)].files").enumerated() {
                let field = "recordings[\(r)].files[\(f)]"
                let fo = try object(fileItem, field)
                let index = try int(fo["input_index"], field + ".input_index", 0...Int(Int32.max), "a whole number from 0")
                let p = try string(fo["path"], field + ".path", nonEmpty: true)
                files.append(InputFile(inputIndex: index, path: p, manifestPath: p))
            }
            if files.isEmpty { throw bad("recordings[\(r)].files", "is empty; every recording has at least one file") }
            sources.append(RecordingSource(name: name, subject: subject, files: files))
        }
        if sources.isEmpty { throw bad("recordings", "is empty; a run has at least one recording") }
        let count = sources.count
        var owned = Set<Int>()
        for (k, item) in try array(o["owned"], "owned").enumerated() {
            let i = try int(item, "owned[\(k)]", 0...(count - 1), "a recording index from 0 to \(count - 1)")
            guard owned.insert(i).inserted else { throw bad("owned[\(k)]", "repeats recording index \(i)") }
            let owner = RunPlan.worker(of: sources[i].name, count: workers)
            guard owner == worker else {
                throw bad("owned[\(k)]", "is recording `\(sources[i].name)`, which belongs to worker \(owner)/\(workers), not \(worker)/\(workers)")
            }
        }
        var failures: [Int: String] = [:]
        for (k, item) in try array(o["failures"], "failures").enumerated() {
            let fo = try object(item, "failures[\(k)]")
            let i = try int(fo["recording"], "failures[\(k)].recording", 0...(count - 1), "a recording index from 0 to \(count - 1)")
            guard owned.contains(i) else { throw bad("failures[\(k)].recording", "is recording \(i), which this part does not hold") }
            guard failures[i] == nil else { throw bad("failures[\(k)].recording", "repeats recording index \(i)") }
            failures[i] = try string(fo["error"], "failures[\(k)].error", nonEmpty: true)
        }
        var inputs: [InputEntry] = []
        for (k, item) in try array(o["inputs"], "inputs").enumerated() {
            _ = try object(item, "inputs[\(k)]")
            guard let e = InputEntry(json: item) else {
                throw bad("inputs[\(k)]", "must have `input_index`, a non-empty `path`, `bytes` ≥ 0, a 64-hex-digit `sha256` and a `role` (recording, labels or iio_layout)")
            }
            inputs.append(e)
        }
        var partition: PartitionSummary?
        if let summary = o["partition_summary"] {
            do {
                partition = try PartitionSummary(json: summary)
            } catch let e as MotionError {
                throw MotionError(.dataError, "\(path): \(e.message)")
            }
            guard partition!.partition == worker else {
                throw bad("partition_summary.partition", "is \(partition!.partition), but the part is worker \(worker)/\(workers)")
            }
        }
        return Part(directory: dir, worker: worker, workers: workers, pipelineSHA256: hash, yaml: yaml, file: file,
                    baseDirectory: base, sources: sources, owned: owned, failures: failures, inputs: inputs,
                    ignoredLabelRows: IgnoredLabelRows(json: o["label_rows_ignored"]), partition: partition)
    }

    /// A JSON value as a message shows it.
    private static func show(_ value: JSONValue?) -> String {
        value?.shown ?? "missing"
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
            // At most 5 named (a part of a million workers gave a 15.9 MB line).
            throw MotionError(.noInput, "missing part(s) for worker(s) \(Text.bounded(missing.lazy.map { "\($0)/\(first.workers)" })); merge needs all \(first.workers)")
        }
        // The pipeline's folder as the workers saw it, when it can be reached: an IIO `layout`
        // folder is read again there to learn the channels.
        var isFolder: ObjCBool = false
        let base = FileManager.default.fileExists(atPath: first.baseDirectory, isDirectory: &isFolder) && isFolder.boolValue
            ? first.baseDirectory : "."
        let spec = try PipelineLoader.load(yaml: first.yaml, file: first.file, baseDirectory: base)
        for p in parts {
            for (r, s) in p.sources.enumerated() {
                if let f = s.files.firstIndex(where: { $0.inputIndex >= spec.inputs.count }) {
                    throw MotionError(.dataError, "\(p.directory)/\(PartManifest.fileName): `recordings[\(r)].files[\(f)].input_index` is \(s.files[f].inputIndex), but the pipeline has \(spec.inputs.count) input(s)")
                }
            }
        }
        for p in parts where p.sources != first.sources {
            throw MotionError(.dataError, "\(p.directory) lists other recordings (or other files for them) than \(first.directory): the workers found different input files; merge parts of one run only")
        }
        // merge reads no labels file: what the workers' plans counted of it comes from the parts.
        var replanned = try RunPlan(spec: spec, sources: first.sources, readLabels: false)
        replanned.ignoredLabelRows = first.ignoredLabelRows
        let plan = replanned
        guard plan.pipelineSHA256 == first.pipelineSHA256 else {
            throw MotionError(.dataError, "the pipeline stored in \(first.directory) no longer hashes to its recorded value; the part is damaged")
        }
        let partsByWorker = byWorker
        var ownerOf = [Int](repeating: -1, count: plan.sources.count)
        for p in parts {
            for i in p.owned {
                if ownerOf[i] >= 0 {
                    throw MotionError(.dataError, "recording `\(plan.sources[i].name)` is held by two parts, \(byWorker[ownerOf[i]]!.directory) and \(p.directory); merge parts of one run only")
                }
                ownerOf[i] = p.worker
            }
        }
        let owner = ownerOf
        if let lost = owner.firstIndex(of: -1) {
            throw MotionError(.dataError, "no part holds recording `\(plan.sources[lost].name)`; the parts are incomplete")
        }
        // The run-wide inputs (labels, layout files): the parts must agree, and where the files
        // can still be reached they must be unchanged.
        let runInputs = try DatasetWriter.manifestInputs(parts.flatMap(\.inputs))
        for p in parts {
            for e in p.inputs { try checkReachable(e, part: p) }
        }
        if spec.output.partitioned || spec.output.type == .createml {
            return try mergePartitioned(outputDirectory: outputDirectory, parts: parts, plan: plan, runInputs: runInputs, options: options)
        }
        if let p = parts.first(where: { $0.partition != nil }) {
            throw MotionError(.dataError, "\(p.directory) holds data files of a partitioned run (`output.partitioned: true`), but its stored pipeline is not partitioned; the part is damaged; rerun worker \(p.worker)/\(p.workers)")
        }
        var reads = parts.map { (path: $0.directory, role: "part folder") }
        for p in parts { reads.append((p.directory + "/" + PartManifest.fileName, "part manifest")) }
        let job = try DatasetJob(outputDirectory: PathText.normalize(outputDirectory), reads: reads, log: options.log)
        defer { job.end() }
        try job.begin()
        let writer = try DatasetWriter(plan: plan, job: job, jobs: options.jobs, log: options.log)
        job.onAbandon { writer.abandon() }
        var progress = RunProgress(total: plan.sources.count)
        try job.execute(
            count: plan.sources.count, jobs: options.jobs, makeWorker: {},
            work: { _, i in
                let part = partsByWorker[owner[i]]!
                if let failure = part.failures[i] { return .failure(RecordedFailure(description: failure)) }
                let path = part.directory + "/records/" + RecordStore.fileName(for: i)
                return Result {
                    let loaded: (record: RecordingRecord, pipelineSHA256: String)?
                    do {
                        loaded = try RecordStore.load(path: path, source: plan.sources[i], verify: true)
                    } catch let e as RecordDamaged {
                        throw MotionError(.dataError, "\(e.message); rerun worker \(owner[i])/\(first.workers)")
                    }
                    guard let r = loaded else {
                        throw MotionError(.dataError, "\(path) is missing; rerun worker \(owner[i])/\(first.workers)")
                    }
                    guard r.pipelineSHA256 == plan.pipelineSHA256 else {
                        throw MotionError(.dataError, "\(path) was made by another pipeline than its part.json says; rerun worker \(owner[i])/\(first.workers)")
                    }
                    for e in r.record.inputs { try checkReachable(e, part: part) }
                    return r.record
                }
            },
            consume: { i, outcome in
                if case .failure(let e) = outcome, !(e is RecordedFailure) { throw e }
                try writer.append(i, outcome)
                progress.add(windows: (try? outcome.get().windowCount) ?? 0, bytes: 0)
                options.progress(progress)
            })
        let summary = try writer.finish(runInputs: runInputs)
        try job.commit()
        return summary
    }
}

extension PipelineRunner {
    /// Refuses to merge when an input a worker read can still be reached (under the worker's
    /// pipeline folder) and no longer has the size and SHA-256 the worker recorded; an input
    /// that cannot be reached (another machine's folder) is not checked.
    static func checkReachable(_ entry: InputEntry, part: PartManifest.Part) throws {
        let path = PathText.join(part.baseDirectory, entry.path)
        guard FileManager.default.fileExists(atPath: path) else { return }
        try checkUnchanged(entry, at: path, refusal: "cannot merge", since: "worker \(part.worker)/\(part.workers) read it",
                           remedy: "rerun the worker(s) on the current files")
    }
}
