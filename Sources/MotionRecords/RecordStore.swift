#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MotionChecksum
import MotionConfig
import MotionCore
import MotionSinks
import MotionOutput
import MotionInputs

/// What a worker produced for one recording, with the inputs it read: the unit that is saved for
/// `--resume`, shipped between `--worker` parts and `merge`, and fed to the dataset writer.
///
/// The windows of a streamed recording are in the blocks of its record file (`stored`), written
/// behind as they are made, for `--resume` and `merge`. The worker also hands them to the
/// writer in memory (`kept`, the same blocks) when they fit its share of the run's memory budget
/// (docs/hardening.md, "Records"): then no window is read back from disk. A record loaded from
/// disk (resumed, merged), or one whose windows did not fit, is read back block by block, each
/// block's checksum checked, so no recording needs all its windows in memory at once.
package struct RecordingRecord: Sendable {
    package var processed: ProcessedRecording
    package var inputs: [InputEntry]
    /// The record file holding the windows, when they are not in `processed.windows`.
    package var stored: StoredWindows?
    /// Every block of `stored`, in order, when the worker kept them in memory.
    package var kept: [WindowBatch]? = nil

    /// Number of windows, wherever they are.
    package var windowCount: Int { stored?.windows ?? processed.windows.count }

    /// Hands the windows to `body` in order: the blocks kept in memory, else each stored block
    /// read back, else the in-memory batch.
    package func forEachBatch(_ body: (WindowBatch) throws -> Void) throws {
        if let kept {
            for batch in kept { try body(batch) }
        } else if let stored {
            try stored.forEachBlock(body)
        } else {
            try body(processed.windows)
        }
    }

    package init(processed: ProcessedRecording, inputs: [InputEntry], stored: StoredWindows? = nil, kept: [WindowBatch]? = nil) {
        self.processed = processed
        self.inputs = inputs
        self.stored = stored
        self.kept = kept
    }
}

/// Where a record file's windows are: `windows` windows of T × C values and F features, in blocks
/// from byte `dataStart` to the end-of-blocks mark.
package struct StoredWindows: Sendable {
    package var path: String
    package var windows: Int
    package var length: Int
    package var channels: Int
    package var featureCount: Int
    /// Values of `y_seq` per window: T with `labels.per_sample`, else 0.
    package var ySeqLength = 0
    /// Values of `qa` per window: 2 with the pipeline's `qa`, else 0.
    package var qaLength = 0

    /// Reads the blocks in order, each into one `WindowBatch`, checking each block's checksum
    /// before handing it on.
    package func forEachBlock(_ body: (WindowBatch) throws -> Void) throws {
        try walkBlocks { reader, n, seen in
            var batch = WindowBatch(length: length, channelCount: channels, featureCount: featureCount)
            batch.x = try reader.readArray(Float.self, count: n * length * channels)
            batch.y = try reader.readArray(Int64.self, count: n)
            batch.ySeq = try reader.readArray(Int64.self, count: n * ySeqLength)
            batch.qa = try reader.readArray(Float.self, count: n * qaLength)
            batch.features = try reader.readArray(Float.self, count: n * featureCount)
            batch.startTimes = try reader.readArray(Double.self, count: n)
            guard try reader.readU64() == RecordStore.checksum(of: batch) else {
                throw reader.damaged("its block of windows \(seen)..<\(seen + n) does not match the block's checksum")
            }
            try body(batch)
        }
    }

    /// Checks every block's checksum without keeping the windows (a read of the whole file).
    package func verify() throws {
        try walkBlocks { reader, n, seen in
            var hasher = XXH3Hasher()
            withUnsafeBytes(of: UInt64(n).littleEndian) { hasher.update($0) }
            try reader.hash(count: n * (length * channels * 4 + 8 + ySeqLength * 8 + qaLength * 4 + featureCount * 4 + 8), into: &hasher)
            guard try reader.readU64() == hasher.digest() else {
                throw reader.damaged("its block of windows \(seen)..<\(seen + n) does not match the block's checksum")
            }
        }
    }

    /// Walks the blocks: `body` reads the `n` windows of a block after `seen` ones, and its digest.
    private func walkBlocks(_ body: (_RecordFile, _ n: Int, _ seen: Int) throws -> Void) throws {
        let reader = try _RecordFile(readingAt: path)
        defer { reader.close() }
        try reader.seek(to: UInt64(RecordStore.magic.count))
        var seen = 0
        while true {
            let n = Int(truncatingIfNeeded: try reader.readU64())
            if n == 0 { break }
            guard n > 0, n <= windows - seen else { throw reader.damaged("a block of \(UInt64(truncatingIfNeeded: n)) windows after \(seen) of \(windows)") }
            try body(reader, n, seen)
            seen += n
        }
        guard seen == windows else { throw reader.damaged("\(seen) windows in its blocks, \(windows) in its header") }
    }
}

/// Writes a record file block by block: the streamed path appends window blocks as they are
/// produced, then `finish` writes the header and moves the file into place. Until then the file
/// has a temporary name, so a killed run leaves only complete records behind.
///
/// It also keeps the blocks in memory for the writer: the first one in the output batch that the
/// recording's reservation counts, each later one while `keep` grants its values (the
/// recording's share of the run's memory budget, `MemoryBudget.tryReserve`). Once a block is
/// refused, every kept block is let go and the writer reads the record file back instead.
package final class RecordWriter {
    package let path: String
    private let file: _RecordFile
    package private(set) var windows = 0
    /// Values of `y_seq` per window in the blocks appended (0: none).
    private(set) var ySeqLength = 0
    /// Values of `qa` per window in the blocks appended (0: none).
    package private(set) var qaLength = 0
    private var closed = false
    private let keep: (Int) -> Bool
    /// The blocks appended so far, while every one of them was granted.
    package private(set) var kept: [WindowBatch]? = []

    /// - Parameter keep: asked, before a block is kept in memory, whether its values (4-byte
    ///   units) may be held until the writer takes the recording; `{ _ in false }` keeps none.
    /// - Parameter folder: when given, the file is created in it through its descriptor
    ///   (`openat`, `renameat`) under `path`'s last component, and `path` only names it.
    package init(path: String, in folder: WritableFolder? = nil, keep: @escaping (Int) -> Bool = { _ in false }) throws {
        self.path = path
        self.folder = folder
        name = String(path.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
        self.keep = keep
        if let folder {
            file = try _RecordFile(writing: try folder.create(name + ".tmp"), path: path + ".tmp")
        } else {
            file = try _RecordFile(writingAt: path + ".tmp")
        }
        try file.write(RecordStore.magic)
    }

    private let folder: WritableFolder?
    private let name: String

    deinit {
        if !closed {
            file.close()
            if let folder { folder.remove(name + ".tmp") } else { unlink(path + ".tmp") }
        }
    }

    /// Appends the windows of `batch` as one block (nothing for an empty batch).
    package func append(_ batch: WindowBatch) throws {
        guard batch.count > 0 else { return }
        let perWindow = batch.ySeq.count / batch.count
        precondition(batch.ySeq.count == perWindow * batch.count && (windows == 0 || perWindow == ySeqLength),
                     "RecordWriter: a block of \(batch.count) windows with \(batch.ySeq.count) y_seq values, after blocks of \(ySeqLength) a window")
        ySeqLength = perWindow
        let qaPerWindow = batch.qa.count / batch.count
        precondition(batch.qa.count == qaPerWindow * batch.count && (windows == 0 || qaPerWindow == qaLength),
                     "RecordWriter: a block of \(batch.count) windows with \(batch.qa.count) qa values, after blocks of \(qaLength) a window")
        qaLength = qaPerWindow
        try file.writeU64(UInt64(batch.count))
        try file.writeArray(batch.x)
        try file.writeArray(batch.y)
        try file.writeArray(batch.ySeq)
        try file.writeArray(batch.qa)
        try file.writeArray(batch.features)
        try file.writeArray(batch.startTimes)
        try file.writeU64(RecordStore.checksum(of: batch))
        windows += batch.count
        if kept != nil {
            // The first block is the output batch the recording's reservation already counts
            // (`ResourceLimits.streamedEstimate`); each later one must be granted.
            if kept!.isEmpty || keep(batch.x.count + batch.y.count * 2 + batch.ySeq.count * 2 + batch.qa.count + batch.features.count + batch.startTimes.count * 2) {
                kept!.append(batch)
            } else {
                kept = nil
            }
        }
    }

    /// Ends the blocks, writes the header (the counts of `processed`, whose own windows are not
    /// written here) and moves the file into place.
    ///
    /// - Returns: where the windows now are.
    package func finish(_ processed: ProcessedRecording, inputs: [InputEntry], pipelineSHA256: String,
                length: Int, channels: Int, featureCount: Int) throws -> StoredWindows {
        try file.writeU64(0)
        let headerStart = try file.position()
        var header = RecordStore.header(processed, inputs: inputs, pipelineSHA256: pipelineSHA256)
        header["windows"] = .int(windows)
        header["length"] = .int(length)
        header["channels"] = .int(channels)
        header["feature_count"] = .int(featureCount)
        header["y_seq_length"] = .int(ySeqLength)
        header["qa_length"] = .int(qaLength)
        if let qa = processed.qa { header["qa"] = qa }
        let json = Array(JSONValue.object(header).compact().utf8)
        var hasher = XXH3Hasher()
        hasher.update(json)
        try file.write(json)
        for m in [processed.xMoments, processed.featureMoments] {
            if let m {
                let values = [m.count] + m.mean + m.m2
                hasher.update(values)
                try file.writeArray(values)
            }
        }
        try file.writeU64(hasher.digest())
        try file.writeU64(UInt64(json.count))
        try file.writeU64(headerStart)
        try file.write(RecordStore.endMagic)
        try file.flushAndClose()
        closed = true
        let moved = folder.map { $0.rename(name + ".tmp", to: name) }
            ?? (rename(path + ".tmp", path) == 0 ? nil : String(cString: strerror(errno)))
        if let reason = moved {
            if let folder { folder.remove(name + ".tmp") } else { unlink(path + ".tmp") }
            throw MotionError(.cannotCreate, "cannot move resume state into place at \(path): \(reason)")
        }
        return StoredWindows(path: path, windows: windows, length: length, channels: channels, featureCount: featureCount,
                             ySeqLength: ySeqLength, qaLength: qaLength)
    }
}

/// Saves and loads `RecordingRecord`s as files (format 6):
///
///     "MPREC6\n\0"
///     blocks: u64 n > 0, x f32[n·T·C], y i64[n], y_seq i64[n·S], qa f32[n·Q],
///             features f32[n·F], start times f64[n], u64 XXH3-64 of the block from its n on
///     u64 0
///     header: compact JSON (recording, counts, T, C, F, S = `y_seq_length`, Q = `qa_length`,
///             the recording's `qa` report, windows, inputs, pipeline hash)
///     moments: f64 [count, mean…, m2…] for x, then for features, when present
///     u64 XXH3-64 of the header and the moments
///     u64 header length, u64 header offset, "MPRECEND"
///
/// All numbers little-endian. The checksums are XXH3 (libxxhash), not SHA-256: records are
/// motionprep's own intermediate files, checked against damage (a truncated or flipped byte),
/// never compared by anyone else; the inputs they list keep their SHA-256. Loading checks the
/// header's checksum; `--resume` and `merge` also check every block's (`StoredWindows.verify`)
/// before using a record, and the writer checks each block again as it reads it back. Formats 2
/// and 3 (SHA-256 digests) are not read: a resumed run redoes such a recording, `merge` refuses
/// the part. Format 5 added `y_seq` (`labels.per_sample`; S = T with it, else 0): a format-4
/// record is refused as older, so it is redone or its part rerun. Format 6 added `qa`
/// (the pipeline's `qa` section; Q = 2 with it, else 0, and the header's `qa` report).
package enum RecordStore {
    package static let version = 6
    package static let magic: [UInt8] = Array("MPREC6\n\0".utf8)
    /// Bytes after the moments: checksum, two lengths, end mark.
    package static let trailerBytes = 8 + 16 + 8

    /// The XXH3-64 of a block as the file holds it: its window count, then its four arrays.
    package static func checksum(of batch: WindowBatch) -> UInt64 {
        var hasher = XXH3Hasher()
        withUnsafeBytes(of: UInt64(batch.count).littleEndian) { hasher.update($0) }
        hasher.update(batch.x)
        hasher.update(batch.y)
        hasher.update(batch.ySeq)
        hasher.update(batch.qa)
        hasher.update(batch.features)
        hasher.update(batch.startTimes)
        return hasher.digest()
    }
    package static let endMagic: [UInt8] = OutputNames.recordEndMagic
    /// The most values (4-byte units) of windows one recording keeps in memory for the writer
    /// (`RecordWriter`, 64 MiB): a longer recording's are read back from its record file, so
    /// memory does not grow with a recording's length.
    package static let keptValuesLimit = 1 << 24
    /// Windows per block when an in-memory record is saved.
    package static let blockWindows = 4096

    package static func fileName(for recordingIndex: Int) -> String { String(format: "rec-%08d.mprec", recordingIndex) }

    /// The header fields every record carries.
    package static func header(_ p: ProcessedRecording, inputs: [InputEntry], pipelineSHA256: String) -> [String: JSONValue] {
        [
            "version": .int(version),
            "pipeline_sha256": .string(pipelineSHA256),
            "recording": .string(p.source.name),
            "subject": .string(p.source.subject),
            "rows_read": .int(p.rowsRead),
            "rows_dropped": .object(p.rowsDropped.mapValues { .int($0) }),
            "windows_dropped": .object(p.windowsDropped.mapValues { .int($0) }),
            "recording_dropped": p.recordingDropped.map { .string($0) } ?? .null,
            "gaps": .int(p.gaps),
            "invalid_points": .int(p.invalidPoints),
            "warnings": .array(p.warnings.map { .string($0) }),
            "label_rows_no_overlap": .array(p.labelRowsNoOverlap.map { .int($0) }),
            "x_moments": .int(p.xMoments == nil ? 0 : 1),
            "feature_moments": .int(p.featureMoments == nil ? 0 : 1),
            "inputs": .array(inputs.map(\.json)),
            // The stage code that made the windows: a record of other code is never resumed or merged.
            "implementation": StageImplementation.record,
        ]
    }

    /// Saves an in-memory record (its windows in blocks of `blockWindows`).
    package static func save(_ record: RecordingRecord, pipelineSHA256: String, to path: String) throws {
        let w = record.processed.windows
        let writer = try RecordWriter(path: path)
        var start = 0
        while start < w.count {
            let end = Swift.min(start + blockWindows, w.count)
            try writer.append(w.slice(start..<end))
            start = end
        }
        _ = try writer.finish(record.processed, inputs: record.inputs, pipelineSHA256: pipelineSHA256,
                              length: w.length, channels: w.channelCount, featureCount: w.featureCount)
    }

    /// Loads a record's header (checking its digest); its windows stay in the file (`stored`).
    /// With `verify`, every block's digest is checked too (a read of the whole file).
    ///
    /// - Returns: nil when there is no file at `path`.
    /// - Throws: `RecordDamaged` when the file is not a complete, intact record of `source` in
    ///   this format (truncated, a byte changed, an older format, another recording's).
    package static func load(path: String, source: RecordingSource, verify: Bool = false) throws -> (record: RecordingRecord, pipelineSHA256: String)? {
        // Never opened unless it is a regular file: a FIFO would block the open.
        var st = stat()
        if lstat(path, &st) == 0, (st.st_mode & S_IFMT) != S_IFREG {
            throw MotionError(.dataError, "cannot use \(path): it is \(OutputFiles.Kind(mode: st.st_mode).phrase), not a record file motionprep wrote; remove it (or run without `--resume` to start over)")
        }
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        func damaged(_ why: String) -> RecordDamaged { RecordDamaged(path: path, reason: why) }
        let file: _RecordFile
        do { file = try _RecordFile(readingAt: path) } catch { throw damaged("it cannot be opened") }
        defer { file.close() }
        guard let size = try? file.size(), size >= UInt64(magic.count + 8 + trailerBytes) else { throw damaged("it is too short to be a record") }
        guard let head = try? file.readBytes(at: 0, count: magic.count), head.starts(with: Array("MPREC".utf8)) else {
            throw damaged("it does not start with a record's mark")
        }
        guard head == magic else {
            throw damaged("it is in record format \(String(decoding: head[5..<6], as: UTF8.self)), written by an older motionprep; this one reads format \(version)")
        }
        guard (try? file.readBytes(at: size - 8, count: 8)) == endMagic,
              (try? file.seek(to: size - 24)) != nil,
              let hlen = try? file.readU64(), let hoff = try? file.readU64() else { throw damaged("it does not end with a record's trailer (truncated?)") }
        guard hoff <= size, hlen <= size - hoff, (try? file.seek(to: size - UInt64(trailerBytes))) != nil,
              let digest = try? file.readU64(),
              hoff + hlen <= size - UInt64(trailerBytes),
              let covered = try? file.readBytes(at: hoff, count: Int(size - UInt64(trailerBytes) - hoff)) else {
            throw damaged("its trailer points outside the file")
        }
        guard XXH3Hasher.hash(covered) == digest else { throw damaged("its header does not match its checksum") }
        let json = Array(covered[0..<Int(hlen)])
        guard let root = try? JSONParser.parse(json), case .object = root else { throw damaged("its header is not a JSON object") }
        let h = JSONNode(root, document: "the header")
        guard (try? h["version"].int()) == version else { throw damaged("its header is not a format \(version) record header") }
        // Windows of other stage code (docs/dataset-format.md, "Implementation versions"): not
        // this run's, even under the same pipeline. A record without the field is every stage's
        // first version.
        if let v = h["implementation"].value {
            guard case .success(let versions) = StageImplementation.decode(v) else { throw damaged("its `implementation` is not valid") }
            if versions != StageImplementation.versions {
                throw damaged("it was made by other stage code (\(StageImplementation.problem(versions) ?? "another version of a stage"))")
            }
        } else if StageImplementation.beforeVersions != StageImplementation.versions {
            throw damaged("it was made by other stage code (before stage versions were recorded)")
        }
        let header: RecordHeader
        do { header = try h.decode() } catch { throw damaged("its header is not valid: \(error.sentence)") }
        let T = header.length, C = header.channels, F = header.featureCount, N = header.windows, S = header.ySeqLength
        guard S == 0 || S == T else { throw damaged("its header's `y_seq_length` is \(S), neither 0 nor its window length \(T)") }
        let Q = header.qaLength
        guard Q == 0 || Q == QASpec.columns.count else { throw damaged("its header's `qa_length` is \(Q), neither 0 nor \(QASpec.columns.count)") }
        var momentsAt = Int(hlen)
        func moments(_ present: Bool, _ cols: Int) -> RunningMoments?? {
            guard present else { return .some(nil) }
            let n = (1 + 2 * cols) * 8
            guard momentsAt + n <= covered.count else { return nil }
            let a: [Double] = covered[momentsAt..<(momentsAt + n)].withUnsafeBytes { Array($0.bindMemory(to: Double.self)) }
            momentsAt += n
            var m = RunningMoments(columns: cols)
            m.count = a[0]
            m.mean = Array(a[1...cols])
            m.m2 = Array(a[(cols + 1)...])
            return .some(m)
        }
        guard let xm = moments(header.xMoments, C), let fm = moments(header.featureMoments, F), momentsAt == covered.count else {
            throw damaged("its moments do not fit its header")
        }
        guard header.recording == source.name else {
            throw damaged("it holds recording `\(header.recording)`, not `\(source.name)`")
        }
        var processed = ProcessedRecording(
            source: source, windows: WindowBatch(length: T, channelCount: C, featureCount: F), rowsRead: header.rowsRead,
            rowsDropped: header.rowsDropped, windowsDropped: header.windowsDropped,
            recordingDropped: header.recordingDropped,
            gaps: header.gaps, invalidPoints: header.invalidPoints, warnings: header.warnings,
            xMoments: xm, featureMoments: fm,
            labelRowsNoOverlap: header.labelRowsNoOverlap)
        processed.qa = header.qa
        let stored = StoredWindows(path: path, windows: N, length: T, channels: C, featureCount: F, ySeqLength: S, qaLength: Q)
        if verify { try stored.verify() }
        return (RecordingRecord(processed: processed, inputs: header.inputs, stored: stored), header.pipelineSHA256)
    }
}

/// A record file that is present but cannot be used: truncated, changed, of an older format or
/// of another recording. `--resume` redoes the recording (and says so); `merge` refuses (65).
package struct RecordDamaged: UserFacingError {
    package var path: String
    package var reason: String
    package var message: String { "the record \(path) is damaged or unusable: \(reason)" }
    package var exitStatus: ExitStatus { .dataError }
}


extension WindowBatch {
    /// Windows `range` of this batch.
    package func slice(_ range: Range<Int>) -> WindowBatch {
        var b = WindowBatch(length: length, channelCount: channelCount, featureCount: featureCount)
        let tc = length * channelCount
        b.x = Array(x[(range.lowerBound * tc)..<(range.upperBound * tc)])
        b.y = Array(y[range])
        if !ySeq.isEmpty { b.ySeq = Array(ySeq[(range.lowerBound * length)..<(range.upperBound * length)]) }
        if !qa.isEmpty {
            let q = qa.count / count
            b.qa = Array(qa[(range.lowerBound * q)..<(range.upperBound * q)])
        }
        b.features = Array(features[(range.lowerBound * featureCount)..<(range.upperBound * featureCount)])
        b.startTimes = Array(startTimes[range])
        return b
    }
}

/// A record file opened with stdio: whole arrays in and out, positions as u64.
package final class _RecordFile: @unchecked Sendable {
    private var handle: UnsafeMutablePointer<FILE>?
    package let path: String

    package init(readingAt path: String) throws {
        self.path = path
        // Opened as every input is (never waiting on a FIFO: docs/hardening.md), then as stdio.
        let fd: Int32
        switch RegularFile.openForReading(path) {
        case .success(let opened): fd = opened
        case .failure(let failure): throw RecordDamaged(path: path, reason: "it cannot be opened: \(failure.reason)")
        }
        guard let f = fdopen(fd, "rb") else {
            let reason = String(cString: strerror(errno))
            _ = Glibc.close(fd)
            throw RecordDamaged(path: path, reason: "it cannot be opened: \(reason)")
        }
        handle = f
    }

    /// Writes to `fd` (a file just created), named `path` in messages.
    package init(writing fd: Int32, path: String) throws {
        self.path = path
        guard let f = fdopen(fd, "wb") else {
            let reason = String(cString: strerror(errno))
            _ = Glibc.close(fd)
            throw MotionError(.cannotCreate, "cannot write resume state \(path): \(reason)")
        }
        handle = f
        setvbuf(f, nil, _IOFBF, 1 << 20)
    }

    package init(writingAt path: String) throws {
        self.path = path
        guard let f = fopen(path, "wb") else {
            throw MotionError(.cannotCreate, "cannot write resume state \(path): \(String(cString: strerror(errno)))")
        }
        handle = f
        setvbuf(f, nil, _IOFBF, 1 << 20)
    }

    deinit { close() }

    package func close() {
        if let h = handle { fclose(h) }
        handle = nil
    }

    package func flushAndClose() throws {
        guard let h = handle else { return }
        handle = nil
        if fclose(h) != 0 { throw writeError() }
    }

    package func damaged(_ what: String) -> Error {
        RecordDamaged(path: path, reason: what)
    }

    private func writeError() -> Error {
        MotionError(.cannotCreate, "cannot write resume state \(path): \(String(cString: strerror(errno)))")
    }

    package func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try writeRaw($0) }
    }

    package func writeU64(_ v: UInt64) throws {
        try withUnsafeBytes(of: v.littleEndian) { try writeRaw($0) }
    }

    /// Host order: little-endian on every supported platform.
    package func writeArray<T: BitwiseCopyable>(_ a: [T]) throws {
        try a.withUnsafeBytes { try writeRaw($0) }
    }

    private func writeRaw(_ raw: UnsafeRawBufferPointer) throws {
        guard raw.count > 0 else { return }
        if fwrite(raw.baseAddress, 1, raw.count, handle) != raw.count { throw writeError() }
    }

    package func position() throws -> UInt64 {
        let p = ftello(handle)
        if p < 0 { throw writeError() }
        return UInt64(p)
    }

    package func size() throws -> UInt64 {
        guard fseeko(handle, 0, SEEK_END) == 0 else { throw damaged("cannot seek") }
        return UInt64(ftello(handle))
    }

    package func seek(to offset: UInt64) throws {
        guard fseeko(handle, off_t(offset), SEEK_SET) == 0 else { throw damaged("cannot seek to \(offset)") }
    }

    package func readBytes(at offset: UInt64, count: Int) throws -> [UInt8] {
        try seek(to: offset)
        return try readArray(UInt8.self, count: count)
    }

    package func readU64() throws -> UInt64 {
        var v: UInt64 = 0
        let n = withUnsafeMutableBytes(of: &v) { fread($0.baseAddress, 1, 8, handle) }
        guard n == 8 else { throw damaged("it ends early") }
        return UInt64(littleEndian: v)
    }

    /// Feeds the next `count` bytes to `hasher`, 1 MiB at a time.
    package func hash(count: Int, into hasher: inout XXH3Hasher) throws {
        var left = count
        var buffer = [UInt8](repeating: 0, count: Swift.min(count, 1 << 20))
        while left > 0 {
            let n = Swift.min(left, buffer.count)
            let got = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, n, handle) }
            guard got == n else { throw damaged("it ends early") }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            left -= n
        }
    }

    package func readArray<T: BitwiseCopyable>(_: T.Type, count: Int) throws -> [T] {
        guard count > 0 else { return [] }
        var ok = true
        let a = [T](unsafeUninitializedCapacity: count) { buf, initialized in
            let bytes = count * MemoryLayout<T>.stride
            ok = fread(buf.baseAddress, 1, bytes, handle) == bytes
            initialized = ok ? count : 0
        }
        guard ok else { throw damaged("it ends early") }
        return a
    }
}

/// A record file's JSON header (docs/hardening.md, "Records"), as `RecordStore.header` and
/// `RecordWriter.finish` write it; `version` and `implementation` are checked before it is decoded.
package struct RecordHeader: JSONDecodable {
    package var pipelineSHA256: String
    package var recording: String
    package var rowsRead: Int
    package var rowsDropped: [String: Int]
    package var windowsDropped: [String: Int]
    package var recordingDropped: String?
    package var gaps: Int
    package var invalidPoints: Int
    package var warnings: [String]
    package var labelRowsNoOverlap: [Int]
    package var xMoments: Bool
    package var featureMoments: Bool
    package var inputs: [InputEntry]
    package var windows: Int
    package var length: Int
    package var channels: Int
    package var featureCount: Int
    /// Each window's `y_seq` length: T with `labels.per_sample`, else 0.
    package var ySeqLength: Int
    /// Each window's `qa` values: 2 with the pipeline's `qa`, else 0; and the recording's report.
    package var qaLength: Int
    package var qa: JSONValue?

    package init(json h: JSONNode) throws(JSONProblem) {
        pipelineSHA256 = try h["pipeline_sha256"].string()
        recording = try h["recording"].string()
        rowsRead = try h["rows_read"].int(min: 0)
        rowsDropped = try h["rows_dropped"].counts()
        windowsDropped = try h["windows_dropped"].counts()
        recordingDropped = try h["recording_dropped"].optional { n throws(JSONProblem) in try n.string() }
        gaps = try h["gaps"].int(min: 0)
        invalidPoints = try h["invalid_points"].int(min: 0)
        warnings = try h["warnings"].strings()
        labelRowsNoOverlap = []
        for item in try h["label_rows_no_overlap"].items() { labelRowsNoOverlap.append(try item.int()) }
        xMoments = try Self.flag(h["x_moments"])
        featureMoments = try Self.flag(h["feature_moments"])
        inputs = []
        for item in try h["inputs"].items() { inputs.append(try item.decode()) }
        windows = try h["windows"].int(min: 0)
        length = try h["length"].int(min: 0)
        channels = try h["channels"].int(min: 0)
        featureCount = try h["feature_count"].int(min: 0)
        ySeqLength = try h["y_seq_length"].int(min: 0)
        qaLength = try h["qa_length"].int(min: 0)
        qa = h["qa"].value
    }

    /// `x_moments` / `feature_moments`: 1 when the moments follow the header, else 0.
    private static func flag(_ n: JSONNode) throws(JSONProblem) -> Bool {
        switch try n.int() {
        case 0: return false
        case 1: return true
        case let v: throw n.problem("must be 0 or 1, not \(v)")
        }
    }
}
