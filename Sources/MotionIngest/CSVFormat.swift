/// How to read one delimited text input (docs/inputs.md, "Delimited text (csv)"): the dialect and which columns mean what.
///
/// This is MotionIngest's own options value; MotionInputs fills it from the pipeline file's
/// `csv` entry, so the reader never depends on the configuration module (stages never import it; see ARCHITECTURE.md).
public struct CSVFormat: Sendable, Equatable {
    /// The unit of the time column.
    public enum TimeUnit: String, Sendable, CaseIterable {
        /// Seconds, milliseconds, microseconds, nanoseconds: docs/inputs.md, "Bad rows and time order" decimals.
        case s, ms, us, ns
        /// `YYYY-MM-DDTHH:MM:SS[.fraction][Z|±HH:MM|±HHMM]` (`T` or a space); no zone is UTC.
        case iso8601
    }

    /// One output channel and the column it is read from.
    public struct Channel: Sendable, Equatable {
        /// The output channel name (`acc_x`).
        public var name: String
        /// The header name of the column (`ankle_fwd`).
        public var column: String
        public init(name: String, column: String) {
            self.name = name
            self.column = column
        }
    }

    /// Long format: one sensor value and its channels.
    public struct SensorGroup: Sendable, Equatable {
        /// The value of the sensor column that selects these rows; also the stream's name.
        public var sensor: String
        /// The sensor's channels in output order.
        public var channels: [Channel]
        public init(sensor: String, channels: [Channel]) {
            self.sensor = sensor
            self.channels = channels
        }
    }

    /// The field separator: `,`, `;` or a tab.
    public var delimiter: UInt8
    /// The header name of the time column.
    public var timeColumn: String
    public var timeUnit: TimeUnit
    /// Wide format: the channels of the one stream, in output order (unused with `sensorColumn`).
    public var channels: [Channel]
    /// The column holding each row's label, if any.
    public var labelColumn: String?
    /// A file without `labelColumn` is read as unlabelled instead of refused (`motionprep apply`:
    /// new recordings rarely carry labels).
    public var labelColumnOptional = false
    /// Long format: the column saying which sensor a row belongs to.
    public var sensorColumn: String?
    /// Long format: the sensors and their channels, in output order.
    public var sensorGroups: [SensorGroup]
    /// True when the pipeline set `delimiter:`; a `sep=` first line that names another delimiter is then an error.
    public var delimiterGiven: Bool
    /// Lines skipped before the header (after the BOM and a `sep=` line), `skip_lines`.
    public var skipLines: Int
    /// `time.format`: a wall-clock format read instead of `timeUnit`.
    public var timeFormat: CSVTimeFormat?
    /// `time.zone`: the zone of a wall-clock time written without one (docs/inputs.md, "Local
    /// wall time"); nil: such a time is UTC.
    public var timeZone: WallClockZone?
    /// Set when the input is a phone-logger preset (docs/inputs.md, "Phone-logger presets"): a
    /// header without a column the input reads is then reported as not being the app's file,
    /// naming the header the app writes.
    public var app: AppExport?

    /// What a phone app writes into the file, for messages.
    public struct AppExport: Sendable, Equatable {
        /// The file as the app names it, e.g. "Sensor Logger's `Accelerometer.csv`".
        public var file: String
        /// The header line the app writes, or a description of it.
        public var header: String
        /// Said after the expected header (e.g. how to read another export variant); empty for none.
        public var headerNote: String
        /// Said after a field that is not a number and holds a comma (a decimal-comma export); empty for none.
        public var decimalCommaNote: String

        public init(file: String, header: String, headerNote: String = "", decimalCommaNote: String = "") {
            self.file = file
            self.header = header
            self.headerNote = headerNote
            self.decimalCommaNote = decimalCommaNote
        }
    }

    public init(delimiter: UInt8 = UInt8(ascii: ","), timeColumn: String, timeUnit: TimeUnit = .s,
                channels: [Channel] = [], labelColumn: String? = nil, sensorColumn: String? = nil,
                sensorGroups: [SensorGroup] = [], delimiterGiven: Bool = false, skipLines: Int = 0,
                timeFormat: CSVTimeFormat? = nil, app: AppExport? = nil) {
        precondition(delimiter == UInt8(ascii: ",") || delimiter == UInt8(ascii: ";") || delimiter == 0x09,
                     "CSVFormat: the delimiter must be `,`, `;` or a tab")
        self.delimiter = delimiter
        self.timeColumn = timeColumn
        self.timeUnit = timeUnit
        self.channels = channels
        self.labelColumn = labelColumn
        self.sensorColumn = sensorColumn
        self.sensorGroups = sensorGroups
        self.delimiterGiven = delimiterGiven
        self.skipLines = skipLines
        self.timeFormat = timeFormat
        self.app = app
    }

    /// True when a sensor column splits rows into several streams.
    public var isLong: Bool { sensorColumn != nil }
}
