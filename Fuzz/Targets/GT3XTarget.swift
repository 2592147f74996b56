// libFuzzer target: GT3XReader (docs/inputs.md, "ActiGraph GT3X (gt3x)") on arbitrary bytes, and
// the record decoders on the same bytes. The first byte picks units, strict and the chunking;
// the second, whether the rest is wrapped as `log.bin` in a stored ZIP archive with a valid
// `info.txt` (so that the record parser is reached) or taken as the whole file (the archive reader).
import MotionCore
import MotionIngest

/// A stored ZIP archive of `info.txt` and `log.bin` (CRC-32 left 0: the reader warns, and reads on).
func fuzzArchive(_ log: [UInt8], rate: UInt8) -> [UInt8] {
    let info = Array("Serial Number: MOS2F\nSample Rate: \([1, 2, 30, 100][Int(rate % 4)])\n".utf8)
    func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8 & 0xff)] }
    func le32(_ v: Int) -> [UInt8] { le16(v & 0xffff) + le16(v >> 16 & 0xffff) }
    var out: [UInt8] = [], cd: [UInt8] = []
    for (name, data) in [("info.txt", info), ("log.bin", log)] {
        let n = Array(name.utf8), offset = out.count
        let crc = name == "info.txt" ? fuzzCRC(data) : 0
        let common = le16(20) + le16(0) + le16(0) + le16(0) + le16(0x21) + le32(Int(crc)) + le32(data.count) + le32(data.count) + le16(n.count) + le16(0)
        out += le32(0x0403_4b50) + common + n + data
        cd += le32(0x0201_4b50) + le16(20) + common + le16(0) + le16(0) + le16(0) + le32(0) + le32(offset) + n
    }
    let at = out.count
    return out + cd + le32(0x0605_4b50) + le16(0) + le16(0) + le16(2) + le16(2) + le32(cd.count) + le32(at) + le16(0)
}

func fuzzCRC(_ d: [UInt8]) -> UInt32 {
    var c: UInt32 = 0xffff_ffff
    for b in d { c ^= UInt32(b); for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0xEDB8_8320 : c >> 1 } }
    return ~c
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGT3X(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let control = input.byte(), wrap = input.byte()
    let rest = Array(input.rest)
    _ = rest.withUnsafeBytes { GT3XFormat.decodeActivity($0) }
    _ = rest.withUnsafeBytes { GT3XFormat.decodeActivity2($0) }
    _ = rest.withUnsafeBytes { GT3XFormat.parameters($0) }
    let file = wrap & 1 != 0 ? fuzzArchive(rest, rate: wrap >> 1) : rest
    let units: UnitSystem = control & 0x04 != 0 ? .native : .si
    let strict = control & 0x08 != 0
    // A hostile idle-sleep exit far in the future would fill billions of samples: bounded here.
    let limit = 1 << 20
    do {
        let chunked = try GT3XReader.read(bytes: file, displayPath: "fuzz.gt3x", keep: ["acc"], units: units, strict: strict,
                                          chunkBytes: Int(control >> 4) * 37 + 1, sampleLimit: limit)
        let whole = try GT3XReader.read(bytes: file, displayPath: "fuzz.gt3x", keep: ["acc"], units: units, strict: strict,
                                        chunkBytes: 1 << 20, sampleLimit: limit)
        if let chunked, let whole {
            for s in chunked.streams {
                precondition(s.channels.allSatisfy { $0.count == s.times.count } && s.lines.count == s.times.count, "fuzz: ragged stream")
                precondition(zip(s.times, s.times.dropFirst()).allSatisfy { $0 < $1 }, "fuzz: times not increasing")
            }
            precondition(whole == chunked, "fuzz: chunking changed the result")
        }
    } catch {
        requireUserFacing(error)
    }
    return 0
}
