import MotionConfig
import MotionCore
import MotionIngest

/// Labels from an `intervals` file (docs/signal.md, "Windows and labels"): per recording name, a step function.
public struct IntervalLabels: Sendable {
    /// Per recording name, on the file's clock (`clock: recording` shifts them by T0 later).
    public var tracks: [String: LabelTrack]
    /// Every row in file order, for the warnings about rows that label nothing.
    public var rows: [Row] = []
    /// The file as named in messages.
    public var path: String = ""
}

/// Everything ingest parsed for a recording, in file order, before the time-order rules: what
/// `inspect` describes and `inspect --samples` writes.
package struct RawRecording {
    /// Streams in file order with the file each came from, by input index.
    package var raw: [Int: [(stream: RawStream, file: InputFile)]]
    /// Label events from rows (or MotionCollector markers), in file order.
    package var rowLabels: LabelEvents
    package var markers: LabelEvents
    package var rowsRead: Int
    package var dropped: ReasonCounts
    package var warnings: [String]

    package init(raw: [Int: [(stream: RawStream, file: InputFile)]], rowLabels: LabelEvents, markers: LabelEvents, rowsRead: Int, dropped: ReasonCounts, warnings: [String]) {
        self.raw = raw
        self.rowLabels = rowLabels
        self.markers = markers
        self.rowsRead = rowsRead
        self.dropped = dropped
        self.warnings = warnings
    }
}

/// The whole reading of a recording's files (`loadRaw`): what `init` describes its small files
/// with (under 1 MiB, where the streamed statistics would cost more than the reading:
/// `PipelineDraft.wholeReadBytes`), and the reference the tests compare the blocks with
/// (`Inspector`'s internal `streamBytes:` variants). Also the errors the engine
/// (`StreamingRecording`) shares with it.
package enum RecordingLoader {
    /// The error for a recording without `sensor`'s stream.
    package static func noStream(_ sensor: ChannelLayout.Sensor, source: RecordingSource, spec: PipelineSpec) -> MotionError {
        let files = source.files.filter { sensor.isGiven(by: $0.inputIndex) }.map(\.path)
        if sensor.name == "{stem}" && sensor.sources.count == 1 {
            // A wide csv input without `sensor:`: the recording has no file of that input.
            let patterns = spec.inputs[sensor.inputIndex].paths.map { "`\($0)`" }.joined(separator: ", ")
            let read = source.files.map(\.path).joined(separator: ", ")
            return MotionError(.dataError, "recording `\(source.name)` has no file matching \(patterns) of \(spec.inputName(sensor.inputIndex)) (read \(read)); every recording needs every channel (\(sensor.channelNames.joined(separator: ", ")))")
        }
        if sensor.sources.count > 1 {
            let inputs = sensor.sources.map { "\(spec.inputName($0.inputIndex))" + ($0.name == "{stem}" ? "" : " `\($0.name)`") }
            let read = source.files.map(\.path).joined(separator: ", ")
            return MotionError(.dataError, "recording `\(source.name)` has none of the streams \(Text.joinedBounded(inputs)) that give \(Text.joinedBounded(sensor.channelNames)) (read \(read)); every recording needs every channel")
        }
        return MotionError(.dataError, "recording `\(source.name)` has no `\(sensor.name)` stream (read \(Text.joinedBounded(files))); every recording needs every channel (\(Text.joinedBounded(sensor.channelNames))), or list the sensors to keep with `sensors:`")
    }

    /// Reads every file of `source` in file order. With `checkOrder` false nothing about time
    /// order is enforced (for `inspect`, which reports such problems instead). `ledger` hears
    /// every byte read (the files are hashed from the bytes parsed).
    package static func loadRaw(_ source: RecordingSource, spec: PipelineSpec, layout: ChannelLayout,
                        checkOrder: Bool, ledger: InputLedger? = nil) throws -> RawRecording {
        let observer = ledger?.observer(.recording)
        var rowsRead = 0
        var dropped: ReasonCounts = [:]
        var warnings: [String] = []
        // Raw streams by (input index, sensor name), with the file they came from.
        var raw: [Int: [(stream: RawStream, file: InputFile)]] = [:]
        var rowLabels = LabelEvents(), markers = LabelEvents()
        for file in source.files {
            let input = spec.inputs[file.inputIndex]
            switch input.type {
            case .motioncollector:
                let keep = layout.keptNames(input: file.inputIndex)
                let mc = try MotionCollectorReader.read(path: file.path, displayPath: file.path, units: spec.units, keep: keep,
                                                        observer: observer)
                rowsRead += mc.rowsRead
                dropped.add(mc.rowsDropped)
                for s in mc.streams { raw[file.inputIndex, default: []].append((s, file)) }
                rowLabels.append(mc.rowLabels)
                markers.append(mc.markers)
            case .csv:
                guard let options = input.csv else {
                    throw MotionError(.config, "inputs[\(file.inputIndex)] of \(spec.file): `type: csv` needs `time` and `channels`")
                }
                // Long: the sensors the layout keeps. Wide: the one stream, named by `sensor` or
                // the file's stem (docs/inputs.md, "Recordings, subjects and channels"); the layout calls it "{stem}" when unnamed.
                let keep: Set<String>? = options.sensorColumn == nil
                    ? nil : layout.keptNames(input: file.inputIndex)
                let csv = try CSVReader.read(path: file.path, displayPath: file.path, format: CSVFormat(options),
                                             units: Dictionary(input.units.map { ($0.key, $0.value) }) { first, _ in first },
                                             unitSystem: spec.units, wideSensorName: input.sensor ?? PathText.stem(file.path),
                                             keep: keep, observer: observer)
                rowsRead += csv.rowsRead
                dropped.add(csv.rowsDropped)
                for s in csv.streams { raw[file.inputIndex, default: []].append((s, file)) }
                rowLabels.append(csv.rowLabels)
            case .cwa, .gt3x:
                let cwa: any IngestBlockReader = input.type == .cwa
                    ? try CWABlockReader(path: file.path, displayPath: file.path, keep: layout.keptNames(input: file.inputIndex),
                                         units: spec.units, strict: input.strict, blockBytes: StreamDefaults.blockBytes,
                                         observer: observer, zone: input.wallClockZone)
                    : try GT3XBlockReader(path: file.path, displayPath: file.path, keep: layout.keptNames(input: file.inputIndex),
                                          units: spec.units, strict: input.strict, blockBytes: StreamDefaults.blockBytes,
                                          observer: observer, zone: input.wallClockZone)
                var joined: [String: RawStream] = [:]
                var order: [String] = []
                while let block = try cwa.next() {
                    rowsRead += block.rowsRead
                    for s in block.streams {
                        if joined[s.name] == nil { joined[s.name] = s; order.append(s.name); continue }
                        joined[s.name]!.times += s.times
                        for c in s.channels.indices { joined[s.name]!.channels[c] += s.channels[c] }
                        joined[s.name]!.lines += s.lines
                    }
                }
                dropped.add(cwa.rowsDropped)
                warnings += cwa.warnings
                for name in order { raw[file.inputIndex, default: []].append((joined[name]!, file)) }
            case .iio:
                guard let sensor = layout.sensor(input: file.inputIndex) else { continue }
                let dump = try loadIIO(file, input: input, sensor: sensor, spec: spec, checkOrder: checkOrder, warnings: &warnings,
                                       ledger: ledger)
                rowsRead += dump.scans
                dropped.add(dump.rowsDropped)
                raw[file.inputIndex, default: []].append((dump.stream, file))
            }
        }
        return RawRecording(raw: raw, rowLabels: rowLabels, markers: markers,
                            rowsRead: rowsRead, dropped: dropped, warnings: warnings)
    }

    /// Refuses a dump whose own layout gives other channels than the input's first file's
    /// (docs/inputs.md, "IIO buffer dumps (iio)").
    package static func checkLayout(_ iio: IIOLayout, of file: InputFile, sensor: ChannelLayout.Sensor, units system: UnitSystem) throws {
        let names = iio.channelNames, units = iio.channelUnits(system)
        guard names != sensor.channelNames || units != sensor.channelUnits else { return }
        func show(_ n: [String], _ u: [String]) -> String { zip(n, u).map { "\($0) [\($1)]" }.joined(separator: ", ") }
        throw MotionError(.dataError, "\(file.path): its layout `\(iio.source)` gives channels \(show(names, units)), but the input's first file's layout gives \(show(sensor.channelNames, sensor.channelUnits)); every file of an input needs the same channels")
    }

    /// Decodes one IIO dump with its own layout (the folder template rendered for this file),
    /// which must give the channels the first file's layout gave (docs/inputs.md, "IIO buffer dumps (iio)" and "Recordings, subjects and channels").
    ///
    /// Throws for a dump without a whole scan (docs/inputs.md, "Bad rows and time order": no data rows), for decreasing
    /// timestamps unless `sort: true`, and for a partial scan under `strict: true`.
    package static func loadIIO(_ file: InputFile, input: InputSpec, sensor: ChannelLayout.Sensor, spec: PipelineSpec,
                        checkOrder: Bool, warnings: inout [String], ledger: InputLedger? = nil) throws -> IIODump {
        let iio = try IIOLayoutResolver.layout(inputIndex: file.inputIndex, spec: spec, file: file.path, ledger: ledger)
        try checkLayout(iio, of: file, sensor: sensor, units: spec.units)
        let name = input.sensor ?? PathText.stem(file.path)
        let dump = try IIODecoder.decode(path: file.path, displayPath: file.path, layout: iio, units: spec.units,
                                         strict: input.strict, sensor: name, observer: ledger?.observer(.recording))
        warnings += iio.warnings.map(\.message) + dump.warnings.map(\.message)
        if dump.scans == 0 {
            throw IngestError(.iioNoScans(fileBytes: dump.fileBytes, scanBytes: dump.scanBytes), at: SourceLocation(file: file.path))
        }
        if checkOrder && !input.sort { try IIODecoder.checkTimeOrder(dump, displayPath: file.path) }
        return dump
    }
}

extension CSVFormat {
    /// The reader's options from the pipeline file's `csv` entry.
    package init(_ options: CSVOptions) {
        func channels(_ mapping: [KeyValue<String>]) -> [CSVFormat.Channel] {
            mapping.map { CSVFormat.Channel(name: $0.key, column: $0.value) }
        }
        self.init(delimiter: options.delimiter, timeColumn: options.timeColumn,
                  timeUnit: options.timeUnit,
                  channels: channels(options.channels), labelColumn: options.labelColumn,
                  sensorColumn: options.sensorColumn,
                  sensorGroups: options.sensorChannels.map { CSVFormat.SensorGroup(sensor: $0.key, channels: channels($0.value)) },
                  delimiterGiven: options.delimiterGiven, skipLines: options.skipLines,
                  // The decoder has checked the pattern; a pattern built in code that is not valid reads as no format.
                  timeFormat: options.timeFormat.flatMap { try? CSVTimeFormat(pattern: $0) }, app: options.app)
        labelColumnOptional = options.labelColumnOptional
        timeZone = options.timeZone
    }
}
