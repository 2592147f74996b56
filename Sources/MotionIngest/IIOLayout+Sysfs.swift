import Glibc
import MotionCore

extension IIOLayout {
    /// Reads a copy of a device's sysfs folder (docs/iio-format.md §1, §4.2, §5).
    ///
    /// - The scan elements come from `scan_elements/`, or `buffer0/` when there is no
    ///   `scan_elements/`: every `<ch>_en` names a channel; enabled ones (`1`) need `<ch>_index`
    ///   and `<ch>_type`. Disabled channels are not read further. `in_timestamp` is the timestamp.
    /// - Scale and offset are looked up in the folder itself, first match wins:
    ///   `in_accel_x_scale` > `in_accel_scale` (the type name, digits removed) > `in_scale` > `scale`;
    ///   the same for `_offset`.
    /// - The sampling frequency is the first of `sampling_frequency`,
    ///   `<type name>_sampling_frequency` (data channels in index order), `buffer/sampling_frequency`,
    ///   `buffer0/sampling_frequency` and `trigger*/sampling_frequency` (sorted).
    /// - The clock is `current_timestamp_clock`.
    /// Every value is stripped of surrounding whitespace (sysfs ends values with `"\n"`).
    ///
    /// - Parameters:
    ///   - folder: the folder to open.
    ///   - displayFolder: the folder as the user sees it; messages name files beneath it.
    ///   - observer: hears the bytes of every attribute file read (for the manifest's inputs);
    ///     with one, a file that changes while it is read is an error (exit 74).
    /// - Returns: the layout, its `source` being `displayFolder`.
    /// - Throws: `IngestError` (exit 65) `.iioLayout`: `E_MISSING_ATTR` (no `scan_elements/` or
    ///   `buffer0/`, or an enabled channel without `_index` or `_type`), `E_BAD_NUMBER` (an `_en`
    ///   other than 0 or 1, an `_index` that is not a whole number, a scale, offset or sampling
    ///   frequency that is not a plain decimal), and everything `init(channels:…)` throws.
    ///   `.cannotOpen` (exit 66) when the folder itself cannot be listed.
    public static func load(folder: String, displayFolder: String, observer: (any FileReadObserver)? = nil) throws -> IIOLayout {
        let sysfs = _IIOSysfsFolder(path: folder, display: displayFolder, observer: observer)
        func fail(_ code: String, _ file: String, _ problem: String) -> IngestError {
            IngestError(.iioLayout(code: code, problem: problem), at: SourceLocation(file: file))
        }
        let rootEntries: [String]
        switch _Syscalls.directoryEntries(folder) {
        case .success(let names): rootEntries = names
        case .failure(let e):
            throw IngestError(.cannotOpen(reason: e.text, errno: e.code), at: SourceLocation(file: displayFolder))
        }
        let scanFolder: String
        if rootEntries.contains("scan_elements") {
            scanFolder = "scan_elements"
        } else if rootEntries.contains("buffer0") {
            scanFolder = "buffer0"
        } else {
            throw fail("E_MISSING_ATTR", displayFolder, "the layout folder has neither `scan_elements/` nor `buffer0/` (copy the device's sysfs folder, `/sys/bus/iio/devices/iio:deviceN/`)")
        }
        let scanEntries: [String]
        switch _Syscalls.directoryEntries(folder + "/" + scanFolder) {
        case .success(let names): scanEntries = names
        case .failure(let e):
            throw IngestError(.cannotOpen(reason: e.text, errno: e.code), at: SourceLocation(file: sysfs.display(scanFolder)))
        }
        let channelNames = scanEntries.filter { $0.hasSuffix("_en") }.map { String($0.dropLast(3)) }.sorted(by: Text.utf8Less)

        func number(_ relative: String) throws -> Double? {
            guard let text = try sysfs.value(relative) else { return nil }
            guard case .value(let v) = DecimalParser.parse(text) else {
                throw fail("E_BAD_NUMBER", sysfs.display(relative), "`\(text)` is not a number (expected a plain decimal such as `0.000598205` or `-40`)")
            }
            return v
        }
        /// First of the separate, by-type, by-direction and shared attribute.
        func lookup(_ channel: String, _ suffix: String) throws -> Double? {
            let direction = channel.prefix { $0 != "_" }
            var candidates = [channel + suffix, typeName(channel) + suffix, direction + suffix, String(suffix.dropFirst())]
            candidates = candidates.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
            for name in candidates {
                if let v = try number(name) { return v }
            }
            return nil
        }

        var channels: [ChannelDeclaration] = []
        var timestamp: ChannelDeclaration?
        for name in channelNames {
            let en = try sysfs.value(scanFolder + "/" + name + "_en") ?? ""
            guard en == "0" || en == "1" else {
                throw fail("E_BAD_NUMBER", sysfs.display(scanFolder + "/" + name + "_en"), "`\(en)` is not 0 or 1")
            }
            guard en == "1" else { continue }
            guard let indexText = try sysfs.value(scanFolder + "/" + name + "_index") else {
                throw fail("E_MISSING_ATTR", sysfs.display(scanFolder + "/" + name + "_en"), "`\(name)` is enabled but has no `\(name)_index`")
            }
            guard let typeText = try sysfs.value(scanFolder + "/" + name + "_type") else {
                throw fail("E_MISSING_ATTR", sysfs.display(scanFolder + "/" + name + "_en"), "`\(name)` is enabled but has no `\(name)_type`")
            }
            guard !indexText.isEmpty, indexText.utf8.count <= 9, indexText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let index = Int(indexText) else {
                throw fail("E_BAD_NUMBER", sysfs.display(scanFolder + "/" + name + "_index"), "`\(indexText)` is not a scan index (expected a whole number such as `0`)")
            }
            let typeSource = sysfs.display(scanFolder + "/" + name + "_type")
            if name == "in_timestamp" {
                timestamp = ChannelDeclaration(name: name, index: index, type: typeText, typeSource: typeSource)
            } else {
                channels.append(ChannelDeclaration(name: name, index: index, type: typeText,
                                                   scale: try lookup(name, "_scale"), offset: try lookup(name, "_offset"),
                                                   typeSource: typeSource))
            }
        }

        var frequencyPlaces = ["sampling_frequency"]
        for c in channels.sorted(by: { $0.index < $1.index }) {
            let place = typeName(c.name) + "_sampling_frequency"
            if !frequencyPlaces.contains(place) { frequencyPlaces.append(place) }
        }
        frequencyPlaces += ["buffer/sampling_frequency", "buffer0/sampling_frequency"]
        frequencyPlaces += rootEntries.filter { $0.hasPrefix("trigger") }.sorted(by: Text.utf8Less).map { $0 + "/sampling_frequency" }
        var frequency: Double?
        for place in frequencyPlaces {
            guard let v = try number(place) else { continue }
            guard v > 0, v.isFinite else {
                throw fail("E_BAD_NUMBER", sysfs.display(place), "sampling frequency `\(v)` is not above 0")
            }
            frequency = v
            break
        }
        let clock = try sysfs.value("current_timestamp_clock")
        return try IIOLayout(channels: channels, timestamp: timestamp, samplingFrequencyHz: frequency, clock: clock,
                             warnAboutClock: true, source: displayFolder)
    }
}

/// A sysfs folder copy: reads small attribute files, stripped.
struct _IIOSysfsFolder {
    /// Attribute files longer than this are not sysfs values.
    static let maxValueBytes = 4096

    let path: String
    let display: String
    var observer: (any FileReadObserver)? = nil

    /// `relative` beneath the displayed folder.
    func display(_ relative: String) -> String {
        display.hasSuffix("/") ? display + relative : display + "/" + relative
    }

    /// The stripped content of `relative`, or nil when it does not exist or is a folder.
    ///
    /// - Throws: `IngestError` `.readFailed` (74) when it exists but cannot be read, and
    ///   `.iioLayout` `E_BAD_NUMBER` when it is longer than `maxValueBytes` or not UTF-8.
    func value(_ relative: String) throws -> String? {
        let full = path + "/" + relative
        let fd: Int32
        switch _Syscalls.openForReading(full) {
        case .success(let opened): fd = opened
        case .failure(let e):
            if e.code == ENOENT || e.code == ENOTDIR || e.code == EISDIR { return nil }
            // A FIFO, device or socket is refused, never waited on (66, as a labels file's).
            if e.code == 0 { throw IngestError(.cannotOpen(reason: e.text, errno: 0), at: SourceLocation(file: display(relative))) }
            throw IngestError(.readFailed(reason: e.text, errno: e.code), at: SourceLocation(file: display(relative)))
        }
        defer { _Syscalls.close(fd) }
        if _Syscalls.describe(fd).isDirectory { return nil }
        let observed = try _ObservedRead.begin(observer, fd: fd, path: full, displayPath: display(relative))
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let result = buffer.withUnsafeMutableBytes { _Syscalls.read(fd, into: $0) }
            switch result {
            case .success(0):
                try observed?.finish()
                guard let text = String(validating: bytes, as: UTF8.self) else {
                    throw IngestError(.iioLayout(code: "E_BAD_NUMBER", problem: "the attribute is not UTF-8 text"),
                                      at: SourceLocation(file: display(relative)))
                }
                return IIOText.trimmed(text)
            case .success(let n):
                buffer.withUnsafeBytes { observed?.consume(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
                bytes += buffer[0..<n]
                if bytes.count > Self.maxValueBytes {
                    throw IngestError(.iioLayout(code: "E_BAD_NUMBER", problem: "the attribute is longer than \(Self.maxValueBytes) bytes, which no sysfs value is"),
                                      at: SourceLocation(file: display(relative)))
                }
            case .failure(let e):
                throw IngestError(.readFailed(reason: e.text, errno: e.code), at: SourceLocation(file: display(relative)))
            }
        }
    }
}

extension _Syscalls {
    /// `opendir`/`readdir`/`closedir`: the names in a folder, `.` and `..` excluded, unsorted.
    /// (Kept beside its only user, the IIO sysfs reader, rather than in `_Syscalls.swift`.)
    static func directoryEntries(_ path: String) -> Result<[String], Errno> {
        guard let dir = opendir(path) else { return .failure(Errno(errno)) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return .success(names)
    }
}
