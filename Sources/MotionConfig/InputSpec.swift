import MotionCore
import MotionIngest

/// One entry of `inputs` (docs/pipeline.md; docs/inputs.md).
public struct InputSpec: Sendable, Equatable {
    public enum InputType: String, Sendable, CaseIterable {
        case motioncollector, csv, iio, cwa, gt3x
    }
    /// `type`.
    public var type: InputType
    /// `paths`: glob patterns as written (`**` matches any number of folders).
    public var paths: [String]
    /// `subject` template; default `{dir}`.
    public var subject: String
    /// `recording` template; nil means each file is its own recording.
    public var recording: String?
    /// `sensors`: the streams to keep, in this order; nil keeps all in their default order.
    public var sensors: [String]?
    /// `sort`: stable-sort each stream by time instead of failing on decreasing times.
    public var sort: Bool
    /// `strict`: partial IIO scans (and partial CWA blocks) are an error.
    public var strict: Bool
    /// `sensor`: the stream name for wide csv and iio; nil means the file's stem.
    public var sensor: String?
    /// `units`: the unit of each channel as read, `{channel: unit}`, in file order of the mapping.
    /// csv: the unit of a `channels`/`sensor_channels` name; iio: replaces the IIO ABI's unit of
    /// a channel of `x` (`acc_x`, named after renaming).
    public var units: [KeyValue<String>]
    /// Where each key of `units` is in the pipeline file, parallel to `units` (empty for specs
    /// built in code); for messages about channels known only once a layout folder is read.
    public var unitLocations: [SourceLocation] = []
    /// csv only.
    public var csv: CSVOptions?
    /// iio only.
    public var iio: IIOOptions?
    /// cwa only: `time.zone`, the zone of the device's clock (docs/inputs.md, "Local wall
    /// time"); nil: its timestamps are UTC. (csv inputs keep theirs in `csv.timeZone`.)
    public var wallClockZone: WallClockZone?
    /// Where this entry starts in the pipeline file (for messages).
    public var location: SourceLocation?
    /// Set when the decoder expanded a phone-logger preset into this input (docs/inputs.md,
    /// "Phone-logger presets"): which app, entry and sensor.
    public var preset: InputPreset?
    /// Not a pipeline key: the files of this input named one by one, read instead of what
    /// `paths` matches and never taken as glob patterns (`motionprep apply`, which names the new
    /// recordings on its command line). Not part of the canonical JSON.
    public var files: [String]?

    public init(type: InputType, paths: [String], subject: String = "{dir}", recording: String? = nil,
                sensors: [String]? = nil, sort: Bool = false, strict: Bool = false, sensor: String? = nil,
                units: [KeyValue<String>] = [], csv: CSVOptions? = nil, iio: IIOOptions? = nil,
                location: SourceLocation? = nil) {
        self.type = type
        self.paths = paths
        self.subject = subject
        self.recording = recording
        self.sensors = sensors
        self.sort = sort
        self.strict = strict
        self.sensor = sensor
        self.units = units
        self.csv = csv
        self.iio = iio
        self.location = location
    }
}

/// csv input options (docs/inputs.md, "Delimited text (csv)").
public struct CSVOptions: Sendable, Equatable {
    /// `time.unit`: the csv reader's own type (MotionIngest).
    public typealias TimeUnit = CSVFormat.TimeUnit
    /// `delimiter`: one of `,` `;` `\t`.
    public var delimiter: UInt8
    /// `time.column`.
    public var timeColumn: String
    /// `time.unit`.
    public var timeUnit: TimeUnit
    /// `channels`: output name → column, in mapping order (wide format).
    public var channels: [KeyValue<String>]
    /// `label_column`.
    public var labelColumn: String?
    /// `sensor_column` (long format).
    public var sensorColumn: String?
    /// `sensor_channels`: sensor → (output name → column), in mapping order (long format).
    public var sensorChannels: [KeyValue<[KeyValue<String>]>]
    /// True when the pipeline file sets `delimiter` (a `sep=` first line that disagrees is then an error).
    public var delimiterGiven = false
    /// `skip_lines`: lines skipped before the header (default 0).
    public var skipLines = 0
    /// `time.format`: a wall-clock format (docs/inputs.md, "Delimited text (csv)"), read instead of `time.unit`.
    public var timeFormat: String?
    /// `time.zone`: the local zone of wall-clock times written without one (docs/inputs.md,
    /// "Local wall time"); nil: they are UTC.
    public var timeZone: WallClockZone?
    /// Phone-logger presets: what the app writes, for messages about a file that is not the
    /// app's (not part of the canonical JSON: it changes no byte that is read).
    public var app: CSVFormat.AppExport?
    /// Not a pipeline key: set by `motionprep apply`, where a file without `label_column` is
    /// read as unlabelled instead of refused. Not part of the canonical JSON.
    public var labelColumnOptional = false

    public init(delimiter: UInt8 = UInt8(ascii: ","), timeColumn: String, timeUnit: TimeUnit = .s,
                channels: [KeyValue<String>] = [], labelColumn: String? = nil, sensorColumn: String? = nil,
                sensorChannels: [KeyValue<[KeyValue<String>]>] = []) {
        self.delimiter = delimiter
        self.timeColumn = timeColumn
        self.timeUnit = timeUnit
        self.channels = channels
        self.labelColumn = labelColumn
        self.sensorColumn = sensorColumn
        self.sensorChannels = sensorChannels
    }
}

/// iio input options (docs/inputs.md, "IIO buffer dumps (iio)").
///
/// The `…Location` properties say where an inline layout's values are in the pipeline file, so
/// that a layout problem found later is still reported at `file:line:column`. They are nil for
/// options built in code and are not part of the value: `==` ignores them.
public struct IIOOptions: Sendable, Equatable {
    public struct Channel: Sendable, Equatable {
        public var name: String
        public var index: Int
        public var type: String
        public var scale: Double?
        public var offset: Double?
        /// Where `index` and `type` are written.
        public var indexLocation: SourceLocation?
        public var typeLocation: SourceLocation?

        public init(name: String, index: Int, type: String, scale: Double? = nil, offset: Double? = nil,
                    indexLocation: SourceLocation? = nil, typeLocation: SourceLocation? = nil) {
            self.name = name
            self.index = index
            self.type = type
            self.scale = scale
            self.offset = offset
            self.indexLocation = indexLocation
            self.typeLocation = typeLocation
        }

        /// Equal values, wherever they are written.
        public static func == (a: Channel, b: Channel) -> Bool {
            a.name == b.name && a.index == b.index && a.type == b.type && a.scale == b.scale && a.offset == b.offset
        }
    }
    /// `layout` given as a folder template (`{dirpath}/sysfs`).
    public var layoutFolder: String?
    /// `layout` given inline.
    public var channels: [Channel]
    public var timestampIndex: Int?
    public var timestampType: String?
    public var samplingFrequencyHz: Double?
    /// Where the inline `layout` mapping, and the timestamp's `index` and `type`, are written.
    public var location: SourceLocation?
    public var timestampIndexLocation: SourceLocation?
    public var timestampTypeLocation: SourceLocation?

    public init(layoutFolder: String? = nil, channels: [Channel] = [], timestampIndex: Int? = nil,
                timestampType: String? = nil, samplingFrequencyHz: Double? = nil, location: SourceLocation? = nil,
                timestampIndexLocation: SourceLocation? = nil, timestampTypeLocation: SourceLocation? = nil) {
        self.layoutFolder = layoutFolder
        self.channels = channels
        self.timestampIndex = timestampIndex
        self.timestampType = timestampType
        self.samplingFrequencyHz = samplingFrequencyHz
        self.location = location
        self.timestampIndexLocation = timestampIndexLocation
        self.timestampTypeLocation = timestampTypeLocation
    }

    /// Equal values, wherever they are written.
    public static func == (a: IIOOptions, b: IIOOptions) -> Bool {
        a.layoutFolder == b.layoutFolder && a.channels == b.channels && a.timestampIndex == b.timestampIndex
            && a.timestampType == b.timestampType && a.samplingFrequencyHz == b.samplingFrequencyHz
    }
}
