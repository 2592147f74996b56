import MotionCore

/// The time-order rules of docs/inputs.md, "Bad rows and time order", applied to one stream after it was read.
public enum TimeOrder {
    /// Turns a stream in file order into a `SensorStream` ordered by time.
    ///
    /// - Parameters:
    ///   - raw: the stream as read (file order).
    ///   - sort: the input's `sort: true`: stable-sort samples by time instead of failing on a
    ///     decreasing time.
    ///   - displayPath: the file as the user sees it, for the error message.
    /// - Returns: the stream with non-decreasing times reduced to strictly increasing ones (of
    ///   samples with equal times the last one, in file order or in the stable sort's order, is
    ///   kept), and the number of samples removed that way (`duplicate_time`).
    /// - Throws: `IngestError.Kind.timeDecreases` (exit 65), naming the physical line of the first
    ///   sample whose time is below its predecessor's and both times, unless `sort`.
    /// - Complexity: O(n) when the times are already in order, O(n log n) when sorting.
    ///   Empty and one-sample streams are returned as they are.
    public static func finalize(_ raw: RawStream, sort: Bool, displayPath: String) throws -> (stream: SensorStream, duplicates: Int) {
        let times = raw.times
        let n = times.count
        var firstDecrease: Int? = nil
        var hasDuplicates = false
        if n > 1 {
            for i in 1..<n {
                if times[i] < times[i - 1] { firstDecrease = i; break }
                if times[i] == times[i - 1] { hasDuplicates = true }
            }
        }
        if let i = firstDecrease, !sort {
            let line = i < raw.lines.count ? Int(raw.lines[i]) : nil
            let previousLine = i - 1 < raw.lines.count ? Int(raw.lines[i - 1]) : nil
            throw IngestError(.timeDecreases(stream: raw.name, time: times[i], previousTime: times[i - 1],
                                             previousLine: previousLine),
                              at: SourceLocation(file: displayPath, line: line))
        }
        if firstDecrease == nil && !hasDuplicates {
            let stream = SensorStream(name: raw.name, channelNames: raw.channelNames, channelUnits: raw.channelUnits,
                                      times: raw.times, channels: raw.channels)
            return (stream, 0)
        }
        // The order to visit samples in: file order, or a stable sort by time.
        var order = Array(0..<n)
        if firstDecrease != nil {
            order.sort { a, b in times[a] < times[b] || (times[a] == times[b] && a < b) }
        }
        // Keep index k unless the next sample in `order` has the same time.
        var kept: [Int] = []
        kept.reserveCapacity(n)
        for k in 0..<n {
            if k + 1 < n && times[order[k + 1]] == times[order[k]] { continue }
            kept.append(order[k])
        }
        let outTimes = kept.map { times[$0] }
        let outChannels = raw.channels.map { channel in kept.map { channel[$0] } }
        let stream = SensorStream(name: raw.name, channelNames: raw.channelNames, channelUnits: raw.channelUnits,
                                  times: outTimes, channels: outChannels)
        return (stream, n - kept.count)
    }
}
