import MotionCore

/// The scan layout of an IIO buffer: which elements a scan holds, where each one sits, how to
/// scale it and how long a scan is (docs/iio-format.md §3.1, §4.2).
///
/// Built from declarations (the inline `layout:` of a pipeline, or `load(folder:)` for a sysfs
/// copy). Offsets follow the kernel's `iio_compute_scan_bytes()`: enabled data elements in
/// ascending scan index, each aligned to its own size (`storagebits/8 × repeat`), the
/// timestamp (8 bytes) appended last whatever its index, and the scan padded to a multiple of
/// its largest element. Disabled channels and gaps between indices take no space.
public struct IIOLayout: Sendable, Equatable {
    /// One channel as declared, before layout.
    public struct ChannelDeclaration: Sendable, Equatable {
        /// The sysfs name, `in_accel_x`.
        public var name: String
        /// The scan index (order, not a byte offset).
        public var index: Int
        /// The `_type` string as written.
        public var type: String
        /// `_scale`; nil when absent (values stay in raw counts, `W_NO_SCALE`).
        public var scale: Double?
        /// `_offset`, added before scaling; nil when absent (0).
        public var offset: Double?
        /// Where the type string came from (a `_type` file or a pipeline key), for messages.
        public var typeSource: String
        /// Where the index came from, for messages about it (`E_DUP_INDEX`); nil: the layout's `source`.
        public var indexSource: String?

        public init(name: String, index: Int, type: String, scale: Double? = nil, offset: Double? = nil, typeSource: String,
                    indexSource: String? = nil) {
            self.name = name
            self.index = index
            self.type = type
            self.scale = scale
            self.offset = offset
            self.typeSource = typeSource
            self.indexSource = indexSource
        }
    }

    /// One enabled element, placed.
    public struct Element: Sendable, Equatable {
        /// The sysfs name, `in_accel_x`.
        public var name: String
        /// The scan index.
        public var index: Int
        /// The storage format.
        public var type: IIOScanType
        /// Byte offset of the element within a scan.
        public var byteOffset: Int
        /// Scale; nil when absent (1).
        public var scale: Double?
        /// Offset added before scaling; nil when absent (0).
        public var offset: Double?
    }

    /// Most output channels a layout may have (sub-channels of repeat elements count).
    public static let maxChannels = 4096
    /// Largest scan accepted, in bytes (1 MiB).
    public static let maxScanBytes = 1 << 20

    /// The enabled data elements in ascending scan index (the timestamp excluded).
    public private(set) var elements: [Element]
    /// The enabled timestamp (`in_timestamp`), placed after every data element; nil when disabled.
    public private(set) var timestamp: Element?
    /// Bytes per scan, tail padding included.
    public private(set) var scanBytes: Int
    /// `sampling_frequency` in Hz, when known; scan k is at k / this when there is no timestamp.
    public var samplingFrequencyHz: Double?
    /// `current_timestamp_clock` (`realtime`, `monotonic`, `boottime`, …), when known.
    public var clock: String?
    /// Where the layout came from (a sysfs folder or a pipeline key), for messages.
    public var source: String
    /// `W_TS_NOT_LAST`, `W_TS_TYPE`, `W_TS_AFTER_LARGE_ELEMENT`, `W_NO_SCALE`, `W_CLOCK_UNKNOWN`,
    /// `W_TYPE_NO_SHIFT`, `W_REPEAT_ONE`, in that order of discovery.
    public var warnings: [IIOWarning]
    /// Units declared for output channels (a pipeline input's `units:`, docs/pipeline.md), by output
    /// channel name (`acc_x`); they replace the ABI's unit in `nativeUnits`. Names that are not
    /// output channels are ignored (the pipeline loader reports them).
    public var declaredUnits: [String: String] = [:]

    /// Lays out the enabled channels.
    ///
    /// - Parameters:
    ///   - channels: the enabled data channels, in any order.
    ///   - timestamp: the enabled `in_timestamp`, or nil. Its type should be `s64/64>>0`
    ///     (`W_TS_TYPE` otherwise); it always takes 8 bytes.
    ///   - samplingFrequencyHz: the sampling frequency, when known.
    ///   - clock: `current_timestamp_clock`, when known (`W_CLOCK_UNKNOWN` when nil while the
    ///     timestamp is enabled and `warnAboutClock` is true).
    ///   - warnAboutClock: false for inline layouts, which have no clock attribute to read.
    ///   - source: where the layout came from, for messages.
    /// - Throws: `IngestError` (exit 65): `.iioScanType` for an invalid type;
    ///   `.iioLayout` with `E_NO_CHANNELS` (no data channel and no timestamp), `E_DUP_INDEX` (two
    ///   enabled channels, timestamp included, share an index) or `E_LIMIT` (more than
    ///   `maxChannels` output channels or a scan over `maxScanBytes`).
    public init(channels: [ChannelDeclaration], timestamp: ChannelDeclaration?, samplingFrequencyHz: Double?,
                clock: String?, warnAboutClock: Bool = true, source: String) throws {
        self.samplingFrequencyHz = samplingFrequencyHz
        self.clock = clock
        self.source = source
        var warnings: [IIOWarning] = []
        func layoutError(_ code: String, _ problem: String, at place: String? = nil) -> IngestError {
            IngestError(.iioLayout(code: code, problem: problem), at: SourceLocation(file: place ?? source))
        }
        if channels.isEmpty && timestamp == nil {
            throw layoutError("E_NO_CHANNELS", "no scan element is enabled, so a scan holds nothing (enable at least one channel with `_en` = 1)")
        }
        // Sort by index; the name breaks ties only so that the duplicate message is stable.
        let sorted = channels.sorted { a, b in a.index != b.index ? a.index < b.index : Text.utf8Less(a.name, b.name) }
        let all = sorted + (timestamp.map { [$0] } ?? [])
        var byIndex: [Int: String] = [:]
        for c in all {
            if let other = byIndex[c.index] {
                throw layoutError("E_DUP_INDEX", "`\(other)` and `\(c.name)` are both enabled with scan index \(c.index) (each enabled channel needs its own index)",
                                  at: c.indexSource)
            }
            byIndex[c.index] = c.name
        }
        var outputColumns = 0
        var bytes = 0
        var largest = 0
        var placed: [Element] = []
        for c in sorted {
            let (type, typeWarnings) = try IIOScanType.parse(c.type, channel: c.name, source: c.typeSource)
            warnings += typeWarnings
            let length = type.elementBytes
            outputColumns += type.repeatCount
            guard length <= Self.maxScanBytes, outputColumns <= Self.maxChannels else {
                throw layoutError("E_LIMIT", "the layout has more than \(Self.maxChannels) channels or a scan over \(Self.maxScanBytes) bytes (at `\(c.name)`), more than motionprep accepts")
            }
            bytes = Self.align(bytes, length)
            placed.append(Element(name: c.name, index: c.index, type: type, byteOffset: bytes, scale: c.scale, offset: c.offset))
            bytes += length
            largest = max(largest, length)
            guard bytes <= Self.maxScanBytes else {
                throw layoutError("E_LIMIT", "the scan is longer than \(Self.maxScanBytes) bytes (at `\(c.name)`), more than motionprep accepts")
            }
            if c.scale == nil {
                warnings.append(IIOWarning(code: "W_NO_SCALE", message: "\(source): `\(c.name)` has no scale; its values stay in raw counts (W_NO_SCALE)"))
            }
        }
        var ts: Element?
        if let t = timestamp {
            let (type, typeWarnings) = try IIOScanType.parse(t.type, channel: t.name, source: t.typeSource)
            warnings += typeWarnings
            if !(type.isSigned && type.realBits == 64 && type.storageBits == 64 && type.shift == 0 && type.repeatCount == 1) {
                warnings.append(IIOWarning(code: "W_TS_TYPE", message: "\(source): `\(t.name)` has type `\(type)`, not the usual `s64/64>>0`; it is read as declared from its 8 bytes (W_TS_TYPE)"))
            }
            if let last = sorted.last, last.index > t.index {
                warnings.append(IIOWarning(code: "W_TS_NOT_LAST", message: "\(source): `\(t.name)` has scan index \(t.index), below `\(last.name)`'s \(last.index); the kernel still places it after every channel (W_TS_NOT_LAST)"))
            }
            if let big = placed.first(where: { $0.type.elementBytes > 8 }) {
                warnings.append(IIOWarning(code: "W_TS_AFTER_LARGE_ELEMENT", message: "\(source): `\(t.name)` follows `\(big.name)`, an element of \(big.type.elementBytes) bytes; it is read at the ABI position, byte \(Self.align(bytes, 8)), though kernels before 6.19 wrote it in the scan's last 8 bytes (W_TS_AFTER_LARGE_ELEMENT)"))
            }
            bytes = Self.align(bytes, 8)
            ts = Element(name: t.name, index: t.index, type: type, byteOffset: bytes, scale: nil, offset: nil)
            bytes += 8
            largest = max(largest, 8)
            if warnAboutClock && clock == nil {
                warnings.append(IIOWarning(code: "W_CLOCK_UNKNOWN", message: "\(source): no `current_timestamp_clock`; assuming `realtime`, the kernel's default (W_CLOCK_UNKNOWN)"))
            }
        }
        let scanBytes = Self.align(bytes, largest)
        guard scanBytes <= Self.maxScanBytes else {
            throw layoutError("E_LIMIT", "the scan is longer than \(Self.maxScanBytes) bytes, more than motionprep accepts")
        }
        self.elements = placed
        self.timestamp = ts
        self.scanBytes = scanBytes
        self.warnings = warnings
    }

    /// `value` rounded up to a multiple of `alignment` (a power of two): the kernel's `ALIGN()`.
    static func align(_ value: Int, _ alignment: Int) -> Int {
        (value + alignment - 1) & ~(alignment - 1)
    }

    /// The output channel names in scan-index order: `in_` dropped, `accel → acc`,
    /// `anglvel → gyro`, `magn → mag`, and `_0 … _n-1` appended for repeat elements
    /// (`in_rot_quaternion` X4 → `rot_quaternion_0` … `rot_quaternion_3`).
    public var channelNames: [String] {
        elements.flatMap { e in
            let base = Self.outputName(e.name)
            return e.type.repeatCount > 1 ? (0..<e.type.repeatCount).map { "\(base)_\($0)" } : [base]
        }
    }

    /// The unit of each output channel as read, parallel to `channelNames`: the one in
    /// `declaredUnits`, else the IIO ABI's (written as docs/inputs.md, "Units" strings).
    public var nativeUnits: [String] {
        let abi = elements.flatMap { e in Array(repeating: Self.nativeUnit(e.name), count: e.type.repeatCount) }
        guard !declaredUnits.isEmpty else { return abi }
        return zip(channelNames, abi).map { name, unit in declaredUnits[name] ?? unit }
    }

    /// The unit of each output channel under `system` (`PhysicalUnit.conversion`).
    public func channelUnits(_ system: UnitSystem) -> [String] {
        nativeUnits.map { PhysicalUnit.conversion(from: $0, to: system).unit }
    }

    /// Throws unless scan times can be known: a timestamp is enabled or a sampling frequency is given.
    ///
    /// - Throws: `IngestError.Kind.iioLayout` with `E_NO_TIME` (exit 65).
    public func checkTimeSource() throws {
        guard timestamp == nil, samplingFrequencyHz == nil else { return }
        throw IngestError(.iioLayout(code: "E_NO_TIME", problem: "`in_timestamp` is not enabled and there is no sampling frequency, so scan times are unknown (enable the timestamp, or give `sampling_frequency` in the layout folder or `sampling_frequency_hz` inline)"),
                          at: SourceLocation(file: source))
    }

    /// The output name of a sysfs channel name (see `channelNames`).
    public static func outputName(_ sysfsName: String) -> String {
        var rest = Substring(sysfsName)
        if rest.hasPrefix("in_") { rest = rest.dropFirst(3) }
        let tokenEnd = rest.firstIndex(of: "_") ?? rest.endIndex
        let token = rest[..<tokenEnd]
        let letters = token.prefix { $0.isLetter }
        let mapped: String
        switch letters {
        case "accel": mapped = "acc"
        case "anglvel": mapped = "gyro"
        case "magn": mapped = "mag"
        default: mapped = String(letters)
        }
        return mapped + token[letters.endIndex...] + rest[tokenEnd...]
    }

    /// The "type name" of docs/iio-format.md §4.2: the direction and the first token after it,
    /// with digits removed (`in_voltage0` → `in_voltage`, `in_voltage0-voltage1` →
    /// `in_voltage-voltage`, `in_rot_quaternion` → `in_rot`).
    public static func typeName(_ sysfsName: String) -> String {
        let parts = sysfsName.split(separator: "_", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return String(sysfsName.filter { !$0.isNumber }) }
        return String(parts[0]) + "_" + String(parts[1].filter { !("0"..."9").contains($0) })
    }

    /// The ABI unit of a channel (docs/iio-format.md §4.2) as a docs/inputs.md, "Units" string: `accel` m/s^2,
    /// `anglvel` rad/s, `magn` gauss, `pressure` kPa, `temp` mdegC, anything else `1`.
    public static func nativeUnit(_ sysfsName: String) -> String {
        var rest = Substring(sysfsName)
        if rest.hasPrefix("in_") { rest = rest.dropFirst(3) } else if rest.hasPrefix("out_") { rest = rest.dropFirst(4) }
        let type = rest.prefix { $0 != "_" }.filter { !("0"..."9").contains($0) }
        switch type {
        case "accel": return "m/s^2"
        case "anglvel": return "rad/s"
        case "magn": return "gauss"
        case "pressure": return "kPa"
        case "temp": return "mdegC"
        default: return "1"
        }
    }
}
