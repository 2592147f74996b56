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
    /// Values of `qa` per window: 3 with the pipeline's `qa`, else 0.
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
/// (the pipeline's `qa` section; Q = 3 with it, else 0, and the header's `qa` report).
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
