// libFuzzer target: MotionCollectorReader (docs/inputs.md, "MotionCollector" and "Bad rows and time order") then TimeOrder, on arbitrary bytes.
// The first byte picks units, kept sensors, sort and chunking; the rest is the file.
import MotionCore
import MotionIngest

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMotionCollector(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let control = input.byte()
    let payload = input.rest
    let keep: Set<String>? = control & 0x01 != 0 ? ["A", "D"] : nil
    do {
        _ = MotionCollectorReader.sniff(Array(payload.prefix(256)))
        let file = try MotionCollectorReader.read(chunks: FuzzInput.chunks(payload, seed: control >> 2),
                                                  displayPath: "fuzz.csv", units: control & 0x02 != 0 ? .native : .si, keep: keep)
        for raw in file.streams {
            precondition(raw.channels.allSatisfy { $0.count == raw.count }, "fuzz: ragged stream")
            _ = try TimeOrder.finalize(raw, sort: control & 0x80 != 0, displayPath: "fuzz.csv")
        }
        _ = file.rowLabels.track()
        _ = file.markers.track()
    } catch {
        requireUserFacing(error)
    }
    return 0
}
