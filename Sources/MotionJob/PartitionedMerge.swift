#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MotionChecksum
import MotionCore
import MotionDataset
import MotionSinks
import MotionOutput
import MotionInputs

extension PipelineRunner {
    /// `merge` of the parts of a partitioned run (`output.partitioned`, docs/scale.md, "The
    /// partitioned layout"): no window is read or rewritten.
    ///
    /// 1. Checks, before anything is written: every part describes its partition
    ///    (`partition_summary`), each listed data file is named for that partition and split, and
    ///    is in the part as a regular file of the recorded size. The SHA-256 the worker recorded
    ///    is trusted (it is what `SHA256SUMS` and the manifest list; `validate` re-hashes).
    /// 2. Each file is hard-linked into `DIR.partial/` (one filesystem), or copied there (another
    ///    filesystem: hashed while copied and compared, fsync'd, renamed into place), so the parts
    ///    stay whole until the dataset is complete.
    /// 3. `SHA256SUMS` and `manifest.json` from the parts' recorded hashes, counts and moments
    ///    (combined in partition order), then the commit.
    /// 4. Only then the parts let go of their data files (unlinked: the dataset holds them now);
    ///    what is left of a part is its `part.json` and `part.json.sha256`.
    static func mergePartitioned(outputDirectory: String, parts: [PartManifest.Part], plan: RunPlan,
                                 runInputs: [InputEntry], options: RunOptions) throws -> RunSummary {
        let count = parts[0].workers
        let ordered = parts.sorted { $0.worker < $1.worker }
        // `output.type: createml` (not partitioned): each part holds its recordings' CSVs in
        // `{split}/{class}/`; merge writes the annotation files (docs/scale.md, "Many machines").
        let createml = plan.spec.output.type == .createml
        var moves: [(from: String, to: String, bytes: Int, sha256: String)] = []
        var summaries: [PartitionSummary] = []
        for p in ordered {
            let rerun = "rerun worker \(p.worker)/\(count)"
            guard let s = p.partition else {
                if createml {
                    throw MotionError(.dataError, "\(p.directory) holds records but no Create ML files (no `partition_summary` in its \(PartManifest.fileName)), while the pipeline says `output.type: createml`; \(rerun) with this motionprep")
                }
                throw MotionError(.dataError, "\(p.directory) holds records but no data files (a part of the default layout), while the pipeline says `output.partitioned: true`; \(rerun) with this motionprep")
            }
            let partition = DatasetPartition(index: p.worker, count: count)
            if createml {
                guard let rows = s.createml else {
                    throw MotionError(.dataError, "\(p.directory)/\(PartManifest.fileName) has no `partition_summary.createml` (the Create ML files' labels, recordings and times), while the pipeline says `output.type: createml`; \(rerun)")
                }
                let listed = s.files.map { $0.file.path }
                let described = rows.values.flatMap { $0.files.map(\.path) }
                let listedSet = Set(listed), describedSet = Set(described)
                if let f = described.first(where: { !listedSet.contains($0) }) ?? listed.first(where: { !describedSet.contains($0) }) {
                    throw MotionError(.dataError, "\(p.directory)/\(PartManifest.fileName) lists `\(f)` among its files or its Create ML files but not in both; the part is damaged; \(rerun)")
                }
            }
            for split in SplitName.datasetSplits where !createml && !s.files.contains(where: { $0.split == split }) {
                throw MotionError(.dataError, "\(p.directory)/\(PartManifest.fileName) lists no file of split `\(split.rawValue)` (every partition writes each split, an empty one too); \(rerun)")
            }
            for f in s.files {
                let parts = f.file.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
                if createml {
                    guard parts.count == 3, parts[0] == f.split.rawValue, plan.description.classNames.contains(parts[1]),
                          parts[2].hasSuffix(".csv"), !parts[2].hasPrefix("."), parts[2] != CreateMLSplitSink.annotationFileName else {
                        throw MotionError(.dataError, "\(p.directory)/\(PartManifest.fileName) lists `\(f.file.path)` in split `\(f.split.rawValue)`, which is not a Create ML file name (`\(f.split.rawValue)/CLASS/RECORDING__NNN.csv`, CLASS one of the pipeline's classes); \(rerun)")
                    }
                } else if parts.count != 2 || parts[0] != f.split.rawValue || DatasetPartition.of(path: parts[1]) != partition {
                    throw MotionError(.dataError, "\(p.directory)/\(PartManifest.fileName) lists `\(f.file.path)` in split `\(f.split.rawValue)`, which is not a file name of partition \(partition.name) (`\(f.split.rawValue)/\(partition.name)…`); \(rerun)")
                }
                let from = p.directory + "/" + f.file.path
                var st = stat()
                guard lstat(from, &st) == 0 else {
                    throw MotionError(.dataError, "\(from) is missing (its part lists it: \(f.file.bytes ?? 0) bytes); an earlier merge moved it into a dataset, or it was deleted; \(rerun)")
                }
                guard (st.st_mode & S_IFMT) == S_IFREG else {
                    throw MotionError(.dataError, "\(from) is \(OutputFolder.describe(st.st_mode)), not the regular file its part lists; \(rerun)")
                }
                guard Int(st.st_size) == f.file.bytes else {
                    throw MotionError(.dataError, "\(from) is \(st.st_size) bytes, but its part recorded \(f.file.bytes ?? 0): not the file the worker wrote (cut short or changed); \(rerun)")
                }
                moves.append((from, f.file.path, f.file.bytes ?? 0, f.file.sha256 ?? ""))
            }
            summaries.append(s)
        }
        let reads = parts.map { (path: $0.directory, role: "part folder") }
            + parts.map { (path: $0.directory + "/" + PartManifest.fileName, role: "part manifest") }
        let job = try DatasetJob(outputDirectory: PathText.normalize(outputDirectory), reads: reads, log: options.log)
        defer { job.end() }
        try job.begin()
        let writer = try DatasetWriter(plan: plan, job: job, jobs: options.jobs, log: options.log, checkpoint: options.checkpoint,
                                       partitioning: createml ? nil : ([], count))
        var progress = RunProgress(total: moves.count)
        var copied = 0
        var folders: [String: WritableFolder] = [:]
        for m in moves {
            // The folder is `{split}` or, for `createml`, `{split}/{class}`.
            let split = String(m.to[..<m.to.lastIndex(of: "/")!]), name = String(m.to.dropFirst(split.count + 1))
            if folders[split] == nil {
                var folder = job.staging.folder
                for component in split.split(separator: "/") { folder = try folder.subfolder(String(component)) }
                folders[split] = folder
            }
            if try adopt(m.from, into: folders[split]!, name: name, bytes: m.bytes, sha256: m.sha256) { copied += 1 }
            progress.add(windows: 0, bytes: m.bytes)
            options.progress(progress)
        }
        var summary = try createml ? writer.completeCreateML(parts: summaries, runInputs: runInputs)
            : writer.complete(partitions: summaries, runInputs: runInputs)
        try job.commit(checkpoint: options.checkpoint)
        // The dataset holds every file now: the parts let go of theirs.
        var left: [String] = []
        for m in moves {
            var st = stat()
            if lstat(PathText.join(job.staging.outputDirectory, m.to), &st) == 0, Int(st.st_size) == m.bytes, unlink(m.from) == 0 { continue }
            left.append(m.from)
        }
        for p in ordered {
            for split in SplitName.datasetSplits {
                for c in plan.description.classNames where createml { rmdir(p.directory + "/" + split.rawValue + "/" + c) }
                rmdir(p.directory + "/" + split.rawValue)
            }
        }
        if !left.isEmpty { options.log("notice: \(OutputFolder.list(left, or: left)) could not be removed from its part after the merge; the dataset holds its own copy") }
        options.log("notice: moved \(moves.count) data file(s) of \(ordered.count) part(s) into \(job.staging.outputDirectory) (\(moves.count - copied) linked, \(copied) copied from another filesystem); each part keeps its part.json")
        summary.movedFiles = moves.count
        summary.copiedFiles = copied
        return summary
    }

    /// Puts the part file `source` into the staging folder as `name`: a hard link when both are
    /// on one filesystem (no byte is read), else a copy written to `name.tmp`, hashed as it is
    /// written and compared with the recorded SHA-256 and size, fsync'd, then renamed to `name`.
    ///
    /// - Returns: true when the file was copied.
    static func adopt(_ source: String, into folder: WritableFolder, name: String, bytes: Int, sha256: String) throws -> Bool {
        if linkat(AT_FDCWD, source, folder.descriptor, name, 0) == 0 { return false }
        let linkErrno = errno
        guard [EXDEV, EPERM, EMLINK, EOPNOTSUPP].contains(linkErrno) else {
            throw MotionError(.cannotCreate, "cannot link \(source) into \(folder.shown(name)): \(String(cString: strerror(linkErrno)))")
        }
        let input = open(source, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard input >= 0 else { throw MotionError(.noInput, "cannot open \(source): \(String(cString: strerror(errno)))") }
        defer { close(input) }
        let temporary = name + ".tmp"
        let output = try folder.create(temporary)
        var closed = false
        defer { if !closed { close(output); folder.remove(temporary) } }
        var hasher = SHA256Hasher()
        var buffer = [UInt8](repeating: 0, count: 8 << 20)
        var total = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw MotionError(.noInput, "cannot read \(source): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            try buffer.withUnsafeBytes { raw in
                let chunk = UnsafeRawBufferPointer(rebasing: raw[0..<n])
                hasher.update(chunk)
                if let code = FileWrites.writeAll(output, chunk) {
                    throw MotionError(.cannotCreate, "cannot write \(folder.shown(temporary)): \(String(cString: strerror(code)))")
                }
            }
            total += n
        }
        let hex = hasher.finalizeHex()
        guard total == bytes, hex == sha256 else {
            throw MotionError(.dataError, "\(source) has \(total) bytes and SHA-256 \(hex.prefix(12))…, but its part recorded \(bytes) bytes and \(sha256.prefix(12))…: it changed since the worker wrote it; rerun that worker")
        }
        guard fsync(output) == 0 else {
            throw MotionError(.cannotCreate, "cannot write \(folder.shown(temporary)) to disk: \(String(cString: strerror(errno)))")
        }
        close(output)
        closed = true
        if let why = folder.rename(temporary, to: name) {
            folder.remove(temporary)
            throw MotionError(.cannotCreate, "cannot rename \(folder.shown(temporary)) to \(name): \(why)")
        }
        return true
    }
}
