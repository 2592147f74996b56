// libFuzzer target: CWAReader (docs/inputs.md, "Axivity CWA (cwa)") on arbitrary bytes, and
// CWAFormat.decodeBlock on every 512-byte slice. The first byte picks the kept streams, units,
// strict and the chunking; the rest is the file.
import MotionCore
import MotionIngest

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCWA(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let control = input.byte()
    let file = Array(input.rest)
    var keep: Set<String> = ["acc"]
    if control & 0x01 != 0 { keep.insert("gyro") }
    if control & 0x02 != 0 { keep.insert("temperature") }
    // Every whole block of the file on its own, whatever the reader makes of the file.
    var at = CWAFormat.headerBytes
    while at + CWAFormat.blockBytes <= file.count {
        let result = file[at..<(at + CWAFormat.blockBytes)].withUnsafeBytes { CWAFormat.decodeBlock($0) }
        if case .success(let block) = result {
            precondition(block.values.count == block.count * block.axes, "fuzz: ragged block")
        }
        at += CWAFormat.blockBytes
    }
    do {
        let decoded = try CWAReader.read(chunks: FuzzInput.chunks(file, seed: control >> 4), displayPath: "fuzz.cwa", keep: keep,
                                         units: control & 0x04 != 0 ? .native : .si, strict: control & 0x08 != 0)
        for s in decoded.streams {
            precondition(s.channels.allSatisfy { $0.count == s.times.count } && s.lines.count == s.times.count, "fuzz: ragged stream")
            // Kept blocks' times only increase (a block back in time is dropped).
            precondition(zip(s.times, s.times.dropFirst()).allSatisfy { $0 < $1 }, "fuzz: times not increasing")
        }
        // The same bytes in one chunk give the same file.
        let whole = try CWAReader.read(chunks: [file], displayPath: "fuzz.cwa", keep: keep,
                                       units: control & 0x04 != 0 ? .native : .si, strict: control & 0x08 != 0)
        precondition(whole == decoded, "fuzz: chunking changed the result")
    } catch {
        requireUserFacing(error)
    }
    return 0
}
