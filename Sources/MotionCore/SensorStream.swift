/// One sensor's samples, ordered by time: the output of ingest after time-order rules
/// (docs/inputs.md, "Bad rows and time order") were applied, and the input of resampling.
///
/// Storage is channel-major: `channels[c][i]` is channel `c` at `times[i]`, so every channel
/// is one contiguous buffer for the resampling kernels.
public struct SensorStream: Sendable, Equatable {
    /// The stream's name: `A`, `G`, `M`, `D` for MotionCollector, the sensor column's value for
    /// long csv, the input's `sensor` for wide csv and iio.
    public var name: String
    /// Output channel names, in their documented order (`acc_x`, `acc_y`, `acc_z`).
    public var channelNames: [String]
    /// Unit strings of the channels after unit conversion (docs/inputs.md, "Units"), parallel to `channelNames`.
    public var channelUnits: [String]
    /// Sample times in seconds on the recording's own clock, non-decreasing.
    public var times: [Double]
    /// One array per channel, each `times.count` long.
    public var channels: [[Double]]

    public init(name: String, channelNames: [String], channelUnits: [String], times: [Double], channels: [[Double]]) {
        precondition(channelNames.count == channelUnits.count, "SensorStream: one unit per channel")
        precondition(channels.count == channelNames.count, "SensorStream: one value array per channel")
        self.name = name
        self.channelNames = channelNames
        self.channelUnits = channelUnits
        self.times = times
        self.channels = channels
    }

    /// Number of samples.
    public var count: Int { times.count }
}
