import Dispatch
import Foundation
import MotionTestSupport
import Testing
@testable import MotionEngine
@testable import MotionJob

/// The run-wide memory budget (docs/hardening.md, "Data safety: absurd numbers and messages"):
/// reservations in recording order, waiting while they do not fit, never a deadlock.
@Suite struct MemoryBudgetTests {
    /// Runs `body` on another thread; the returned semaphore is signalled when it returns.
    static func background(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            body()
            done.signal()
        }
        return done
    }

    @Test func aReservationThatDoesNotFitWaitsForTheRelease() throws {
        let budget = MemoryBudget(capacity: 100)
        try budget.reserve(item: 0, values: 60)
        let done = Self.background { try? budget.reserve(item: 1, values: 60) }
        #expect(done.wait(timeout: .now() + 0.2) == .timedOut)
        budget.release(item: 0)
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(budget.peakValues == 60 && budget.peakHolders == 1)
    }

    @Test func reservationsAreGrantedInOrder() throws {
        let budget = MemoryBudget(capacity: 100)
        // Item 1 fits, but item 0 has not reserved yet: it waits for item 0's turn.
        let done = Self.background { try? budget.reserve(item: 1, values: 10) }
        #expect(done.wait(timeout: .now() + 0.2) == .timedOut)
        budget.pass(item: 0)
        #expect(done.wait(timeout: .now() + 5) == .success)
        // A pass for an item that reserved already changes nothing.
        budget.pass(item: 1)
        try budget.reserve(item: 2, values: 10)
        #expect(budget.peakValues == 20)
    }

    @Test func aRecordingLargerThanTheBudgetRunsAlone() throws {
        let budget = MemoryBudget(capacity: 100)
        try budget.reserve(item: 0, values: 500)
        #expect(budget.peakValues == 100)
        let done = Self.background { try? budget.reserve(item: 1, values: 1) }
        #expect(done.wait(timeout: .now() + 0.2) == .timedOut)
        budget.release(item: 0)
        #expect(done.wait(timeout: .now() + 5) == .success)
    }

    @Test func aSecondReservationWaitsOnlyForEarlierRecordings() throws {
        let budget = MemoryBudget(capacity: 100)
        try budget.reserve(item: 0, values: 30)
        try budget.reserve(item: 1, values: 10)
        try budget.reserve(item: 2, values: 60)
        // Item 1 (streamed, then processed whole) needs 50 more: it waits for item 0 only,
        // then goes over the budget rather than wait for item 2, which the writer takes after it.
        let done = Self.background { try? budget.reserve(item: 1, values: 60) }
        #expect(done.wait(timeout: .now() + 0.2) == .timedOut)
        budget.release(item: 0)
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(budget.peakValues == 120)
    }

    @Test func cancelWakesWaitingRecordings() throws {
        let budget = MemoryBudget(capacity: 100)
        try budget.reserve(item: 0, values: 100)
        let thrown = ResumeCounter()
        let done = Self.background {
            do { try budget.reserve(item: 1, values: 50) } catch { thrown.increment() }
        }
        #expect(done.wait(timeout: .now() + 0.2) == .timedOut)
        budget.cancel()
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(thrown.value == 1)
    }

    /// With the ordered executor as `PipelineRunner` uses it (reserve in work, pass after it,
    /// release in consume): random needs, random failures, 4 workers, never stuck, never over.
    @Test(arguments: 0..<5) func executorWithBudgetNeverDeadlocks(seed: Int) throws {
        var g = SeededGenerator(seed: UInt64(seed + 1))
        let needs = (0..<60).map { _ in Int.random(in: 0...100, using: &g) }
        let fails = (0..<60).map { _ in Int.random(in: 0..<10, using: &g) == 0 }
        let budget = MemoryBudget(capacity: 100)
        let executor = OrderedExecutor<Int, Int>()
        var consumed: [Int] = []
        struct Stop: Error {}
        // Odd seeds: the writer fails at recording 20, and workers waiting for memory must stop.
        let stopAt = seed % 2 == 1 ? 20 : -1
        let run = { try executor.run(count: needs.count, jobs: 4, maxInFlight: 8, makeWorker: { 0 }, work: { _, k in
            defer { budget.pass(item: k) }
            if fails[k] { return -1 }
            try budget.reserve(item: k, values: needs[k])
            usleep(UInt32(needs[k] * 20))
            return k
        }, consume: { k, v in
            defer { budget.release(item: k) }
            if k == stopAt { throw Stop() }
            consumed.append(v)
        }, onCancel: { budget.cancel() }) }
        if stopAt >= 0 {
            #expect(throws: Stop.self) { try run() }
            #expect(consumed.count == stopAt)
        } else {
            try run()
            #expect(consumed.count == needs.count)
        }
        #expect(budget.peakValues <= 100)
    }
}
