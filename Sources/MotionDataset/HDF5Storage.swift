import Foundation
import MotionCore
import MotionHDF5
import MotionSinks

/// `storage: "hdf5"` (docs/dataset-format.md, "HDF5 files"): one `{split}.h5` per split, arrays at the root, dataset
/// description in root attributes.
public struct HDF5Storage: DatasetStorage {
    public var name: String { "hdf5" }
    /// Chunks decoded at once by the raw-chunk reader.
    public var threads: Int
    /// Whether datasets laid out as motionprep writes them are decoded from raw chunks on
    /// `threads` threads (``HDF5ParallelChunkReader``); false reads everything with `H5Dread`.
    public var rawChunks: Bool

    /// - Parameters:
    ///   - threads: at least 1; the CPUs allowed (`CPUAllowance`) by default.
    ///   - rawChunks: false to read every array through libhdf5's `H5Dread` (the fallback path).
    public init(threads: Int = CPUAllowance.current().count, rawChunks: Bool = true) {
        precondition(threads >= 1, "threads must be at least 1, got \(threads)")
        self.threads = threads
        self.rawChunks = rawChunks
    }

    public func open(path: String, displayPath: String) throws -> any DatasetFileReader {
        try HDF5FileReader(file: HDF5File.openReadOnly(path: path), threads: rawChunks ? threads : 0)
    }
}

/// Reads one split file through MotionHDF5.
///
/// An array stored as motionprep writes it (chunks of whole rows, shuffle → deflate →
/// fletcher32) is read through ``HDF5ParallelChunkReader``: raw chunks (`H5Dread_chunk`)
/// checksummed, inflated and unshuffled on `threads` threads, with the same values `H5Dread`
/// gives and a corrupted chunk reported by file, dataset, rows and chunk. Any other array, and a
/// read that touches a chunk never written, goes through `H5Dread` of row hyperslabs (libhdf5
/// decodes and verifies each chunk itself), so any HDF5 file reads as before.
final class HDF5FileReader: DatasetFileReader {
    private let file: HDF5File
    private let threads: Int
    private var datasets: [String: HDF5Dataset] = [:]
    /// Raw-chunk readers by array; `nil` for arrays read with `H5Dread`.
    private var chunkReaders: [String: HDF5ParallelChunkReader?] = [:]

    /// - Parameter threads: raw-chunk decoding threads; 0 reads every array with `H5Dread`.
    init(file: HDF5File, threads: Int) {
        self.file = file
        self.threads = threads
    }

    private func dataset(_ name: String) throws -> HDF5Dataset {
        if let d = datasets[name] { return d }
        guard try rootLinks().contains(where: { $0.name == name && $0.kind == .dataset }) else {
            throw MotionError(.dataError, "cannot open `\(name)` in `\(file.path)`: it is not a dataset at the root of the file (links are not followed)")
        }
        let d = try file.openDataset(name)
        datasets[name] = d
        return d
    }

    /// The raw-chunk reader of `name`, or nil when it must be read with `H5Dread`.
    private func chunkReader(_ name: String) throws -> HDF5ParallelChunkReader? {
        if let r = chunkReaders[name] { return r }
        let r = threads > 0 ? HDF5ParallelChunkReader(try dataset(name), threads: threads) : nil
        chunkReaders[name] = .some(r)
        return r
    }

    /// The root's links, listed once without following any (see ``containerProblems()``).
    private var links: [HDF5Link]?

    private func rootLinks() throws -> [HDF5Link] {
        if let links { return links }
        let l = try file.rootLinks()
        links = l
        return l
    }

    /// Arrays whose data would not come from this file's own chunks; never read.
    private var refused: Set<String> = []

    /// Everything at the root but hard-linked datasets, and datasets not stored in chunks inside
    /// the file: motionprep writes only chunked datasets at the root, and data that lives in
    /// another file (external storage, external links, virtual datasets) is not covered by the
    /// manifest's SHA-256. Links are never followed and no other file is opened.
    func containerProblems() throws -> ContainerProblems {
        var out = ContainerProblems()
        for link in try rootLinks() {
            let n = "`\(link.name)`"
            switch link.kind {
            case .dataset:
                let info = try dataset(link.name).storageInfo
                if let external = info.externalFiles.first {
                    out.refuse(link.name, "\(n) keeps its data in \(info.externalFiles.count) external file(s) (first: `\(external)`), outside the file and its SHA-256; motionprep stores every array in chunks inside the file, so it is not read")
                } else if info.layout == .virtual {
                    out.refuse(link.name, "\(n) is a virtual dataset, a view of data in other files that the manifest's SHA-256 does not cover; motionprep stores every array in chunks inside the file, so it is not read")
                } else if info.layout != .chunked {
                    out.refuse(link.name, "\(n) has \(info.layout.rawValue) storage; motionprep stores every array in chunks (chunked layout), so it is not read")
                }
            case .soft(let target):
                out.refuse(link.name, "\(n) is a soft link to `\(target)`, not an array; motionprep writes every array as a dataset at the root, so it is not followed")
            case .external(let other, let object):
                out.refuse(link.name, "\(n) is an external link to `\(object)` in `\(other)`, data outside the file and its SHA-256; it is not followed")
            case .group:
                out.refuse(link.name, "holds a group \(n); motionprep writes only datasets at the root of the file, so its contents are not read")
            case .namedDatatype:
                out.refuse(link.name, "holds a named datatype \(n); motionprep writes only datasets at the root of the file")
            case .otherObject:
                out.refuse(link.name, "holds an object \(n) that is not a dataset; motionprep writes only datasets at the root of the file")
            case .userDefined(let type):
                out.refuse(link.name, "\(n) is a user-defined link (type \(type)); motionprep writes only datasets at the root of the file, so it is not followed")
            }
        }
        refused = out.refusedArrays
        return out
    }

    func arrays() throws -> [String: StoredArray] {
        var out: [String: StoredArray] = [:]
        for link in try rootLinks() where link.kind == .dataset {
            let name = link.name
            let d = try dataset(name)
            let dtype: String? = switch try d.elementType {
            case .float32?: "float32"
            case .float64?: "float64"
            case .int32?: "int32"
            case .int64?: "int64"
            case nil: nil
            }
            out[name] = StoredArray(dtype: dtype, shape: try d.shape)
        }
        return out
    }

    func readFloats(_ array: String, rows: Range<Int>) throws -> [Float] {
        try read(array, rows, fast: { try $0.readFloats(rows) }, slow: { try $0.readFloats(start: rows.lowerBound, count: rows.count) })
    }

    func readDoubles(_ array: String, rows: Range<Int>) throws -> [Double] {
        try read(array, rows, fast: { try $0.readDoubles(rows) }, slow: { try $0.readDoubles(start: rows.lowerBound, count: rows.count) })
    }

    func readInt64s(_ array: String, rows: Range<Int>) throws -> [Int64] {
        try read(array, rows, fast: { try $0.readInt64s(rows) }, slow: { try $0.readInt64s(start: rows.lowerBound, count: rows.count) })
    }

    /// The caller's announced reads and how far it got (see ``willRead(_:)``).
    private var plan: [BlockRead] = []
    private var planPosition = 0

    func willRead(_ plan: [BlockRead]) {
        self.plan = plan
        planPosition = 0
    }

    /// Rows through the raw-chunk reader when it can, else H5Dread; then the next planned block
    /// is decoded in the background while the caller works on these rows (one block ahead).
    private func read<Value>(_ array: String, _ rows: Range<Int>, fast: (HDF5ParallelChunkReader) throws -> Value?,
                             slow: (HDF5Dataset) throws -> Value) throws -> Value {
        guard !refused.contains(array) else {
            throw MotionError(.dataError, "cannot read dataset `\(array)` in `\(file.path)`: its data is not stored in chunks inside the file")
        }
        let reader = try chunkReader(array)
        // A read ahead on another array is dropped (the caller left the plan).
        for (name, other) in chunkReaders where name != array { other?.waitForPrefetch() }
        let next = nextPlanned(after: BlockRead(array: array, rows: rows))
        if let reader, let values = try fast(reader) {
            prefetch(next)
            return values
        }
        let values = try slow(try dataset(array))
        prefetch(next)
        return values
    }

    /// The planned read after `read`, moving the plan's position past it; nil when `read` is
    /// not in the rest of the plan or is its last.
    private func nextPlanned(after read: BlockRead) -> BlockRead? {
        guard let i = plan[planPosition...].firstIndex(of: read) else { return nil }
        planPosition = i + 1
        return planPosition < plan.count ? plan[planPosition] : nil
    }

    /// Starts decoding `block` in the background when its array has a raw-chunk reader.
    private func prefetch(_ block: BlockRead?) {
        guard let block, let reader = try? chunkReader(block.array) else { return }
        reader.prefetch(block.rows)
    }

    func metadataProblems(expected e: ExpectedFileMetadata) throws -> [String] {
        var problems: [String] = []
        let present = Set(try file.attributeNames())
        func attribute<T: Equatable>(_ name: String, _ expected: T, _ read: (String) throws -> T,
                                     show: (T) -> String) {
            guard present.contains(name) else {
                problems.append("root attribute `\(name)` is missing (expected \(show(expected)))")
                return
            }
            do {
                let value = try read(name)
                if value != expected {
                    problems.append("root attribute `\(name)` is \(show(value)), but the manifest says \(show(expected))")
                }
            } catch {
                problems.append("root attribute `\(name)` cannot be read: \(error)")
            }
        }
        let quote: (String) -> String = { "\"\($0)\"" }
        let list: ([String]) -> String = { Self.showList($0) }
        attribute("format", "motionprep.windows", file.stringAttribute, show: quote)
        attribute("format_version", Int64(1), file.intAttribute, show: { "\($0)" })
        attribute("split", e.split, file.stringAttribute, show: quote)
        attribute("sample_rate_hz", e.dataset.sampleRateHz, file.doubleAttribute, show: { "\($0)" })
        attribute("window_length", Int64(e.dataset.windowLength), file.intAttribute, show: { "\($0)" })
        attribute("window_stride", Int64(e.dataset.windowStride), file.intAttribute, show: { "\($0)" })
        attribute("channel_names", e.dataset.channelNames, file.stringsAttribute, show: list)
        attribute("channel_units", e.dataset.channelUnits, file.stringsAttribute, show: list)
        attribute("class_names", e.dataset.classNames, file.stringsAttribute, show: list)
        attribute("feature_names", e.dataset.featureNames, file.stringsAttribute, show: list)
        attribute("subject_names", e.dataset.subjectNames, file.stringsAttribute, show: list)
        attribute("recording_names", e.dataset.recordingNames, file.stringsAttribute, show: list)
        // `qa_columns` exactly with the pipeline's `qa`.
        if !e.dataset.qaColumns.isEmpty { attribute("qa_columns", e.dataset.qaColumns, file.stringsAttribute, show: list) }
        // Nothing beyond the format: an attribute added by hand (h5py) is data the manifest does not describe.
        for name in present.sorted(by: Text.utf8Less) where !Self.rootAttributes.contains(name)
            && !(name == "qa_columns" && !e.dataset.qaColumns.isEmpty) {
            problems.append("holds a root attribute `\(name)` that the format does not define (docs/dataset-format.md, \"HDF5 files\": only \(Self.rootAttributeList)); motionprep writes no other")
        }
        for link in try rootLinks() where link.kind == .dataset {
            for name in try dataset(link.name).attributeNames() {
                problems.append("dataset `\(link.name)` holds an attribute `\(name)` that the format does not define (docs/dataset-format.md, \"HDF5 files\": datasets carry no attributes)")
            }
        }
        return problems
    }

    func declaredCounts() throws -> (numWindows: Int, classCounts: [Int])? { nil }

    func chunkRows(_ array: String) throws -> Int? { try dataset(array).chunkRows }

    func close() {
        for reader in chunkReaders.values { reader?.waitForPrefetch() }
        chunkReaders = [:]
        for d in datasets.values { try? d.close() }
        datasets = [:]
        try? file.close()
    }

    /// The root attributes docs/dataset-format.md defines, in its order.
    static let rootAttributeOrder = ["format", "format_version", "split", "sample_rate_hz", "window_length", "window_stride",
                                     "channel_names", "channel_units", "class_names", "feature_names", "subject_names",
                                     "recording_names"]
    static let rootAttributes = Set(rootAttributeOrder)
    static var rootAttributeList: String { rootAttributeOrder.map { "`\($0)`" }.joined(separator: ", ") }

    /// `["a", "b", …]`, cut after 6 items.
    static func showList(_ items: [String]) -> String {
        let shown = items.prefix(6).map { "\"\($0)\"" }
        return "[" + shown.joined(separator: ", ") + (items.count > 6 ? ", … (\(items.count) in all)" : "") + "]"
    }
}
