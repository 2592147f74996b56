import Foundation
import MotionCore
import MotionSinks

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
/// ``DatasetFileReader/metadataProblems(expected:)``. The dataset part is the very description
/// the writer was given (`DatasetDescription`, MotionSinks), so reader and writer name the same
/// fields once.
public struct ExpectedFileMetadata: Sendable {
    public var split: String
    public var dataset: DatasetDescription

    public init(split: String, dataset: DatasetDescription) {
        self.split = split
        self.dataset = dataset
    }
}

/// A way datasets are stored (docs/dataset-format.md: "HDF5 files" for `hdf5`, "Shards" for `shards`): how to recognise its data files
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

    /// Opens one data file, refusing early what cannot fit its manifest entry (a shard whose
    /// archive would be larger than `expected` allows). The default calls
    /// ``open(path:displayPath:)``.
    /// - Throws: ``ContainerError`` when the file exceeds what its entry allows; otherwise as
    ///   ``open(path:displayPath:)``.
    func open(path: String, displayPath: String, expected: ExpectedFileContents) throws -> any DatasetFileReader
}

extension DatasetStorage {
    public func open(path: String, displayPath: String, expected: ExpectedFileContents) throws -> any DatasetFileReader {
        try open(path: path, displayPath: displayPath)
    }
}

/// What a file's manifest entry says it holds, to bound reading it before it starts.
public struct ExpectedFileContents: Sendable, Equatable {
    /// Windows (rows of every array).
    public var windows: Int
    /// Elements in one row of each array the manifest lists.
    public var arrayRowElements: [Int]
    /// Classes of the dataset.
    public var classes: Int
    /// The row shape of each array the manifest lists (a shard with no window has no member
    /// that would say).
    public var arrayRowShapes: [String: [Int]]
    /// The manifest's subjects and recordings: a shard names each window's subject and
    /// recording, which the reader turns into `subject_index` and `recording_index`.
    public var subjectNames: [String]
    public var recordingNames: [String]

    public init(windows: Int, arrayRowElements: [Int], classes: Int, arrayRowShapes: [String: [Int]] = [:],
                subjectNames: [String] = [], recordingNames: [String] = []) {
        self.windows = windows
        self.arrayRowElements = arrayRowElements
        self.classes = classes
        self.arrayRowShapes = arrayRowShapes
        self.subjectNames = subjectNames
        self.recordingNames = recordingNames
    }
}

/// A file refused for its container before its data is read (`files.container`), e.g. a shard
/// that declares more content than its manifest entry allows.
public struct ContainerError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var description: String { message }
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

    /// What the file holds or points to beyond the arrays motionprep writes, one sentence each,
    /// and the arrays that must therefore not be read (HDF5: links, groups, external or virtual
    /// storage). Reading this never opens another file. Empty for a format without such features.
    func containerProblems() throws -> ContainerProblems

    /// The window numbers the file's samples carry (a shard's sample keys), nil for a format
    /// without them (HDF5).
    func windowNumbers() throws -> [Int]?

    /// Rows per stored chunk of `array` (HDF5), for block sizes that read whole chunks; nil
    /// for a format without chunks (shards).
    func chunkRows(_ array: String) throws -> Int?

    /// Releases the file.
    func close()
}

/// Container features of one data file that motionprep never writes (`files.container`).
public struct ContainerProblems: Sendable, Equatable {
    /// One sentence each, without the file's name.
    public var messages: [String] = []
    /// Arrays (root names) that are not read: their data is not the file's own.
    public var refusedArrays: Set<String> = []

    public init() {}

    package mutating func refuse(_ array: String, _ message: String) {
        messages.append(message)
        refusedArrays.insert(array)
    }
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
    public func containerProblems() throws -> ContainerProblems { ContainerProblems() }
    public func windowNumbers() throws -> [Int]? { nil }
    public func chunkRows(_ array: String) throws -> Int? { nil }
}

/// The storages this build reads.
public enum DatasetStorages {
    /// HDF5 (docs/dataset-format.md, "HDF5 files") and shards (docs/dataset-format.md, "Shards").
    ///
    /// - Parameter threads: HDF5 chunks decoded at once (see ``HDF5Storage``); the CPUs allowed (`CPUAllowance`) by default.
    public static func standard(threads: Int = CPUAllowance.current().count) -> [any DatasetStorage] {
        [HDF5Storage(threads: threads), ShardStorage()]
    }
}
