import Foundation
import MotionCore
import MotionDataset

/// The `shards` storage (docs/dataset-format.md, "Shards"): `{split}/{split}-NNNNN.tar.zst` (or
/// `.tar`) per split, each a tar of one WebDataset sample per window, read through
/// MotionDataset's ``ShardStorage`` (the reader `validate` uses). Rows are the windows in the
/// canonical order, as in the HDF5 file of the same pipeline, whatever the write-time shuffle.
public final class ShardWindowStore: DatasetWindowStore {
    public let splits: [SplitWindowSource]

    /// Opens the shards of each split, as the manifest lists them under `files`.
    ///
    /// - Throws: ``ReportError`` (`.noInput`) when a listed shard is missing; `MotionError` when
    ///   one is damaged or larger than its entry allows.
    public init(directory: String, manifest: DatasetManifest) throws {
        var out: [SplitWindowSource] = []
        for name in manifest.splitNames {
            guard let s = manifest.splits[name] else { continue }
            for f in s.files where !FileManager.default.fileExists(atPath: directory + "/" + f.path) {
                throw ReportError.missing(directory + "/" + f.path, what: "every shard that manifest.json lists under `splits.\(name.rawValue).files`")
            }
            out.append(try ShardSplitSource(split: name.rawValue, directory: directory, files: s.files, manifest: manifest))
        }
        splits = out
    }
}

/// The shards of one split, read as one row sequence in the canonical order: row r is the window
/// whose sample key carries number r (docs/dataset-format.md, "Shards"), wherever the write-time
/// shuffle put it. Opening reads every shard once for the keys and the small per-window values;
/// `x` is then gathered shard by shard for each block asked for, the most recent shard kept open.
final class ShardSplitSource: SplitWindowSource {
    let split: String
    private let paths: [String]
    private let displayPaths: [String]
    private let expected: [ExpectedFileContents]
    private let rowElements: Int
    /// Per canonical row: its shard and its place in that shard.
    private var shardOf: [Int32] = []
    private var slotOf: [Int32] = []
    private var y: [Int64] = []
    private var subject: [Int32] = []
    private var recording: [Int32] = []
    private var start: [Double] = []
    private var openShard: (index: Int, reader: any DatasetFileReader)?
    let preferredBlockRows: Int

    init(split: String, directory: String, files: [DatasetManifest.DataFile], manifest m: DatasetManifest) throws {
        self.split = split
        paths = files.map { directory + "/" + $0.path }
        displayPaths = files.map(\.path)
        rowElements = m.windowLength * m.channels.count
        expected = files.map { f in
            ExpectedFileContents(windows: f.numWindows, arrayRowElements: m.arrays.values.map { $0.rowShape.reduce(1, *) },
                                 classes: m.classes.count, arrayRowShapes: m.arrays.mapValues(\.rowShape),
                                 subjectNames: m.subjects, recordingNames: m.recordings)
        }
        var firstCount = 1
        var rows: [(number: Int, shard: Int32, slot: Int32, y: Int64, subject: Int32, recording: Int32, start: Double)] = []
        // A partitioned split numbers its windows within each partition: row = the windows of
        // the partitions before + the number (partition order, then canonical order within).
        let base = files.map { f in
            f.partition.map { p in files.filter { ($0.partition ?? 0) < p }.reduce(0) { $0 + $1.numWindows } } ?? 0
        }
        for shard in paths.indices {
            let reader = try Self.open(paths[shard], displayPaths[shard], expected[shard])
            defer { reader.close() }
            let path = paths[shard]
            let numbers = try reader.windowNumbers() ?? []
            let n = numbers.count
            if n != files[shard].numWindows {
                throw ReportError.badData(path, "the shard holds \(n) windows, manifest.json says \(files[shard].numWindows)")
            }
            if shard == 0 { firstCount = n }
            guard n > 0 else { continue }
            if let x = try reader.arrays()["x"], x.shape != [n, m.windowLength, m.channels.count] {
                throw ReportError.badData(path, "`x` has shape \(x.shape), but manifest.json says [\(n), \(m.windowLength), \(m.channels.count)]")
            }
            let ys = try reader.readInt64s("y", rows: 0..<n)
            let s = try reader.readInt64s("subject_index", rows: 0..<n), r = try reader.readInt64s("recording_index", rows: 0..<n)
            let t = try reader.readDoubles("start_time_s", rows: 0..<n)
            for i in 0..<n {
                rows.append((base[shard] + numbers[i], Int32(shard), Int32(i), ys[i], Int32(truncatingIfNeeded: s[i]), Int32(truncatingIfNeeded: r[i]), t[i]))
            }
        }
        rows.sort { $0.number < $1.number }
        for (i, row) in rows.enumerated() where row.number != i {
            throw ReportError.badData(paths[Int(row.shard)], "the split's sample keys do not number its windows 0 to \(rows.count - 1): window \(i) is missing or repeated")
        }
        shardOf = rows.map(\.shard)
        slotOf = rows.map(\.slot)
        y = rows.map(\.y)
        subject = rows.map(\.subject)
        recording = rows.map(\.recording)
        start = rows.map(\.start)
        // Blocks of one shard's size (`windows_per_shard`), at least 1 row.
        preferredBlockRows = max(1, firstCount)
    }

    var windowCount: Int { get throws { y.count } }

    func labels(start s: Int, count: Int) throws -> [Int64] { Array(y[s..<(s + count)]) }
    func subjectIndices(start s: Int, count: Int) throws -> [Int32] { Array(subject[s..<(s + count)]) }
    func recordingIndices(start s: Int, count: Int) throws -> [Int32] { Array(recording[s..<(s + count)]) }
    func startTimes(start s: Int, count: Int) throws -> [Double] { Array(start[s..<(s + count)]) }

    func windows(start s: Int, count: Int) throws -> [Float] {
        guard count > 0 else { return [] }
        precondition(s >= 0 && s + count <= y.count, "rows \(s)..<\(s + count) outside the split")
        let row = rowElements
        var out = [Float](repeating: 0, count: count * row)
        // Each shard the block touches is decompressed once, the open one first.
        var byShard: [Int: [Int]] = [:]
        for r in s..<(s + count) { byShard[Int(shardOf[r]), default: []].append(r) }
        var order = byShard.keys.sorted()
        if let c = openShard?.index, let i = order.firstIndex(of: c) { order.swapAt(0, i) }
        for shard in order {
            let reader = try shardReader(shard)
            for r in byShard[shard]! {
                let slot = Int(slotOf[r])
                let x = try reader.readFloats("x", rows: slot..<(slot + 1))
                out.replaceSubrange(((r - s) * row)..<((r - s + 1) * row), with: x)
            }
        }
        return out
    }

    private static func open(_ path: String, _ displayPath: String, _ expected: ExpectedFileContents) throws -> any DatasetFileReader {
        do {
            return try ShardStorage().open(path: path, displayPath: displayPath, expected: expected)
        } catch let e as ContainerError {
            throw ReportError.badData(path, e.message)
        }
    }

    private func shardReader(_ shard: Int) throws -> any DatasetFileReader {
        if let o = openShard, o.index == shard { return o.reader }
        openShard?.reader.close()
        openShard = nil
        let reader = try Self.open(paths[shard], displayPaths[shard], expected[shard])
        openShard = (shard, reader)
        return reader
    }

    deinit { openShard?.reader.close() }
}
