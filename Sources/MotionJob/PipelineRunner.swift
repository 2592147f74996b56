#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MotionConfig
import MotionCore
import MotionDataset
import MotionSinks

/// Runs a pipeline end to end: discover → process recordings in parallel (or load them from
/// `--resume` state) → write splits in canonical order → SHA256SUMS → manifest → move the
/// finished dataset into place. With `--worker I/N` it writes a part for `merge` instead.
public enum PipelineRunner {
    public static func run(_ spec: PipelineSpec, options: RunOptions) throws -> RunSummary {
        if spec.output.type == .createml, options.resume {
            // A Create ML folder's rows are held in memory by the writer, not in the record
            // files that `--resume` replays (docs/dataset-format.md, "Create ML folders").
            throw MotionError(.usage, "`--resume` cannot be used with `output.type: createml` (\(spec.file)): its rows are not kept in the record files that `--resume` replays; run again without it (or write `type: hdf5` or `shards`)")
        }
        // `output.partitioned` (docs/scale.md, "The partitioned layout"): one machine writes
        // `--partitions N` partitions, a worker its own.
        if let n = options.partitions {
            guard spec.output.partitioned else {
                throw MotionError(.usage, "option `--partitions \(n)` of `motionprep run` needs `output.partitioned: true` in the pipeline; without it a dataset has one file (or one shard sequence) per split")
            }
            if let w = options.worker {
                throw MotionError(.usage, "options `--partitions \(n)` and `--worker \(w)` of `motionprep run` do not go together: a worker writes partition \(w.index) of \(w.count); `--partitions` is for one machine writing all of them")
            }
        }
        let partitioning: (indices: [Int], count: Int)? = !spec.output.partitioned ? nil
            : options.worker.map { ([$0.index], $0.count) } ?? (Array(0..<(options.partitions ?? 1)), options.partitions ?? 1)
        let sources = try InputDiscovery.recordings(spec, log: options.log)
        // Every file read is hashed from the bytes parsed (docs/hardening.md, "Data safety: provenance").
        let ledger = InputLedger(baseDirectory: spec.baseDirectory, onFirstBytes: { options.checkpoint("input-read") })
        let plan = try RunPlan(spec: spec, sources: sources, ledger: ledger)
        let intervals = plan.intervals
        var outDir = PathText.normalize(options.outputDirectory ?? PathText.join(spec.baseDirectory, spec.output.path))
        if let w = options.worker, options.outputDirectory == nil { outDir += "-part-\(w.index)-of-\(w.count)" }
        let job = try DatasetJob(outputDirectory: outDir, reads: readPaths(spec, sources: sources), log: options.log)
        defer { job.end() }
        let staging = job.staging
        let recordsDir = staging.partialDirectory + "/records"
        let recordsFolder = try prepare(staging, plan: plan, options: options, runInputs: ledger.otherEntries())
        // Every data file is created after this point, through the staging folder's descriptor.
        options.checkpoint("before-data-files")
        job.adopt()

        let owned = sources.indices.filter { options.worker == nil || RunPlan.worker(of: sources[$0].name, count: options.worker!.count) == options.worker!.index }
        let isTrain = plan.splitOf.map { $0 == .train }
        // A `createml` part writes its recordings' CSVs, as a partitioned part its files.
        let writer: DatasetWriter? = options.worker == nil || partitioning != nil || spec.output.type == .createml
            ? try DatasetWriter(plan: plan, job: job, jobs: options.jobs, log: options.log,
                                 checkpoint: options.checkpoint, partitioning: partitioning) : nil
        // Runs before the partial folder is removed: no data file is still open, or written
        // to, once its folder is gone.
        if let writer {
            job.onAbandon { writer.abandon() }
            writer.explainNoWindow = { SlowStreams.explain(plan) }
        }
        var failures: [(Int, String)] = []
        let progress = ProgressTracker(total: owned.count,
                                       totalBytes: owned.reduce(0) { $0 + sources[$1].fileBytes },
                                       report: options.progress)
        let resumedCount = ResumeCounter()
        let streamedCount = ResumeCounter()
        let budget = MemoryBudget(capacity: options.memoryBudgetValues)
        let valueLimit = Swift.min(ResourceLimits.maxGridValues, budget.capacity)
        do {
            try job.execute(
                count: owned.count, jobs: options.jobs, budget: budget,
                makeWorker: {
                    RecordingProcessor(spec: spec, layout: plan.layout,
                                       streamBlockBytes: options.streamBlockBytes, log: options.log, valueLimit: valueLimit)
                },
                work: { processor, k in
                    let i = owned[k]
                    if options.isCancelled() { return .failure(RunInterrupted(message: "")) }
                    let path = recordsDir + "/" + RecordStore.fileName(for: i)
                    return Result {
                        if options.resume, let saved = try loadForResume(path: path, source: sources[i], log: options.log) {
                            try checkUnchanged(saved.record, pipelineSHA256: saved.pipelineSHA256, plan: plan)
                            resumedCount.increment()
                            return saved.record
                        }
                        let record = try processor.processToRecord(sources[i], isTrain: isTrain[i], intervals: intervals, ledger: ledger.child(),
                                                             recordPath: path, recordFolder: recordsFolder, pipelineSHA256: plan.pipelineSHA256,
                                                             isCancelled: options.isCancelled,
                                                             bytesRead: { progress.reading(k, bytes: $0) },
                                                             reserve: { try budget.reserve(item: k, values: $0) },
                                                             keepWindows: { budget.tryReserve(item: k, values: $0, itemLimit: RecordStore.keptValuesLimit) })
                        if record.stored != nil { streamedCount.increment() }
                        return record
                    }
                },
                consume: { k, outcome in
                    let i = owned[k]
                    if case .failure(let e) = outcome, e is RunInterrupted {
                        throw RunInterrupted(message: "interrupted after \(k) of \(owned.count) recordings; the finished ones are kept in \(staging.partialDirectory): rerun with `--resume` to complete the dataset")
                    }
                    if let writer {
                        try writer.append(i, outcome)
                    }
                    if options.worker != nil, case .failure(let e) = outcome {
                        guard spec.onError == .skip, canSkip(e) else { throw e }
                        failures.append((i, "\(e)"))
                    }
                    if case .success(let r) = outcome {
                        progress.finished(k, windows: r.windowCount, bytes: r.inputs.reduce(0) { $0 + $1.bytes })
                    } else {
                        progress.finished(k, windows: 0, bytes: sources[i].fileBytes)
                    }
                })
        } catch let e as RunInterrupted {
            job.keepPartial()
            throw e
        }
        var summary: RunSummary
        if let writer, let worker = options.worker {
            // A part of a partitioned run: its partition's data files, described in part.json;
            // the records are not needed any more. A `createml` part: its recordings' CSVs.
            let partition = try partitioning != nil ? writer.finishPartitions()[0] : writer.finishCreateMLPart(worker: worker.index)
            try PartManifest.write(plan: plan, worker: worker, owned: owned, failures: failures,
                                   runInputs: ledger.otherEntries(), staging: staging, partition: partition)
            staging.removeRecords()
            staging.folder.remove(RunState.fileName)
            summary = RunSummary(outputDirectory: outDir, recordings: owned.count, rowsRead: partition.totals.rowsRead,
                                 rowsDropped: partition.totals.rowsDropped, windowsDropped: partition.totals.windowsDropped,
                                 recordingsDropped: partition.totals.recordingsDropped, skipped: failures.map { (sources[$0.0].name, $0.1) },
                                 gaps: partition.totals.gaps, gapSeconds: Double(partition.totals.invalidPoints) / spec.resample.rateHz,
                                 windowsPerSplit: SplitName.datasetSplits.map { s in (s.rawValue, partition.createml.map { $0[s]?.windowCount ?? 0 } ?? partition.files.filter { $0.split == s }.reduce(0) { $0 + $1.file.numWindows }) },
                                 warnings: [], bytesWritten: partition.files.reduce(0) { $0 + ($1.file.bytes ?? 0) })
        } else if let writer {
            summary = try writer.finish(runInputs: ledger.otherEntries())
            staging.removeRecords()
            staging.folder.remove(RunState.fileName)
        } else {
            try PartManifest.write(plan: plan, worker: options.worker!, owned: owned, failures: failures,
                                   runInputs: ledger.otherEntries(), staging: staging)
            summary = RunSummary(outputDirectory: outDir, recordings: owned.count, rowsRead: 0, rowsDropped: [:],
                                 windowsDropped: [:], recordingsDropped: [:], skipped: failures.map { (sources[$0.0].name, $0.1) },
                                 gaps: 0, gapSeconds: 0, windowsPerSplit: [], warnings: [], bytesWritten: 0)
        }
        summary.resumed = resumedCount.value
        summary.streamed = streamedCount.value
        summary.readBack = writer?.readBack ?? 0
        summary.memoryBudgetPeak = budget.peakValues
        summary.memoryBudgetPeakHolders = budget.peakHolders
        if summary.resumed > 0 { options.log("resumed \(summary.resumed) finished recording(s) from the interrupted run") }
        try job.commit(checkpoint: options.checkpoint)
        return summary
    }

    /// Takes the output's lock, then refuses an output (or staging) folder that is not
    /// motionprep's to replace or that holds something the run reads (docs/hardening.md, "Data
    /// safety: output folders"). Nothing is written before these checks pass.
    static func takeOutput(_ staging: DatasetStaging, reads: [(path: String, role: String)], log: (String) -> Void) throws -> OutputLock {
        let parent = PathText.parent(staging.outputDirectory)
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw MotionError(.cannotCreate, "cannot create the output's parent folder \(parent): \((error as NSError).localizedDescription)")
        }
        let lock = try OutputLock(outputDirectory: staging.outputDirectory)
        if let pid = lock.staleOwner {
            log("notice: \(lock.path) was left by process \(pid), which no longer holds it (killed?); taking it over")
        }
        do {
            try OutputFolder.checkOutside(output: staging.outputDirectory, reads: reads)
            try OutputFolder.checkOutside(output: staging.partialDirectory, reads: reads)
            try staging.checkOutput()
            try staging.checkPartial()
        } catch {
            lock.release()
            throw error
        }
        return lock
    }

    /// Every file and folder a run of `spec` reads, with what it is, for `takeOutput`.
    static func readPaths(_ spec: PipelineSpec, sources: [RecordingSource]) -> [(path: String, role: String)] {
        var reads: [(path: String, role: String)] = [(spec.file, "pipeline file")]
        for source in sources {
            for file in source.files {
                reads.append((file.path, "input file"))
                if let template = spec.inputs[file.inputIndex].iio?.layoutFolder {
                    let rendered = InputDiscovery.render(template, file: file.path, base: spec.baseDirectory)
                    reads.append((PathText.normalize(PathText.join(spec.baseDirectory, rendered)), "IIO layout folder"))
                }
            }
        }
        if let labels = spec.labels, labels.from == .intervals, let path = labels.path {
            reads.append((PathText.join(spec.baseDirectory, path), "label file"))
        }
        return reads
    }

    /// Whether `on_error: skip` may skip a recording that failed with `error`: a recording
    /// that cannot be read, yes; a failure to write our own output (its resume record, e.g. on
    /// a full disk: `.cannotCreate`, which no input problem gives) never, since skipping it
    /// would pass off a dataset missing recordings as complete.
    static func canSkip(_ error: Error) -> Bool {
        guard let e = error as? UserFacingError else { return true }
        return e.exitStatus != .cannotCreate
    }

    /// Sets up `DIR.partial/`: afresh, or (with `--resume`) reusing the records of an
    /// interrupted run of the same pipeline and the same run-wide inputs (`runInputs`: the
    /// labels file and the IIO layout files read so far, recorded in `state.json`).
    ///
    /// - Returns: `DIR.partial/records/`, opened through the staging folder's descriptor.
    @discardableResult
    static func prepare(_ staging: DatasetStaging, plan: RunPlan, options: RunOptions, runInputs: [InputEntry] = []) throws -> WritableFolder {
        let fm = FileManager.default
        let statePath = staging.partialDirectory + "/" + RunState.fileName
        if options.resume, fm.fileExists(atPath: statePath) {
            try staging.reopen(log: options.log)
            let state = try RunState.load(path: statePath)
            if state.pipelineSHA256 != plan.pipelineSHA256 {
                throw MotionError(.dataError, "cannot resume \(staging.partialDirectory): the pipeline changed since the interrupted run (its canonical hash was \(state.pipelineSHA256.prefix(12))…, now \(plan.pipelineSHA256.prefix(12))…); run without `--resume` to start over")
            }
            if state.worker != options.worker?.description {
                throw MotionError(.usage, "cannot resume \(staging.partialDirectory): it was started with `--worker \(state.worker ?? "none")`, this run has `--worker \(options.worker?.description ?? "none")`")
            }
            try checkUnchanged(recorded: state.inputs, now: runInputs, plan: plan, statePath: statePath)
            // Data files of the interrupted run are rewritten from the records.
            staging.clearForResume()
        } else {
            if options.resume { options.log("nothing to resume in \(staging.partialDirectory); starting afresh") }
            try staging.begin(log: options.log)
        }
        let records = try staging.folder.subfolder("records")
        try staging.write(RunState.fileName, RunState(pipelineSHA256: plan.pipelineSHA256, worker: options.worker?.description, inputs: runInputs).text)
        return records
    }

    /// A saved record to resume from: nil when there is none, or when it is damaged, truncated
    /// or of an older format (then the recording is redone, and the log says why). Every block's
    /// SHA-256 is checked here, before the record is used.
    static func loadForResume(path: String, source: RecordingSource,
                              log: (String) -> Void) throws -> (record: RecordingRecord, pipelineSHA256: String)? {
        do {
            return try RecordStore.load(path: path, source: source, verify: true)
        } catch let e as RecordDamaged {
            log("notice: \(e.message); recording `\(source.name)` is processed again")
            unlink(path)
            return nil
        }
    }

    /// Refuses a saved record when the pipeline or one of the files it read (its recording's
    /// files, and the IIO layout files read for it) changed since.
    static func checkUnchanged(_ record: RecordingRecord, pipelineSHA256: String, plan: RunPlan) throws {
        guard pipelineSHA256 == plan.pipelineSHA256 else {
            throw MotionError(.dataError, "cannot resume: recording `\(record.processed.source.name)` was processed with a different pipeline; run without `--resume` to start over")
        }
        let files = record.processed.source.files
        let recorded = record.inputs.filter { $0.role == .recording }
        if recorded.count != files.count || zip(recorded, files).contains(where: { $0.path != $1.manifestPath }) {
            throw MotionError(.dataError, "cannot resume: the files of recording `\(record.processed.source.name)` changed since the interrupted run; run without `--resume` to start over")
        }
        for entry in record.inputs {
            try checkUnchanged(entry, at: PathText.join(plan.spec.baseDirectory, entry.path), refusal: "cannot resume",
                               since: "the interrupted run", remedy: "run without `--resume` to start over")
        }
    }

    /// Refuses to resume when a run-wide input (the labels file, an IIO layout file read for
    /// the plan) changed since the interrupted run: `recorded` is what `state.json` lists.
    static func checkUnchanged(recorded: [InputEntry]?, now: [InputEntry], plan: RunPlan, statePath: String) throws {
        guard let recorded else {
            if now.isEmpty { return }
            throw MotionError(.dataError, "cannot resume: \(statePath) was written by an older motionprep and does not list the \(now[0].role.rawValue) file \(now[0].path) the run reads; run without `--resume` to start over")
        }
        for entry in recorded {
            try checkUnchanged(entry, at: PathText.join(plan.spec.baseDirectory, entry.path), refusal: "cannot resume",
                               since: "the interrupted run", remedy: "run without `--resume` to start over")
        }
        let known = Set(recorded.map(\.path))
        if let extra = now.first(where: { !known.contains($0.path) }) {
            throw MotionError(.dataError, "cannot resume: the run now reads \(extra.role.rawValue) file \(extra.path), which the interrupted run did not; run without `--resume` to start over")
        }
    }

    /// Refuses when the file at `path` no longer has `entry`'s size and SHA-256.
    static func checkUnchanged(_ entry: InputEntry, at path: String, refusal: String, since: String, remedy: String) throws {
        let hex: String, bytes: Int
        do {
            (hex, bytes) = try MotionChecksumBridge.hexOfFile(path)
        } catch let e as MotionError where e.exitStatus == .noInput {
            throw MotionError(.dataError, "\(refusal): input \(path) (\(entry.role.rawValue)) is gone since \(since) (it was \(entry.bytes) bytes, sha256 \(entry.sha256.prefix(12))…); \(remedy)")
        }
        if bytes != entry.bytes || hex != entry.sha256 {
            throw MotionError(.dataError, "\(refusal): input \(path) (\(entry.role.rawValue)) changed since \(since) (was \(entry.bytes) bytes, sha256 \(entry.sha256.prefix(12))…; now \(bytes) bytes, \(hex.prefix(12))…); \(remedy)")
        }
    }
}

import MotionChecksum
import MotionOutput
import MotionInputs
import MotionRecords
import MotionEngine
import MotionInspect

enum MotionChecksumBridge {
    static func hexOfFile(_ path: String) throws -> (String, Int) {
        let r = try SHA256.hexOfFile(path: path)
        return (r.hex, r.bytes)
    }
}

/// Counts recordings taken from resume state (workers increment it concurrently).
final class ResumeCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
