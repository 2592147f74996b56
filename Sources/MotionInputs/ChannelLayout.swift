import MotionConfig
import MotionResample
import MotionCore
import MotionIngest

/// The channels of `x` (docs/inputs.md, "Recordings, subjects and channels"): input by input, each input's sensors in order, each sensor's
/// channels in their documented order, then the magnitude channels.
public struct ChannelLayout: Sendable, Equatable {
    public struct Sensor: Sendable, Equatable {
        /// The first input giving these channels, and its stream's name.
        public var inputIndex: Int
        public var name: String
        public var channelNames: [String]
        public var channelUnits: [String]
        /// Every (input, stream name) that gives these channels, the first one first: inputs may share channels
        /// (docs/inputs.md, "Recordings, subjects and channels"), as long as no recording has files of two of them.
        public var sources: [Source]

        public struct Source: Sendable, Equatable {
            public var inputIndex: Int
            public var name: String
        }

        public init(inputIndex: Int, name: String, channelNames: [String], channelUnits: [String]) {
            self.inputIndex = inputIndex
            self.name = name
            self.channelNames = channelNames
            self.channelUnits = channelUnits
            self.sources = [Source(inputIndex: inputIndex, name: name)]
        }

        /// True when input `i` gives this stream.
        public func isGiven(by i: Int) -> Bool { sources.contains { $0.inputIndex == i } }
        /// True when stream `name` read from a file of input `i` is this one (`{stem}` matches any name).
        package func matches(input i: Int, stream name: String) -> Bool {
            sources.contains { $0.inputIndex == i && ($0.name == name || $0.name == "{stem}") }
        }
    }
    /// The streams every recording must have, in channel order.
    public var sensors: [Sensor]
    /// For each magnitude channel: its name and the indices of its axes among the sensor channels.
    public var magnitudes: [(name: String, axes: [Int])]
    /// `transforms` resolved against the channels above; their channels come last in `x`
    /// (docs/signal.md, "Transforms"). Nil without transforms.
    public var transforms: TransformPlan? = nil

    public static func == (a: ChannelLayout, b: ChannelLayout) -> Bool {
        a.sensors == b.sensors && a.magnitudes.map(\.name) == b.magnitudes.map(\.name)
            && a.magnitudes.map(\.axes) == b.magnitudes.map(\.axes) && a.transforms == b.transforms
    }

    /// The stream names the layout keeps from input `i` (for the readers' `keep`).
    public func keptNames(input i: Int) -> Set<String> {
        Set(sensors.flatMap(\.sources).filter { $0.inputIndex == i }.map(\.name))
    }

    /// The layout stream input `i` gives, for inputs with one stream (iio).
    public func sensor(input i: Int) -> Sensor? { sensors.first { $0.isGiven(by: i) } }

    /// Every channel name of `x`.
    public var channelNames: [String] { resampledChannelNames + (transforms?.names ?? []) }
    /// Every channel unit of `x`.
    public var channelUnits: [String] { resampledChannelUnits + (transforms?.units ?? []) }
    /// The channels the resampler gives: the sensors' channels, then the magnitude channels.
    public var resampledChannelNames: [String] { sensors.flatMap(\.channelNames) + magnitudes.map(\.name) }
    public var resampledChannelUnits: [String] {
        let units = sensors.flatMap(\.channelUnits)
        return units + magnitudes.map { units[$0.axes[0]] }
    }

    /// The MotionCollector sensors (docs/inputs.md, "MotionCollector") with their channels and native units.
    public static let motionCollectorSensors: [(code: String, channels: [(String, String)])] = [
        ("A", [("acc_x", "g"), ("acc_y", "g"), ("acc_z", "g")]),
        ("G", [("gyro_x", "rad/s"), ("gyro_y", "rad/s"), ("gyro_z", "rad/s")]),
        ("M", [("mag_x", "uT"), ("mag_y", "uT"), ("mag_z", "uT")]),
        ("D", [("rot_x", "rad/s"), ("rot_y", "rad/s"), ("rot_z", "rad/s"), ("uacc_x", "g"), ("uacc_y", "g"),
               ("uacc_z", "g"), ("pitch", "rad"), ("roll", "rad"), ("yaw", "rad")]),
    ]

    /// Builds the layout from the pipeline. Throws `.config` for a sensor that an input cannot
    /// have, a duplicate channel, or a magnitude prefix without at least two axes.
    public static func make(_ spec: PipelineSpec) throws -> ChannelLayout {
        try make(spec, ledger: nil)
    }

    /// As `make(_:)`; `ledger` hears the bytes of the IIO layout folders read.
    package static func make(_ spec: PipelineSpec, ledger: InputLedger?) throws -> ChannelLayout {
        var sensors: [Sensor] = []
        for (i, input) in spec.inputs.enumerated() {
            switch input.type {
            case .motioncollector:
                let codes = input.sensors ?? motionCollectorSensors.map(\.code)
                for code in codes {
                    guard let def = motionCollectorSensors.first(where: { $0.code == code }) else {
                        throw MotionError(.config, "inputs[\(i)] of \(spec.file) keeps sensor `\(code)`, but MotionCollector files have only A, G, M and D")
                    }
                    let conv = def.channels.map { PhysicalUnit.conversion(from: $0.1, to: spec.units).unit }
                    sensors.append(Sensor(inputIndex: i, name: code, channelNames: def.channels.map(\.0), channelUnits: conv))
                }
            case .csv:
                guard let csv = input.csv else { continue }
                func unit(_ ch: String) -> String {
                    let native = input.units.first { $0.key == ch }?.value ?? "1"
                    return PhysicalUnit.conversion(from: native, to: spec.units).unit
                }
                if csv.sensorColumn != nil {
                    var groups = csv.sensorChannels
                    if let keep = input.sensors {
                        groups = try keep.map { k in
                            guard let group = csv.sensorChannels.first(where: { $0.key == k }) else {
                                let listed = csv.sensorChannels.map(\.key)
                                let hint = Text.suggestion(for: k, among: listed).map { "; did you mean `\($0)`?" } ?? ""
                                throw MotionError(.config, "inputs[\(i)] of \(spec.file) keeps sensor `\(k)`, but its `sensor_channels` list only \(Text.alternatives(listed))\(hint)")
                            }
                            return group
                        }
                    }
                    for g in groups {
                        sensors.append(Sensor(inputIndex: i, name: g.key, channelNames: g.value.map(\.key),
                                              channelUnits: g.value.map { unit($0.key) }))
                    }
                } else {
                    // The wide stream's name is `sensor`, or each file's stem (docs/inputs.md, "Recordings, subjects and channels").
                    sensors.append(Sensor(inputIndex: i, name: input.sensor ?? "{stem}", channelNames: csv.channels.map(\.key),
                                          channelUnits: csv.channels.map { unit($0.key) }))
                }
            case .cwa:
                // docs/inputs.md, "Axivity CWA (cwa)": `acc` unless `sensors` says otherwise.
                for name in input.sensors ?? ["acc"] {
                    guard let def = CWAReader.sensors.first(where: { $0.name == name }) else {
                        let names = CWAReader.sensors.map(\.name)
                        let hint = Text.suggestion(for: name, among: names).map { "; did you mean `\($0)`?" } ?? ""
                        throw MotionError(.config, "inputs[\(i)] of \(spec.file) keeps sensor `\(name)`, but CWA files have only \(Text.alternatives(names))\(hint)")
                    }
                    let conv = def.channels.map { PhysicalUnit.conversion(from: $0.1, to: spec.units).unit }
                    sensors.append(Sensor(inputIndex: i, name: name, channelNames: def.channels.map(\.0), channelUnits: conv))
                }
            case .gt3x:
                // docs/inputs.md, "ActiGraph GT3X (gt3x)": `acc`, the one stream.
                for name in input.sensors ?? ["acc"] {
                    guard let def = GT3XReader.sensors.first(where: { $0.name == name }) else {
                        throw MotionError(.config, "inputs[\(i)] of \(spec.file) keeps sensor `\(name)`, but GT3X files have only `acc`")
                    }
                    let conv = def.channels.map { PhysicalUnit.conversion(from: $0.1, to: spec.units).unit }
                    sensors.append(Sensor(inputIndex: i, name: name, channelNames: def.channels.map(\.0), channelUnits: conv))
                }
            case .iio:
                // One stream, named by `sensor` or each file's stem; channels in scan-index order.
                if let sensor = try IIOLayoutResolver.sensor(inputIndex: i, spec: spec, ledger: ledger) { sensors.append(sensor) }
            }
        }
        // A sensor of a later input with the same channels (names, order and units) as an earlier input's is another
        // source of those channels; any other repeated channel name is an error. Without shared channels the list is
        // as before, so existing pipelines keep their channel order.
        var merged: [Sensor] = []
        for sensor in sensors {
            if let k = merged.firstIndex(where: { $0.channelNames == sensor.channelNames && $0.channelUnits == sensor.channelUnits
                                                  && !$0.isGiven(by: sensor.inputIndex) }) {
                merged[k].sources.append(Sensor.Source(inputIndex: sensor.inputIndex, name: sensor.name))
                continue
            }
            for n in sensor.channelNames {
                if let other = merged.first(where: { $0.channelNames.contains(n) }) {
                    let same = other.isGiven(by: sensor.inputIndex)
                        ? "\(spec.inputName(sensor.inputIndex)) gives it twice"
                        : "\(spec.inputName(other.inputIndex)) gives it with \(Self.describe(other)) but \(spec.inputName(sensor.inputIndex)) with \(Self.describe(sensor))"
                    throw MotionError(.config, "channel `\(n)` occurs twice in \(spec.file): \(same); inputs may share channels only when they give the same channels in the same order and units, and each channel name may occur only once per input")
                }
            }
            if let n = Self.firstRepeat(sensor.channelNames) {
                throw MotionError(.config, "channel `\(n)` occurs twice in \(spec.file): \(spec.inputName(sensor.inputIndex)) gives it twice; each channel name may occur only once per input")
            }
            merged.append(sensor)
        }
        sensors = merged
        let names = sensors.flatMap(\.channelNames)
        var mags: [(String, [Int])] = []
        for prefix in spec.magnitude {
            let axes = ["x", "y", "z"].compactMap { names.firstIndex(of: "\(prefix)_\($0)") }
            guard axes.count >= 2 else {
                throw MotionError(.config, "`magnitude: [\(prefix)]` in \(spec.file) needs channels `\(prefix)_x`, `\(prefix)_y`, `\(prefix)_z`; the channels are \(Text.joinedBounded(names))")
            }
            mags.append(("\(prefix)_mag", axes))
        }
        var layout = ChannelLayout(sensors: sensors, magnitudes: mags.map { (name: $0.0, axes: $0.1) })
        var offset = 0
        var groups: [(name: String, channels: [Int])] = []
        for sensor in sensors {
            let channels = Array(offset..<(offset + sensor.channelNames.count))
            for s in sensor.sources where s.name != "{stem}" { groups.append((s.name, channels)) }
            offset += sensor.channelNames.count
        }
        layout.transforms = try TransformPlan.make(spec, names: layout.resampledChannelNames, units: layout.resampledChannelUnits,
                                                   sensors: groups)
        return layout
    }

    package static func describe(_ s: Sensor) -> String {
        zip(s.channelNames, s.channelUnits).map { "\($0) [\($1)]" }.joined(separator: ", ")
    }

    package static func firstRepeat(_ names: [String]) -> String? {
        var seen = Set<String>()
        return names.first { !seen.insert($0).inserted }
    }

    /// Refuses a recording with files of two inputs that give the same channels (docs/inputs.md, "Recordings, subjects
    /// and channels"): it would get each of those channels twice. Names the channels, both inputs and the recording.
    public func checkShared(_ sources: [RecordingSource], spec: PipelineSpec) throws {
        let shared = sensors.filter { Set($0.sources.map(\.inputIndex)).count > 1 }
        guard !shared.isEmpty else { return }
        for recording in sources {
            for sensor in shared {
                let files = recording.files.filter { sensor.isGiven(by: $0.inputIndex) }
                guard let first = files.first, let second = files.first(where: { $0.inputIndex != first.inputIndex }) else { continue }
                throw MotionError(.config, "recording `\(recording.name)` has files of \(spec.inputName(first.inputIndex)) (\(first.path)) and \(spec.inputName(second.inputIndex)) (\(second.path)), which both give \(sensor.channelNames.joined(separator: ", ")) of \(spec.file); inputs may share channels only when no recording gets them from two inputs, so give their recordings other names (`recording:`) or narrow the patterns")
            }
        }
    }
}
