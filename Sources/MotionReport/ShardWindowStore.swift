import Foundation
import MotionCore
import MotionSinks

/// The `shards` storage (docs/dataset-format.md, "Shards"): `{split}/{split}-NNNNN.tar.zst` per split, each shard one
/// zstd-compressed tar of npy arrays, read with ``ShardReader``.
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
                files = names.filter { $0.hasPrefix(s.name + "-") && $0.hasSuffix(".tar.zst") }
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
                                            windowLength: manifest.windowLength))
        }
        splits = out
    }
}

/// The shards of one split, read as one row sequence. Shard bodies are decompressed on demand;
/// the small per-window arrays are kept once read, `x` only for the most recent shard.
final class ShardSplitSource: SplitWindowSource {
    let split: String
    private let paths: [String]
    private let channels: Int
    private let windowLength: Int
    /// Row offset of each shard, plus the total at the end.
    private var offsets: [Int]
    /// The per-window arrays of shards already read.
    private var small: [Int: Small] = [:]
    private var cachedX: (shard: Int, x: [Float])?
    let preferredBlockRows: Int

    private struct Small {
        var y: [Int64]
        var subject: [Int32]
        var recording: [Int32]
        var start: [Double]
    }

    /// - Parameter windowCounts: windows per shard from manifest.json, when it says; a shard
    ///   whose count is unknown is opened to read its header.
    init(split: String, paths: [String], windowCounts: [Int?], channels: Int, windowLength: Int) throws {
        self.split = split
        self.paths = paths
        self.channels = channels
        self.windowLength = windowLength
        var offsets = [0]
        for (i, path) in paths.enumerated() {
            let n: Int
            if i < windowCounts.count, let known = windowCounts[i] {
                n = known
            } else {
                n = try Self.open(path).header.numWindows
            }
            offsets.append(offsets.last! + n)
        }
        self.offsets = offsets
        // Blocks of one shard (the first holds `windows_per_shard` windows), at least 1 row.
        preferredBlockRows = max(1, offsets.count > 1 ? offsets[1] : 1)
    }

    var windowCount: Int { get throws { offsets.last! } }

    func labels(start s: Int, count: Int) throws -> [Int64] { try gather(s, count) { $0.y } }
    func subjectIndices(start s: Int, count: Int) throws -> [Int32] { try gather(s, count) { $0.subject } }
    func recordingIndices(start s: Int, count: Int) throws -> [Int32] { try gather(s, count) { $0.recording } }
    func startTimes(start s: Int, count: Int) throws -> [Double] { try gather(s, count) { $0.start } }

    func windows(start s: Int, count: Int) throws -> [Float] {
        let row = windowLength * channels
        var out: [Float] = []
        out.reserveCapacity(count * row)
        try forEachShard(s, count) { shard, lo, hi in
            let x = try loadX(shard)
            out.append(contentsOf: x[(lo * row)..<(hi * row)])
        }
        return out
    }

    // MARK: Shards

    /// Calls `body(shard, lo, hi)` for the rows `lo ..< hi` (shard-local) that `start ..< start + count` covers.
    private func forEachShard(_ start: Int, _ count: Int, _ body: (Int, Int, Int) throws -> Void) throws {
        guard count > 0 else { return }
        precondition(start >= 0 && start + count <= offsets.last!, "rows \(start)..<\(start + count) outside the split")
        // The shard holding `start`: the last offset ≤ start (skipping empty shards).
        var shard = 0
        while offsets[shard + 1] <= start { shard += 1 }
        var row = start
        let end = start + count
        while row < end {
            let lo = row - offsets[shard], hi = min(end, offsets[shard + 1]) - offsets[shard]
            if hi > lo { try body(shard, lo, hi) }
            row = offsets[shard] + hi
            shard += 1
        }
    }

    private func gather<T>(_ start: Int, _ count: Int, _ pick: (Small) -> [T]) throws -> [T] {
        var out: [T] = []
        out.reserveCapacity(count)
        try forEachShard(start, count) { shard, lo, hi in
            out.append(contentsOf: pick(try loadSmall(shard))[lo..<hi])
        }
        return out
    }

    private func loadSmall(_ shard: Int) throws -> Small {
        if let s = small[shard] { return s }
        try read(shard)
        return small[shard]!
    }

    private func loadX(_ shard: Int) throws -> [Float] {
        if let c = cachedX, c.shard == shard { return c.x }
        try read(shard)
        return cachedX!.x
    }

    /// Decompresses shard `shard` and checks its arrays against the manifest.
    private func read(_ shard: Int) throws {
        let path = paths[shard]
        let contents = try Self.open(path)
        let n = offsets[shard + 1] - offsets[shard]
        guard contents.header.numWindows == n else {
            throw ReportError.badData(path, "the shard header says \(contents.header.numWindows) windows, manifest.json says \(n)")
        }
        func array(_ name: String) throws -> ShardArray {
            guard let a = contents.array(name) else { throw ReportError.badData(path, "the shard has no `\(name)` array") }
            guard a.shape.first == n else {
                throw ReportError.badData(path, "`\(name)` has shape \(a.shape), expected \(n) rows")
            }
            return a
        }
        do {
            let x = try array("x")
            guard x.shape == [n, windowLength, channels] else {
                throw ReportError.badData(path, "`x` has shape \(x.shape), but manifest.json says [\(n), \(windowLength), \(channels)]")
            }
            small[shard] = Small(y: try array("y").int64Values(), subject: try array("subject_index").int32Values(),
                                 recording: try array("recording_index").int32Values(),
                                 start: try array("start_time_s").float64Values())
            cachedX = (shard, try x.float32Values())
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
