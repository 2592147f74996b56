import MotionCore

/// One sensor's samples in file order, before the time-order rules of docs/inputs.md, "Bad rows and time order": what
/// `inspect --samples` writes and what `TimeOrder.finalize` turns into a `SensorStream`.
///
/// Rows with a missing value are not here (they are counted in
/// `MotionCollectorFile.rowsDropped`). Duplicate and decreasing times are kept as read.
public struct RawStream: Sendable, Equatable {
    /// The sensor code: `A`, `G`, `M` or `D`.
    public var name: String
    /// Channel names in their documented order (`acc_x`, `acc_y`, `acc_z`).
    public var channelNames: [String]
    /// Channel units after conversion (`g` or `m/s^2`, `rad/s`, `uT`, `rad`).
    public var channelUnits: [String]
    /// Sample times in seconds (the `When` column), in file order.
    public var times: [Double]
    /// One array per channel, each `times.count` long, values after unit conversion.
    public var channels: [[Double]]
    /// The 1-based physical line of each sample, for error messages.
    public var lines: [Int32]

    public init(name: String, channelNames: [String], channelUnits: [String],
                times: [Double], channels: [[Double]], lines: [Int32]) {
        precondition(channelNames.count == channelUnits.count, "RawStream: one unit per channel")
        precondition(channels.count == channelNames.count, "RawStream: one value array per channel")
        precondition(lines.count == times.count, "RawStream: one line number per sample")
        self.name = name
        self.channelNames = channelNames
        self.channelUnits = channelUnits
        self.times = times
        self.channels = channels
        self.lines = lines
    }

    /// Number of samples.
    public var count: Int { times.count }
}

/// Timed label events in file order, ready for `LabelTrack.fromEvents`.
public struct LabelEvents: Sendable, Equatable {
    /// Label names; `labels` index into this. Names appear in order of first occurrence.
    public var names: [String]
    /// Event times in seconds, in file order (not necessarily sorted).
    public var times: [Double]
    /// Each event's label, an index into `names`.
    public var labels: [Int32]

    public init(names: [String] = [], times: [Double] = [], labels: [Int32] = []) {
        precondition(times.count == labels.count, "LabelEvents: one label per time")
        self.names = names
        self.times = times
        self.labels = labels
    }

    /// The label track these events describe (docs/signal.md, "Windows and labels", `rows` and `markers`).
    public func track() -> LabelTrack {
        LabelTrack.fromEvents(names: names, times: times, labels: labels)
    }
}

/// Everything read from one MotionCollector CSV file (docs/inputs.md, "MotionCollector").
public struct MotionCollectorFile: Sendable, Equatable {
    /// The header flavour: `Source, Label, When, …` or the older `Type, When, …`.
    public enum Variant: String, Sendable, Equatable {
        case current
        case legacy
    }

    /// Which header the file has.
    public var variant: Variant
    /// The sensors present in the file (with at least one row) and kept, in the order A, G, M, D.
    /// A stream may be empty when every one of its rows had a missing value.
    public var streams: [RawStream]
    /// Every data row with a non-empty Label and a parseable When, whether or not its sensor is
    /// kept and even if its values are missing (docs/signal.md, "Windows and labels" `rows`). Always empty for `legacy`.
    public var rowLabels: LabelEvents
    /// Legacy marker rows: `4` → `W`, `5` → `T`. Always empty for `current`.
    public var markers: LabelEvents
    /// Data rows read: every non-blank line after the header, marker rows and rows of sensors
    /// not kept included.
    public var rowsRead: Int
    /// Rows left out, by reason: `missing_value` counts rows of kept sensors (and markers) with
    /// an empty When or a missing channel value. Only reasons that occurred are present.
    public var rowsDropped: [String: Int]

    public init(variant: Variant, streams: [RawStream], rowLabels: LabelEvents, markers: LabelEvents,
                rowsRead: Int, rowsDropped: [String: Int]) {
        self.variant = variant
        self.streams = streams
        self.rowLabels = rowLabels
        self.markers = markers
        self.rowsRead = rowsRead
        self.rowsDropped = rowsDropped
    }

    /// The stream named `name` (`A`, `G`, `M`, `D`), if present.
    public func stream(_ name: String) -> RawStream? {
        streams.first { $0.name == name }
    }
}
