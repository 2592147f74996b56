import Foundation
import MotionCore
import MotionDeflate
import MotionHDF5
import Testing

@testable import MotionSinks

/// The read side: ``HDF5ChunkDecoder`` (Fletcher-32 → inflate → unshuffle) and
/// ``HDF5ParallelChunkReader`` against libhdf5's own `H5Dread` of the same files, bit for bit,
/// and corrupted chunks named by file, dataset and rows.
@Suite struct ChunkDecoderTests {
    // MARK: Kernels and the decoder alone

    @Test(arguments: [1, 2, 3, 4, 8])
    func unshuffleInvertsShuffleAtEverySize(elementSize: Int) {
        for count in 0...64 {
            let input = ChunkKernelTests.bytes(count * elementSize, seed: UInt64(count))
            let shuffled = ChunkKernelTests.kernelShuffle(input, elementSize: elementSize)
            var out = [UInt8](repeating: 0xAA, count: input.count)
            shuffled.withUnsafeBytes { source in
                out.withUnsafeMutableBytes { _ChunkKernels.unshuffle(source, into: $0, elementSize: elementSize) }
            }
            #expect(out == input, "element size \(elementSize), \(count) elements")
            #expect(out == ChunkKernelTests.unshuffle(shuffled, elementSize: elementSize))
        }
    }

    /// `stored` with its last 4 bytes replaced by the Fletcher-32 of the rest.
    static func withFreshChecksum(_ stored: [UInt8]) -> [UInt8] {
        var body = Array(stored.dropLast(4))
        let sum = body.withUnsafeBytes { _ChunkKernels.fletcher32($0) }
        for b in 0..<4 { body.append(UInt8(truncatingIfNeeded: sum >> (8 * UInt32(b)))) }
        return body
    }

    static func decode(_ stored: [UInt8], mask: UInt32 = 0, elementSize: Int, bytes: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: bytes)
        try stored.withUnsafeBytes { s in
            try out.withUnsafeMutableBytes { try HDF5ChunkDecoder().decode(s, filterMask: mask, elementSize: elementSize, into: $0) }
        }
        return out
    }

    @Test(arguments: [1, 2, 4, 8])
    func decoderInvertsTheEncoder(elementSize: Int) throws {
        for count in [1, 2, 7, 64, 4096] {
            let chunk = ChunkKernelTests.bytes(count * elementSize, seed: UInt64(count + elementSize))
            let stored = HDF5ChunkEncoder().encode(chunk, elementSize: elementSize)
            #expect(try Self.decode(stored, elementSize: elementSize, bytes: chunk.count) == chunk)
        }
    }

    /// Each filter-mask combination: a skipped stage is not undone.
    @Test(arguments: 0..<8)
    func skippedFiltersAreNotUndone(mask: Int) throws {
        let elementSize = 4
        let chunk = ChunkKernelTests.bytes(400, seed: 5)
        var stored = mask & 1 == 0 ? ChunkKernelTests.kernelShuffle(chunk, elementSize: elementSize) : chunk
        if mask & 2 == 0 { stored = ZlibCompressor(level: 4).compress(stored) }
        if mask & 4 == 0 { stored = Self.withFreshChecksum(stored + [0, 0, 0, 0]) }
        #expect(try Self.decode(stored, mask: UInt32(mask), elementSize: elementSize, bytes: chunk.count) == chunk)
    }

    /// HDF5 also accepts the checksum libhdf5 before 1.6.3 wrote on little-endian machines
    /// (each 16-bit half byte-swapped), so the decoder does too; any other value fails.
    @Test func legacyChecksumIsAcceptedOthersAreNot() throws {
        let chunk = ChunkKernelTests.bytes(256, seed: 8)
        var stored = HDF5ChunkEncoder().encode(chunk, elementSize: 4)
        let n = stored.count
        stored.swapAt(n - 4, n - 3)
        stored.swapAt(n - 2, n - 1)
        #expect(try Self.decode(stored, elementSize: 4, bytes: 256) == chunk)
        stored[n - 1] ^= 0x01
        #expect(throws: HDF5ChunkDecodingError.self) { try Self.decode(stored, elementSize: 4, bytes: 256) }
    }

    @Test func decodingErrorsSayWhatFailed() throws {
        let chunk = ChunkKernelTests.bytes(1024, seed: 3)
        let good = HDF5ChunkEncoder().encode(chunk, elementSize: 4)
        var flipped = good
        flipped[good.count / 2] ^= 0x04
        do {
            _ = try Self.decode(flipped, elementSize: 4, bytes: 1024)
            Issue.record("a flipped byte decoded")
        } catch let error as HDF5ChunkDecodingError {
            #expect(error.summary == "data error detected by Fletcher32 checksum")
            #expect(error.detail.hasPrefix("stored 0x") && error.detail.contains(", computed 0x"), "\(error)")
        }
        // A damaged stream whose checksum was recomputed gets past Fletcher-32; inflate catches it.
        var stream = Array(good.dropLast(4))
        stream[stream.count / 2] ^= 0x04
        do {
            _ = try Self.decode(Self.withFreshChecksum(stream + [0, 0, 0, 0]), elementSize: 4, bytes: 1024)
            Issue.record("a damaged deflate stream decoded")
        } catch let error as HDF5ChunkDecodingError {
            #expect(error.summary == "data error in the deflate filter", "\(error)")
        }
        #expect(throws: HDF5ChunkDecodingError.self) { try Self.decode([1, 2, 3], elementSize: 4, bytes: 1024) }
        #expect(throws: HDF5ChunkDecodingError.self) { try Self.decode(good, elementSize: 4, bytes: 1028) }
    }

    // MARK: The parallel reader against H5Dread

    /// Every typed read of `dataset` over `rows`: the raw-chunk reader's bytes and H5Dread's.
    static func bothReads(_ dataset: HDF5Dataset, _ reader: HDF5ParallelChunkReader, _ rows: Range<Int>) throws
        -> (fast: [UInt8]?, slow: [UInt8]) {
        switch try dataset.elementType! {
        case .float32:
            return (try reader.readFloats(rows).map(rawBytes), rawBytes(try dataset.readFloats(start: rows.lowerBound, count: rows.count)))
        case .float64:
            return (try reader.readDoubles(rows).map(rawBytes), rawBytes(try dataset.readDoubles(start: rows.lowerBound, count: rows.count)))
        case .int32, .int64:
            return (try reader.readInt64s(rows).map(rawBytes), rawBytes(try dataset.readInt64s(start: rows.lowerBound, count: rows.count)))
        }
    }

    /// Ranges inside `rows`: all, the first row, ranges starting and ending mid-chunk and on
    /// chunk boundaries, the last row.
    static func ranges(rows: Int, chunkRows: Int) -> [Range<Int>] {
        guard rows > 0 else { return [0..<0] }
        var out: [Range<Int>] = [0..<rows, 0..<1, (rows - 1)..<rows, 0..<min(rows, chunkRows)]
        if rows > 3 { out.append(1..<(rows - 1)) }
        if rows > chunkRows + 2 { out.append((chunkRows - 1)..<(chunkRows + 2)) }
        if rows > 2 * chunkRows { out.append(chunkRows..<(2 * chunkRows)) }
        return out
    }

    @Test(arguments: [(0, 1), (1, 2), (6, 3), (7, 2), (8, 1), (35, 4), (36, 2), (200, 2)])
    func readerMatchesH5Dread(rows: Int, threads: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for (name, write) in [("fast.h5", { try writeFast($0, to: $1, threads: 2) }),
                              ("slow.h5", { try writeSlow($0, to: $1) })] as [(String, ([FastColumn], String) throws -> Void)] {
            let path = directory.path(name)
            let cols = columns(rows: rows)
            try write(cols, path)
            let file = try HDF5File.openReadOnly(path: path)
            defer { try? file.close() }
            for column in cols {
                let dataset = try file.openDataset(column.name)
                #expect(try HDF5ParallelChunkReader.layoutMismatch(dataset) == nil)
                let reader = try #require(HDF5ParallelChunkReader(dataset, threads: threads), "\(name) \(column.name)")
                for range in Self.ranges(rows: rows, chunkRows: column.chunkRows) {
                    let (fast, slow) = try Self.bothReads(dataset, reader, range)
                    #expect(fast == slow, "\(name) `\(column.name)` rows \(range), \(threads) threads")
                }
                if column.type != .int32 {
                    let whole = try Self.bothReads(dataset, reader, 0..<rows).fast
                    #expect(whole == column.bytes, "\(name) `\(column.name)`: the values written")
                }
            }
        }
    }

    /// A chunk never written reads as fill values through H5Dread, so the reader hands the read
    /// back (nil) instead of guessing them; reads of written chunks still go through it.
    @Test func unwrittenChunksAreLeftToH5Dread() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("sparse.h5")
        let file = try HDF5File.create(path: path)
        let dataset = try file.createDataset("x", type: .float32, rowShape: [2], chunkRows: 4)
        try dataset.append([Float](repeating: 1.5, count: 8), rows: 4)
        try dataset.resize(rows: 12)
        let reader = try #require(HDF5ParallelChunkReader(dataset, threads: 2))
        #expect(try reader.readFloats(0..<4) == [Float](repeating: 1.5, count: 8))
        #expect(try reader.readFloats(2..<6) == nil)
        #expect(try reader.readFloats(0..<13) == nil, "rows outside the dataset are H5Dread's to report")
        #expect(try reader.readDoubles(0..<4) == nil, "no conversions: float32 is not read as Double")
        try file.close()
    }

    @Test(arguments: [false, true])
    func corruptedChunkNamesFileDatasetAndRows(inChecksum: Bool) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("fast.h5")
        try writeFast(columns(rows: 30), to: path, threads: 1)
        let stored = try {
            let file = try HDF5File.openReadOnly(path: path)
            defer { try? file.close() }
            return try file.openDataset("x").readRawChunk(offsetRow: 14).bytes
        }()
        try corrupt(path: path, chunk: stored, inChecksum: inChecksum)
        let file = try HDF5File.openReadOnly(path: path)
        defer { try? file.close() }
        let x = try file.openDataset("x")
        for threads in [1, 3] {
            let reader = try #require(HDF5ParallelChunkReader(x, threads: threads))
            #expect(try reader.readFloats(0..<14)?.count == 84, "other chunks still read")
            do {
                _ = try reader.readFloats(3..<30)
                Issue.record("reading a corrupted chunk succeeded")
            } catch let error as MotionError {
                #expect(error.exitStatus == .ioError)
                #expect(error.message == "cannot read rows 3..<30 of dataset `x` in `\(path)`: data error detected by Fletcher32 checksum in the chunk at rows 14..<21 ("
                        + error.message.split(separator: "(", maxSplits: 1).last!, "\(error)")
                #expect(error.message.contains("data error detected by Fletcher32 checksum in the chunk at rows 14..<21 (stored 0x"))
            }
        }
        // libhdf5 rejects the same chunk.
        #expect(throws: HDF5Error.self) { _ = try x.readFloats(start: 14, count: 7) }
    }

    /// With two bad chunks the first in row order is reported, whatever the threads' timing.
    @Test func firstBadChunkIsReported() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("fast.h5")
        try writeFast(columns(rows: 70), to: path, threads: 1)
        let chunks = try {
            let file = try HDF5File.openReadOnly(path: path)
            defer { try? file.close() }
            let x = try file.openDataset("x")
            return try [21, 56].map { try x.readRawChunk(offsetRow: $0).bytes }
        }()
        for chunk in chunks { try corrupt(path: path, chunk: chunk) }
        let file = try HDF5File.openReadOnly(path: path)
        defer { try? file.close() }
        let reader = try #require(HDF5ParallelChunkReader(try file.openDataset("x"), threads: 4))
        for _ in 0..<20 {
            #expect(throws: MotionError.self) { _ = try reader.readFloats(0..<70) }
            do { _ = try reader.readFloats(0..<70) } catch {
                #expect("\(error)".contains("in the chunk at rows 21..<28 "), "\(error)")
            }
        }
    }
}
