import Dispatch
import MotionDeflate

/// Threads that encode HDF5 chunks (shuffle → deflate, level 4 by default → Fletcher-32) off the writer
/// thread, shared by every ``HDF5SplitSink`` of a run.
///
/// HDF5 serialises its calls, so compression inside `H5Dwrite` runs on one thread at a time;
/// the pool compresses chunks in parallel instead and the sinks store them with
/// `H5Dwrite_chunk`. Encoding is a pure function of the chunk bytes, so the number of threads
/// changes timing only, never output.
///
/// The pool has `threads` serial lanes (Dispatch queues on the global pool). A chunk goes to the
/// lane its caller picks; each lane owns one ``HDF5ChunkEncoder``, created on first use and only
/// ever touched on that lane.
public final class HDF5ChunkCompressionPool: @unchecked Sendable {
    /// The number of lanes, i.e. chunks compressed at once at most.
    public let threads: Int
    /// The deflate level every chunk is compressed with (and the datasets' filters declare).
    public let deflateLevel: Int
    private let lanes: [DispatchQueue]
    /// One per lane, confined to it (hence `@unchecked Sendable`).
    private let encoders: [_LaneEncoder]

    /// Creates a pool of `threads` lanes.
    ///
    /// - Parameters:
    ///   - threads: at least 1 (a programmer error otherwise). Use the run's `--jobs`.
    ///   - deflateLevel: 1–9 (`output.deflate_level`; 4 by default).
    public init(threads: Int, deflateLevel: Int = HDF5ChunkEncoder.deflateLevel) {
        precondition(threads >= 1, "a chunk compression pool needs at least one thread, got \(threads)")
        precondition((1...9).contains(deflateLevel), "deflateLevel must be 1 to 9, got \(deflateLevel)")
        self.threads = threads
        self.deflateLevel = deflateLevel
        lanes = (0..<threads).map { DispatchQueue(label: "motionprep.hdf5-chunks.\($0)") }
        encoders = (0..<threads).map { _ in _LaneEncoder(level: deflateLevel) }
    }

    /// Encodes `chunk` on lane `lane % threads` and passes the stored bytes to `completion` on
    /// that lane.
    func encode(_ chunk: [UInt8], elementSize: Int, lane: Int,
                completion: @escaping @Sendable ([UInt8]) -> Void) {
        let index = lane % threads
        let encoder = encoders[index]
        lanes[index].async {
            completion(encoder.encoder.encode(chunk, elementSize: elementSize))
        }
    }
}

/// A lane's encoder, created lazily on the lane (so idle lanes cost no compressor memory).
private final class _LaneEncoder: @unchecked Sendable {
    let level: Int
    lazy var encoder = HDF5ChunkEncoder(level: level)

    init(level: Int) { self.level = level }
}
