import MotionCore
import MotionHDF5

/// Writes one split as `{split}.h5` (docs/dataset-format.md, "HDF5 files"): datasets grow as recordings arrive, one HDF5
/// chunk at a time, so memory does not grow with the dataset.
///
/// Chunks bypass HDF5's filter pipeline: each dataset gathers rows into a chunk buffer
/// (``HDF5ChunkAppender``), full chunks are shuffled, deflated and checksummed on the threads of
/// an ``HDF5ChunkCompressionPool``, and stored with `H5Dwrite_chunk` in submission order
/// (``HDF5ChunkWriteQueue``), which fixes the file's layout whatever the timing. The stored
/// chunks are what HDF5's shuffle + deflate 4 + Fletcher-32 pipeline reads back.
public final class HDF5SplitSink: SplitSink {
    private let file: HDF5File
    private let relativePath: String
    private let description: DatasetDescription
    private let queue: HDF5ChunkWriteQueue
    private let x: HDF5ChunkAppender
    private let y: HDF5ChunkAppender
    /// `y_seq` [N, T] int64 (`labels.per_sample` only).
    private let ySeq: HDF5ChunkAppender?
    /// `qa` [N, Q] float32 (the pipeline's `qa`), its column names in the `qa_columns` attribute.
    private let qa: HDF5ChunkAppender?
    private let features: HDF5ChunkAppender?
    private let subjectIndex: HDF5ChunkAppender
    private let recordingIndex: HDF5ChunkAppender
    private let startTime: HDF5ChunkAppender
    private let foldIndex: HDF5ChunkAppender?
    /// `x_normalized` and `features_normalized` (with `normalization` only).
    private let normalization: SinkNormalization?
    private let xNormalized: HDF5ChunkAppender?
    private let featuresNormalized: HDF5ChunkAppender?
    private var counts: [Int]
    private var windows = 0
    /// Windows gathered until `stageWindows` of them (counted from the file's first window) are
    /// complete, then written dataset by dataset: the order in which chunks reach the file, and
    /// so its bytes, then depend only on the windows, not on how appends cut them (a recording
    /// in one batch, or streamed in blocks, or replayed from a record's blocks).
    ///
    /// `x` comes first in that order, so its rows go to its appender as they arrive (its chunks
    /// reach the file in the same order): the stage holds only the small datasets, not 4096
    /// windows of `x`, and the writer's memory does not grow with the windows a split has
    /// gathered. `x_normalized` comes last, so its rows (standardised as they arrive) wait in
    /// `stage.x` (`motionprep apply`). `stage.count` counts `y`, which every window has.
    private var stage: WindowBatch
    private var stageSubject: [Int32] = []
    private var stageRecording: [Int32] = []
    private var stageFold: [Int32] = []
    static let stageWindows = 4096

    /// Creates `{directory}/{split}.h5`, through the folder's descriptor.
    ///
    /// - Parameters:
    ///   - compression: where chunks are compressed; share one pool between the sinks of a run.
    ///     `nil` gives the sink a pool of its own with one thread. The output does not depend on
    ///     the pool's size.
    ///   - normalization: also write `x_normalized` and `features_normalized`, standardised with
    ///     these statistics (`motionprep apply`).
    ///   - partition: the partition this file holds (`output.partitioned`): the file is
    ///     `{split}/part-IIIII-of-NNNNN.h5` instead of `{split}.h5`; its contents are alike.
    public init(directory: WritableFolder, split: String, description: DatasetDescription,
                compression: HDF5ChunkCompressionPool? = nil, normalization: SinkNormalization? = nil,
                partition: DatasetPartition? = nil) throws {
        let folder = try partition.map { _ in try directory.subfolder(split) } ?? directory
        let name = partition.map { $0.name + ".h5" } ?? "\(split).h5"
        relativePath = partition == nil ? name : split + "/" + name
        self.description = description
        counts = [Int](repeating: 0, count: description.classNames.count)
        stage = WindowBatch(length: description.windowLength, channelCount: description.channelNames.count,
                            featureCount: description.featureNames.count)
        let pool = compression ?? HDF5ChunkCompressionPool(threads: 1)
        let queue = HDF5ChunkWriteQueue(pool: pool, maxInFlight: 4 * pool.threads)
        self.queue = queue
        // libhdf5 opens by path: through the folder's descriptor (`/proc/self/fd/N/…`), so the
        // file lands in the folder itself whatever is at its path now.
        let file = try HDF5File.create(path: folder.kernelPath(name), shownAs: directory.shown(relativePath))
        self.file = file
        func column(_ name: String, _ type: HDF5ElementType, _ rowShape: [Int], chunkRows: Int) throws -> HDF5ChunkAppender {
            let dataset = try file.createDataset(name, type: type, rowShape: rowShape, chunkRows: chunkRows,
                                                 deflateLevel: pool.deflateLevel)
            return HDF5ChunkAppender(dataset: dataset, type: type, chunkRows: chunkRows, queue: queue)
        }
        let T = description.windowLength, C = description.channelNames.count
        // About 64 KiB per chunk of x; 4096 rows for 1-D datasets.
        x = try column("x", .float32, [T, C], chunkRows: Swift.max(1, 65536 / Swift.max(1, T * C * 4)))
        y = try column("y", .int64, [], chunkRows: 4096)
        // About 64 KiB per chunk, as x.
        ySeq = description.hasYSeq ? try column("y_seq", .int64, [T], chunkRows: Swift.max(1, 65536 / Swift.max(1, T * 8))) : nil
        let Q = description.qaColumns.count
        qa = Q > 0 ? try column("qa", .float32, [Q], chunkRows: 4096) : nil
        let F = description.featureNames.count
        features = F > 0 ? try column("features", .float32, [F], chunkRows: Swift.max(1, Swift.min(4096, 65536 / (F * 4)))) : nil
        subjectIndex = try column("subject_index", .int32, [], chunkRows: 4096)
        recordingIndex = try column("recording_index", .int32, [], chunkRows: 4096)
        startTime = try column("start_time_s", .float64, [], chunkRows: 4096)
        foldIndex = description.hasFolds ? try column("fold_index", .int32, [], chunkRows: 4096) : nil
        self.normalization = normalization
        xNormalized = normalization != nil ? try column("x_normalized", .float32, [T, C], chunkRows: Swift.max(1, 65536 / Swift.max(1, T * C * 4))) : nil
        featuresNormalized = normalization?.features != nil && F > 0
            ? try column("features_normalized", .float32, [F], chunkRows: Swift.max(1, Swift.min(4096, 65536 / (F * 4)))) : nil
        try file.setAttribute("format", string: "motionprep.windows")
        try file.setAttribute("format_version", int: 1)
        try file.setAttribute("split", string: split)
        try file.setAttribute("sample_rate_hz", double: description.sampleRateHz)
        try file.setAttribute("window_length", int: Int64(description.windowLength))
        try file.setAttribute("window_stride", int: Int64(description.windowStride))
        try file.setAttribute("channel_names", strings: description.channelNames)
        try file.setAttribute("channel_units", strings: description.channelUnits)
        try file.setAttribute("class_names", strings: description.classNames)
        try file.setAttribute("feature_names", strings: description.featureNames)
        try file.setAttribute("subject_names", strings: description.subjectNames)
        try file.setAttribute("recording_names", strings: description.recordingNames)
        if Q > 0 { try file.setAttribute("qa_columns", strings: description.qaColumns) }
    }

    public func append(_ batch: WindowBatch, subjectIndex s: Int32, recordingIndex r: Int32, foldIndex f: Int32?) throws {
        let n = batch.count
        guard n > 0 else { return }
        let tc = batch.length * batch.channelCount, fc = batch.featureCount, T = batch.length
        precondition(!description.hasYSeq || batch.ySeq.count == n * T,
                     "HDF5SplitSink: a batch of \(n) windows has \(batch.ySeq.count) y_seq values; expected \(T) per window")
        let Q = description.qaColumns.count
        precondition(batch.qa.count == n * Q, "HDF5SplitSink: a batch of \(n) windows has \(batch.qa.count) qa values; expected \(Q) per window")
        var start = 0
        while start < n {
            let take = Swift.min(n - start, Self.stageWindows - stage.count)
            let end = start + take
            try x.append(batch.x[(start * tc)..<(end * tc)], rows: take)
            if let normalization { stage.x += normalization.x.apply(batch.x[(start * tc)..<(end * tc)]) }
            stage.y.append(contentsOf: batch.y[start..<end])
            if ySeq != nil { stage.ySeq.append(contentsOf: batch.ySeq[(start * T)..<(end * T)]) }
            if qa != nil { stage.qa.append(contentsOf: batch.qa[(start * Q)..<(end * Q)]) }
            stage.features.append(contentsOf: batch.features[(start * fc)..<(end * fc)])
            stage.startTimes.append(contentsOf: batch.startTimes[start..<end])
            stageSubject.append(contentsOf: repeatElement(s, count: take))
            stageRecording.append(contentsOf: repeatElement(r, count: take))
            stageFold.append(contentsOf: repeatElement(f ?? 0, count: take))
            if stage.count == Self.stageWindows { try writeStage() }
            start = end
        }
        for (i, c) in classCounts(batch.y, classes: counts.count).enumerated() { counts[i] += c }
        windows += n
    }

    private func writeStage() throws {
        let n = stage.count
        guard n > 0 else { return }
        try y.append(stage.y, rows: n)
        if let ySeq { try ySeq.append(stage.ySeq, rows: n) }
        if let qa { try qa.append(stage.qa, rows: n) }
        if let features { try features.append(stage.features, rows: n) }
        try subjectIndex.append(stageSubject, rows: n)
        try recordingIndex.append(stageRecording, rows: n)
        try startTime.append(stage.startTimes, rows: n)
        if let foldIndex { try foldIndex.append(stageFold, rows: n) }
        if let xNormalized { try xNormalized.append(stage.x, rows: n) }
        if let featuresNormalized, let f = normalization?.features { try featuresNormalized.append(f.apply(stage.features), rows: n) }
        stage.x.removeAll(keepingCapacity: true)
        stage.y.removeAll(keepingCapacity: true)
        stage.ySeq.removeAll(keepingCapacity: true)
        stage.qa.removeAll(keepingCapacity: true)
        stage.features.removeAll(keepingCapacity: true)
        stage.startTimes.removeAll(keepingCapacity: true)
        stageSubject.removeAll(keepingCapacity: true)
        stageRecording.removeAll(keepingCapacity: true)
        stageFold.removeAll(keepingCapacity: true)
    }

    /// Stores the last chunks and closes the file.
    ///
    /// - Throws: ``HDF5Error`` (`.ioError`) naming the file when a chunk or the file's metadata
    ///   cannot be written (e.g. "file write failed: No space left on device"); the file is then
    ///   closed all the same (see `HDF5File.close()`), so no HDF5 handle outlives the failure.
    public func finish() throws -> [WrittenFile] {
        do {
            try writeStage()
            for column in [x, y, ySeq, qa, features, subjectIndex, recordingIndex, startTime, foldIndex, xNormalized, featuresNormalized] {
                try column?.finish()
            }
            try queue.flush()
        } catch {
            abandon()
            throw error
        }
        try file.close()
        return [WrittenFile(path: relativePath, numWindows: windows, classCounts: counts)]
    }

    /// Closes the file without writing what is still queued or cached (`HDF5File.discard()`):
    /// after a failed write the file is incomplete and about to be removed with its folder.
    public func abandon() {
        queue.abandon()
        file.discard()
    }
}
