import MotionHDF5

/// The `hdf5` storage (docs/dataset-format.md, "HDF5 files"): one `{split}.h5` per split at the dataset root.
public final class HDF5WindowStore: DatasetWindowStore {
    public let splits: [SplitWindowSource]

    /// Opens `{directory}/{file}` for each split the manifest lists.
    ///
    /// - Throws: ``ReportError`` or ``HDF5Error`` when a file is missing or lacks a dataset.
    public init(directory: String, manifest: DatasetManifest) throws {
        var out: [SplitWindowSource] = []
        for s in manifest.splits {
            let file = s.files.first ?? "\(s.name).h5"
            out.append(try HDF5SplitSource(path: directory + "/" + file, split: s.name,
                                           channels: manifest.channels.count, windowLength: manifest.windowLength))
        }
        splits = out
    }
}

/// One `{split}.h5` file.
final class HDF5SplitSource: SplitWindowSource {
    let split: String
    private let file: HDF5File
    private let x: HDF5Dataset
    private let y: HDF5Dataset
    private let subject: HDF5Dataset
    private let recording: HDF5Dataset
    private let start: HDF5Dataset
    let preferredBlockRows: Int

    init(path: String, split: String, channels: Int, windowLength: Int) throws {
        self.split = split
        file = try HDF5File.openReadOnly(path: path)
        x = try file.openDataset("x")
        y = try file.openDataset("y")
        subject = try file.openDataset("subject_index")
        recording = try file.openDataset("recording_index")
        start = try file.openDataset("start_time_s")
        guard x.rowShape == [windowLength, channels] else {
            throw ReportError.badData(path, "`x` has windows of shape \(x.rowShape), but manifest.json says [\(windowLength), \(channels)]")
        }
        // About 4 MiB of x per block, a whole number of chunks.
        let chunk = max(1, (try? x.chunkRows) ?? 1)
        let rowBytes = max(1, windowLength * channels * 4)
        preferredBlockRows = max(chunk, (4 << 20) / rowBytes / chunk * chunk)
    }

    var windowCount: Int { get throws { try x.rowCount } }
    func labels(start s: Int, count: Int) throws -> [Int64] { try y.readInt64s(start: s, count: count) }
    func subjectIndices(start s: Int, count: Int) throws -> [Int32] { try subject.readInt32s(start: s, count: count) }
    func recordingIndices(start s: Int, count: Int) throws -> [Int32] { try recording.readInt32s(start: s, count: count) }
    func startTimes(start s: Int, count: Int) throws -> [Double] { try start.readDoubles(start: s, count: count) }
    func windows(start s: Int, count: Int) throws -> [Float] { try x.readFloats(start: s, count: count) }

    deinit { try? file.close() }
}
