import MotionCore
import MotionDataset

/// The `hdf5` storage (docs/dataset-format.md, "HDF5 files"): one `{split}.h5` per split at the
/// dataset root, read through MotionDataset's ``HDF5Storage`` (the reader `validate` uses).
public final class HDF5WindowStore: DatasetWindowStore {
    public let splits: [SplitWindowSource]

    /// Opens `{directory}/{file}` for each split the manifest lists.
    ///
    /// - Throws: ``ReportError``, `MotionError` or `HDF5Error` when a file is missing or lacks an array.
    public init(directory: String, manifest: DatasetManifest, threads: Int = 1) throws {
        var out: [SplitWindowSource] = []
        for name in manifest.splitNames {
            guard let s = manifest.splits[name] else { continue }
            // A partitioned dataset lists one file per partition: read as one row sequence, in
            // partition order (docs/dataset-format.md, "Partitioned datasets").
            let files = s.files.isEmpty ? ["\(name.rawValue).h5"] : s.files.map(\.path)
            out.append(try HDF5SplitSource(files: files.map { (directory + "/" + $0, $0) }, split: name.rawValue,
                                           channels: manifest.channels.count, windowLength: manifest.windowLength,
                                           threads: threads))
        }
        splits = out
    }
}

/// One split: `{split}.h5`, or a partitioned split's files one after the other.
final class HDF5SplitSource: SplitWindowSource {
    let split: String
    private var readers: [any DatasetFileReader] = []
    /// The first row of each file, and the rows of all of them.
    private var offsets: [Int] = []
    private var rows = 0
    let preferredBlockRows: Int

    init(files: [(path: String, displayPath: String)], split: String, channels: Int, windowLength: Int, threads: Int) throws {
        self.split = split
        var chunk = 1
        for (path, displayPath) in files {
            let reader = try HDF5Storage(threads: max(1, threads)).open(path: path, displayPath: displayPath)
            readers.append(reader)
            let arrays = try reader.arrays()
            for name in ["x", "y", "subject_index", "recording_index", "start_time_s"] where arrays[name] == nil {
                throw ReportError.badData(path, "the file has no array `\(name)` (docs/dataset-format.md, \"HDF5 files\")")
            }
            let x = arrays["x"]!
            guard x.rowShape == [windowLength, channels] else {
                throw ReportError.badData(path, "`x` has windows of shape \(x.rowShape), but manifest.json says [\(windowLength), \(channels)]")
            }
            offsets.append(rows)
            rows += x.rows
            chunk = max(chunk, (try? reader.chunkRows("x")) ?? 1)
        }
        // About 4 MiB of x per block, a whole number of chunks.
        let rowBytes = max(1, windowLength * channels * 4)
        preferredBlockRows = max(chunk, (4 << 20) / rowBytes / chunk * chunk)
    }

    /// Rows `s ..< s + count` across the files: each file's share read with `read`.
    private func gather<T>(_ s: Int, _ count: Int, _ read: (any DatasetFileReader, Range<Int>) throws -> [T]) throws -> [T] {
        var out: [T] = []
        for (k, reader) in readers.enumerated() {
            let first = offsets[k], end = k + 1 < offsets.count ? offsets[k + 1] : rows
            let lo = max(s, first), hi = min(s + count, end)
            if lo < hi { out += try read(reader, (lo - first)..<(hi - first)) }
        }
        return out
    }

    var windowCount: Int { get throws { rows } }
    func labels(start s: Int, count: Int) throws -> [Int64] { try gather(s, count) { try $0.readInt64s("y", rows: $1) } }
    func subjectIndices(start s: Int, count: Int) throws -> [Int32] {
        try gather(s, count) { try $0.readInt64s("subject_index", rows: $1) }.map { Int32(truncatingIfNeeded: $0) }
    }
    func recordingIndices(start s: Int, count: Int) throws -> [Int32] {
        try gather(s, count) { try $0.readInt64s("recording_index", rows: $1) }.map { Int32(truncatingIfNeeded: $0) }
    }
    func startTimes(start s: Int, count: Int) throws -> [Double] { try gather(s, count) { try $0.readDoubles("start_time_s", rows: $1) } }
    func windows(start s: Int, count: Int) throws -> [Float] { try gather(s, count) { try $0.readFloats("x", rows: $1) } }

    deinit { for r in readers { r.close() } }
}
