/// Rows of one split, read in blocks: the only data access the report needs. It is a view of a
/// split as one row sequence, not a file reader: ``HDF5WindowStore`` and ``ShardWindowStore``
/// build it on MotionDataset's `DatasetFileReader`s (the readers `validate` uses), a shard split
/// reordered into canonical window order; tests give rows from memory.
///
/// Rows are windows in file order; `start ..< start + count` must lie inside `0 ..< windowCount`.
public protocol SplitWindowSource: AnyObject {
    /// The split's name (`train`, `validation`, `test`).
    var split: String { get }
    /// The number of windows in the split.
    var windowCount: Int { get throws }
    /// A good block size for streaming `x`, in windows (e.g. a multiple of the HDF5 chunk rows).
    var preferredBlockRows: Int { get }
    /// `y` (class ids, −1 when unlabelled) for rows `start ..< start + count`.
    func labels(start: Int, count: Int) throws -> [Int64]
    /// `subject_index` for rows `start ..< start + count`.
    func subjectIndices(start: Int, count: Int) throws -> [Int32]
    /// `recording_index` for rows `start ..< start + count`.
    func recordingIndices(start: Int, count: Int) throws -> [Int32]
    /// `start_time_s` for rows `start ..< start + count`.
    func startTimes(start: Int, count: Int) throws -> [Double]
    /// `x` for rows `start ..< start + count`, row-major `[count, T, C]`.
    func windows(start: Int, count: Int) throws -> [Float]
}

/// Opens the split sources of a dataset folder.
public protocol DatasetWindowStore {
    /// One source per split present, in the order train, validation, test.
    var splits: [SplitWindowSource] { get }
}
