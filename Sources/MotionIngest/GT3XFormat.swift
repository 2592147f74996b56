import MotionCore
import MotionDecompress

/// The ActiGraph `.gt3x` file format (docs/inputs.md, "ActiGraph GT3X (gt3x)"), as ActiGraph
/// publishes it (README.md, info.txt.md and LogRecords/*.md of actigraph/GT3X-File-Format): a ZIP
/// archive holding `info.txt` (the device's serial number, sample rate and acceleration scale)
/// and `log.bin` (log records: separator 0x1E, type, Unix-second timestamp, payload size, payload,
/// a one-byte checksum). Every field is little-endian; this file reads them byte by byte.
///
/// The ZIP archive is read with zlib's raw inflate (`RawInflater`) and the small directory reader
/// below: the directory and `info.txt` first, then `log.bin` streamed as the file is read front
/// to back through the input ledger, so that every byte parsed is hashed once, in order.
public enum GT3XFormat {
    // MARK: - The ZIP archive

    /// One member of the archive, from its central-directory entry.
    public struct ZipEntry: Sendable, Equatable {
        public var name: String
        public var flags: UInt16
        /// 0: stored; 8: deflate.
        public var method: UInt16
        public var crc32: UInt32
        public var compressedSize: Int
        public var size: Int
        /// Where the member's local header starts in the file.
        public var localHeaderOffset: Int
        /// Where the member's data starts (after its local header), once the local header is read.
        public var dataOffset: Int = 0
    }

    /// What `info.txt` says (keys as ActiGraph names them).
    public struct Info: Sendable, Equatable {
        /// `Serial Number` (`{device_id}`); its prefix (NEO, CLE, MRA, MOS) names the device.
        public var serialNumber: String?
        /// `Sample Rate`, Hz.
        public var sampleRate: Int
        /// `Acceleration Scale`, LSB per g, when given.
        public var accelerationScale: Double?
        /// `TimeZone` as written (e.g. `-04:00:00`), when given; reported, not applied.
        public var timeZone: String?
        /// `Download Date`, in the records' seconds (the device's clock), when given as .NET ticks:
        /// the device recorded nothing after it. Bounds the idle-sleep fill (a damaged exit event
        /// far in the future would otherwise add samples without end).
        public var downloadSecond: Int64?

        public init(serialNumber: String?, sampleRate: Int, accelerationScale: Double?, timeZone: String? = nil,
                    downloadSecond: Int64? = nil) {
            self.serialNumber = serialNumber
            self.sampleRate = sampleRate
            self.accelerationScale = accelerationScale
            self.timeZone = timeZone
            self.downloadSecond = downloadSecond
        }

        /// Seconds since 1970 of .NET ticks (100 ns since 0001-01-01), the way `info.txt` writes
        /// its dates; nil for a value that is not such a count after 1970 (`Stop Date: 0`).
        static func epochSecond(ticks text: String) -> Int64? {
            guard let ticks = Int64(text), ticks > 621_355_968_000_000_000 else { return nil }
            return ticks / 10_000_000 - 62_135_596_800
        }

        /// The scale the serial number's prefix implies (LogRecords/Activity2.md): 341 LSB/g for
        /// NEO (GT3X+), CLE (wGT3X+) and MRA (ActiSleep+), 256 for MOS (wGT3X-BT, wActiSleep).
        public var scaleFromSerial: Double? {
            guard let s = serialNumber?.uppercased() else { return nil }
            if s.hasPrefix("NEO") || s.hasPrefix("CLE") || s.hasPrefix("MRA") { return 341 }
            if s.hasPrefix("MOS") { return 256 }
            return nil
        }
    }

    /// The archive's directory, its `info.txt`, and where `log.bin` is.
    public struct Archive: Sendable, Equatable {
        public var fileBytes: Int
        public var log: ZipEntry
        public var info: Info
    }

    /// The largest `info.txt` or `calibration.json` read (they are a few hundred bytes).
    static let smallMemberLimit = 1 << 20

    static func fail(_ problem: String, _ displayPath: String, at offset: Int) -> IngestError {
        IngestError(.gt3x(problem: problem), at: SourceLocation(file: displayPath, byteOffset: offset))
    }

    /// Reads the archive's directory, `info.txt` (and `calibration.json`, when present) through
    /// `read(offset, count)`, which returns up to `count` bytes of the file at `offset`.
    ///
    /// - Throws: `IngestError` `.gt3x` (65): not a ZIP archive (or cut short: its directory is at
    ///   its end), encrypted or ZIP64, a member compressed other than stored or deflate, no
    ///   `log.bin` or `info.txt`, an `info.txt` without a usable `Sample Rate`, or with an
    ///   `Acceleration Scale` that is not a positive number, and data the device did not calibrate.
    public static func archive(fileBytes: Int, displayPath: String, read: (Int, Int) throws -> [UInt8]) throws -> Archive {
        if fileBytes == 0 {
            throw fail("the file is empty (expected a ZIP archive holding `log.bin` and `info.txt`)", displayPath, at: 0)
        }
        let head = try read(0, 4)
        guard head.count == 4, head[0] == 0x50, head[1] == 0x4b, head[2] == 0x03, head[3] == 0x04 else {
            let shown = head.map { CWAFormat.hex($0) }.joined(separator: " ")
            throw fail("not an ActiGraph GT3X file: it starts with \(shown) (expected a ZIP archive's `PK`, 50 4b 03 04)", displayPath, at: 0)
        }
        // The end-of-central-directory record: 22 bytes and a comment of up to 65,535.
        let tailStart = Swift.max(0, fileBytes - 22 - 65_535)
        let tail = try read(tailStart, fileBytes - tailStart)
        var eocd: Int?
        var i = tail.count - 22
        while i >= 0 {
            if tail[i] == 0x50, tail[i + 1] == 0x4b, tail[i + 2] == 0x05, tail[i + 3] == 0x06 { eocd = i; break }
            i -= 1
        }
        guard let e = eocd else {
            throw fail("no ZIP end-of-central-directory record in the file's last \(tail.count) bytes (the file was cut short, or is not a ZIP archive)", displayPath, at: fileBytes)
        }
        let entries = Int(u16(tail, e + 10))
        let cdSize = Int(u32(tail, e + 12)), cdOffset = Int(u32(tail, e + 16))
        if u32(tail, e + 16) == 0xffff_ffff || u16(tail, e + 10) == 0xffff {
            throw fail("a ZIP64 archive (over 4 GiB or 65,535 members), which this reader does not read", displayPath, at: tailStart + e)
        }
        guard cdOffset + cdSize <= tailStart + e else {
            throw fail("the ZIP directory says it is at bytes \(cdOffset)..<\(cdOffset + cdSize), past its end record at byte \(tailStart + e) (the file is damaged or was cut short)", displayPath, at: tailStart + e)
        }
        let cd = try read(cdOffset, cdSize)
        var members: [ZipEntry] = []
        var at = 0
        for _ in 0..<entries {
            guard at + 46 <= cd.count, u32(cd, at) == 0x0201_4b50 else {
                throw fail("the ZIP directory entry at byte \(cdOffset + at) is damaged (no `PK 01 02` signature)", displayPath, at: cdOffset + at)
            }
            let nameLength = Int(u16(cd, at + 28)), extra = Int(u16(cd, at + 30)), comment = Int(u16(cd, at + 32))
            guard at + 46 + nameLength <= cd.count else {
                throw fail("the ZIP directory entry at byte \(cdOffset + at) is cut short", displayPath, at: cdOffset + at)
            }
            let name = String(decoding: cd[(at + 46)..<(at + 46 + nameLength)], as: UTF8.self)
            members.append(ZipEntry(name: name, flags: u16(cd, at + 8), method: u16(cd, at + 10), crc32: u32(cd, at + 16),
                                    compressedSize: Int(u32(cd, at + 20)), size: Int(u32(cd, at + 24)),
                                    localHeaderOffset: Int(u32(cd, at + 42))))
            at += 46 + nameLength + extra + comment
        }
        func member(_ name: String) throws -> ZipEntry? {
            guard var m = members.first(where: { $0.name == name }) else { return nil }
            if m.flags & 1 != 0 {
                throw fail("`\(name)` in the archive is encrypted (a GT3X file's members are not)", displayPath, at: m.localHeaderOffset)
            }
            guard m.method == 0 || m.method == 8 else {
                throw fail("`\(name)` in the archive is compressed with ZIP method \(m.method) (expected 0, stored, or 8, deflate)", displayPath, at: m.localHeaderOffset)
            }
            let local = try read(m.localHeaderOffset, 30)
            guard local.count == 30, u32(local, 0) == 0x0403_4b50 else {
                throw fail("the local header of `\(name)` at byte \(m.localHeaderOffset) is damaged (no `PK 03 04` signature)", displayPath, at: m.localHeaderOffset)
            }
            m.dataOffset = m.localHeaderOffset + 30 + Int(u16(local, 26)) + Int(u16(local, 28))
            guard m.dataOffset + m.compressedSize <= fileBytes else {
                throw fail("`\(name)`'s \(m.compressedSize) compressed bytes from byte \(m.dataOffset) run past the file's end at byte \(fileBytes) (the file was cut short)", displayPath, at: fileBytes)
            }
            return m
        }
        let names = members.map { "`\($0.name)`" }.joined(separator: ", ")
        guard let log = try member("log.bin") else {
            throw fail("the archive has no `log.bin` (its members: \(names.isEmpty ? "none" : names); a GT3X file from firmware 2.5 or earlier, with `activity.bin`, is the older NHANES format, which this reader does not read)", displayPath, at: cdOffset)
        }
        guard let infoEntry = try member("info.txt") else {
            throw fail("the archive has no `info.txt` (its members: \(names)); it gives the sample rate and acceleration scale", displayPath, at: cdOffset)
        }
        let infoText = try inflateSmall(infoEntry, displayPath: displayPath, read: read)
        let info = try parseInfo(infoText, displayPath: displayPath, at: infoEntry.localHeaderOffset)
        if let calibration = try member("calibration.json") {
            let text = String(decoding: try inflateSmall(calibration, displayPath: displayPath, read: read), as: UTF8.self)

            if calibrationSaysUncalibrated(text) {
                throw fail("`calibration.json` says the data is not calibrated (`isCalibrated: false`): its samples need ActiGraph's calibration, which this reader does not apply (only calibrated files are read)", displayPath, at: calibration.localHeaderOffset)
            }
        }
        return Archive(fileBytes: fileBytes, log: log, info: info)
    }

    /// True when the JSON text has `"isCalibrated"` set to `false`.
    static func calibrationSaysUncalibrated(_ text: String) -> Bool {
        let b = Array(text.utf8), key = Array("\"isCalibrated\"".utf8)
        guard b.count >= key.count else { return false }
        for i in 0...(b.count - key.count) where Array(b[i..<(i + key.count)]) == key {
            var j = i + key.count
            while j < b.count, [0x20, 0x09, 0x0a, 0x0d, 0x3a].contains(b[j]) { j += 1 }
            return Array(b[j..<Swift.min(b.count, j + 5)]) == Array("false".utf8)
        }
        return false
    }

    /// A small member's bytes, inflated and checked against its CRC-32.
    static func inflateSmall(_ m: ZipEntry, displayPath: String, read: (Int, Int) throws -> [UInt8]) throws -> [UInt8] {
        guard m.compressedSize <= smallMemberLimit, m.size <= smallMemberLimit else {
            throw fail("`\(m.name)` is \(m.size) bytes (over the \(smallMemberLimit) this reader takes for it)", displayPath, at: m.localHeaderOffset)
        }
        let raw = try read(m.dataOffset, m.compressedSize)
        var out: [UInt8]
        if m.method == 0 {
            out = raw
        } else {
            let inflater = try RawInflater()
            out = [UInt8](repeating: 0, count: m.size + 1)
            let n: Int
            do {
                n = try raw.withUnsafeBytes { r in try out.withUnsafeMutableBytes { try inflater.decode(r, into: $0).produced } }
            } catch let f as RawInflater.Failure {
                throw fail("`\(m.name)`'s compressed data is damaged (zlib: \(f.reason)) at byte \(m.dataOffset + f.offset)", displayPath, at: m.dataOffset + f.offset)
            }
            guard inflater.ended else {
                throw fail("`\(m.name)`'s compressed data ends before its deflate stream does (the archive is damaged)", displayPath, at: m.dataOffset + m.compressedSize)
            }
            out.removeLast(out.count - n)
        }
        let crc = out.withUnsafeBytes { RawInflater.crc32(0, $0) }
        guard crc == m.crc32, out.count == m.size else {
            throw fail("`\(m.name)` does not match the archive's CRC-32 and size for it (the archive is damaged)", displayPath, at: m.dataOffset)
        }
        return out
    }

    /// Parses `info.txt`: `Key: value` lines (a UTF-8 byte-order mark and CR line ends allowed).
    ///
    /// - Throws: `.gt3x` (65) naming `info.txt`'s line for a `Sample Rate` that is missing or not
    ///   a whole number of Hz from 1 to 10,000, and an `Acceleration Scale` that is not a positive
    ///   number.
    public static func parseInfo(_ bytes: [UInt8], displayPath: String, at offset: Int) throws -> Info {
        // Lines split on LF bytes (a CR LF pair is one Character in Swift's strings).
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        var rate: Int?
        var scale: Double?
        var serial: String?
        var zone: String?
        var download: Int64?
        for (n, rawBytes) in body.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let text = String(decoding: rawBytes.last == 0x0D ? rawBytes.dropLast() : rawBytes, as: UTF8.self)
            let line = text[...]
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].trimmingSpaces, value = String(line[line.index(after: colon)...].trimmingSpaces)
            let here = "`info.txt` line \(n + 1)"
            switch key {
            case "Serial Number": serial = value
            case "TimeZone": zone = value
            case "Download Date": download = Info.epochSecond(ticks: value)
            case "Sample Rate":
                guard let v = Double(value.replacingComma), v.isFinite, v == v.rounded(), v >= 1, v <= 10_000 else {
                    throw fail("\(here): `Sample Rate: \(value)` is not a sample rate (expected a whole number of Hz from 1 to 10000; ActiGraph devices record at 30 to 100 Hz)", displayPath, at: offset)
                }
                rate = Int(v)
            case "Acceleration Scale":
                guard let v = Double(value.replacingComma), v.isFinite, v > 0 else {
                    throw fail("\(here): `Acceleration Scale: \(value)` is not a scale (expected a positive number of LSB per g, such as 256 or 341)", displayPath, at: offset)
                }
                scale = v
            default: continue
            }
        }
        guard let rate else {
            throw fail("`info.txt` has no `Sample Rate` line (expected e.g. `Sample Rate: 30`: the samples per second of every activity record)", displayPath, at: offset)
        }
        return Info(serialNumber: serial, sampleRate: rate, accelerationScale: scale, timeZone: zone, downloadSecond: download)
    }

    /// Reads the archive of the file at `path` (for `{device_id}` templates, `init`, and before
    /// `log.bin` is streamed); errors as `archive(fileBytes:displayPath:read:)`, and `.cannotOpen` (66).
    public static func archive(path: String, displayPath: String) throws -> Archive {
        let fd: Int32
        switch _Syscalls.openForReading(path) {
        case .success(let opened): fd = opened
        case .failure(let e): throw IngestError(.cannotOpen(reason: e.text, errno: e.code), at: SourceLocation(file: displayPath))
        }
        defer { _Syscalls.close(fd) }
        let described = _Syscalls.describe(fd)
        if described.isDirectory {
            let e = _Syscalls.Errno.isDirectory
            throw IngestError(.cannotOpen(reason: e.text, errno: e.code), at: SourceLocation(file: displayPath))
        }
        guard let size = described.regularFileSize else {
            throw fail("not a regular file (a GT3X archive is read from its end, where the ZIP directory is)", displayPath, at: 0)
        }
        return try archive(fileBytes: size, displayPath: displayPath) { offset, count in
            var out = [UInt8](repeating: 0, count: Swift.max(0, count))
            let n = try out.withUnsafeMutableBytes { b -> Int in
                switch _Syscalls.pread(fd, into: b, at: offset) {
                case .success(let n): return n
                case .failure(let e):
                    throw IngestError(.readFailed(reason: e.text, errno: e.code), at: SourceLocation(file: displayPath, byteOffset: offset))
                }
            }
            out.removeLast(out.count - n)
            return out
        }
    }

    @inline(__always)
    static func u16<B: RandomAccessCollection>(_ b: B, _ at: Int) -> UInt16 where B.Element == UInt8, B.Index == Int {
        UInt16(b[b.startIndex + at]) | UInt16(b[b.startIndex + at + 1]) << 8
    }

    @inline(__always)
    static func u32<B: RandomAccessCollection>(_ b: B, _ at: Int) -> UInt32 where B.Element == UInt8, B.Index == Int {
        UInt32(u16(b, at)) | UInt32(u16(b, at + 2)) << 16
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return s
    }
}

extension String {
    /// `4,25` → `4.25` (info.txt is written with the PC's decimal separator).
    fileprivate var replacingComma: String { String(map { $0 == "," ? "." : $0 }) }
}
