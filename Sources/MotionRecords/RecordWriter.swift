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
