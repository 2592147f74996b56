import MotionHDF5

/// Grows one dataset of an ``HDF5SplitSink`` chunk by chunk: rows are gathered in a chunk-sized
/// buffer, and each full chunk goes to the file's ``HDF5ChunkWriteQueue`` to be encoded in
/// parallel and stored with `H5Dwrite_chunk`. ``finish()`` stores the last, partial chunk padded
/// with zeros (HDF5's fill value), so the file holds exactly what HDF5's own filter pipeline
/// would have stored, up to the choice of deflate encoder.
///
/// Memory: one chunk buffer, plus what the queue holds in flight.
final class HDF5ChunkAppender {
    let dataset: HDF5Dataset
    let chunkRows: Int
    let elementSize: Int
    let elementsPerRow: Int
    /// Rows appended so far.
    private(set) var rows = 0
    private let queue: HDF5ChunkWriteQueue
    private var buffer: [UInt8]
    private var rowsInBuffer = 0

    /// - Parameters:
    ///   - dataset: an empty dataset made by `HDF5File.createDataset` (shuffle, deflate 4,
    ///     Fletcher-32) with these `chunkRows`.
    ///   - type: its element type.
    init(dataset: HDF5Dataset, type: HDF5ElementType, chunkRows: Int, queue: HDF5ChunkWriteQueue) {
        precondition(chunkRows >= 1, "chunkRows must be positive, got \(chunkRows)")
        self.dataset = dataset
        self.chunkRows = chunkRows
        self.elementSize = type.byteCount
        self.elementsPerRow = dataset.rowShape.reduce(1, *)
        self.queue = queue
        buffer = [UInt8](repeating: 0, count: chunkRows * elementsPerRow * type.byteCount)
    }

    /// Appends `rows × product(rowShape)` values, row-major.
    ///
    /// - Throws: ``HDF5Error`` from storing a chunk.
    func append<Element: BitwiseCopyable>(_ values: [Element], rows count: Int) throws {
        try values.withUnsafeBufferPointer { try append($0, rows: count) }
    }

    /// Appends `rows × product(rowShape)` values, row-major, from a slice.
    func append<Element: BitwiseCopyable>(_ values: ArraySlice<Element>, rows count: Int) throws {
        try values.withUnsafeBufferPointer { try append($0, rows: count) }
    }

    private func append<Element: BitwiseCopyable>(_ values: UnsafeBufferPointer<Element>, rows count: Int) throws {
        precondition(MemoryLayout<Element>.stride == elementSize,
                     "appending \(Element.self) to `\(dataset.name)`, whose elements have \(elementSize) bytes")
        precondition(count >= 0 && values.count == count * elementsPerRow,
                     "appending \(count) rows to `\(dataset.name)` needs \(count * elementsPerRow) values, got \(values.count)")
        var row = 0
        while row < count {
            let take = Swift.min(count - row, chunkRows - rowsInBuffer)
            _ChunkKernels.copy(values, first: row * elementsPerRow, count: take * elementsPerRow,
                               into: &buffer, offset: rowsInBuffer * elementsPerRow * elementSize)
            try advance(by: take)
            row += take
        }
    }

    /// Queues the partial last chunk, if any (zero-padded, with the true row count as extent).
    /// Call once, after the last append; the caller then flushes the queue.
    ///
    /// - Throws: ``HDF5Error`` from storing a chunk.
    func finish() throws {
        if rowsInBuffer > 0 { try emit() }
    }

    private func advance(by count: Int) throws {
        rowsInBuffer += count
        rows += count
        if rowsInBuffer == chunkRows { try emit() }
    }

    private func emit() throws {
        let chunk = buffer
        buffer = [UInt8](repeating: 0, count: buffer.count)
        let offsetRow = rows - rowsInBuffer
        rowsInBuffer = 0
        try queue.submit(chunk, elementSize: elementSize, to: dataset, offsetRow: offsetRow, extentRows: rows)
    }
}
