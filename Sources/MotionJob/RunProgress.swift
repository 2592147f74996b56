#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Progress of a run, reported after every recording and every block of a streamed one.
public struct RunProgress: Sendable {
    public var total: Int
    public var done = 0
    public var windows = 0
    /// Input bytes read: of finished recordings, plus what streamed ones have read so far.
    public var inputBytes = 0
    /// Input bytes of every recording of the run (0 when unknown, e.g. for `merge`).
    public var totalBytes = 0

    public init(total: Int, totalBytes: Int = 0) {
        self.total = total
        self.totalBytes = totalBytes
    }

    mutating func add(windows w: Int, bytes: Int) {
        done += 1
        windows += w
        inputBytes += bytes
    }

    /// The fraction done: by bytes when they are known (a long streamed recording moves it),
    /// else by recordings.
    public var fraction: Double {
        if totalBytes > 0 { return Swift.min(1, Double(inputBytes) / Double(totalBytes)) }
        return total == 0 ? 1 : Double(done) / Double(total)
    }
}

/// Shares a run's progress between the writer's thread (finished recordings) and the workers
/// streaming long recordings (bytes read so far), and reports every change.
final class ProgressTracker: @unchecked Sendable {
    private let lock = NSLock()
    private var progress: RunProgress
    private var reading: [Int: Int] = [:]
    private let report: @Sendable (RunProgress) -> Void

    init(total: Int, totalBytes: Int, report: @escaping @Sendable (RunProgress) -> Void) {
        progress = RunProgress(total: total, totalBytes: totalBytes)
        self.report = report
    }

    /// Item `k` (being streamed) has read `bytes` of its input so far.
    func reading(_ k: Int, bytes: Int) {
        lock.lock()
        progress.inputBytes += bytes - (reading[k] ?? 0)
        reading[k] = bytes
        let p = progress
        lock.unlock()
        report(p)
    }

    /// Item `k` is written.
    func finished(_ k: Int, windows: Int, bytes: Int) {
        lock.lock()
        progress.inputBytes -= reading.removeValue(forKey: k) ?? 0
        progress.add(windows: windows, bytes: bytes)
        let p = progress
        lock.unlock()
        report(p)
    }
}
