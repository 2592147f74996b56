import Dispatch
import Foundation

/// Runs `count` independent work items on `jobs` Dispatch workers and hands their results to one
/// consumer strictly in index order, so output never depends on timing.
///
/// Back-pressure: a worker does not start item i until the consumer has taken item
/// i − `maxInFlight`, so at most `maxInFlight` results wait in memory however fast workers are.
/// The first error (from a worker or the consumer) cancels the run: no new item starts, and
/// `run` rethrows it after every worker has stopped.
final class OrderedExecutor<Worker, Output>: @unchecked Sendable {
    private let condition = NSCondition()
    private var nextToStart = 0
    private var nextToConsume = 0
    private var results: [Int: Result<Output, Error>] = [:]
    private var cancelled = false

    /// - Parameters:
    ///   - count: number of items.
    ///   - jobs: number of workers (≥ 1).
    ///   - maxInFlight: items started but not yet consumed (≥ jobs).
    ///   - makeWorker: per-worker state (scratch buffers), created on the worker's thread.
    ///   - work: processes item i with the worker's state.
    ///   - consume: receives each result in index order; throwing cancels the run.
    ///   - onCancel: called once the run is cancelled, before waiting for the workers (to wake
    ///     workers waiting on something of the caller's, such as a `MemoryBudget`).
    func run(count: Int, jobs: Int, maxInFlight: Int,
             makeWorker: @escaping @Sendable () -> Worker,
             work: @escaping @Sendable (inout Worker, Int) throws -> Output,
             consume: (Int, Output) throws -> Void, onCancel: () -> Void = {}) throws {
        let jobs = Swift.max(1, Swift.min(jobs, count))
        let window = Swift.max(maxInFlight, jobs)
        let group = DispatchGroup()
        for _ in 0..<(count == 0 ? 0 : jobs) {
            group.enter()
            DispatchQueue.global().async { [self] in
                defer { group.leave() }
                var state = makeWorker()
                while true {
                    condition.lock()
                    while !cancelled && nextToStart < count && nextToStart >= nextToConsume + window {
                        condition.wait()
                    }
                    if cancelled || nextToStart >= count {
                        condition.unlock()
                        return
                    }
                    let i = nextToStart
                    nextToStart += 1
                    condition.unlock()
                    let r = Result { try work(&state, i) }
                    condition.lock()
                    results[i] = r
                    condition.broadcast()
                    condition.unlock()
                }
            }
        }
        var failure: Error?
        while nextToConsumeValue() < count {
            condition.lock()
            while results[nextToConsume] == nil { condition.wait() }
            let i = nextToConsume
            let r = results.removeValue(forKey: i)!
            condition.unlock()
            do {
                try consume(i, try r.get())
            } catch {
                failure = error
                break
            }
            condition.lock()
            nextToConsume += 1
            condition.broadcast()
            condition.unlock()
        }
        if failure != nil {
            condition.lock()
            cancelled = true
            condition.broadcast()
            condition.unlock()
            onCancel()
        }
        group.wait()
        if let failure { throw failure }
    }

    private func nextToConsumeValue() -> Int {
        condition.lock()
        defer { condition.unlock() }
        return nextToConsume
    }
}
