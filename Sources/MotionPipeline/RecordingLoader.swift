import MotionConfig
import MotionCore
import MotionIngest

/// Labels from an `intervals` file (SPEC §5): per recording name, a step function.
public struct IntervalLabels: Sendable {
    public var tracks: [String: LabelTrack]
}

/// Reads every file of a recording and applies the time-order rules of SPEC §3.5.
enum RecordingLoader {
    static func load(_ source: RecordingSource, spec: PipelineSpec, layout: ChannelLayout,
                     intervals: IntervalLabels?) throws -> Recording {
        var rowsRead = 0
        var dropped: ReasonCounts = [:]
        var warnings: [String] = []
        // Raw streams by (input index, sensor name), with the file they came from.
        var raw: [Int: [(stream: RawStream, file: InputFile)]] = [:]
        var labelNames: [String] = []
        var labelIndex: [String: Int32] = [:]
        var eventTimes: [Double] = []
        var eventLabels: [Int32] = []
        func addEvents(_ e: LabelEvents) {
            for (t, l) in zip(e.times, e.labels) {
                let name = e.names[Int(l)]
                let idx: Int32
                if let i = labelIndex[name] { idx = i } else {
                    idx = Int32(labelNames.count)
                    labelNames.append(name)
                    labelIndex[name] = idx
                }
                eventTimes.append(t)
                eventLabels.append(idx)
            }
        }
        for file in source.files {
            let input = spec.inputs[file.inputIndex]
            switch input.type {
            case .motioncollector:
                let keep = Set(layout.sensors.filter { $0.inputIndex == file.inputIndex }.map(\.name))
                let mc = try MotionCollectorReader.read(path: file.path, displayPath: file.path, units: spec.units, keep: keep)
                rowsRead += mc.rowsRead
                dropped.add(mc.rowsDropped)
                for s in mc.streams { raw[file.inputIndex, default: []].append((s, file)) }
                if spec.labels?.from == .rows { addEvents(mc.rowLabels) }
                if spec.labels?.from == .markers { addEvents(mc.markers) }
            case .csv:
                guard let options = input.csv else {
                    throw MotionError(.config, "inputs[\(file.inputIndex)] of \(spec.file): `type: csv` needs `time` and `channels`")
                }
                // Long: the sensors the layout keeps. Wide: the one stream, named by `sensor` or
                // the file's stem (SPEC §3.4); the layout calls it "{stem}" when unnamed.
                let keep: Set<String>? = options.sensorColumn == nil
                    ? nil : Set(layout.sensors.filter { $0.inputIndex == file.inputIndex }.map(\.name))
                let csv = try CSVReader.read(path: file.path, displayPath: file.path, format: CSVFormat(options),
                                             units: Dictionary(input.units.map { ($0.key, $0.value) }) { first, _ in first },
                                             unitSystem: spec.units, wideSensorName: input.sensor ?? PathText.stem(file.path),
                                             keep: keep)
                rowsRead += csv.rowsRead
                dropped.add(csv.rowsDropped)
                for s in csv.streams { raw[file.inputIndex, default: []].append((s, file)) }
                if spec.labels?.from == .rows { addEvents(csv.rowLabels) }
            case .iio:
                throw MotionError(.config, "inputs[\(file.inputIndex)] of \(spec.file): `type: \(input.type.rawValue)` is not supported by this build yet")
            }
        }
        var streams: [SensorStream] = []
        for sensor in layout.sensors {
            let candidates = (raw[sensor.inputIndex] ?? []).filter { sensor.name == "{stem}" || $0.stream.name == sensor.name }
            guard let first = candidates.first else {
                let files = source.files.filter { $0.inputIndex == sensor.inputIndex }.map(\.path)
                if sensor.name == "{stem}" {
                    // A wide csv input without `sensor:`: the recording has no file of that input.
                    let patterns = spec.inputs[sensor.inputIndex].paths.map { "`\($0)`" }.joined(separator: ", ")
                    let read = source.files.map(\.path).joined(separator: ", ")
                    throw MotionError(.dataError, "recording `\(source.name)` has no file matching \(patterns) of inputs[\(sensor.inputIndex)] (read \(read)); every recording needs every channel (\(sensor.channelNames.joined(separator: ", ")))")
                }
                throw MotionError(.dataError, "recording `\(source.name)` has no `\(sensor.name)` stream (read \(files.joined(separator: ", "))); every recording needs every channel (\(sensor.channelNames.joined(separator: ", "))), or list the sensors to keep with `sensors:`")
            }
            if candidates.count > 1 {
                throw MotionError(.dataError, "recording `\(source.name)` has stream `\(sensor.name)` in both \(candidates[0].file.path) and \(candidates[1].file.path); a channel may occur only once per recording")
            }
            let (stream, duplicates) = try TimeOrder.finalize(first.stream, sort: spec.inputs[sensor.inputIndex].sort,
                                                              displayPath: first.file.path)
            if duplicates > 0 { dropped["duplicate_time", default: 0] += duplicates }
            streams.append(stream)
        }
        var track: LabelTrack?
        if let labels = spec.labels {
            switch labels.from {
            case .rows, .markers:
                track = LabelTrack.fromEvents(names: labelNames, times: eventTimes, labels: eventLabels)
            case .intervals:
                track = intervals?.tracks[source.name] ?? .empty
            }
        }
        _ = warnings
        return Recording(name: source.name, subject: source.subject, streams: streams, labels: track,
                         rowsRead: rowsRead, rowsDropped: dropped, warnings: warnings)
    }
}

extension CSVFormat {
    /// The reader's options from the pipeline file's `csv` entry.
    init(_ options: CSVOptions) {
        func channels(_ mapping: [KeyValue<String>]) -> [CSVFormat.Channel] {
            mapping.map { CSVFormat.Channel(name: $0.key, column: $0.value) }
        }
        self.init(delimiter: options.delimiter, timeColumn: options.timeColumn,
                  timeUnit: CSVFormat.TimeUnit(rawValue: options.timeUnit.rawValue) ?? .s,
                  channels: channels(options.channels), labelColumn: options.labelColumn,
                  sensorColumn: options.sensorColumn,
                  sensorGroups: options.sensorChannels.map { CSVFormat.SensorGroup(sensor: $0.key, channels: channels($0.value)) })
    }
}
