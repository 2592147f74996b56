import Foundation
import MotionCore
import MotionSinks

/// The `shards` storage (docs/dataset-format.md, "Shards"): `{split}/{split}-NNNNN.tar.zst` (or `.tar`) per split,
/// each shard a tar of one WebDataset sample per window, read with ``ShardReader``. Rows are the
/// windows in the canonical order, as in the HDF5 file of the same pipeline, whatever the
/// write-time shuffle.
public final class ShardWindowStore: DatasetWindowStore {
    public let splits: [SplitWindowSource]

    /// Finds the shards of each split the manifest lists: its `files` in order, or (for a
    /// manifest without them) `{split}/{split}-*.tar.zst` in name order.
    ///
    /// - Throws: ``ReportError`` (`.noInput`) when a split has no shard or a listed shard is missing.
    public init(directory: String, manifest: DatasetManifest) throws {
        var out: [SplitWindowSource] = []
        for s in manifest.splits {
            var files = s.files
            if files.isEmpty {
                let folder = directory + "/" + s.name
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                files = names.filter { $0.hasPrefix(s.name + "-") && ($0.hasSuffix(".tar.zst") || $0.hasSuffix(".tar")) }
                    .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { s.name + "/" + $0 }
            }
            guard !files.isEmpty else {
                throw ReportError(.noInput, "`\(directory)/\(s.name)` holds no `\(s.name)-NNNNN.tar.zst` shard, but manifest.json lists the \(s.name) split")
            }
            for f in files where !FileManager.default.fileExists(atPath: directory + "/" + f) {
                throw ReportError.missing(directory + "/" + f, what: "every shard that manifest.json lists under `splits.\(s.name).files`")
            }
            out.append(try ShardSplitSource(split: s.name, paths: files.map { directory + "/" + $0 },
                                            windowCounts: s.fileWindowCounts, channels: manifest.channels.count,
                                            windowLength: manifest.windowLength, subjects: manifest.subjects,
                                            recordings: manifest.recordings))
        }
        splits = out
    }
}

/// The shards of one split, read as one row sequence in the canonical order: row r is the window
/// whose sample key carries number r (docs/dataset-format.md, "Shards"), wherever the write-time
/// shuffle put it. Opening reads every shard once for the keys and the small per-window values;
/// `x` is then gathered shard by shard for each block asked for, the most recent shard's `x`
/// kept.
final class ShardSplitSource: SplitWindowSource {
    let split: String
    private let paths: [String]
    private let channels: Int
    private let windowLength: Int
    /// Per canonical row: its shard and its place in that shard.
    private var shardOf: [Int32] = []
    private var slotOf: [Int32] = []
    private var y: [Int64] = []
    private var subject: [Int32] = []
    private var recording: [Int32] = []
    private var start: [Double] = []
    private var cachedX: (shard: Int, x: [Float])?
    let preferredBlockRows: Int

    /// - Parameter windowCounts: windows per shard from manifest.json, when it says; checked
    ///   against each shard.
    init(split: String, paths: [String], windowCounts: [Int?], channels: Int, windowLength: Int,
         subjects: [String], recordings: [String]) throws {
        self.split = split
        self.paths = paths
        self.channels = channels
        self.windowLength = windowLength
        var firstCount = 1
        var rows: [(number: Int, shard: Int32, slot: Int32, y: Int64, subject: Int32, recording: Int32, start: Double)] = []
        for (shard, path) in paths.enumerated() {
            let contents = try Self.open(path)
            let n = contents.numWindows
            if shard < windowCounts.count, let known = windowCounts[shard], known != n {
                throw ReportError.badData(path, "the shard holds \(n) windows, manifest.json says \(known)")
            }
            if shard == 0 { firstCount = n }
            if n > 0, let x = contents.array("x"), x.shape != [n, windowLength, channels] {
                throw ReportError.badData(path, "`x` has shape \(x.shape), but manifest.json says [\(n), \(windowLength), \(channels)]")
            }
            let s = contents.indices(into: subjects, recording: false), r = contents.indices(into: recordings, recording: true)
            for (i, sample) in contents.samples.enumerated() {
                rows.append((sample.windowNumber, Int32(shard), Int32(i), sample.classID, s[i], r[i], sample.startTimeS))
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
        let row = windowLength * channels
        var out = [Float](repeating: 0, count: count * row)
        // Each shard the block touches is decompressed once, the cached one first.
        var byShard: [Int: [Int]] = [:]
        for r in s..<(s + count) { byShard[Int(shardOf[r]), default: []].append(r) }
        var order = byShard.keys.sorted()
        if let c = cachedX?.shard, let i = order.firstIndex(of: c) { order.swapAt(0, i) }
        for shard in order {
            let x = try loadX(shard)
            for r in byShard[shard]! {
                let slot = Int(slotOf[r])
                out.replaceSubrange(((r - s) * row)..<((r - s + 1) * row), with: x[(slot * row)..<((slot + 1) * row)])
            }
        }
        return out
    }

    private func loadX(_ shard: Int) throws -> [Float] {
        if let c = cachedX, c.shard == shard { return c.x }
        let path = paths[shard]
        let contents = try Self.open(path)
        do {
            let x = try contents.array("x")?.float32Values() ?? []
            cachedX = (shard, x)
            return x
        } catch let e as MotionError {
            throw ReportError.badData(path, e.message)
        }
    }

    private static func open(_ path: String) throws -> ShardContents {
        do {
            return try ShardReader.read(path: path)
        } catch let e as MotionError {
            throw ReportError(e.exitStatus, e.message)
        }
    }
}
