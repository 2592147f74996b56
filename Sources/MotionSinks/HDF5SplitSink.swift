import MotionCore
import MotionHDF5

/// Writes one split as `{split}.h5` (SPEC §8.1): datasets grow as recordings arrive, one HDF5
/// chunk at a time, so memory does not grow with the dataset.
public final class HDF5SplitSink: SplitSink {
    private let file: HDF5File
    private let relativePath: String
    private let description: DatasetDescription
    private let x: HDF5Dataset
    private let y: HDF5Dataset
    private let features: HDF5Dataset?
    private let subjectIndex: HDF5Dataset
    private let recordingIndex: HDF5Dataset
    private let startTime: HDF5Dataset
    private let foldIndex: HDF5Dataset?
    private var counts: [Int]
    private var windows = 0

    /// Creates `{directory}/{split}.h5`.
    public init(directory: String, split: String, description: DatasetDescription) throws {
        relativePath = "\(split).h5"
        self.description = description
        counts = [Int](repeating: 0, count: description.classNames.count)
        file = try HDF5File.create(path: directory + "/" + relativePath)
        let T = description.windowLength, C = description.channelNames.count
        // About 64 KiB per chunk of x; 4096 rows for 1-D datasets.
        let xRows = Swift.max(1, 65536 / Swift.max(1, T * C * 4))
        x = try file.createDataset("x", type: .float32, rowShape: [T, C], chunkRows: xRows)
        y = try file.createDataset("y", type: .int64, rowShape: [], chunkRows: 4096)
        let F = description.featureNames.count
        features = F > 0 ? try file.createDataset("features", type: .float32, rowShape: [F],
                                                  chunkRows: Swift.max(1, Swift.min(4096, 65536 / (F * 4)))) : nil
        subjectIndex = try file.createDataset("subject_index", type: .int32, rowShape: [], chunkRows: 4096)
        recordingIndex = try file.createDataset("recording_index", type: .int32, rowShape: [], chunkRows: 4096)
        startTime = try file.createDataset("start_time_s", type: .float64, rowShape: [], chunkRows: 4096)
        foldIndex = description.hasFolds ? try file.createDataset("fold_index", type: .int32, rowShape: [], chunkRows: 4096) : nil
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
    }

    public func append(_ batch: WindowBatch, subjectIndex s: Int32, recordingIndex r: Int32, foldIndex f: Int32?) throws {
        let n = batch.count
        guard n > 0 else { return }
        try x.append(batch.x, rows: n)
        try y.append(batch.y, rows: n)
        if let features { try features.append(batch.features, rows: n) }
        try subjectIndex.append([Int32](repeating: s, count: n), rows: n)
        try recordingIndex.append([Int32](repeating: r, count: n), rows: n)
        try startTime.append(batch.startTimes, rows: n)
        if let foldIndex { try foldIndex.append([Int32](repeating: f ?? 0, count: n), rows: n) }
        for (i, c) in classCounts(batch.y, classes: counts.count).enumerated() { counts[i] += c }
        windows += n
    }

    public func finish() throws -> [WrittenFile] {
        try file.close()
        return [WrittenFile(path: relativePath, numWindows: windows, classCounts: counts)]
    }
}
