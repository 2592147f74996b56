#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MotionConfig
import MotionCore
import MotionIngest
import MotionResample

// What `inspect` keeps outside memory, and the label fold it (and `report --recordings`) reads
// events with (Inspector+Streamed.swift).

/// `inspect`'s streamed scan of a recording (MotionInspect, Inspector+Streamed.swift). It is
/// declared here, with its spill and label fold, because the engine's timeline folds label events
/// with `EventFold` as `inspect` does.
package enum StreamedInspection {}

extension StreamedInspection {
    /// A stream's times go back (or a label row lies far back in time): scan again, sorting the
    /// times after the read and keeping every label event (`scan`).
    package struct Unordered: Error {
        /// A label row, rather than a stream's time.
        package var labels = false
        package init(labels: Bool = false) { self.labels = labels }
    }

    /// Doubles spilled to an unlinked temporary file, handed back sorted (an external merge
    /// sort: runs of `runLength` sorted in memory, then merged), for the times of a stream that
    /// goes back in time: memory is one run (32 MiB) and a buffer per run, whatever the stream's
    /// length.
    package final class Spill {
        private let file: UnsafeMutablePointer<FILE>
        private let what: String
        private let runLength: Int
        package private(set) var count = 0

        package init(what: String, runLength: Int = 1 << 22) throws {
            self.what = what
            self.runLength = Swift.max(1, runLength)
            guard let f = tmpfile() else {
                throw MotionError(.ioError, "cannot create the temporary file `inspect` keeps a stream's \(what) in (tmpfile): \(String(cString: strerror(errno)))")
            }
            file = f
        }

        deinit { fclose(file) }

        package func append(_ values: [Double]) throws {
            let written = values.withUnsafeBufferPointer { fwrite($0.baseAddress, 8, $0.count, file) }
            guard written == values.count else { throw writeError() }
            count += values.count
        }

        private func writeError() -> MotionError {
            MotionError(.ioError, "cannot write `inspect`'s temporary file of \(what): \(String(cString: strerror(errno)))")
        }

        private func read(_ n: Int, at offset: Int, from f: UnsafeMutablePointer<FILE>, into buffer: inout [Double]) throws {
            buffer.removeAll(keepingCapacity: true)
            buffer.append(contentsOf: repeatElement(0, count: n))
            guard fseeko(f, off_t(offset * 8), SEEK_SET) == 0,
                  buffer.withUnsafeMutableBufferPointer({ fread($0.baseAddress, 8, n, f) }) == n else {
                throw MotionError(.ioError, "cannot read `inspect`'s temporary file of \(what) back")
            }
        }

        /// Hands the values to `body` in ascending order, a chunk at a time.
        package func sorted(_ body: ([Double]) throws -> Void) throws {
            guard fflush(file) == 0 else { throw writeError() }
            let n = count, run = runLength
            var chunk: [Double] = []
            if n <= run {
                try read(n, at: 0, from: file, into: &chunk)
                chunk.sort()
                if n > 0 { try body(chunk) }
                return
            }
            // Sorted runs into a second file, then a k-way merge of them.
            guard let runs = tmpfile() else {
                throw MotionError(.ioError, "cannot create `inspect`'s temporary file of sorted \(what): \(String(cString: strerror(errno)))")
            }
            defer { fclose(runs) }
            var start = 0
            while start < n {
                let m = Swift.min(run, n - start)
                try read(m, at: start, from: file, into: &chunk)
                chunk.sort()
                guard chunk.withUnsafeBufferPointer({ fwrite($0.baseAddress, 8, m, runs) }) == m else { throw writeError() }
                start += m
            }
            guard fflush(runs) == 0 else { throw writeError() }
            let k = (n + run - 1) / run, page = 1 << 13
            var buffers = [[Double]](repeating: [], count: k)
            var positions = [Int](repeating: 0, count: k)   // values of run r taken so far
            var heads = [Int](repeating: 0, count: k)       // index into buffers[r]
            func refill(_ r: Int) throws {
                let length = Swift.min(run, n - r * run)
                let m = Swift.min(page, length - positions[r])
                if m <= 0 { buffers[r] = []; heads[r] = 0; return }
                try read(m, at: r * run + positions[r], from: runs, into: &buffers[r])
                heads[r] = 0
            }
            for r in 0..<k { try refill(r) }
            var out: [Double] = []
            out.reserveCapacity(1 << 16)
            while true {
                var best = -1
                for r in 0..<k where heads[r] < buffers[r].count {
                    if best < 0 || buffers[r][heads[r]] < buffers[best][heads[best]] { best = r }
                }
                if best < 0 { break }
                out.append(buffers[best][heads[best]])
                heads[best] += 1
                positions[best] += 1
                if heads[best] == buffers[best].count { try refill(best) }
                if out.count == 1 << 16 {
                    try body(out)
                    out.removeAll(keepingCapacity: true)
                }
            }
            if !out.isEmpty { try body(out) }
        }
    }

    /// Label events folded into a track as `LabelTrack.fromEvents` folds them (stable-sorted by
    /// time, the last of equal times winning, runs of one label merged), in bounded memory.
    /// Events come from `sources` files read interleaved; each file's position bounds its future
    /// events (the earliest time of its latest block), so the events before every unfinished
    /// file's bound are final and folded; equal times are ordered by file, then by position in
    /// the file, as the whole reading concatenates the files. An event before what is folded is
    /// far out of order (`Unordered`), unless it keeps every event.
    package struct EventFold {
        package private(set) var names: [String] = []
        package private(set) var events = 0
        private var times: [Double] = []
        private var labels: [Int32] = []
        private var pendingTimes: [Double] = []
        private var pendingLabels: [Int32] = []
        /// (source, position in the source) of each pending event, for ties.
        private var pendingOrder: [(Int, Int)] = []
        private var seen: [Int]
        private var bounds: [Double]
        private var frontier = -Double.infinity
        /// Every event kept, per file in file order (12 bytes each), and folded by `finish` as
        /// the whole reading folds them: for label rows too far out of order to fold as they
        /// come (`Unordered`).
        private let keepsAll: Bool
        private var all: [(times: [Double], labels: [Int32])]

        package init(sources: Int = 1, keepsAll: Bool = false) {
            seen = [Int](repeating: 0, count: Swift.max(1, sources))
            bounds = [Double](repeating: -.infinity, count: Swift.max(1, sources))
            self.keepsAll = keepsAll
            all = keepsAll ? Array(repeating: ([], []), count: Swift.max(1, sources)) : []
        }

        /// The events of a block of file `source`, with the block's `samples`: their earliest time
        /// bounds the file's future events when the block has no event.
        package mutating func add(_ e: LabelEvents, source: Int, samples: [RawStream]) throws {
            var map = LabelIDMap(from: e.names)
            var earliest = samples.compactMap { $0.times.min() }.min() ?? .infinity
            for (t, l) in zip(e.times, e.labels) {
                if !keepsAll && (t.isNaN || t < frontier) { throw Unordered(labels: true) }
                let id = map.id(l, in: &names)
                events += 1
                if keepsAll {
                    all[source].times.append(t)
                    all[source].labels.append(id)
                    continue
                }
                pendingTimes.append(t)
                pendingLabels.append(id)
                pendingOrder.append((source, seen[source]))
                seen[source] += 1
                earliest = Swift.min(earliest, t)
            }
            if earliest < .infinity { bounds[source] = Swift.max(bounds[source], earliest) }
            fold(before: bounds.min()!)
        }

        /// File `source` has ended: it bounds nothing any more.
        package mutating func end(source: Int) {
            bounds[source] = .infinity
            fold(before: bounds.min()!)
        }

        /// Folds the pending events earlier than `limit`, in time order (ties by file and position).
        private mutating func fold(before limit: Double) {
            guard limit > frontier else { return }
            frontier = limit
            let order = pendingTimes.indices.filter { pendingTimes[$0] < limit }
                .sorted { a, b in pendingTimes[a] < pendingTimes[b] || (pendingTimes[a] == pendingTimes[b] && pendingOrder[a] < pendingOrder[b]) }
            guard !order.isEmpty else { return }
            for i in order { step(pendingTimes[i], pendingLabels[i]) }
            let keep = pendingTimes.indices.filter { pendingTimes[$0] >= limit }
            pendingTimes = keep.map { pendingTimes[$0] }
            pendingLabels = keep.map { pendingLabels[$0] }
            pendingOrder = keep.map { pendingOrder[$0] }
        }

        /// One event of `LabelTrack.fromEvents`'s loop.
        private mutating func step(_ t: Double, _ l: Int32) {
            if let lastT = times.last, lastT == t {
                labels[labels.count - 1] = l
                if labels.count >= 2, labels[labels.count - 2] == l {
                    times.removeLast()
                    labels.removeLast()
                }
                return
            }
            if let lastL = labels.last, lastL == l { return }
            times.append(t)
            labels.append(l)
        }

        /// The track of every event.
        package mutating func finish() -> LabelTrack {
            if keepsAll {
                // The files' events concatenated in file order, names numbered as they first
                // occur there (as the whole reading numbers them).
                var order: [String] = [], times: [Double] = [], labels: [Int32] = []
                var remap = [Int32](repeating: -1, count: names.count)
                for file in all {
                    for (t, l) in zip(file.times, file.labels) {
                        if remap[Int(l)] < 0 { remap[Int(l)] = Int32(order.count); order.append(names[Int(l)]) }
                        times.append(t)
                        labels.append(remap[Int(l)])
                    }
                }
                return LabelTrack.fromEvents(names: order, times: times, labels: labels)
            }
            frontier = -.infinity
            fold(before: .infinity)
            return LabelTrack(names: names, times: times, labels: labels)
        }
    }
}
