import MotionCore
import MotionDecompress

extension GT3XFormat {
    // MARK: - log.bin records

    /// Record types this reader uses (README.md, "Log Record Types").
    public enum RecordType: UInt8, Sendable {
        /// 12-bit samples packed y, x, z; a 1-byte payload is a USB connection event.
        case activity = 0x00
        /// Payload 0x08: idle sleep mode starts; 0x09: it ends.
        case event = 0x03
        /// Key/value pairs: SAMPLE_RATE, ACCEL_SCALE, FEATURE_ENABLE (LogRecords/Parameters.md).
        case parameters = 0x15
        /// int16 x, y, z; a 1-byte payload is a USB connection event.
        case activity2 = 0x1A
    }

    /// Bytes of a record header: separator, type, timestamp (4), payload size (2).
    public static let headerBytes = 8

    /// The checksum byte of a record: the one's complement of the XOR of its header and payload
    /// bytes (README.md, "Checksum Calculation"). `record` is the header and payload.
    public static func checksum(_ record: UnsafeRawBufferPointer) -> UInt8 {
        var x: UInt8 = 0
        for b in record { x ^= b }
        return ~x
    }

    /// Why a record is not used; each is a reason of `rows_dropped`, counted in records.
    public enum RecordProblem: String, Error, Sendable, CaseIterable {
        /// The checksum byte does not match the record's bytes.
        case badChecksum = "gt3x_bad_checksum"
        /// An activity record whose payload is not whole samples, or holds more samples than the
        /// sample rate (a record is one second).
        case badRecord = "gt3x_bad_record"
        /// An activity record with the same second as the previous kept one.
        case repeated = "gt3x_repeated_record"
        /// An activity record with an earlier second than the previous kept one.
        case backwards = "gt3x_backwards_record"
        /// Bytes that are not a record (neither a separator nor the zero padding the format
        /// allows between records), skipped to the next record whose checksum holds; counted in
        /// stretches of such bytes.
        case unreadable = "gt3x_unreadable_bytes"
        /// `log.bin` ends inside a record.
        case partial = "gt3x_partial_record"
    }

    /// `rows_dropped`'s entry for the samples idle sleep mode added: not dropped, added, shown
    /// with the counts so that a filled stretch is never taken for a measured one.
    public static let idleSleepFilled = "gt3x_idle_sleep_filled"

    /// Decodes an ACTIVITY payload: 12-bit two's-complement values, most significant bit first,
    /// in y, x, z order; a final half byte is padding. Returns x, y, z per sample.
    public static func decodeActivity(_ p: UnsafeRawBufferPointer) -> [Int32] {
        let samples = p.count * 8 / 36
        var out = [Int32](repeating: 0, count: samples * 3)
        var bit = 0
        func next() -> Int32 {
            let byte = bit >> 3
            let v: Int
            if bit & 7 == 0 {
                v = Int(p[byte]) << 4 | Int(p[byte + 1]) >> 4
            } else {
                v = Int(p[byte] & 0x0f) << 8 | Int(p[byte + 1])
            }
            bit += 12
            return Int32(v >= 2048 ? v - 4096 : v)
        }
        for i in 0..<samples {
            let y = next(), x = next(), z = next()
            out[i * 3] = x
            out[i * 3 + 1] = y
            out[i * 3 + 2] = z
        }
        return out
    }

    /// Decodes an ACTIVITY2 payload: int16 little-endian x, y, z per sample.
    public static func decodeActivity2(_ p: UnsafeRawBufferPointer) -> [Int32] {
        let n = p.count / 2
        var out = [Int32](repeating: 0, count: n - n % 3)
        for i in out.indices { out[i] = Int32(Int16(bitPattern: UInt16(p[2 * i]) | UInt16(p[2 * i + 1]) << 8)) }
        return out
    }

    /// The SSP float of a PARAMETERS value (LogRecords/Parameters.md): a 24-bit two's-complement
    /// significand over 2^23 times 2 to an 8-bit two's-complement exponent.
    public static func sspFloat(_ v: UInt32) -> Double {
        if v == 0x007f_ffff { return .greatestFiniteMagnitude }
        if v == 0x0080_0000 { return -.greatestFiniteMagnitude }
        let exponent = Int(Int8(bitPattern: UInt8(v >> 24)))
        var significand = Int32(bitPattern: v & 0x00ff_ffff)
        if significand & 0x0080_0000 != 0 { significand |= Int32(bitPattern: 0xff00_0000) }
        return Double(significand) / 8_388_608 * pow2(exponent)
    }

    static func pow2(_ e: Int) -> Double {
        var r = 1.0
        if e >= 0 { for _ in 0..<e { r *= 2 } } else { for _ in 0..<(-e) { r /= 2 } }
        return r
    }

    /// What a PARAMETERS payload says: SAMPLE_RATE (address space 1, id 10), ACCEL_SCALE (0, 55),
    /// and whether FEATURE_ENABLE (1, 2) turns sleep mode (bit 2) on.
    public static func parameters(_ p: UnsafeRawBufferPointer) -> (sampleRate: Int?, accelScale: Double?, sleepMode: Bool?) {
        var rate: Int?, scale: Double?, sleep: Bool?
        var at = 0
        while at + 8 <= p.count {
            let space = u16(p, at), id = u16(p, at + 2), value = u32(p, at + 4)
            switch (space, id) {
            case (1, 10): rate = Int(value)
            case (0, 55): scale = sspFloat(value)
            case (1, 2): sleep = value & 4 != 0
            default: break
            }
            at += 8
        }
        return (rate, scale, sleep)
    }
}
