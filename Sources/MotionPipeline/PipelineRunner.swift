#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MotionConfig
import MotionCore

/// Thrown when a run is cancelled (SIGINT): the partial folder is kept for `--resume`.
public struct RunInterrupted: UserFacingError {
    public var message: String
    public var exitStatus: ExitStatus { .interrupted }
}

/// Runs a pipeline end to end: discover → process recordings in parallel (or load them from
/// `--resume` state) → write splits in canonical order → SHA256SUMS → manifest → move the
/// finished dataset into place. With `--worker I/N` it writes a part for `merge` instead.
public enum PipelineRunner {
    public static func run(_ spec: PipelineSpec, options: RunOptions) throws -> RunSummary {
        let sources = try InputDiscovery.recordings(spec, log: options.log)
        let plan = try RunPlan(spec: spec, sources: sources)
        let intervals = plan.intervals
        var outDir = PathText.normalize(options.outputDirectory ?? PathText.join(spec.baseDirectory, spec.output.path))
        if let w = options.worker, options.outputDirectory == nil { outDir += "-part-\(w.index)-of-\(w.count)" }
        let staging = DatasetStaging(outputDirectory: outDir)
        let recordsDir = staging.partialDirectory + "/records"
        let lock = try takeOutput(staging, reads: readPaths(spec, sources: sources), log: options.log)
        defer { lock.release() }
        try prepare(staging, plan: plan, options: options)
        var keepPartial = false
        var finished = false
        defer { if !finished && !keepPartial { staging.abandon() } }

        let owned = sources.indices.filter { options.worker == nil || RunPlan.worker(of: sources[$0].name, count: options.worker!.count) == options.worker!.index }
        let isTrain = plan.splitOf.map { $0 == .train }
        let writer: DatasetWriter? = options.worker == nil
            ? try DatasetWriter(plan: plan, staging: staging, jobs: options.jobs, log: options.log,
                                 checkpoint: options.checkpoint) : nil
        // Runs before the partial folder is removed (defers run last declared first): no data
        // file is still open, or written to, once its folder is gone.
        defer { if !finished { writer?.abandon() } }
        var failures: [(Int, String)] = []
        let progress = ProgressTracker(total: owned.count,
                                       totalBytes: owned.reduce(0) { $0 + sources[$1].files.reduce(0) { $0 + PathText.fileSize($1.path) } },
                                       report: options.progress)
        let resumedCount = ResumeCounter()
        let streamedCount = ResumeCounter()
        let executor = OrderedExecutor<RecordingProcessor, Result<RecordingRecord, Error>>()
        let budget = MemoryBudget(capacity: options.memoryBudgetValues)
        let valueLimit = Swift.min(ResourceLimits.maxGridValues, budget.capacity)
        do {
            try executor.run(
                count: owned.count, jobs: options.jobs, maxInFlight: options.jobs * 2,
                makeWorker: {
                    RecordingProcessor(spec: spec, layout: plan.layout, streamThresholdBytes: options.streamThresholdBytes,
                                       streamBlockBytes: options.streamBlockBytes, log: options.log, valueLimit: valueLimit)
                },
                work: { processor, k in
                    let i = owned[k]
                    defer { budget.pass(item: k) }  // its turn to reserve memory is over
                    if options.isCancelled() { return .failure(RunInterrupted(message: "")) }
                    let path = recordsDir + "/" + RecordStore.fileName(for: i)
                    return Result {
                        if options.resume, let saved = try RecordStore.load(path: path, source: sources[i]) {
                            try checkUnchanged(saved.record, pipelineSHA256: saved.pipelineSHA256, plan: plan)
                            resumedCount.increment()
                            return saved.record
                        }
                        let inputs = try RecordStore.hashInputs(sources[i])
                        let record = try processor.processToRecord(sources[i], isTrain: isTrain[i], intervals: intervals, inputs: inputs,
                                                             recordPath: path, pipelineSHA256: plan.pipelineSHA256,
                                                             isCancelled: options.isCancelled,
                                                             bytesRead: { progress.reading(k, bytes: $0) },
                                                             reserve: { try budget.reserve(item: k, values: $0) })
                        if record.stored != nil { streamedCount.increment() }
                        return record
                    }
                },
                consume: { k, outcome in
                    defer { budget.release(item: k) }  // the result leaves memory once written
                    let i = owned[k]
                    if case .failure(let e) = outcome, e is RunInterrupted {
                        throw RunInterrupted(message: "interrupted after \(k) of \(owned.count) recordings; the finished ones are kept in \(staging.partialDirectory): rerun with `--resume` to complete the dataset")
                    }
                    if let writer {
                        try writer.append(i, outcome)
                    } else if case .failure(let e) = outcome {
                        guard spec.onError == .skip, canSkip(e) else { throw e }
                        failures.append((i, "\(e)"))
                    }
                    if case .success(let r) = outcome {
                        progress.finished(k, windows: r.windowCount, bytes: r.inputs.reduce(0) { $0 + $1.bytes })
                    } else {
                        progress.finished(k, windows: 0, bytes: sources[i].files.reduce(0) { $0 + PathText.fileSize($1.path) })
                    }
                }, onCancel: { budget.cancel() })
        } catch let e as RunInterrupted {
            keepPartial = true
            throw e
        }
        var summary: RunSummary
        if let writer {
            summary = try writer.finish()
            try? FileManager.default.removeItem(atPath: recordsDir)
            try? FileManager.default.removeItem(atPath: staging.partialDirectory + "/" + RunState.fileName)
        } else {
            try PartManifest.write(plan: plan, worker: options.worker!, owned: owned, failures: failures, staging: staging)
            summary = RunSummary(outputDirectory: outDir, recordings: owned.count, rowsRead: 0, rowsDropped: [:],
                                 windowsDropped: [:], recordingsDropped: [:], skipped: failures.map { (sources[$0.0].name, $0.1) },
                                 gaps: 0, gapSeconds: 0, windowsPerSplit: [], warnings: [], bytesWritten: 0)
        }
        summary.resumed = resumedCount.value
        summary.streamed = streamedCount.value
        summary.memoryBudgetPeak = budget.peakValues
        summary.memoryBudgetPeakHolders = budget.peakHolders
        if summary.resumed > 0 { options.log("resumed \(summary.resumed) finished recording(s) from the interrupted run") }
        options.checkpoint("before-commit")
        try staging.commit(log: options.log)
        finished = true
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
    /// interrupted run of the same pipeline.
    static func prepare(_ staging: DatasetStaging, plan: RunPlan, options: RunOptions) throws {
        let fm = FileManager.default
        let statePath = staging.partialDirectory + "/" + RunState.fileName
        if options.resume, fm.fileExists(atPath: statePath) {
            try staging.reopen()
            let state = try RunState.load(path: statePath)
            if state.pipelineSHA256 != plan.pipelineSHA256 {
                throw MotionError(.dataError, "cannot resume \(staging.partialDirectory): the pipeline changed since the interrupted run (its canonical hash was \(state.pipelineSHA256.prefix(12))…, now \(plan.pipelineSHA256.prefix(12))…); run without `--resume` to start over")
            }
            if state.worker != options.worker?.description {
                throw MotionError(.usage, "cannot resume \(staging.partialDirectory): it was started with `--worker \(state.worker ?? "none")`, this run has `--worker \(options.worker?.description ?? "none")`")
            }
            // Data files of the interrupted run are rewritten from the records.
            for name in (try? fm.contentsOfDirectory(atPath: staging.partialDirectory)) ?? [] where name != "records" && name != RunState.fileName && name != OutputFolder.stagingMark {
                try? fm.removeItem(atPath: staging.partialDirectory + "/" + name)
            }
        } else {
            if options.resume { options.log("nothing to resume in \(staging.partialDirectory); starting afresh") }
            try staging.begin()
        }
        let records = staging.partialDirectory + "/records"
        if mkdir(records, 0o755) != 0 && errno != EEXIST {
            throw MotionError(.cannotCreate, "cannot create \(records): \(String(cString: strerror(errno)))")
        }
        try RunState(pipelineSHA256: plan.pipelineSHA256, worker: options.worker?.description).save(path: statePath)
    }

    /// Refuses a saved record when the pipeline or one of its input files changed since.
    static func checkUnchanged(_ record: RecordingRecord, pipelineSHA256: String, plan: RunPlan) throws {
        guard pipelineSHA256 == plan.pipelineSHA256 else {
            throw MotionError(.dataError, "cannot resume: recording `\(record.processed.source.name)` was processed with a different pipeline; run without `--resume` to start over")
        }
        for (entry, file) in zip(record.inputs, record.processed.source.files) {
            let (hex, bytes) = try MotionChecksumBridge.hexOfFile(file.path)
            if bytes != entry.bytes || hex != entry.sha256 {
                throw MotionError(.dataError, "cannot resume: input \(file.path) changed since the interrupted run (was \(entry.bytes) bytes, sha256 \(entry.sha256.prefix(12))…; now \(bytes) bytes, \(hex.prefix(12))…); run without `--resume` to start over")
            }
        }
        if record.inputs.count != record.processed.source.files.count {
            throw MotionError(.dataError, "cannot resume: the files of recording `\(record.processed.source.name)` changed since the interrupted run; run without `--resume` to start over")
        }
    }
}

import MotionChecksum

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

/// `DIR.partial/state.json`: what an interrupted run was doing, for `--resume`.
struct RunState {
    static let fileName = "state.json"
    var pipelineSHA256: String
    var worker: String?

    func save(path: String) throws {
        let json = JSONValue.object(["pipeline_sha256": .string(pipelineSHA256), "worker": worker.map { .string($0) } ?? .null]).pretty()
        try OutputFiles.write(Array((json + "\n").utf8), to: path, what: "the resume state")
    }

    static func load(path: String) throws -> RunState {
        guard let data = FileManager.default.contents(atPath: path),
              let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let hash = obj["pipeline_sha256"] as? String else {
            throw MotionError(.dataError, "cannot resume: \(path) is not readable resume state; run without `--resume` to start over")
        }
        return RunState(pipelineSHA256: hash, worker: obj["worker"] as? String)
    }
}

/// Progress of a run, reported after every recording and every block of a streamed one.
public struct RunProgress: Sendable {
    public var total: Int
    public var done = 0
    public var windows = 0
    /// Input bytes read: of finished recordings, plus what streamed ones have read so far.
    public var inputBytes = 0
    /// Input bytes of every recording of the run (0 when unknown, e.g. for `merge`).
    public var totalBytes = 0

    public init(total: Int, totalBytes: Int = 0) {
        self.total = total
        self.totalBytes = totalBytes
    }

    mutating func add(windows w: Int, bytes: Int) {
        done += 1
        windows += w
        inputBytes += bytes
    }

    /// The fraction done: by bytes when they are known (a long streamed recording moves it),
    /// else by recordings.
    public var fraction: Double {
        if totalBytes > 0 { return Swift.min(1, Double(inputBytes) / Double(totalBytes)) }
        return total == 0 ? 1 : Double(done) / Double(total)
    }
}

/// Shares a run's progress between the writer's thread (finished recordings) and the workers
/// streaming long recordings (bytes read so far), and reports every change.
final class ProgressTracker: @unchecked Sendable {
    private let lock = NSLock()
    private var progress: RunProgress
    private var reading: [Int: Int] = [:]
    private let report: @Sendable (RunProgress) -> Void

    init(total: Int, totalBytes: Int, report: @escaping @Sendable (RunProgress) -> Void) {
        progress = RunProgress(total: total, totalBytes: totalBytes)
        self.report = report
    }

    /// Item `k` (being streamed) has read `bytes` of its input so far.
    func reading(_ k: Int, bytes: Int) {
        lock.lock()
        progress.inputBytes += bytes - (reading[k] ?? 0)
        reading[k] = bytes
        let p = progress
        lock.unlock()
        report(p)
    }

    /// Item `k` is written.
    func finished(_ k: Int, windows: Int, bytes: Int) {
        lock.lock()
        progress.inputBytes -= reading.removeValue(forKey: k) ?? 0
        progress.add(windows: windows, bytes: bytes)
        let p = progress
        lock.unlock()
        report(p)
    }
}
