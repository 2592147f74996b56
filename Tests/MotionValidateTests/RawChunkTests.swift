import Foundation
import MotionCore
import MotionDataset
import MotionHDF5
import MotionValidate
import Testing

/// HDF5 files are read from raw chunks decoded on several threads (`HDF5Storage(rawChunks:
/// true)`, the default) or through libhdf5's `H5Dread` (the fallback): both give the same
/// report, whatever the threads, and a corrupted chunk is named by file, dataset and rows.
@Suite struct RawChunkTests {
    /// The report with the raw-chunk path on `threads` threads, or with H5Dread only.
    static func report(_ dir: String, rawChunks: Bool, threads: Int = 2, blockWindows: Int = 4096,
                       expectations: Expectations? = nil) -> ValidationReport {
        DatasetValidator.validate(directory: dir, options: ValidationOptions(
            expectations: expectations, storages: [HDF5Storage(threads: threads, rawChunks: rawChunks)],
            blockWindows: blockWindows))
    }

    static func text(_ r: ValidationReport) -> String {
        r.rendered(.text, timing: ValidationTiming(seconds: 1))
    }

    @Test(arguments: [1, 2, 5])
    func cleanDatasetReportsTheSameOnBothPaths(threads: Int) throws {
        let dir = Fixture.dataset
        let slow = Self.report(dir, rawChunks: false)
        #expect(slow.passed)
        #expect(Self.text(Self.report(dir, rawChunks: true, threads: threads)) == Self.text(slow))
        // Small blocks: many reads, each a few chunks, and every one prefetched.
        #expect(Self.text(Self.report(dir, rawChunks: true, threads: threads, blockWindows: 7))
                == Self.text(Self.report(dir, rawChunks: false, blockWindows: 7)))
    }

    /// Data that fails checks (NaN, bad labels, bad indices, a range rule, the normalisation)
    /// gives the same failures, word for word, on both paths.
    @Test func failingDataReportsTheSameOnBothPaths() throws {
        let dir = Fixture.copy()
        try rewriteSplitFile(dir, "train.h5") { f in
            guard case .float32(var x) = f.arrays["x"]!.values, case .int64(var y) = f.arrays["y"]!.values,
                  case .int32(var s) = f.arrays["subject_index"]!.values else { return }
            x[1000] = .nan
            x[18 * 111] = 1e9  // channel 0, acc_x
            y[2] = 7
            s[4] = -3
            f.arrays["x"]!.values = .float32(x)
            f.arrays["y"]!.values = .int64(y)
            f.arrays["subject_index"]!.values = .int32(s)
        }
        let rules = try ExpectationsLoader.load(yaml: """
            version: 1
            value_ranges: {"acc_*": {min: -20, max: 20}}
            """, file: "e.yaml")
        let slow = Self.report(dir, rawChunks: false, expectations: rules)
        #expect(Set(failedChecks(slow)).isSuperset(of: ["values.finite", "labels.range", "indices.range", "expect.value_ranges"]))
        for threads in [1, 3] {
            #expect(Self.text(Self.report(dir, rawChunks: true, threads: threads, expectations: rules)) == Self.text(slow))
        }
    }

    /// Flips one bit of the chunk of `dataset` at `row` in `file` (found by its stored bytes),
    /// in the middle of its deflate stream; with `fixChecksum` the Fletcher-32 trailer is then
    /// recomputed, so only inflating can notice. Refreshes the manifest's digest.
    static func corruptChunk(_ dir: String, _ file: String, dataset: String, row: Int, fixChecksum: Bool = false) throws {
        let path = dir + "/" + file
        let stored = try {
            let f = try HDF5File.openReadOnly(path: path)
            defer { try? f.close() }
            return try f.openDataset(dataset).readRawChunk(offsetRow: row).bytes
        }()
        var data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let at = try #require(data.indices.dropLast(stored.count - 1).first { data[$0] == stored[0] && Array(data[$0..<($0 + stored.count)]) == stored })
        var chunk = stored
        chunk[chunk.count / 2] ^= 0x04
        if fixChecksum {
            let sum = fletcher32(Array(chunk.dropLast(4)))
            for b in 0..<4 { chunk[chunk.count - 4 + b] = UInt8(truncatingIfNeeded: sum >> (8 * UInt32(b))) }
        }
        data.replaceSubrange(at..<(at + chunk.count), with: chunk)
        try Data(data).write(to: URL(fileURLWithPath: path))
        try refreshChecksums(dir, file)
    }

    /// HDF5's Fletcher-32 (`H5_checksum_fletcher32`), written plainly.
    static func fletcher32(_ data: [UInt8]) -> UInt32 {
        var sum1: UInt32 = 0, sum2: UInt32 = 0, index = 0, words = data.count / 2
        while words > 0 {
            let block = min(words, 360)
            words -= block
            for _ in 0..<block {
                sum1 += UInt32(data[index]) << 8 | UInt32(data[index + 1])
                index += 2
                sum2 += sum1
            }
            sum1 = (sum1 & 0xFFFF) + (sum1 >> 16)
            sum2 = (sum2 & 0xFFFF) + (sum2 >> 16)
        }
        if data.count % 2 == 1 {
            sum1 += UInt32(data[index]) << 8
            sum2 += sum1
            sum1 = (sum1 & 0xFFFF) + (sum1 >> 16)
            sum2 = (sum2 & 0xFFFF) + (sum2 >> 16)
        }
        sum1 = (sum1 & 0xFFFF) + (sum1 >> 16)
        sum2 = (sum2 & 0xFFFF) + (sum2 >> 16)
        return sum2 << 16 | sum1
    }

    static func chunkRows(_ dir: String, _ file: String, _ dataset: String) throws -> (chunk: Int, rows: Int) {
        let f = try HDF5File.openReadOnly(path: dir + "/" + file)
        defer { try? f.close() }
        let d = try f.openDataset(dataset)
        return (try d.chunkRows!, try d.rowCount)
    }

    @Test func corruptedChunkIsNamedByFileDatasetAndRows() throws {
        let dir = Fixture.copy()
        let (k, rows) = try Self.chunkRows(dir, "test.h5", "x")
        try #require(rows > k, "the fixture's test split has more than one chunk of x")
        try Self.corruptChunk(dir, "test.h5", dataset: "x", row: k)
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        let prefix = "\(dir)/test.h5: files.readable: cannot read `x`: cannot read rows 0..<\(rows) of dataset `x` in `\(dir)/test.h5`: "
        #expect(output.contains(prefix + "data error detected by Fletcher32 checksum in the chunk at rows \(k)..<\(2 * k) (stored 0x"), "\(output)")
        // libhdf5 (the fallback) rejects the same chunk, with its own sentence; every other
        // outcome is the same.
        let fast = Self.report(dir, rawChunks: true), slow = Self.report(dir, rawChunks: false)
        #expect(failedChecks(fast) == ["files.readable"])
        #expect(failedChecks(slow) == failedChecks(fast))
        #expect(slow.failures.map(\.message) == ["cannot read `x`: cannot read rows 0..<\(rows) of dataset `x` in `\(dir)/test.h5`: data error detected by Fletcher32 checksum (H5Dread)"])
        #expect(fast.checks.map(\.status) == slow.checks.map(\.status))
    }

    @Test func corruptedChunkOfA1DArrayIsNamedToo() throws {
        let dir = Fixture.copy()
        let (_, rows) = try Self.chunkRows(dir, "train.h5", "y")
        try Self.corruptChunk(dir, "train.h5", dataset: "y", row: 0)
        let r = Self.report(dir, rawChunks: true)
        #expect(r.failures.map(\.message).contains(
            "cannot read `y`: cannot read rows 0..<\(rows) of dataset `y` in `\(dir)/train.h5`: data error detected by Fletcher32 checksum in the chunk at rows 0..<4096 ("
                + (r.failures.first { $0.message.hasPrefix("cannot read `y`") }?.message.split(separator: "(").last.map(String.init) ?? "")),
                "\(r.failures)")
        #expect(r.checks.map(\.status) == Self.report(dir, rawChunks: false).checks.map(\.status))
        #expect(r.outcome(.countsSplit)?.status == .passed)
    }

    /// A stream damaged under a valid checksum gets past Fletcher-32 and fails in inflate, on
    /// both paths.
    @Test func damagedStreamWithAValidChecksumFailsToInflate() throws {
        let dir = Fixture.copy()
        try Self.corruptChunk(dir, "validation.h5", dataset: "features", row: 0, fixChecksum: true)
        let fast = Self.report(dir, rawChunks: true), slow = Self.report(dir, rawChunks: false)
        #expect(failedChecks(fast) == ["files.readable"], "\(fast.failures)")
        #expect(failedChecks(slow) == ["files.readable"], "\(slow.failures)")
        let message = try #require(fast.failures.first?.message)
        #expect(message.contains("of dataset `features` in `\(dir)/validation.h5`: data error in the deflate filter in the chunk at rows 0..<"), "\(message)")
    }
}
