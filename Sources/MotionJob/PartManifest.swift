import Foundation
import MotionChecksum
import MotionConfig
import MotionCore
import MotionOutput
import MotionInputs
import MotionRecords

/// `part.json` of a `--worker I/N` output: the pipeline it ran (as YAML text, so `merge` can
/// rebuild the plan), the run's plan as a count and a digest (`plan`: the number of recordings and
/// the SHA-256 of their listing, ``planSHA256(_:)``), the recordings this part holds (with their
/// index in the plan), and the run-wide files it read (labels, IIO layout files; each record lists
/// its own). A part lists only its own recordings, so N parts of a run of R recordings list R in
/// all, not N × R (format 3; format 2 listed every recording in every part). Its SHA-256 is in
/// `part.json.sha256` (`sha256sum` format), so a damaged or edited part.json is refused. `merge`
/// checks every field, and that the parts' recordings together hash to the plan's digest
/// (docs/hardening.md, "Data safety: provenance and intermediate state"; docs/scale.md).
enum PartManifest {
    static let fileName = OutputNames.part
    static let checksumFileName = OutputNames.partChecksums
    static let formatVersion = 3
    /// More workers than this is not a real run; the bound keeps a damaged count from
    /// allocating per-worker tables.
    static let maxWorkers = WorkerSlot.maxWorkers

    /// One recording as the plan's listing and a part give it: name, subject, and its files
    /// (input index and path as the manifest writes it).
    static func listing(_ s: RecordingSource) -> [String: JSONValue] {
        ["name": .string(s.name), "subject": .string(s.subject),
         "files": .array(s.files.map { .object(["input_index": .int($0.inputIndex), "path": .string($0.manifestPath)]) })]
    }

    /// The digest of a run's plan: the SHA-256 of the compact JSON text (keys sorted, no
    /// spaces, as motionprep writes JSON) of its recordings in canonical order,
    /// `[{"files":[{"input_index":0,"path":"…"}],"name":"…","subject":"…"},…]`. Every worker
    /// writes it; `merge` recomputes it from the union of the parts' recordings.
    static func planSHA256(_ sources: [RecordingSource]) -> String {
        var hasher = SHA256Hasher()
        var text = "["
        for (k, s) in sources.enumerated() {
            if k > 0 { text += "," }
            text += JSONValue.object(listing(s)).compact()
            if text.utf8.count >= 1 << 16 {
                hasher.update(Array(text.utf8))
                text = ""
            }
        }
        text += "]"
        hasher.update(Array(text.utf8))
        return hasher.finalizeHex()
    }

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
            "plan": .object(["recordings": .int(plan.sources.count), "sha256": .string(planSHA256(plan.sources))]),
            "recordings": .array(owned.sorted().map { i in
                .object(listing(plan.sources[i]).merging(["index": .int(i)]) { a, _ in a })
            }),
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
        /// The run's plan as the worker made it: its number of recordings and the digest of
        /// their listing (``planSHA256(_:)``).
        var planRecordings: Int
        var planSHA256: String
        /// This part's recordings with their index in the plan, in plan order.
        var recordings: [(index: Int, source: RecordingSource)]
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
        let root = try JSONFile.parse(Array(data), file: path, document: "the part")
        do {
            return try decode(root, directory: dir)
        } catch let problem as JSONProblem {
            throw MotionError(.dataError, problem.message(file: path))
        }
    }

    /// `part.json`'s fields through the one JSON decoder (`JSONNode`): every problem names its
    /// key path.
    private static func decode(_ o: JSONNode, directory dir: String) throws -> Part {
        _ = try o.object()
        guard try o["format"].string() == "motionprep.part" else { throw o["format"].problem("must be \"motionprep.part\"") }
        let version = try o["format_version"].int(in: 0...Int(Int32.max), "a whole number")
        guard version == formatVersion else {
            let older = version == 2 ? " (format 2 listed every recording of the run in every part; format 3 lists only the part's own, beside a digest of the run's plan)" : ""
            throw o["format_version"].problem("is \(version), but this motionprep reads parts of format \(formatVersion) only\(older); rerun the workers with it")
        }
        let workers = try o["workers"].int(in: 1...maxWorkers, "a whole number from 1 to \(maxWorkers)")
        let worker = try o["worker"].int(in: 0...(workers - 1), "a whole number from 0 to \(workers - 1) (`workers` is \(workers))")
        let hash = try o["pipeline_sha256"].sha256()
        let yaml = try o["pipeline"]["yaml"].string()
        let file = try o["pipeline"]["file"].nonEmptyString()
        let base = try o["base_directory"].nonEmptyString()
        let count = try o["plan"]["recordings"].int(in: 1...Int(Int32.max), "a whole number from 1 (the run's recordings)")
        let planHash = try o["plan"]["sha256"].sha256()
        // This part's recordings only, in plan order, each with its index in the plan.
        var recordings: [(index: Int, source: RecordingSource)] = []
        var names = Set<String>()
        for rec in try o["recordings"].items() {
            let index = try rec["index"].int(in: 0...(count - 1), "a recording index from 0 to \(count - 1) (`plan.recordings` is \(count))")
            if let previous = recordings.last, index <= previous.index {
                throw rec["index"].problem("is \(index), after \(previous.index): a part lists its recordings once each, in plan order")
            }
            let name = try rec["name"].nonEmptyString()
            guard names.insert(name).inserted else { throw rec["name"].problem("repeats recording \(JSONNode.shown(.string(name)))") }
            let owner = RunPlan.worker(of: name, count: workers)
            guard owner == worker else {
                throw rec.problem("is recording `\(name)`, which belongs to worker \(owner)/\(workers), not \(worker)/\(workers)")
            }
            let subject = try rec["subject"].string()
            var files: [InputFile] = []
            for f in try rec["files"].items() {
                let index = try f["input_index"].int(in: 0...Int(Int32.max), "a whole number from 0")
                let p = try f["path"].nonEmptyString()
                files.append(InputFile(inputIndex: index, path: p, manifestPath: p))
            }
            if files.isEmpty { throw rec["files"].problem("is empty; every recording has at least one file") }
            recordings.append((index, RecordingSource(name: name, subject: subject, files: files)))
        }
        let held = Set(recordings.map(\.index))
        var failures: [Int: String] = [:]
        for f in try o["failures"].items() {
            let i = try f["recording"].int(in: 0...(count - 1), "a recording index from 0 to \(count - 1)")
            guard held.contains(i) else { throw f["recording"].problem("is recording \(i), which this part does not hold") }
            guard failures[i] == nil else { throw f["recording"].problem("repeats recording index \(i)") }
            failures[i] = try f["error"].nonEmptyString()
        }
        let inputs = try o["inputs"].items().map { (n: JSONNode) throws(JSONProblem) -> InputEntry in try n.decode() }
        var partition: PartitionSummary?
        if !o["partition_summary"].isMissing {
            partition = try o["partition_summary"].decode(PartitionSummary.self)
            guard partition!.partition == worker else {
                throw o["partition_summary"]["partition"].problem("is \(partition!.partition), but the part is worker \(worker)/\(workers)")
            }
        }
        return Part(directory: dir, worker: worker, workers: workers, pipelineSHA256: hash, yaml: yaml, file: file,
                    baseDirectory: base, planRecordings: count, planSHA256: planHash, recordings: recordings,
                    failures: failures, inputs: inputs,
                    ignoredLabelRows: try o["label_rows_ignored"].optional { n throws(JSONProblem) in try n.decode() },
                    partition: partition)
    }

    /// The run's recordings from the parts (one per worker, already checked to share the
    /// pipeline, worker count and plan): each recording held by exactly one part, and all of
    /// them together hashing to the plan's digest. O(recordings) in all, whatever the parts.
    ///
    /// - Returns: the recordings in plan order, and each one's worker.
    /// - Throws: `.dataError` (65) naming the parts when a recording is held twice, none holds
    ///   one, or the union is not the plan the workers recorded.
    static func union(_ parts: [Part], byWorker: [Int: Part]) throws -> (sources: [RecordingSource], owner: [Int]) {
        let first = parts[0]
        let count = first.planRecordings
        let workers = first.workers
        let ordered = parts.sorted { $0.worker < $1.worker }
        let listed = ordered.reduce(0) { $0 + $1.recordings.count }
        func twice(_ index: Int, _ name: String, _ a: Int, _ b: Int) -> MotionError {
            MotionError(.dataError, "recording `\(name)` (index \(index) of the plan) is held by two parts, \(byWorker[a]!.directory) and \(byWorker[b]!.directory); merge parts of one run only")
        }
        guard listed == count else {
            // Every index is below `count` (checked when read), so more listed than planned
            // means one held twice; fewer, one held by none. Found without a table of `count`
            // entries, which a damaged count could make huge.
            var holder: [Int: Int] = [:]
            for p in ordered {
                for r in p.recordings {
                    if let other = holder.updateValue(p.worker, forKey: r.index) { throw twice(r.index, r.source.name, other, p.worker) }
                }
            }
            var lost = 0
            while holder[lost] != nil { lost += 1 }
            var after = ""
            if lost > 0, let w = holder[lost - 1], let p = byWorker[w], let r = p.recordings.first(where: { $0.index == lost - 1 }) {
                after = ", the one after `\(r.source.name)`, which \(p.directory) holds"
            }
            throw MotionError(.dataError, "no part holds recording \(lost) of the run's \(count) (in plan order\(after)): the parts hold \(listed) recording(s) in all; a part.json was changed, or the parts come from different runs; rerun the workers")
        }
        var slots = [RecordingSource?](repeating: nil, count: count)
        var owner = [Int](repeating: -1, count: count)
        for p in ordered {
            for r in p.recordings {
                if owner[r.index] >= 0 { throw twice(r.index, r.source.name, owner[r.index], p.worker) }
                owner[r.index] = p.worker
                slots[r.index] = r.source
            }
        }
        // As many listed as planned and none twice: every slot is filled.
        let sources = slots.map { $0! }
        let digest = planSHA256(sources)
        guard digest == first.planSHA256 else {
            throw MotionError(.dataError, "the recordings the \(workers) part(s) hold (\(count), from \(Text.bounded(ordered.lazy.map(\.directory)))) are not the run's plan: their listing hashes to \(digest.prefix(12))…, the workers recorded \(first.planSHA256.prefix(12))…; a part.json was changed, or the parts come from different runs; rerun the workers")
        }
        return (sources, owner)
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
        for p in parts where p.planSHA256 != first.planSHA256 || p.planRecordings != first.planRecordings {
            throw MotionError(.dataError, "\(p.directory) was planned over other recordings than \(first.directory) (\(p.planRecordings) recording(s), plan digest \(p.planSHA256.prefix(12))… vs \(first.planRecordings), \(first.planSHA256.prefix(12))…): the workers found different input files; merge parts of one run only")
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
            for (r, s) in p.recordings.enumerated() {
                if let f = s.source.files.firstIndex(where: { $0.inputIndex >= spec.inputs.count }) {
                    throw MotionError(.dataError, "\(p.directory)/\(PartManifest.fileName): `recordings[\(r)].files[\(f)].input_index` is \(s.source.files[f].inputIndex), but the pipeline has \(spec.inputs.count) input(s)")
                }
            }
        }
        // The plan is the union of the parts' recordings: each held by exactly one part, and
        // together hashing to the digest every worker recorded of its own plan.
        let (sources, owner) = try PartManifest.union(parts, byWorker: byWorker)
        // merge reads no labels file: what the workers' plans counted of it comes from the parts.
        var replanned = try RunPlan(spec: spec, sources: sources, readLabels: false)
        replanned.ignoredLabelRows = first.ignoredLabelRows
        let plan = replanned
        guard plan.pipelineSHA256 == first.pipelineSHA256 else {
            throw MotionError(.dataError, "the pipeline stored in \(first.directory) no longer hashes to its recorded value; the part is damaged")
        }
        let partsByWorker = byWorker
        // The run-wide inputs (labels, layout files): the parts must agree, and where the files
        // can still be reached they must be unchanged.
        let runInputs = try DatasetWriter.manifestInputs(parts.flatMap(\.inputs))
        // Each such file once (every part lists the same ones): hashing a labels file again
        // for every part would make merge grow with parts × labels.
        var checked = Set<String>()
        for p in parts {
            for e in p.inputs where checked.insert(PathText.join(p.baseDirectory, e.path)).inserted { try checkReachable(e, part: p) }
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
