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
            let file = s.files.first?.path ?? "\(name.rawValue).h5"
            out.append(try HDF5SplitSource(path: directory + "/" + file, displayPath: file, split: name.rawValue,
                                           channels: manifest.channels.count, windowLength: manifest.windowLength,
                                           threads: threads))
        }
        splits = out
    }
}

/// One `{split}.h5` file.
final class HDF5SplitSource: SplitWindowSource {
    let split: String
    private let reader: any DatasetFileReader
    private let rows: Int
    let preferredBlockRows: Int

    init(path: String, displayPath: String, split: String, channels: Int, windowLength: Int, threads: Int) throws {
        self.split = split
        reader = try HDF5Storage(threads: max(1, threads)).open(path: path, displayPath: displayPath)
        let arrays = try reader.arrays()
        for name in ["x", "y", "subject_index", "recording_index", "start_time_s"] where arrays[name] == nil {
            throw ReportError.badData(path, "the file has no array `\(name)` (docs/dataset-format.md, \"HDF5 files\")")
        }
        let x = arrays["x"]!
        guard x.rowShape == [windowLength, channels] else {
            throw ReportError.badData(path, "`x` has windows of shape \(x.rowShape), but manifest.json says [\(windowLength), \(channels)]")
        }
        rows = x.rows
        // About 4 MiB of x per block, a whole number of chunks.
        let chunk = max(1, (try? reader.chunkRows("x")) ?? 1)
        let rowBytes = max(1, windowLength * channels * 4)
        preferredBlockRows = max(chunk, (4 << 20) / rowBytes / chunk * chunk)
    }

    var windowCount: Int { get throws { rows } }
    func labels(start s: Int, count: Int) throws -> [Int64] { try reader.readInt64s("y", rows: s..<(s + count)) }
    func subjectIndices(start s: Int, count: Int) throws -> [Int32] {
        try reader.readInt64s("subject_index", rows: s..<(s + count)).map { Int32(truncatingIfNeeded: $0) }
    }
    func recordingIndices(start s: Int, count: Int) throws -> [Int32] {
        try reader.readInt64s("recording_index", rows: s..<(s + count)).map { Int32(truncatingIfNeeded: $0) }
    }
    func startTimes(start s: Int, count: Int) throws -> [Double] { try reader.readDoubles("start_time_s", rows: s..<(s + count)) }
    func windows(start s: Int, count: Int) throws -> [Float] { try reader.readFloats("x", rows: s..<(s + count)) }

    deinit { reader.close() }
}
