import Foundation
import MotionDeflate
import MotionHDF5
import Testing

@testable import MotionSinks

/// Our shuffle, padding and Fletcher-32 against the chunks HDF5's own filter pipeline stores,
/// and our chunks read back through HDF5's pipeline.
@Suite struct NativeChunkTests {
    static let sizes = [0, 1, 4, 5, 6, 7, 8, 13, 14, 15, 36]

    /// The expected whole chunk `index` of `column`: its rows, zero-padded to `chunkRows`.
    static func paddedChunk(_ column: FastColumn, index: Int) -> [UInt8] {
        let rowBytes = column.rowShape.reduce(1, *) * column.type.byteCount
        let start = index * column.chunkRows * rowBytes
        let end = min(column.bytes.count, start + column.chunkRows * rowBytes)
        return Array(column.bytes[start..<end]) + [UInt8](repeating: 0, count: column.chunkRows * rowBytes - (end - start))
    }

    static func littleEndian(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }

    @Test(arguments: sizes)
    func hdf5sOwnChunksMatchOurStages(rows: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("slow.h5")
        let cols = columns(rows: rows)
        try writeSlow(cols, to: path)
        let file = try HDF5File.openReadOnly(path: path)
        defer { try? file.close() }
        let inflater = ZlibDecompressor()
        for column in cols {
            let dataset = try file.openDataset(column.name)
            for index in 0..<((rows + column.chunkRows - 1) / column.chunkRows) {
                let (mask, stored) = try dataset.readRawChunk(offsetRow: index * column.chunkRows)
                #expect(mask == 0, "HDF5 applied every filter to chunk \(index) of \(column.name)")
                let stream = Array(stored.dropLast(4))
                let checksum = stream.withUnsafeBytes { _ChunkKernels.fletcher32($0) }
                #expect(Self.littleEndian(stored.suffix(4)) == checksum,
                        "HDF5's Fletcher-32 trailer is ours, little-endian (\(column.name) chunk \(index))")
                let expected = Self.paddedChunk(column, index: index)
                let shuffled = try inflater.decompress(stream, decompressedBytes: expected.count)
                #expect(shuffled == ChunkKernelTests.kernelShuffle(expected, elementSize: column.type.byteCount),
                        "HDF5's shuffled, zero-padded chunk is ours (\(column.name) chunk \(index))")
            }
        }
    }

    @Test(arguments: sizes)
    func hdf5ReadsOurChunks(rows: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("fast.h5")
        let cols = columns(rows: rows)
        try writeFast(cols, to: path, threads: 2)
        let file = try HDF5File.openReadOnly(path: path)
        defer { try? file.close() }
        let encoder = HDF5ChunkEncoder()
        for column in cols {
            let dataset = try file.openDataset(column.name)
            #expect(try dataset.shape == [rows] + column.rowShape)
            #expect(try dataset.filters == ["shuffle", "deflate", "fletcher32"])
            #expect(try dataset.deflateLevel == 4)
            let read: [UInt8] = switch column.type {
            case .float32: rawBytes(try dataset.readFloats(start: 0, count: rows))
            case .float64: rawBytes(try dataset.readDoubles(start: 0, count: rows))
            case .int32: rawBytes(try dataset.readInt32s(start: 0, count: rows))
            case .int64: rawBytes(try dataset.readInt64s(start: 0, count: rows))
            }
            #expect(read == column.bytes, "\(column.name), \(rows) rows, bit for bit")
            for index in 0..<((rows + column.chunkRows - 1) / column.chunkRows) {
                let (mask, stored) = try dataset.readRawChunk(offsetRow: index * column.chunkRows)
                #expect(mask == 0)
                #expect(stored == encoder.encode(Self.paddedChunk(column, index: index), elementSize: column.type.byteCount))
            }
        }
    }

    /// A flipped bit inside a stored chunk, in the stream or in the checksum itself, fails
    /// HDF5's Fletcher-32 check on read.
    @Test(arguments: [false, true])
    func corruptedChunkFailsTheChecksum(inChecksum: Bool) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("fast.h5")
        let cols = columns(rows: 20)
        try writeFast(cols, to: path, threads: 1)
        let stored = try {
            let file = try HDF5File.openReadOnly(path: path)
            defer { try? file.close() }
            return try file.openDataset("x").readRawChunk(offsetRow: 7).bytes
        }()
        try corrupt(path: path, chunk: stored, inChecksum: inChecksum)
        let file = try HDF5File.openReadOnly(path: path)
        defer { try? file.close() }
        let x = try file.openDataset("x")
        #expect(try x.readFloats(start: 0, count: 7).count == 42, "other chunks still read")
        do {
            _ = try x.readFloats(start: 7, count: 7)
            Issue.record("reading a corrupted chunk succeeded")
        } catch let error as HDF5Error {
            #expect("\(error)".contains("Fletcher32"), "\(error)")
        }
    }
}

/// Flips one bit of `chunk`'s stored bytes, found by their unique occurrence in the file at
/// `path`: in the middle of the deflate stream, or (`inChecksum`) in the Fletcher-32 trailer,
/// where nothing but the checksum check can notice. Returns the byte offset.
@discardableResult
func corrupt(path: String, chunk: [UInt8], inChecksum: Bool = false) throws -> Int {
    var data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    var matches: [Int] = []
    var start = 0
    while start + chunk.count <= data.count {
        if data[start] == chunk[0] && Array(data[start..<(start + chunk.count)]) == chunk { matches.append(start) }
        start += 1
    }
    guard matches.count == 1 else { throw MotionErrorForTests("chunk found \(matches.count) times in \(path)") }
    let offset = matches[0] + (inChecksum ? chunk.count - 2 : chunk.count / 2)
    data[offset] ^= 0x04
    try Data(data).write(to: URL(fileURLWithPath: path))
    return offset
}

struct MotionErrorForTests: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
