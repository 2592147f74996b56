import Foundation

/// The run-wide memory budget of `run` (docs/hardening.md §3): the values (4-byte units) that
/// recordings in flight may hold at once, whatever `--jobs`. Before a recording allocates its
/// grid and windows it reserves what they will need at most; the reservation is released when the
/// writer has taken the recording's result (a finished recording's windows stay in memory until
/// then).
///
/// Reservations are granted in recording order (a ticket per recording): recording k may reserve
/// only after every earlier recording has reserved or finished without reserving, and only
/// while what is reserved plus its need fits the budget — or when nothing is reserved at all, so
/// at least one recording always runs (one larger than the budget runs alone). In order, because
/// the writer takes results in order: a later recording that had reserved first could hold
/// memory an earlier one waits for, while the writer waits for the earlier one.
///
/// A recording may reserve a second time (a streamed recording processed whole after all): it
/// then waits only for the earlier recordings' reservations to be released, and may then exceed
/// the budget by its own need, so memory stays below twice the budget.
package final class MemoryBudget: @unchecked Sendable {
    /// Values the recordings in flight may hold together.
    package let capacity: Int
    private let condition = NSCondition()
    /// The next recording (index in run order) allowed to reserve.
    private var ticket = 0
    /// Tickets handed back out of order (a recording that finished before its turn to reserve
    /// never waits for it: it passes when its turn comes).
    private var passed: Set<Int> = []
    private var held: [Int: Int] = [:]
    /// Of `held`, what `tryReserve` granted.
    private var extra: [Int: Int] = [:]
    private var used = 0
    private var cancelled = false
    /// The most values held at once, and the most recordings holding a reservation at once.
    package private(set) var peakValues = 0
    package private(set) var peakHolders = 0

    /// Thrown to a waiting recording when the run is stopping (another recording's error).
    package struct Cancelled: Error {}

    package init(capacity: Int) {
        self.capacity = Swift.max(1, capacity)
    }

    /// Reserves `values` (at most `capacity` are counted) for recording `item`, waiting as
    /// described above.
    package func reserve(item: Int, values: Int) throws {
        let need = Swift.min(Swift.max(0, values), capacity)
        condition.lock()
        defer { condition.unlock() }
        if let mine = held[item] {
            // A second reservation: wait until no earlier recording holds anything.
            while !cancelled && used - mine + need > capacity && held.keys.contains(where: { $0 < item }) {
                condition.wait()
            }
            if cancelled { throw Cancelled() }
            let now = Swift.max(mine, need)
            used += now - mine
            held[item] = now
        } else {
            while !cancelled && (ticket != item || (used > 0 && used + need > capacity)) {
                condition.wait()
            }
            if cancelled { throw Cancelled() }
            held[item] = need
            used += need
            advance()
        }
        peakValues = Swift.max(peakValues, used)
        peakHolders = Swift.max(peakHolders, held.values.filter { $0 > 0 }.count)
        condition.broadcast()
    }

    /// Adds `values` to recording `item`'s reservation at once, or refuses without waiting: granted
    /// only while `item` holds a reservation, the budget has room, and what `item` was granted
    /// this way stays within `itemLimit`. For the windows a worker keeps in memory for the writer
    /// (`RecordWriter`): refused, they are read back from the record file instead, so memory
    /// stays within the budget and no one waits.
    package func tryReserve(item: Int, values: Int, itemLimit: Int) -> Bool {
        let need = Swift.max(0, values)
        condition.lock()
        defer { condition.unlock() }
        guard !cancelled, let mine = held[item], used + need <= capacity,
              extra[item, default: 0] + need <= itemLimit else { return false }
        held[item] = mine + need
        extra[item, default: 0] += need
        used += need
        peakValues = Swift.max(peakValues, used)
        return true
    }

    /// Recording `item` will not reserve (it failed, was resumed, or has reserved already):
    /// later recordings need not wait for its turn.
    package func pass(item: Int) {
        condition.lock()
        if held[item] == nil && item >= ticket {
            passed.insert(item)
            advance()
            condition.broadcast()
        }
        condition.unlock()
    }

    /// The writer has taken recording `item`'s result: its reservation is free.
    package func release(item: Int) {
        condition.lock()
        extra.removeValue(forKey: item)
        if let v = held.removeValue(forKey: item) {
            used -= v
            condition.broadcast()
        }
        condition.unlock()
    }

    /// The run is stopping: every waiting recording throws `Cancelled`.
    package func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    /// Moves the ticket past recordings that reserved or passed.
    private func advance() {
        while held[ticket] != nil || passed.contains(ticket) {
            passed.remove(ticket)
            ticket += 1
        }
    }
}
