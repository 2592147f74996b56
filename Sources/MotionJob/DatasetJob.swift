import MotionChecksum
import MotionCore
import MotionDataset
import MotionSinks
import MotionOutput
import MotionRecords
import MotionEngine

/// The one job of `run`, `apply` and `merge` (ARCHITECTURE.md, "The job"; issue #25, point 3):
///
///     lock and ownership checks → staging folder → recordings on `jobs` workers, results in
///     order, memory from one budget → the single writer → SHA256SUMS → manifest.json → commit
///
/// Each command brings only what differs: which paths the output must keep clear of, how a
/// recording becomes a record (processed, resumed, or loaded from a part), and what its writer
/// does with each record and which manifest it writes. Everything else is here, once.
///
/// A job that does not reach `commit` undoes itself in `end()` (called from a `defer` right after
/// `init`): what was registered with `onAbandon` runs first (a writer closes its files), then the
/// staging folder is removed — unless `keepPartial()` asked to keep it for `--resume` — and the
/// output's lock is released last.
final class DatasetJob {
    let staging: DatasetStaging
    private let lock: OutputLock
    private let log: (String) -> Void
    private var abandonHandlers: [() -> Void] = []
    private var committed = false
    private var keepsPartial = false
    private var began = false

    /// Takes the output's lock and refuses an output (or staging) folder that is not motionprep's
    /// to replace or that holds something the job reads (`reads`), before anything is written
    /// (docs/hardening.md, "Data safety: output folders").
    init(outputDirectory: String, reads: [(path: String, role: String)], log: @escaping (String) -> Void) throws {
        staging = DatasetStaging(outputDirectory: outputDirectory)
        self.log = log
        lock = try PipelineRunner.takeOutput(staging, reads: reads, log: log)
    }

    /// Starts a fresh staging folder (`DIR.partial`, marked as motionprep's).
    func begin() throws {
        try staging.begin(log: log)
        began = true
    }

    /// The staging folder was set up by the caller (`run --resume` reopens an interrupted one).
    func adopt() { began = true }

    /// `body` runs if the job is abandoned, before the staging folder goes (last registered first).
    func onAbandon(_ body: @escaping () -> Void) { abandonHandlers.append(body) }

    /// Keeps the staging folder when the job is abandoned (an interrupted `run`, for `--resume`).
    func keepPartial() { keepsPartial = true }

    /// Runs `work` for recordings `0..<count` on `jobs` workers and hands each result to `consume`
    /// strictly in order, at most `2 × jobs` ahead (`OrderedExecutor`); with a `budget`, a
    /// recording's memory is released once it is consumed, and waiting recordings are woken if
    /// the job stops.
    func execute<Worker>(count: Int, jobs: Int, budget: MemoryBudget? = nil,
                         makeWorker: @escaping @Sendable () -> Worker,
                         work: @escaping @Sendable (inout Worker, Int) -> Result<RecordingRecord, Error>,
                         consume: (Int, Result<RecordingRecord, Error>) throws -> Void) throws {
        try OrderedExecutor<Worker, Result<RecordingRecord, Error>>().run(
            count: count, jobs: jobs, maxInFlight: jobs * 2, makeWorker: makeWorker,
            work: { worker, k in
                defer { budget?.pass(item: k) }  // its turn to reserve memory is over
                return work(&worker, k)
            },
            consume: { k, outcome in
                defer { budget?.release(item: k) }  // the result leaves memory once written
                try consume(k, outcome)
            }, onCancel: { budget?.cancel() })
    }

    /// Writes `SHA256SUMS` for `files` (their hashes as their sinks computed them while writing,
    /// else read once), then the manifest that `manifest` makes of those checksums, last of all,
    /// with the `before-manifest` checkpoint between the two.
    ///
    /// - Returns: the checksums, in the order of `files`.
    @discardableResult
    func seal(_ files: [WrittenFile], checkpoint: (String) -> Void,
              manifest: ([(path: String, sha256: String, bytes: Int)]) throws -> String) throws -> [(path: String, sha256: String, bytes: Int)] {
        var checksums: [(path: String, sha256: String, bytes: Int)] = []
        // The files hashed are the ones this run wrote: read through the staging folder's
        // descriptor (docs/hardening.md, "No race between check and use"), the folder checked first.
        try staging.checkIdentity()
        let folder = staging.folder
        for f in files {
            let (hex, bytes) = try f.checksum(in: folder)
            checksums.append((f.path, hex, bytes))
        }
        try staging.write("SHA256SUMS", checksums.map { "\($0.sha256)  \($0.path)\n" }.joined())
        let text = try manifest(checksums)
        checkpoint("before-manifest")
        try staging.write(DatasetSchema.manifestFileName, text)
        return checksums
    }

    /// Moves the finished staging folder into place (`DatasetStaging.commit`), after the
    /// `before-commit` checkpoint.
    func commit(checkpoint: (String) -> Void = { _ in }) throws {
        checkpoint("before-commit")
        try staging.commit(log: log)
        committed = true
    }

    /// Undoes an unfinished job (see the type's comment) and releases the lock. Call once, from a
    /// `defer` placed right after the job is made.
    func end() {
        if !committed {
            for body in abandonHandlers.reversed() { body() }
            if began && !keepsPartial { staging.abandon() }
        }
        lock.release()
    }
}

extension WrittenFile {
    /// The file's SHA-256 and size for SHA256SUMS: as its sink hashed it while writing it
    /// (shards), else read once through `folder`'s descriptor (HDF5, which libhdf5 finishes by
    /// seeking back).
    func checksum(in folder: WritableFolder) throws -> (hex: String, bytes: Int) {
        if let sha256, let bytes { return (sha256, bytes) }
        do {
            return try SHA256.hexOfFile(path: folder.kernelPath(path))
        } catch var error as MotionError {
            error.message = error.message.replacing(folder.kernelPath(path), with: folder.shown(path))
            throw error
        }
    }
}
