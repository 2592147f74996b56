import Foundation
import MotionCore
import MotionHDF5
@_exported import MotionTestSupport
@testable import MotionSinks



/// Raw little-endian bytes of an array (x86-64 and arm64 are little-endian).
func rawBytes<T: BitwiseCopyable>(_ values: [T]) -> [UInt8] {
    values.withUnsafeBytes { Array($0) }
}

/// Compressible but not trivial values: a slow sine with noise, plus awkward specials.
func floats(_ count: Int, seed: UInt64) -> [Float] {
    var random = SeededGenerator(seed: seed)
    let specials: [Float] = [.nan, -0.0, .infinity, -.infinity, .leastNonzeroMagnitude, Float(bitPattern: 0x7FC0_1234)]
    return (0..<count).map { i in
        i % 211 == 5 ? specials[(i / 211) % specials.count]
                     : Float(sin(Double(i) * 0.01)) * 9.81 + Float.random(in: -0.05...0.05, using: &random)
    }
}

func doubles(_ count: Int, seed: UInt64) -> [Double] {
    var random = SeededGenerator(seed: seed)
    return (0..<count).map { 1.7e9 + Double($0) * 1.28 + Double.random(in: 0..<1e-3, using: &random) }
}

func int64s(_ count: Int, seed: UInt64) -> [Int64] {
    var random = SeededGenerator(seed: seed)
    let extremes: [Int64] = [.min, .max, -1]
    return (0..<count).map { $0 < extremes.count ? extremes[$0] : Int64.random(in: -1..<5, using: &random) }
}

func int32s(_ count: Int, seed: UInt64) -> [Int32] {
    var random = SeededGenerator(seed: seed)
    return (0..<count).map { $0 == 0 ? .min : Int32.random(in: 0..<40, using: &random) }
}

/// One dataset written through the fast path, with the values it should hold.
struct FastColumn {
    var name: String
    var type: HDF5ElementType
    var rowShape: [Int]
    var chunkRows: Int
    var rows: Int
    /// The expected content, raw little-endian bytes.
    var bytes: [UInt8]
    var numpyType: String {
        switch type {
        case .float32: "<f4"
        case .float64: "<f8"
        case .int32: "<i4"
        case .int64: "<i8"
        }
    }
}

/// Columns of every element type and a row count chosen per test, with small chunks so partial
/// chunks are cheap: x float32 [N, 3, 2] in chunks of 7 rows, y int64, subject int32, time float64
/// in chunks of `oneDChunkRows`.
func columns(rows: Int, oneDChunkRows: Int = 5, seed: UInt64 = 1) -> [FastColumn] {
    [
        FastColumn(name: "x", type: .float32, rowShape: [3, 2], chunkRows: 7, rows: rows,
                   bytes: rawBytes(floats(rows * 6, seed: seed))),
        FastColumn(name: "y", type: .int64, rowShape: [], chunkRows: oneDChunkRows, rows: rows,
                   bytes: rawBytes(int64s(rows, seed: seed + 1))),
        FastColumn(name: "subject_index", type: .int32, rowShape: [], chunkRows: oneDChunkRows, rows: rows,
                   bytes: rawBytes(int32s(rows, seed: seed + 2))),
        FastColumn(name: "start_time_s", type: .float64, rowShape: [], chunkRows: oneDChunkRows, rows: rows,
                   bytes: rawBytes(doubles(rows, seed: seed + 3))),
    ]
}

/// Writes `columns` to a new file at `path` through ``HDF5ChunkAppender``s sharing one write
/// queue on a pool of `threads`, appending in batches of `batch` rows, and closes it.
func writeFast(_ columns: [FastColumn], to path: String, threads: Int, batch: Int = 3) throws {
    let file = try HDF5File.create(path: path)
    let pool = HDF5ChunkCompressionPool(threads: threads)
    let queue = HDF5ChunkWriteQueue(pool: pool, maxInFlight: 2 * threads)
    let appenders = try columns.map { column in
        HDF5ChunkAppender(dataset: try file.createDataset(column.name, type: column.type, rowShape: column.rowShape,
                                                          chunkRows: column.chunkRows),
                          type: column.type, chunkRows: column.chunkRows, queue: queue)
    }
    let rows = columns.first?.rows ?? 0
    var row = 0
    while row < rows {
        let n = min(batch, rows - row)
        for (column, appender) in zip(columns, appenders) {
            let rowBytes = column.bytes.count / max(1, column.rows)
            let slice = Array(column.bytes[(row * rowBytes)..<((row + n) * rowBytes)])
            switch column.type {
            case .float32: try appender.append(reinterpret(slice, as: Float.self), rows: n)
            case .float64: try appender.append(reinterpret(slice, as: Double.self), rows: n)
            case .int32: try appender.append(reinterpret(slice, as: Int32.self), rows: n)
            case .int64: try appender.append(reinterpret(slice, as: Int64.self), rows: n)
            }
        }
        row += n
    }
    for appender in appenders { try appender.finish() }
    try queue.flush()
    try file.close()
}

/// The same columns written through HDF5's own filter pipeline (`HDF5Dataset.append`).
func writeSlow(_ columns: [FastColumn], to path: String) throws {
    let file = try HDF5File.create(path: path)
    for column in columns {
        let dataset = try file.createDataset(column.name, type: column.type, rowShape: column.rowShape, chunkRows: column.chunkRows)
        try column.bytes.withUnsafeBytes { try dataset.append($0, rows: column.rows) }
    }
    try file.close()
}

func reinterpret<T: BitwiseCopyable>(_ bytes: [UInt8], as: T.Type) -> [T] {
    let count = bytes.count / MemoryLayout<T>.stride
    return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
        bytes.withUnsafeBytes { source in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(from: source)
        }
        initialized = count
    }
}


