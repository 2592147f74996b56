import Dispatch
import MotionCore
import MotionHDF5
import Synchronization

/// Reads rows of an HDF5 dataset stored the way ``HDF5SplitSink`` writes it by decoding its
/// chunks on several threads: the mirror image of ``HDF5ChunkCompressionPool``.
///
/// libhdf5 decodes chunks inside `H5Dread` on the calling thread, one at a time, with zlib and
/// its own checksum loop, under its global lock. This reader instead fetches each stored chunk
/// with `H5Dread_chunk` (``HDF5Dataset/readStoredChunk(offsetRow:into:)``, the only step under
/// the HDF5 lock) and verifies its Fletcher-32, inflates it with libdeflate and unshuffles it
/// (``HDF5ChunkDecoder``) on `threads` workers at once, each decoding straight into its rows of
/// the result. Values are bit for bit what `H5Dread` returns.
///
/// Only datasets laid out as motionprep writes them qualify (``layoutMismatch(_:)`` says why
/// another does not): chunked, each chunk whole rows (`[k] + rowShape`), the pipeline exactly
/// shuffle → deflate → fletcher32, one of the four little-endian element types. Everything else
/// (another filter or order, no filters, contiguous storage, chunks cutting rows) is for
/// `H5Dread`; so is a read touching a chunk that was never written (its fill values), which the
/// typed reads report by returning `nil`.
///
/// Memory: each worker holds one stored and one decoded chunk; the result is the caller's. Reads
/// are deterministic: every chunk of a read is decoded, and the error reported is the one of the
/// first bad chunk in row order, whatever the timing.
///
/// Use from one thread at a time (the workers are internal to each read).
public final class HDF5ParallelChunkReader: @unchecked Sendable {
    /// The dataset read.
    public let dataset: HDF5Dataset
    /// The element type stored.
    public let elementType: HDF5ElementType
    /// Rows per chunk.
    public let chunkRows: Int
    /// Chunks decoded at once at most.
    public let threads: Int
    /// Rows in the dataset when the reader was made.
    public let rowCount: Int
    private let rowBytes: Int
    /// One per worker index, each used by one worker of a read at a time.
    private let workers: [_ChunkWorker]

    /// A reader for `dataset`, or `nil` when it is not laid out as motionprep writes it (see
    /// ``layoutMismatch(_:)``) or its layout cannot be read (then `H5Dread` reports the problem).
    ///
    /// - Parameter threads: workers per read, at least 1 (the CPUs allowed: `CPUAllowance`).
    public init?(_ dataset: HDF5Dataset, threads: Int) {
        precondition(threads >= 1, "a parallel chunk reader needs at least one thread, got \(threads)")
        guard (try? Self.layoutMismatch(dataset)) == .some(nil),
              let type = try? dataset.elementType, let chunk = try? dataset.chunkShape, let rows = try? dataset.rowCount
        else { return nil }
        self.dataset = dataset
        self.elementType = type
        self.chunkRows = chunk[0]
        self.threads = threads
        self.rowCount = rows
        self.rowBytes = dataset.rowShape.reduce(1, *) * type.byteCount
        workers = (0..<threads).map { _ in _ChunkWorker() }
    }

    /// Why `dataset` cannot be read through raw chunks (a phrase for messages and tests), or
    /// `nil` when it can.
    ///
    /// - Throws: ``HDF5Error`` when its type, chunking or filters cannot be read.
    public static func layoutMismatch(_ dataset: HDF5Dataset) throws -> String? {
        guard let type = try dataset.elementType else {
            return "its element type is not float32, float64, int32 or int64 (little-endian)"
        }
        guard let chunk = try dataset.chunkShape else { return "it is not chunked" }
        guard chunk.count == dataset.rowShape.count + 1, chunk[0] >= 1, Array(chunk.dropFirst()) == dataset.rowShape else {
            return "its chunks \(chunk) do not hold whole rows of \(dataset.rowShape)"
        }
        let stages = try dataset.filterStages
        let names = stages.map(\.name)
        guard names == ["shuffle", "deflate", "fletcher32"] else {
            return "its filters are \(names.isEmpty ? "none" : names.joined(separator: " → ")), not shuffle → deflate → fletcher32"
        }
        if let size = stages[0].parameters.first, Int(size) != type.byteCount {
            return "its shuffle filter works on \(size)-byte elements, but they have \(type.byteCount) bytes"
        }
        return nil
    }

    /// Rows `rows` as `Float`, row-major; `nil` when `H5Dread` must do it (the dataset is not
    /// float32, the rows lie outside it, or a chunk among them was never written).
    ///
    /// - Throws: ``HDF5Error`` when a stored chunk cannot be fetched; `MotionError` (`.ioError`)
    ///   naming the file, dataset, rows and chunk when one does not decode.
    public func readFloats(_ rows: Range<Int>) throws -> [Float]? {
        elementType == .float32 ? try readSame(rows) : nil
    }

    /// Rows `rows` as `Double` (float64 datasets); see ``readFloats(_:)``.
    public func readDoubles(_ rows: Range<Int>) throws -> [Double]? {
        elementType == .float64 ? try readSame(rows) : nil
    }

    /// Rows `rows` as `Int64` (int64 datasets, and int32 ones widened); see ``readFloats(_:)``.
    public func readInt64s(_ rows: Range<Int>) throws -> [Int64]? {
        switch elementType {
        case .int64: return try readSame(rows)
        case .int32:
            let narrow: [Int32]? = try readSame(rows)
            return narrow.map { $0.map(Int64.init) }
        default: return nil
        }
    }

    /// Rows `rows` as `Int32` (int32 datasets); see ``readFloats(_:)``.
    public func readInt32s(_ rows: Range<Int>) throws -> [Int32]? {
        elementType == .int32 ? try readSame(rows) : nil
    }

    /// Starts decoding `rows` in the background, so that the next read, if it asks for exactly
    /// these rows, finds them decoded (or their error) instead of waiting for all of them: a
    /// caller reading a dataset block after block overlaps its work on one block with the
    /// decoding of the next. One read ahead at most (memory: one more block); any other read
    /// first waits for it and drops it. Rows outside the dataset are not prefetched.
    public func prefetch(_ rows: Range<Int>) {
        waitForPrefetch()
        guard !rows.isEmpty, rows.lowerBound >= 0, rows.upperBound <= rowCount else { return }
        let block = _PrefetchedBlock(rows: rows)
        pending = block
        DispatchQueue.global().async { [self] in
            block.result = Result {
                switch elementType {
                case .float32: try decode(rows) as [Float]?
                case .float64: try decode(rows) as [Double]?
                case .int32: try decode(rows) as [Int32]?
                case .int64: try decode(rows) as [Int64]?
                }
            }
            block.done.signal()
        }
    }

    /// Waits until a prefetch started by ``prefetch(_:)`` has finished and drops its result;
    /// call it before closing the dataset.
    public func waitForPrefetch() {
        guard let block = pending else { return }
        pending = nil
        block.done.wait()
    }

    /// The read ahead, if any (touched only by the thread using the reader).
    private var pending: _PrefetchedBlock?

    /// Reads into an array of the stored element type: from the prefetched block when it holds
    /// exactly `rows`, else decoded now.
    private func readSame<Element: BitwiseCopyable>(_ rows: Range<Int>) throws -> [Element]? {
        precondition(MemoryLayout<Element>.stride == elementType.byteCount)
        guard rows.lowerBound >= 0, rows.upperBound <= rowCount else { return nil }
        if let block = pending {
            pending = nil
            block.done.wait()
            if block.rows == rows { return try block.result!.get() as? [Element] }
        }
        return try decode(rows)
    }

    /// Decodes `rows` (inside the dataset) into a new array of the stored element type.
    private func decode<Element: BitwiseCopyable>(_ rows: Range<Int>) throws -> [Element]? {
        let elements = rows.count * rowBytes / elementType.byteCount
        var complete = true
        let values = try [Element](unsafeUninitializedCapacity: elements) { buffer, initialized in
            complete = try read(rows, into: UnsafeMutableRawBufferPointer(buffer))
            initialized = elements   // plain numbers: any bytes are valid values
        }
        return complete ? values : nil
    }

    /// Decodes rows `rows` (inside the dataset) into `destination` (exactly their bytes); false
    /// when a chunk among them was never written (the destination is then incomplete).
    private func read(_ rows: Range<Int>, into destination: UnsafeMutableRawBufferPointer) throws -> Bool {
        guard !rows.isEmpty else { return true }
        let firstChunk = rows.lowerBound / chunkRows
        let chunks = (rows.upperBound - 1) / chunkRows - firstChunk + 1
        let state = Mutex(_ReadState())
        let elementSize = elementType.byteCount, chunkBytes = chunkRows * rowBytes
        let (dataset, chunkRows, rowBytes, workers) = (self.dataset, self.chunkRows, self.rowBytes, self.workers)
        let base = _SendablePointer(destination.baseAddress!)
        DispatchQueue.concurrentPerform(iterations: min(threads, chunks)) { w in
            let worker = workers[w]
            while true {
                let i: Int? = state.withLock { s in
                    guard s.next < chunks else { return nil }
                    defer { s.next += 1 }
                    return s.next
                }
                guard let i else { return }
                let chunkStart = (firstChunk + i) * chunkRows
                let lo = max(chunkStart, rows.lowerBound), hi = min(chunkStart + chunkRows, rows.upperBound)
                do {
                    guard let mask = try dataset.readStoredChunk(offsetRow: chunkStart, into: &worker.stored) else {
                        state.withLock { $0.unwritten = true }
                        continue
                    }
                    let target = base.pointer + (lo - rows.lowerBound) * rowBytes
                    let whole = lo == chunkStart && hi == chunkStart + chunkRows
                    if !whole && worker.plain.count != chunkBytes { worker.plain = [UInt8](repeating: 0, count: chunkBytes) }
                    try worker.stored.withUnsafeBytes { stored in
                        if whole {
                            try worker.decoder.decode(stored, filterMask: mask, elementSize: elementSize,
                                                      into: UnsafeMutableRawBufferPointer(start: target, count: chunkBytes))
                        } else {
                            try worker.plain.withUnsafeMutableBytes { plain in
                                try worker.decoder.decode(stored, filterMask: mask, elementSize: elementSize, into: plain)
                                target.copyMemory(from: plain.baseAddress! + (lo - chunkStart) * rowBytes,
                                                  byteCount: (hi - lo) * rowBytes)
                            }
                        }
                    }
                } catch let error as HDF5ChunkDecodingError {
                    let message = "cannot read rows \(rows.lowerBound)..<\(rows.upperBound) of dataset `\(dataset.name)` in `\(dataset.file.path)`: "
                        + "\(error.summary) in the chunk at rows \(chunkStart)..<\(chunkStart + chunkRows) (\(error.detail))"
                    state.withLock { $0.record(i, MotionError(.ioError, message)) }
                } catch {
                    state.withLock { $0.record(i, error) }
                }
            }
        }
        let outcome = state.withLock { ($0.firstFailure, $0.unwritten) }
        if let failure = outcome.0 { throw failure.error }
        return !outcome.1
    }
}

/// A block decoded ahead by ``HDF5ParallelChunkReader/prefetch(_:)``: `result` is set, then
/// `done` signalled, on the decoding thread.
private final class _PrefetchedBlock: @unchecked Sendable {
    let rows: Range<Int>
    let done = DispatchSemaphore(value: 0)
    /// The decoded array (`[Float]`, `[Double]`, `[Int32]` or `[Int64]`; nil when a chunk was
    /// never written) or the read's error.
    var result: Result<Any?, any Error>?
    init(rows: Range<Int>) { self.rows = rows }
}

/// A worker's buffers and decoder, reused across reads.
private final class _ChunkWorker: @unchecked Sendable {
    let decoder = HDF5ChunkDecoder()
    var stored: [UInt8] = []
    var plain: [UInt8] = []
}

/// What the workers of one read share, under a mutex.
private struct _ReadState: ~Copyable {
    var next = 0
    var unwritten = false
    var firstFailure: (index: Int, error: any Error)?

    mutating func record(_ index: Int, _ error: any Error) {
        if firstFailure == nil || index < firstFailure!.index { firstFailure = (index, error) }
    }
}

/// The destination of one read, written by the workers at disjoint row ranges.
private struct _SendablePointer: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
    init(_ pointer: UnsafeMutableRawPointer) { self.pointer = pointer }
}
