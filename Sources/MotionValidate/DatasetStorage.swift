import Foundation

/// One array as stored in a data file: its dtype (numpy's name, e.g. "float32"; `nil` when it
/// is none of float32, float64, int32, int64 little-endian) and its full shape, rows first.
public struct StoredArray: Sendable, Equatable {
    public var dtype: String?
    public var shape: [Int]

    public init(dtype: String?, shape: [Int]) {
        self.dtype = dtype
        self.shape = shape
    }

    /// Rows (windows): dimension 0.
    public var rows: Int { shape.first ?? 0 }
    /// The shape of one row.
    public var rowShape: [Int] { Array(shape.dropFirst()) }
}

/// What the manifest says a file should describe about itself; passed to
/// ``DatasetFileReader/metadataProblems(expected:)``.
public struct ExpectedFileMetadata: Sendable {
    public var split: String
    public var sampleRateHz: Double
    public var windowLength: Int
    public var windowStride: Int
    public var channelNames: [String]
    public var channelUnits: [String]
    public var classNames: [String]
    public var featureNames: [String]
    public var subjectNames: [String]
    public var recordingNames: [String]
}

/// A way datasets are stored (SPEC §8.1 `hdf5`, §8.2 `shards`): how to recognise its data files
/// and how to open one.
///
/// The checks never look at a file's bytes themselves beyond hashing them: everything else goes
/// through a ``DatasetFileReader``, so a new storage is one conformance.
public protocol DatasetStorage: Sendable {
    /// The manifest's `storage` value, e.g. "hdf5".
    var name: String { get }

    /// Opens one data file for reading.
    ///
    /// - Parameters:
    ///   - path: the file's path (dataset folder joined with the manifest's relative path).
    ///   - displayPath: the manifest's relative path, for messages.
    /// - Throws: an error whose description says why the file is not readable in this format.
    func open(path: String, displayPath: String) throws -> any DatasetFileReader
}

/// Reads the arrays of one data file by row blocks, so memory stays flat whatever the file's size.
///
/// Readers are used from one thread at a time and closed with ``close()``.
public protocol DatasetFileReader: AnyObject {
    /// Every array in the file by name.
    func arrays() throws -> [String: StoredArray]

    /// Rows `rows` of a float array (float32 or float64 stored) as `Float`, row-major.
    func readFloats(_ array: String, rows: Range<Int>) throws -> [Float]
    /// Rows `rows` of a float array as `Double`, row-major.
    func readDoubles(_ array: String, rows: Range<Int>) throws -> [Double]
    /// Rows `rows` of an integer array as `Int64`.
    func readInt64s(_ array: String, rows: Range<Int>) throws -> [Int64]

    /// What the file says about itself that disagrees with the manifest, one sentence each
    /// (HDF5 root attributes; a shard's JSON header). Empty when all agrees.
    func metadataProblems(expected: ExpectedFileMetadata) throws -> [String]

    /// Window and class counts the file itself declares (a shard header's `num_windows` and
    /// `class_counts`), checked against the data; nil when the format declares none (HDF5).
    func declaredCounts() throws -> (numWindows: Int, classCounts: [Int])?

    /// Announces every block the caller is about to read, in order, so a reader can decode the
    /// next one while the caller works on the current one. Optional: reads must work the same
    /// without it, and reads that leave the plan are served as usual.
    func willRead(_ plan: [BlockRead])

    /// Releases the file.
    func close()
}

/// One read of ``DatasetFileReader``: rows of an array.
public struct BlockRead: Sendable, Equatable {
    public var array: String
    public var rows: Range<Int>

    public init(array: String, rows: Range<Int>) {
        self.array = array
        self.rows = rows
    }
}

extension DatasetFileReader {
    public func willRead(_ plan: [BlockRead]) {}
}

/// Suffixes of data files, whatever the storage: `files.unlisted` looks for these (SPEC §9).
let dataFileSuffixes = [".h5", ".tar.zst"]

/// The storages this build reads.
public enum DatasetStorages {
    /// HDF5 (SPEC §8.1) and shards (§8.2).
    ///
    /// - Parameter threads: HDF5 chunks decoded at once (see ``HDF5Storage``); all cores by default.
    public static func standard(threads: Int = ProcessInfo.processInfo.activeProcessorCount) -> [any DatasetStorage] {
        [HDF5Storage(threads: threads), ShardStorage()]
    }
}
