#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MotionConfig
import MotionCore
import MotionEngine
import MotionIngest
import MotionResample

// `inspect`'s numbers of one stream, a block at a time (Inspector+Streamed.swift).

extension StreamedInspection {
    /// One stream of one file: its report's numbers, a block at a time.
    package final class StreamAccumulator {
        private var stats: StreamReport
        private var last: Double?
        private var intervalSum = 0.0
        private var intervalCount = 0
        /// The positive intervals in time order, for the passes after the read.
        private let spill: UnsafeMutablePointer<FILE>
        private var pending: [Double] = []
        private var statistics = StreamingOrderStatistics(collectLimit: 1 << 20, ranks: StreamReport.percentileRanks)

        /// The gap limit as a function of the median interval, decided after the read.
        private let gapFromMedian: (@Sendable (Double) -> Double)?
        /// The duplicates, for the median's ranks among all intervals (zeros first).
        private final class Count: @unchecked Sendable { var value = 0 }
        private let zeros = Count()

        /// `unordered`: the stream's times go back (`Unordered` was thrown by a first scan): they
        /// are spilled as read and sorted after the read (`sortedTimes`), and the report is that
        /// of the sorted times, as `StreamReport.init(_:maxGapS:)` sorts them.
        private let unordered: Bool
        /// With `unordered`, the times in file order, and the latest so far (for `outOfOrder`).
        private var times: Spill?
        private var fileOrderLast: Double?

        package init(_ first: RawStream, maxGapS: Double, gapFromMedian: (@Sendable (Double) -> Double)? = nil,
             unordered: Bool = false) throws {
            stats = StreamReport(sensor: first.name, channels: first.channelNames, units: first.channelUnits, maxGapS: maxGapS)
            self.unordered = unordered
            if unordered { times = try Spill(what: "times") }
            self.gapFromMedian = gapFromMedian
            if gapFromMedian != nil {
                // The percentiles' ranks among the positive intervals, and the median's among all
                // intervals (the zeros sort first), shifted to the positive ones.
                let zeros = self.zeros
                statistics = StreamingOrderStatistics(collectLimit: 1 << 20, ranks: { n in
                    let all = n + zeros.value
                    return StreamReport.percentileRanks(count: n)
                        + StreamingOrderStatistics.middleRanks(all).map { $0 - zeros.value }.filter { $0 >= 0 }
                })
            }
            guard let file = tmpfile() else {
                throw MotionError(.ioError, "cannot create the temporary file `inspect` keeps a stream's intervals in (tmpfile): \(String(cString: strerror(errno)))")
            }
            spill = file
            pending.reserveCapacity(1 << 16)
        }

        deinit { fclose(spill) }

        /// The stream's next samples, in file order.
        package func add(_ s: RawStream) throws {
            let n = s.times.count
            guard n > 0 else { return }
            // `Sequence.min()`/`max()` of each channel: the first value, then each one that is
            // smaller (larger).
            for c in 0..<s.channels.count {
                var lo = stats.minimum[c], hi = stats.maximum[c]
                for v in s.channels[c] {
                    if let l = lo, let h = hi {
                        if v < l { lo = v }
                        if h < v { hi = v }
                    } else {
                        lo = v
                        hi = v
                    }
                }
                stats.minimum[c] = lo
                stats.maximum[c] = hi
            }
            if let times {
                // Sorted after the read; only the file order's decreases are counted now.
                for t in s.times {
                    if t.isNaN { throw Self.notANumber(stats.sensor) }
                    if let p = fileOrderLast, t < p { stats.outOfOrder += 1 }
                    fileOrderLast = t
                }
                try times.append(s.times)
                stats.samples += n
                return
            }
            try addTimes(s.times)
        }

        /// Readers drop rows without a finite time (counted as `missing_value`), so none reaches here.
        package static func notANumber(_ stream: String) -> MotionError {
            MotionError(.dataError, "stream `\(stream)` has a time that is not a number, which its reader should have dropped")
        }

        /// The time part of `add`: times in order (never decreasing).
        private func addTimes<C: Collection>(_ times: C) throws where C.Element == Double {
            let maxGapS = stats.maxGapS
            for t in times {
                // A time that goes back is sorted by the whole report (`unordered`; NaN cannot
                // come from a reader, which drops rows without a finite time).
                if t.isNaN { throw Self.notANumber(stats.sensor) }
                if let previous = last {
                    if t < previous { throw Unordered() }
                    let d = t - previous
                    if d == 0 {
                        stats.duplicates += 1
                    } else {
                        intervalSum += d
                        intervalCount += 1
                        if gapFromMedian == nil && d > maxGapS {
                            stats.gaps += 1
                            stats.gapSeconds += d
                        }
                        statistics.add(d)
                        pending.append(d)
                    }
                } else {
                    stats.firstTime = t
                }
                last = t
            }
            stats.samples += times.count
            stats.lastTime = last
            if pending.count >= 1 << 16 { try flush() }
        }

        private func flush() throws {
            guard !pending.isEmpty else { return }
            let written = pending.withUnsafeBufferPointer { fwrite($0.baseAddress, 8, $0.count, spill) }
            guard written == pending.count else {
                throw MotionError(.ioError, "cannot write `inspect`'s temporary file of intervals: \(String(cString: strerror(errno)))")
            }
            pending.removeAll(keepingCapacity: true)
        }

        /// Reads the intervals back, in order, a chunk at a time.
        private func replay(_ body: (UnsafeBufferPointer<Double>) -> Void) throws {
            rewind(spill)
            var chunk = [Double](repeating: 0, count: 1 << 16)
            var total = 0
            while true {
                let got = chunk.withUnsafeMutableBufferPointer { fread($0.baseAddress, 8, $0.count, spill) }
                if got == 0 { break }
                total += got
                chunk.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[0..<got])) }
            }
            guard ferror(spill) == 0 && total == intervalCount else {
                throw MotionError(.ioError, "cannot read `inspect`'s temporary file of intervals back")
            }
        }

        /// The finished report.
        package func report() throws -> StreamReport {
            if let times {
                // The sorted times through an accumulator of ordered times, then this stream's
                // counts in file order (samples, out of order) and its values' range.
                let sorted = try StreamAccumulator(RawStream(name: stats.sensor, channelNames: stats.channels,
                                                             channelUnits: stats.units, times: [], channels: stats.channels.map { _ in [] },
                                                             lines: []),
                                                   maxGapS: stats.maxGapS, gapFromMedian: gapFromMedian)
                try times.sorted { try sorted.addTimes($0) }
                var report = try sorted.report()
                report.outOfOrder = stats.outOfOrder
                report.minimum = stats.minimum
                report.maximum = stats.maximum
                return report
            }
            try flush()
            zeros.value = stats.duplicates
            let f = stats.firstTime, l = stats.lastTime
            if let f, let l, l > f, stats.samples > 1 {
                stats.effectiveRateHz = Double(stats.samples - 1 - stats.duplicates) / (l - f)
            }
            let n = intervalCount
            statistics.endPass()
            while statistics.needsPass {
                try replay { for d in $0 { statistics.add(d) } }
                statistics.endPass()
            }
            if let gapFromMedian {
                // `Antialias.medianInterval` of the sorted times: the middle of all intervals.
                let z = stats.duplicates, all = n + z
                let value = { (r: Int) in r < z ? 0.0 : self.statistics.value(rank: r - z) }
                let ranks = StreamingOrderStatistics.middleRanks(all)
                let median = all == 0 ? 0 : ranks.count == 1 ? value(ranks[0]) : (value(ranks[0]) + value(ranks[1])) / 2
                let limit = gapFromMedian(median)
                stats.maxGapS = limit
                if n > 0 {
                    try replay {
                        for d in $0 where d > limit {
                            stats.gaps += 1
                            stats.gapSeconds += d
                        }
                    }
                }
            }
            guard n > 0 else { return stats }
            let mean = intervalSum / Double(n)
            var squares = 0.0
            try replay { for d in $0 { squares = squares + (d - mean) * (d - mean) } }
            stats.intervalStd = (squares / Double(n)).squareRoot()
            let value = { (rank: Int) in self.statistics.value(rank: rank) }
            stats.intervalP50 = StreamReport.percentile(50, count: n, value: value)
            stats.intervalP95 = StreamReport.percentile(95, count: n, value: value)
            stats.intervalP99 = StreamReport.percentile(99, count: n, value: value)
            return stats
        }
    }
}
