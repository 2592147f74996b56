import MotionCore

/// The Axivity AX3 / AX6 `.cwa` file format (docs/inputs.md, "Axivity CWA (cwa)"), as
/// OpenMovement publishes it (`Docs/ax3/cwa.h` and `Docs/ax3/ax3-technical.md` of
/// openmovementproject/openmovement): a 1024-byte header block, then 512-byte data blocks. Every
/// field is little-endian; this file reads them byte by byte, independent of the host.
public enum CWAFormat {
    /// Bytes of the header block at offset 0.
    public static let headerBytes = 1024
    /// Bytes of each data block (one disk sector).
    public static let blockBytes = 512
    /// Bytes of sample data in a block (offsets 30..<510).
    static let sampleDataBytes = 480

    /// The header block's fields motionprep uses.
    public struct Header: Sendable, Equatable {
        /// Byte 4: `0x64` for an AX6; `0x00`, `0xff` or `0x17` for an AX3.
        public var hardwareType: UInt8
        /// Bytes 5–6 (lower 16 bits) and 11–12 (upper 16 bits; `0xffff` read as 0).
        public var deviceID: UInt32
        /// Bytes 7–10.
        public var sessionID: UInt32
        /// Byte 36: the sampling-rate code the device was configured with.
        public var rateCode: UInt8
        /// Byte 35 (AX6): 0 or 0xff for the accelerometer alone, else the gyroscope's range code.
        public var sensorConfig: UInt8

        public init(hardwareType: UInt8, deviceID: UInt32, sessionID: UInt32, rateCode: UInt8, sensorConfig: UInt8 = 0) {
            self.hardwareType = hardwareType
            self.deviceID = deviceID
            self.sessionID = sessionID
            self.rateCode = rateCode
            self.sensorConfig = sensorConfig
        }

        /// `AX6` or `AX3`.
        public var model: String { hardwareType == 0x64 ? "AX6" : "AX3" }
        /// True for an AX6 configured to record its gyroscope.
        public var recordsGyro: Bool { hardwareType == 0x64 && sensorConfig != 0 && sensorConfig != 0xff }
        /// The configured rate, Hz: 3200 / 2^(15 − (code & 15)).
        public var rateHz: Double { 3200 / Double(1 << (15 - Int(rateCode & 0x0f))) }
    }

    /// Reads the header block (`bytes` at least its first 1024 bytes).
    ///
    /// - Throws: `IngestError.Kind.cwa` (65) at byte 0 when the file does not start with the
    ///   header's `MD`, at the file's length when it ends inside the header, and `.emptyFile`
    ///   for an empty file.
    public static func header(_ bytes: UnsafeRawBufferPointer, fileBytes: Int, displayPath: String) throws -> Header {
        if fileBytes == 0 {
            throw IngestError(.cwa(problem: "the file is empty (expected a 1024-byte header block starting `MD`, then 512-byte data blocks)"),
                              at: SourceLocation(file: displayPath, byteOffset: 0))
        }
        if bytes.count < 2 || bytes[0] != 0x4d || bytes[1] != 0x44 {
            let shown = bytes.prefix(8).map { hex($0) }.joined(separator: " ")
            throw IngestError(.cwa(problem: "not an Axivity CWA file: it starts with \(shown) (expected the header block's `MD`, 4d 44)"),
                              at: SourceLocation(file: displayPath, byteOffset: 0))
        }
        if bytes.count < headerBytes {
            throw IngestError(.cwa(problem: "the file ends at byte \(bytes.count), inside its 1024-byte header block (the file was cut short)"),
                              at: SourceLocation(file: displayPath, byteOffset: bytes.count))
        }
        var upper = u16(bytes, 11)
        if upper == 0xffff { upper = 0 }
        return Header(hardwareType: bytes[4], deviceID: UInt32(upper) << 16 | UInt32(u16(bytes, 5)),
                      sessionID: u32(bytes, 7), rateCode: bytes[36], sensorConfig: bytes[35])
    }

    /// Reads the header of the file at `path` (for `{device_id}` and `{session_id}` templates and
    /// `init`); errors as `header(_:fileBytes:displayPath:)`, and `.cannotOpen` (66).
    public static func header(path: String, displayPath: String) throws -> Header {
        var head: [UInt8] = []
        var size = 0
        try _ChunkedFile.withOpenFile(path: path, displayPath: displayPath, observer: nil, isText: false,
                                      chunkBytes: headerBytes) { input, fileSize in
            size = fileSize ?? 0
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: headerBytes, alignment: 8)
            defer { buffer.deallocate() }
            while head.count < headerBytes {
                let n = try input.read(into: buffer)
                if n == 0 { break }
                head += buffer[0..<Swift.min(n, headerBytes - head.count)]
            }
        }
        return try head.withUnsafeBytes { try header($0, fileBytes: Swift.max(size, head.count), displayPath: displayPath) }
    }

    /// Why a data block is not used; each is a reason of `rows_dropped`, counted in blocks.
    public enum BlockProblem: String, Error, Sendable, CaseIterable {
        /// The block does not start `AX` (another block type, or not a block at all).
        case notData = "cwa_not_data_block"
        /// The 16-bit word sum of the block is not zero.
        case badChecksum = "cwa_bad_checksum"
        /// The checksum holds, but a field is impossible: axes other than 3 or 6, a packing
        /// other than 0 (3 axes) or 2, more samples than fit, a rate code of 0, or a timestamp
        /// that is not a date (0 is "unknown").
        case badBlock = "cwa_bad_block"
        /// The block's sequence number equals the previous kept block's.
        case repeated = "cwa_repeated_block"
        /// The block's sequence number is below the previous kept block's, or its first
        /// sample's time is not after the previous kept block's last.
        case backwards = "cwa_backwards_block"
        /// The file ends with less than a whole 512-byte block.
        case partial = "cwa_partial_block"
    }

    /// One data block, decoded (values still raw integers).
    public struct Block: Sendable, Equatable {
        /// Offset 10: the block's sequence number (0 for the first block of a session).
        public var sequence: UInt32
        /// Offset 14: the packed timestamp as seconds since 1970-01-01T00:00:00 (read as UTC).
        public var wholeSeconds: Int64
        /// The fraction of a second of the timestamp, in 1/65536 s (offset 4 when its top bit
        /// is set: 15 bits, shifted left once), 0 without one.
        public var fraction: Int
        /// The index of the sample the timestamp is for (offset 26, with OpenMovement's
        /// backwards-compatible shift undone when the block has a fraction).
        public var anchorIndex: Int
        /// Offset 24: the rate code; the rate is 3200 / 2^(15 − (code & 15)) Hz.
        public var rateCode: UInt8
        /// Samples in the block (offset 28).
        public var count: Int
        /// 3 (accelerometer) or 6 (gyroscope then accelerometer).
        public var axes: Int
        /// Packing 0: 10-bit values with a 2-bit exponent in one 32-bit word per sample.
        public var packed: Bool
        /// g per unit of an accelerometer value: 1/256 packed, 1/2^(8+n) unpacked (n: top 3
        /// bits of offset 18).
        public var accelScale: Double
        /// deg/s per unit of a gyroscope value: (8000 / 2^n) / 32768, n the next 3 bits of
        /// offset 18 (2000 dps when n is 0).
        public var gyroScale: Double
        /// Offset 20, bottom 10 bits: the temperature sensor's raw value.
        public var temperatureRaw: Int
        /// Raw values, sample after sample: acc x y z (3 axes), or gyro x y z then acc x y z (6).
        public var values: [Int32]

        /// The nominal sampling rate of the block, Hz.
        public var frequency: Double { 3200 / Double(1 << (15 - Int(rateCode & 0x0f))) }
        /// The nominal sample period, s (exact: a power of two over 3200).
        public var period: Double { Double(1 << (15 - Int(rateCode & 0x0f))) / 3200 }
        /// The temperature, °C: raw × 75 / 256 − 50 (cwa.h).
        public var temperature: Double { Double(temperatureRaw) * 75 / 256 - 50 }
    }

    /// True when the block's 256 little-endian 16-bit words sum to 0 modulo 2^16.
    public static func checksumHolds(_ block: UnsafeRawBufferPointer) -> Bool {
        var sum: UInt16 = 0
        var i = 0
        while i + 1 < blockBytes {
            sum &+= u16(block, i)
            i += 2
        }
        return sum == 0
    }

    /// The checksum word (offset 510) that makes the block's word sum 0.
    public static func checksum(_ block: UnsafeRawBufferPointer) -> UInt16 {
        var sum: UInt16 = 0
        var i = 0
        while i + 1 < blockBytes - 2 {
            sum &+= u16(block, i)
            i += 2
        }
        return 0 &- sum
    }

    /// A packed timestamp (MSB) `YYYYYYMM MMDDDDDh hhhhmmmm mmssssss` (LSB), year from 2000, as
    /// seconds since 1970-01-01 read as UTC; nil when the fields are not a date and time.
    public static func seconds(packed v: UInt32) -> Int64? {
        let year = Int((v >> 26) & 0x3f) + 2000, month = Int((v >> 22) & 0x0f), day = Int((v >> 17) & 0x1f)
        let hour = Int((v >> 12) & 0x1f), minute = Int((v >> 6) & 0x3f), second = Int(v & 0x3f)
        guard (1...12).contains(month), day >= 1, day <= CSVTime.daysInMonth(year: year, month: month),
              hour < 24, minute < 60, second < 60 else { return nil }
        let days = CSVTime.daysFromCivil(year: year, month: month, day: day)
        return Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// Decodes the data block `b` (512 bytes), or says why it cannot be used.
    public static func decodeBlock(_ b: UnsafeRawBufferPointer) -> Result<Block, BlockProblem> {
        guard b.count >= blockBytes else { return .failure(.partial) }
        guard b[0] == 0x41, b[1] == 0x58 else { return .failure(.notData) }
        guard checksumHolds(b) else { return .failure(.badChecksum) }
        let axesBPS = b[25]
        let axes = Int(axesBPS >> 4), packing = Int(axesBPS & 0x0f)
        let bytesPerSample: Int
        switch (axes, packing) {
        case (3, 0): bytesPerSample = 4
        case (3, 2), (6, 2): bytesPerSample = 2 * axes
        default: return .failure(.badBlock)
        }
        let count = Int(u16(b, 28))
        let rateCode = b[24]
        guard count <= sampleDataBytes / bytesPerSample, rateCode != 0,
              let whole = seconds(packed: u32(b, 14)) else { return .failure(.badBlock) }
        let deviceFractional = u16(b, 4)
        var fraction = 0
        var anchor = Int(Int16(bitPattern: u16(b, 26)))
        if deviceFractional & 0x8000 != 0 {
            fraction = Int(deviceFractional & 0x7fff) << 1
            // Undo the shift the firmware applied for readers without the fraction: the whole
            // samples the fraction accounts for, at the integer rate the device models.
            let integerRate = 3200 / (1 << (15 - Int(rateCode & 0x0f)))
            anchor += (fraction * integerRate) >> 16
        }
        let lightScale = u16(b, 18)
        let accelScale = packing == 0 ? 1.0 / 256 : 1.0 / Double(1 << (8 + Int(lightScale >> 13)))
        let gyroCode = Int((lightScale >> 10) & 0x07)
        let gyroScale = (gyroCode == 0 ? 2000.0 : 8000.0 / Double(1 << gyroCode)) / 32768
        var values = [Int32](repeating: 0, count: count * axes)
        for i in 0..<count {
            let at = 30 + i * bytesPerSample
            if packing == 0 {
                let w = u32(b, at)
                let e = Int32(w >> 30)
                for axis in 0..<3 {
                    let ten = Int32((w >> (10 * UInt32(axis))) & 0x3ff)
                    values[i * 3 + axis] = (ten >= 512 ? ten - 1024 : ten) << e
                }
            } else {
                for axis in 0..<axes { values[i * axes + axis] = Int32(Int16(bitPattern: u16(b, at + 2 * axis))) }
            }
        }
        return .success(Block(sequence: u32(b, 10), wholeSeconds: whole, fraction: fraction, anchorIndex: anchor,
                              rateCode: rateCode, count: count, axes: axes, packed: packing == 0, accelScale: accelScale,
                              gyroScale: gyroScale, temperatureRaw: Int(u16(b, 20) & 0x3ff), values: values))
    }

    @inline(__always)
    static func u16(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt16 { UInt16(b[at]) | UInt16(b[at + 1]) << 8 }

    @inline(__always)
    static func u32(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }
}
