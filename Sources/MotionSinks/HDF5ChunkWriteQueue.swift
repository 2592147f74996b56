import Foundation
import MotionHDF5

/// One file's chunks on their way to disk: each is encoded on a ``HDF5ChunkCompressionPool``
/// lane and stored (`HDF5Dataset.resize(rows:)`, then `writeRawChunk`) by the writer thread
/// strictly in the order it was submitted.
///
/// HDF5 allocates a directly written chunk where the file ends at the time of the write, so the
/// file's layout is fixed by the order of writes alone; since that order is the submission order
/// whatever the timing, the same submissions give the same bytes for any number of compression
/// threads (docs/scale.md).
///
/// Memory: at most `maxInFlight` chunks are submitted but not yet written; `submit` writes (and
/// if need be waits for) the oldest before taking another.
///
/// Thread safety: `submit` and `flush` must be called from one thread at a time (the sink's
/// writer); only encoded results cross threads, under a lock.
final class HDF5ChunkWriteQueue: @unchecked Sendable {
    private struct Pending {
        var dataset: HDF5Dataset
        var offsetRow: Int
        /// The dataset's row count once this chunk is stored (its extent is grown to it first).
        var extentRows: Int
    }

    private let pool: HDF5ChunkCompressionPool
    private let maxInFlight: Int
    // Writer-thread state.
    private var pending: [Pending] = []
    private var oldestSequence = 0
    private var nextSequence = 0
    // Shared with the lanes, guarded by `condition`.
    private let condition = NSCondition()
    private var encoded: [Int: [UInt8]] = [:]

    /// - Parameters:
    ///   - pool: where chunks are encoded.
    ///   - maxInFlight: chunks submitted but not yet written, at least 1.
    init(pool: HDF5ChunkCompressionPool, maxInFlight: Int) {
        precondition(maxInFlight >= 1, "maxInFlight must be at least 1, got \(maxInFlight)")
        self.pool = pool
        self.maxInFlight = maxInFlight
    }

    /// Queues one whole chunk of `dataset` for encoding, then stores every chunk at the front
    /// of the queue that is ready.
    ///
    /// - Parameters:
    ///   - chunk: the chunk's raw bytes, `chunkRows` whole rows, zero past `extentRows`.
    ///   - elementSize: bytes per element of the dataset.
    ///   - offsetRow: the chunk's first row (a multiple of the dataset's chunk rows).
    ///   - extentRows: the dataset's row count once this chunk is stored.
    /// - Throws: ``HDF5Error`` from storing an earlier chunk.
    func submit(_ chunk: [UInt8], elementSize: Int, to dataset: HDF5Dataset, offsetRow: Int, extentRows: Int) throws {
        while pending.count >= maxInFlight { try writeOldest(waiting: true) }
        let sequence = nextSequence
        nextSequence += 1
        pending.append(Pending(dataset: dataset, offsetRow: offsetRow, extentRows: extentRows))
        pool.encode(chunk, elementSize: elementSize, lane: sequence) { [condition] bytes in
            condition.lock()
            self.encoded[sequence] = bytes
            condition.broadcast()
            condition.unlock()
        }
        while try writeOldest(waiting: false) {}
    }

    /// Waits for every queued chunk and stores them all, in order.
    ///
    /// - Throws: ``HDF5Error`` from storing a chunk.
    func flush() throws {
        while try writeOldest(waiting: true) {}
    }

    /// Drops every queued chunk without storing it (the file is being given up after a
    /// failure). Chunks still being encoded finish on their lane and are dropped too.
    func abandon() {
        pending.removeAll()
        condition.lock()
        encoded.removeAll()
        condition.unlock()
    }

    /// Stores the oldest queued chunk if it is encoded (or, when `waiting`, once it is).
    /// - Returns: whether a chunk was stored.
    @discardableResult
    private func writeOldest(waiting: Bool) throws -> Bool {
        guard let job = pending.first else { return false }
        condition.lock()
        if !waiting && encoded[oldestSequence] == nil {
            condition.unlock()
            return false
        }
        while encoded[oldestSequence] == nil { condition.wait() }
        let bytes = encoded.removeValue(forKey: oldestSequence)!
        condition.unlock()
        pending.removeFirst()
        oldestSequence += 1
        try job.dataset.resize(rows: job.extentRows)
        try job.dataset.writeRawChunk(offsetRow: job.offsetRow, filterMask: 0, bytes: bytes)
        return true
    }
}
