import Dispatch
import Foundation
import MotionCore
import MotionZstd

#if _endian(big)
#error("ShardSplitSink writes arrays as little-endian npy straight from memory; big-endian hosts are not supported")
#endif

/// Writes one split as WebDataset shards `{split}/{split}-NNNNN.tar.zst` (or `.tar`)
/// (docs/dataset-format.md, "Shards").
///
/// Windows arrive per recording in canonical order and are spooled, one fixed-size row per
/// window, into a temporary file beside the split folder. `finish()` then knows the split's
/// window count, computes the shuffle permutation (``ShardShuffle``; 8 bytes a window) and
/// writes every shard by gathering its windows from the spool with random-access reads, on
/// `threads` lanes, so at most one shard's windows per lane are in memory.
///
/// Each window is one WebDataset sample: `{key}.x.npy`, `{key}.y.cls`, `{key}.y_seq.npy` (with
/// `labels.per_sample`), `{key}.features.npy`
/// (with features) and `{key}.json`, the key `{split}-{canonical window number, 9 digits}`.
/// A `.tar.zst` shard is exactly one zstd frame with the content size and a checksum. Files
/// are written under a temporary name and renamed into place; the same windows always give the
/// same bytes.
public final class ShardSplitSink: SplitSink {
    /// `{directory}/{split}/`, where the shards are created.
    private let splitFolder: WritableFolder
    private let split: String
    private let description: DatasetDescription
    fileprivate let windowsPerShard: Int
    private let compressionLevel: Int
    private let compress: Bool
    private let seed: UInt64
    private let threads: Int
    private var spool: _SpoolFile?
    private var count = 0
    private let rowFloats: Int
    private let rowBytes: Int
    /// Bytes of `y_seq` (8 × T with `labels.per_sample`, else 0), at the end of a spool row.
    private let ySeqBytes: Int
    /// Bytes of `qa` (4 × Q with the pipeline's `qa`, else 0), after `y_seq` in a spool row.
    private let qaBytes: Int
    /// False: samples in canonical order (`motionprep apply`), no write-time shuffle.
    private let shuffle: Bool
    /// Also write `{key}.x_normalized.npy` (and `{key}.features_normalized.npy`), `motionprep apply`.
    private let normalization: SinkNormalization?
    /// The partition these shards hold (`output.partitioned`), nil for a whole split.
    private let partition: DatasetPartition?

    /// Prepares `{directory}/{split}/` and the spool; no shard is written before `finish()`.
    /// - Parameters:
    ///   - directory: the dataset folder being built; the split folder, the spool and every shard
    ///     are created through its descriptor.
    ///   - split: `train`, `validation` or `test`.
    ///   - windowsPerShard: windows in every shard but the last (at least 1).
    ///   - compressionLevel: zstd level (pipeline files allow 1–19; default 3).
    ///   - compress: `.tar.zst` when true, plain `.tar` when false.
    ///   - seed: `split.seed`, from which the shuffle is derived.
    ///   - threads: shards gathered and compressed at once by `finish()` (the run's `--jobs`);
    ///     memory is one shard per thread. The bytes do not depend on it.
    ///   - shuffle: false writes the samples in canonical order (`motionprep apply`).
    ///   - normalization: also write the standardised arrays (`motionprep apply`).
    ///   - partition: the partition these shards hold (`output.partitioned`): shards
    ///     `{split}/part-IIIII-of-NNNNN-SSSSS.tar.zst`, keys `{split}-pIIIII-{W}` with W the
    ///     window's number within the partition, shuffled within the partition only.
    /// - Throws: `MotionError(.config)` when `windowsPerShard < 1`; `.cannotCreate` when the
    ///   folder or the spool cannot be made.
    public init(directory: WritableFolder, split: String, description: DatasetDescription,
                windowsPerShard: Int, compressionLevel: Int = 3, compress: Bool = true, seed: UInt64 = 0,
                threads: Int = 1, shuffle: Bool = true, normalization: SinkNormalization? = nil,
                partition: DatasetPartition? = nil) throws {
        guard windowsPerShard >= 1 else {
            throw MotionError(.config, "`output.windows_per_shard` is \(windowsPerShard); expected a whole number of at least 1")
        }
        self.split = split
        self.description = description
        self.windowsPerShard = windowsPerShard
        self.compressionLevel = compressionLevel
        self.compress = compress
        self.seed = seed
        self.threads = Swift.max(1, threads)
        self.shuffle = shuffle
        self.normalization = normalization
        self.partition = partition
        rowFloats = description.windowLength * description.channelNames.count + description.featureNames.count
        ySeqBytes = description.hasYSeq ? description.windowLength * 8 : 0
        qaBytes = description.qaColumns.count * 4
        rowBytes = rowFloats * 4 + 32 + ySeqBytes + qaBytes
        splitFolder = try directory.subfolder(split)
        spool = try _SpoolFile(in: directory, name: split + (partition.map { "." + $0.name } ?? "") + ".spool.tmp")
    }

    public func append(_ batch: WindowBatch, subjectIndex: Int32, recordingIndex: Int32, foldIndex: Int32?) throws {
        let n = batch.count
        let rowX = description.windowLength * description.channelNames.count
        let rowF = description.featureNames.count
        let rowS = ySeqBytes / 8
        precondition(batch.x.count == n * rowX && batch.startTimes.count == n && batch.features.count == n * rowF
                        && batch.ySeq.count == n * rowS && batch.qa.count * 4 == n * qaBytes,
                     "ShardSplitSink: a batch of \(n) windows has \(batch.x.count) x values, \(batch.features.count) feature values, \(batch.ySeq.count) y_seq values and \(batch.startTimes.count) start times; expected \(rowX), \(rowF), \(rowS) and 1 per window")
        guard let spool else { preconditionFailure("ShardSplitSink: append after finish") }
        var row = [UInt8](repeating: 0, count: rowBytes)
        for i in 0..<n {
            row.withUnsafeMutableBytes { out in
                batch.x.withUnsafeBytes { out.baseAddress!.copyMemory(from: $0.baseAddress! + i * rowX * 4, byteCount: rowX * 4) }
                if rowF > 0 {
                    batch.features.withUnsafeBytes {
                        (out.baseAddress! + rowX * 4).copyMemory(from: $0.baseAddress! + i * rowF * 4, byteCount: rowF * 4)
                    }
                }
                let tail = out.baseAddress! + rowFloats * 4
                tail.storeBytes(of: batch.y[i], toByteOffset: 0, as: Int64.self)
                tail.storeBytes(of: batch.startTimes[i], toByteOffset: 8, as: Double.self)
                tail.storeBytes(of: subjectIndex, toByteOffset: 16, as: Int32.self)
                tail.storeBytes(of: recordingIndex, toByteOffset: 20, as: Int32.self)
                tail.storeBytes(of: foldIndex ?? -1, toByteOffset: 24, as: Int32.self)
                if rowS > 0 {
                    batch.ySeq.withUnsafeBytes { (tail + 32).copyMemory(from: $0.baseAddress! + i * ySeqBytes, byteCount: ySeqBytes) }
                }
                if qaBytes > 0 {
                    batch.qa.withUnsafeBytes { (tail + 32 + ySeqBytes).copyMemory(from: $0.baseAddress! + i * qaBytes, byteCount: qaBytes) }
                }
            }
            try spool.append(row)
        }
        count += n
    }

    public func finish() throws -> [WrittenFile] {
        guard let spool else { preconditionFailure("ShardSplitSink: finish twice") }
        defer { self.spool = nil }
        try spool.flush()
        let job = _ShardJob(sink: self, spool: spool,
                            order: shuffle ? ShardShuffle.permutation(count: count, seed: seed, split: split, partition: partition) : Array(0..<count),
                            shards: Swift.max(1, (count + windowsPerShard - 1) / windowsPerShard))
        // Shard k on lane k mod lanes; each shard is written whole by one lane, so the bytes do
        // not depend on the number of lanes.
        let lanes = Swift.min(threads, job.shards)
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            var k = lane
            while k < job.shards {
                let from = k * job.sink.windowsPerShard, to = Swift.min(job.order.count, from + job.sink.windowsPerShard)
                let outcome = Result { try job.sink.writeShard(index: k, windows: job.order[from..<to], spool: job.spool) }
                job.finished(k, outcome)
                k += lanes
            }
        }
        return try job.results.map { try $0!.get() }
    }

    public func abandon() { spool = nil }

    /// `{split}-NNNNN` (at least five digits).
    static func stem(split: String, index: Int) -> String {
        let digits = String(index)
        return split + "-" + String(repeating: "0", count: Swift.max(0, 5 - digits.count)) + digits
    }

    /// `{split}-NNNNNNNNN`: the sample key of canonical window `number` (at least nine digits).
    /// With a `partition`: `{split}-pIIIII-NNNNNNNNN`, the number counted within the partition.
    public static func key(split: String, window number: Int, partition: DatasetPartition? = nil) -> String {
        let digits = String(number)
        let p = partition?.keyInfix ?? ""
        return split + "-" + p + String(repeating: "0", count: Swift.max(0, 9 - digits.count)) + digits
    }

    /// Gathers the windows `windows` (canonical numbers, in shard order) from the spool and
    /// writes them as one shard.
    fileprivate func writeShard(index: Int, windows: ArraySlice<Int>, spool: _SpoolFile) throws -> WrittenFile {
        let n = windows.count
        var rows = [UInt8](repeating: 0, count: n * rowBytes)
        // Read in canonical order (mostly forward through the spool), place in shard order.
        let byNumber = windows.enumerated().sorted { $0.element < $1.element }
        for (slot, number) in byNumber {
            try spool.read(at: number * rowBytes, into: &rows, offset: slot * rowBytes, count: rowBytes)
        }
        let T = description.windowLength, C = description.channelNames.count, F = description.featureNames.count
        let xHeader = NPYHeader(descr: "<f4", shape: [T, C]).encoded()
        let fHeader = NPYHeader(descr: "<f4", shape: [F]).encoded()
        let sHeader = NPYHeader(descr: "<i8", shape: [T]).encoded()
        var counts = [Int](repeating: 0, count: description.classNames.count)
        var members: [(name: String, size: Int)] = []
        var texts: [(cls: [UInt8], json: [UInt8])] = []
        for (slot, number) in windows.enumerated() {
            let base = slot * rowBytes + rowFloats * 4
            let y = rows.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: base, as: Int64.self) }
            let start = rows.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: base + 8, as: Double.self) }
            let s = rows.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: base + 16, as: Int32.self) }
            let r = rows.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: base + 20, as: Int32.self) }
            let f = rows.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: base + 24, as: Int32.self) }
            if y >= 0 && Int(y) < counts.count { counts[Int(y)] += 1 }
            var object: [String: JSONValue] = [
                "subject": .string(description.subjectNames[Int(s)]),
                "recording": .string(description.recordingNames[Int(r)]),
                "start_time_s": .double(start),
                "label": y >= 0 && Int(y) < description.classNames.count ? .string(description.classNames[Int(y)]) : .null,
            ]
            if description.hasFolds { object["fold_index"] = .int(Int(f)) }
            if qaBytes > 0 {
                var qa: [String: JSONValue] = [:]
                for (c, name) in description.qaColumns.enumerated() {
                    let v = rows.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: base + 32 + ySeqBytes + 4 * c, as: Float.self) }
                    qa[name] = .double(Double(v))
                }
                object["qa"] = .object(qa)
            }
            let text = (cls: Array(String(y).utf8), json: Array(JSONValue.object(object).compact().utf8))
            texts.append(text)
            let key = Self.key(split: split, window: number, partition: partition)
            members.append((key + ".x.npy", xHeader.count + T * C * 4))
            members.append((key + ".y.cls", text.cls.count))
            if ySeqBytes > 0 { members.append((key + ".y_seq.npy", sHeader.count + ySeqBytes)) }
            if F > 0 { members.append((key + ".features.npy", fHeader.count + F * 4)) }
            if normalization != nil { members.append((key + ".x_normalized.npy", xHeader.count + T * C * 4)) }
            if F > 0, normalization?.features != nil { members.append((key + ".features_normalized.npy", fHeader.count + F * 4)) }
            members.append((key + ".json", text.json.count))
        }
        let stem = partition.map { $0.name + "-" + DatasetPartition.digits(index, 5) } ?? Self.stem(split: split, index: index)
        let relativePath = split + "/" + stem + (compress ? ".tar.zst" : ".tar")
        let file = try _ShardFile(in: splitFolder, name: stem + (compress ? ".tar.zst" : ".tar"))
        var zstd: ZstdFrameWriter?
        if compress {
            zstd = try ZstdFrameWriter(level: compressionLevel, contentSize: TarWriter.archiveSize(memberSizes: members.map(\.size))) {
                try file.write($0)
            }
        }
        let frame = zstd
        var tar = TarWriter { bytes in
            if let frame { try frame.write(bytes) } else { try file.write(bytes) }
        }
        var m = 0
        for slot in 0..<n {
            let base = slot * rowBytes
            try tar.beginMember(name: members[m].name, size: members[m].size); m += 1
            try tar.writeContent(xHeader)
            try rows.withUnsafeBytes { try tar.writeContent(UnsafeRawBufferPointer(rebasing: $0[base..<(base + T * C * 4)])) }
            try tar.beginMember(name: members[m].name, size: members[m].size); m += 1
            try tar.writeContent(texts[slot].cls)
            if ySeqBytes > 0 {
                try tar.beginMember(name: members[m].name, size: members[m].size); m += 1
                try tar.writeContent(sHeader)
                let at = base + rowFloats * 4 + 32
                try rows.withUnsafeBytes { try tar.writeContent(UnsafeRawBufferPointer(rebasing: $0[at..<(at + ySeqBytes)])) }
            }
            if F > 0 {
                try tar.beginMember(name: members[m].name, size: members[m].size); m += 1
                try tar.writeContent(fHeader)
                try rows.withUnsafeBytes {
                    try tar.writeContent(UnsafeRawBufferPointer(rebasing: $0[(base + T * C * 4)..<(base + rowFloats * 4)]))
                }
            }
            if let normalization {
                let floats = rows.withUnsafeBytes { raw in
                    (0..<rowFloats).map { raw.loadUnaligned(fromByteOffset: base + $0 * 4, as: Float.self) }
                }
                try tar.beginMember(name: members[m].name, size: members[m].size); m += 1
                try tar.writeContent(xHeader)
                try normalization.x.apply(floats[0..<(T * C)]).withUnsafeBytes { try tar.writeContent($0) }
                if F > 0, let f = normalization.features {
                    try tar.beginMember(name: members[m].name, size: members[m].size); m += 1
                    try tar.writeContent(fHeader)
                    try f.apply(floats[(T * C)..<rowFloats]).withUnsafeBytes { try tar.writeContent($0) }
                }
            }
            try tar.beginMember(name: members[m].name, size: members[m].size); m += 1
            try tar.writeContent(texts[slot].json)
        }
        try tar.finish()
        try frame?.finish()
        let digest = try file.commit()
        return WrittenFile(path: relativePath, numWindows: n, classCounts: counts, sha256: digest.sha256, bytes: digest.bytes)
    }
}

/// One `finish()`: what the lanes share. The sink and the spool are only read (the spool with
/// `pread`), each shard's result is stored under the lock.
private final class _ShardJob: @unchecked Sendable {
    let sink: ShardSplitSink
    let spool: _SpoolFile
    let order: [Int]
    let shards: Int
    private let lock = NSLock()
    private(set) var results: [Result<WrittenFile, Error>?]

    init(sink: ShardSplitSink, spool: _SpoolFile, order: [Int], shards: Int) {
        self.sink = sink
        self.spool = spool
        self.order = order
        self.shards = shards
        results = Array(repeating: nil, count: shards)
    }

    func finished(_ shard: Int, _ outcome: Result<WrittenFile, Error>) {
        lock.lock()
        results[shard] = outcome
        lock.unlock()
    }
}

/// The write-time shuffle of a split's windows (docs/dataset-format.md, "Shards"): a
/// Fisher–Yates shuffle of the canonical window numbers 0 ..< N, driven by splitmix64 seeded
/// with `StableHash.hash("{seed}:shuffle:{split}")`.
public enum ShardShuffle {
    /// `result[i]` is the canonical number of the i-th window written (shards in order, samples
    /// in archive order).
    /// With a `partition` (`output.partitioned`), the partition's windows are shuffled among
    /// themselves, seeded with `"{seed}:shuffle:{split}:part-IIIII-of-NNNNN"`.
    public static func permutation(count: Int, seed: UInt64, split: String, partition: DatasetPartition? = nil) -> [Int] {
        var order = Array(0..<count)
        var state = StableHash.hash("\(seed):shuffle:\(split)" + (partition.map { ":" + $0.name } ?? ""))
        var i = count - 1
        while i > 0 {
            state = state &+ 0x9e37_79b9_7f4a_7c15
            let j = Int(StableHash.mix(state) % UInt64(i + 1))
            order.swapAt(i, j)
            i -= 1
        }
        return order
    }
}
