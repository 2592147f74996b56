// libFuzzer target: IIOScanType.parse, IIOLayout and IIODecoder (docs/inputs.md, "IIO buffer dumps (iio)") on arbitrary bytes.
// Input: lines `INDEX TYPE` (one per channel; index `t` for the timestamp), an empty line, then
// the dump. The first byte picks strict, units, frequency and chunking.
import MotionCore
import MotionIngest

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIIO(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let control = input.byte()
    let rest = input.rest
    // Split at the first blank line ("\n\n"): layout text, then the dump.
    var split = rest.count
    if rest.count >= 2 {
        for i in 0..<(rest.count - 1) where rest[i] == 0x0A && rest[i + 1] == 0x0A { split = i; break }
    }
    let layoutText = String(decoding: rest[0..<split], as: UTF8.self)
    let dump = Array(rest[min(split + 2, rest.count)...])
    var channels: [IIOLayout.ChannelDeclaration] = []
    var timestamp: IIOLayout.ChannelDeclaration?
    for (n, line) in layoutText.split(separator: "\n", omittingEmptySubsequences: false).prefix(64).enumerated() {
        let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        let type = parts.count > 1 ? String(parts[1]) : String(line)
        // The parser on its own, on every line, whatever the layout does with it.
        do { _ = try IIOScanType.parse(type, channel: "in_ch\(n)", source: "fuzz") } catch { requireUserFacing(error) }
        if parts.first == "t" {
            timestamp = .init(name: "in_timestamp", index: 1000, type: type, typeSource: "fuzz:\(n + 1)")
        } else {
            let index = Int(parts.first ?? "") ?? n
            channels.append(.init(name: ["in_accel_x", "in_anglvel_y", "in_magn_z", "in_temp", "in_pressure"][n % 5] + "\(n)",
                                  index: index, type: type, scale: n % 3 == 0 ? nil : 0.5, offset: n % 2 == 0 ? nil : -3,
                                  typeSource: "fuzz:\(n + 1)"))
        }
    }
    do {
        let layout = try IIOLayout(channels: channels, timestamp: timestamp,
                                   samplingFrequencyHz: control & 0x01 != 0 ? Double(control) * 3.5 : nil,
                                   clock: nil, warnAboutClock: control & 0x02 != 0, source: "fuzz")
        _ = layout.channelNames
        _ = layout.channelUnits(.si)
        let decoded = try IIODecoder.decode(chunks: FuzzInput.chunks(dump, seed: control >> 3), displayPath: "fuzz.bin",
                                            layout: layout, units: control & 0x04 != 0 ? .native : .si,
                                            strict: control & 0x08 != 0, sensor: "imu")
        precondition(decoded.stream.channels.allSatisfy { $0.count == decoded.scans }, "fuzz: ragged dump")
        try IIODecoder.checkTimeOrder(decoded, displayPath: "fuzz.bin")
        _ = try TimeOrder.finalize(decoded.stream, sort: true, displayPath: "fuzz.bin")
    } catch {
        requireUserFacing(error)
    }
    return 0
}
