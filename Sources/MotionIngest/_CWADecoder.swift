import MotionCore

/// The streaming core of the CWA reader (docs/inputs.md, "Axivity CWA (cwa)"): bytes in, in
/// chunks of any size; the header, then each whole 512-byte block decoded, checked and turned into
/// samples. It holds one decoded block back: a block's sample times are interpolated towards the
/// next block's timestamp, so they are known once that block is read (or the file ends).
struct _CWADecoder {
    let displayPath: String
    let keepAcc: Bool, keepGyro: Bool, keepTemperature: Bool
    let accFactor: Double, gyroFactor: Double

    private(set) var header: CWAFormat.Header?
    private var headBytes: [UInt8] = []
    /// Bytes of a block cut by a chunk's end.
    private(set) var carry: [UInt8] = []
    private(set) var totalBytes = 0
    /// Data blocks seen (whole ones), good or bad.
    private(set) var blocks = 0
    /// Blocks left out, by reason, and the byte offset of the first of each.
    private(set) var dropped: [CWAFormat.BlockProblem: (count: Int, first: Int)] = [:]
    /// Temperature readings left out because the block has none (raw 0).
    private(set) var missingTemperature = 0

    /// The block read last that passed its checks, waiting for the next one's timestamp.
    private var pending: (block: CWAFormat.Block, index: Int)?
    private var lastSequence: UInt32?
    private var lastTime: Double?

    // Samples decoded since the caller last took them.
    var times: [Double] = []
    var acc: [[Double]] = [[], [], []]
    var gyro: [[Double]] = [[], [], []]
    var lines: [Int32] = []
    var temperatureTimes: [Double] = []
    var temperature: [Double] = []
    var temperatureLines: [Int32] = []
    /// Samples of kept blocks so far (`rows_read`).
    private(set) var samples = 0

    /// `time.zone` (docs/inputs.md, "Local wall time"): block timestamps are the device's local
    /// clock; nil: UTC.
    private var clock: WallClockFold?

    init(displayPath: String, keep: Set<String>, units: UnitSystem, zone: WallClockZone? = nil) {
        self.displayPath = displayPath
        self.clock = zone.map(WallClockFold.init)
        keepAcc = keep.contains("acc")
        keepGyro = keep.contains("gyro")
        keepTemperature = keep.contains("temperature")
        accFactor = PhysicalUnit.conversion(from: "g", to: units).factor
        gyroFactor = PhysicalUnit.conversion(from: "deg/s", to: units).factor
    }

    /// The byte offset where data block `index` starts.
    static func offset(ofBlock index: Int) -> Int { CWAFormat.headerBytes + index * CWAFormat.blockBytes }

    mutating func consume(_ chunk: UnsafeRawBufferPointer) throws {
        var rest = chunk[...]
        totalBytes += chunk.count
        if header == nil {
            let need = CWAFormat.headerBytes - headBytes.count
            headBytes += rest.prefix(need)
            rest = rest.dropFirst(need)
            // A file that is not CWA is refused on its first 8 bytes (shown in the message), before it is read on.
            let n = headBytes.count
            if n >= 8 && (headBytes[0] != 0x4d || headBytes[1] != 0x44) || n == CWAFormat.headerBytes {
                header = try headBytes.withUnsafeBytes { try CWAFormat.header($0, fileBytes: n, displayPath: displayPath) }
                headBytes = []
            }
            guard header != nil else { return }
        }
        let size = CWAFormat.blockBytes
        if !carry.isEmpty {
            let need = size - carry.count
            carry += rest.prefix(need)
            rest = rest.dropFirst(need)
            if carry.count < size { return }
            let block = carry
            carry = []
            try block.withUnsafeBytes { try take($0) }
        }
        let base = UnsafeRawBufferPointer(rebasing: rest)
        var at = 0
        while at + size <= base.count {
            try take(UnsafeRawBufferPointer(rebasing: base[at..<(at + size)]))
            at += size
        }
        carry += base[at...]
    }

    private mutating func drop(_ problem: CWAFormat.BlockProblem, index: Int) {
        let offset = Self.offset(ofBlock: index)
        if let d = dropped[problem] { dropped[problem] = (d.count + 1, d.first) } else { dropped[problem] = (1, offset) }
    }

    /// One whole data block.
    private mutating func take(_ bytes: UnsafeRawBufferPointer) throws {
        let index = blocks
        blocks += 1
        let block: CWAFormat.Block
        switch CWAFormat.decodeBlock(bytes) {
        case .failure(let problem): drop(problem, index: index); return
        case .success(var b):
            if clock != nil {
                // The block's whole seconds are local wall time: to UTC (the fraction is kept).
                b.wholeSeconds = Int64(clock!.utc(wall: Double(b.wholeSeconds), line: Self.offset(ofBlock: index)))
            }
            block = b
        }
        if keepGyro && block.axes < 6 {
            throw IngestError(.cwa(problem: "the input keeps `gyro`, but this block has no gyroscope (3 axes: an AX3, or an AX6 set to record the accelerometer only; keep `sensors: [acc]`)"),
                              at: SourceLocation(file: displayPath, byteOffset: Self.offset(ofBlock: index)))
        }
        if let last = lastSequence {
            if block.sequence == last { drop(.repeated, index: index); return }
            if block.sequence < last { drop(.backwards, index: index); return }
        }
        lastSequence = block.sequence
        if let p = pending { emit(p.block, index: p.index, next: block) }
        pending = (block, index)
    }

    /// Emits the held block, with times interpolated towards the next block (docs/inputs.md,
    /// "Axivity CWA (cwa)"): when `next` directly follows it (sequence + 1, same rate), the period
    /// is the time between the two blocks' timestamps over the samples between them, if within
    /// 10 % of the nominal period; otherwise (the last block, a break) the nominal period.
    private mutating func emit(_ b: CWAFormat.Block, index: Int, next: CWAFormat.Block?) {
        var period = b.period
        if let n = next, n.sequence == b.sequence &+ 1, n.rateCode & 0x0f == b.rateCode & 0x0f {
            let between = b.count - b.anchorIndex + n.anchorIndex
            if between > 0 {
                let dt = Double(n.wholeSeconds - b.wholeSeconds) + Double(n.fraction - b.fraction) / 65536
                let p = dt / Double(between)
                if p >= 0.9 * b.period && p <= 1.1 * b.period { period = p }
            }
        }
        guard b.count > 0 else { return }
        let whole = Double(b.wholeSeconds), fraction = Double(b.fraction) / 65536
        func time(_ i: Int) -> Double { whole + (fraction + Double(i - b.anchorIndex) * period) }
        let first = time(0)
        if let lastTime, first <= lastTime {
            drop(.backwards, index: index)
            return
        }
        lastTime = time(b.count - 1)
        samples += b.count
        let line = Int32(clamping: index)
        let axes = b.axes
        let accAt = axes == 6 ? 3 : 0
        for i in 0..<b.count {
            times.append(time(i))
            lines.append(line)
            if keepAcc {
                for a in 0..<3 { acc[a].append(Double(b.values[i * axes + accAt + a]) * b.accelScale * accFactor) }
            }
            if keepGyro {
                for a in 0..<3 { gyro[a].append(Double(b.values[i * axes + a]) * b.gyroScale * gyroFactor) }
            }
        }
        if keepTemperature {
            if b.temperatureRaw == 0 {
                missingTemperature += 1
            } else {
                temperatureTimes.append(first)
                temperature.append(b.temperature)
                temperatureLines.append(line)
            }
        }
    }

    /// Ends the file: the held block with the nominal period; a header cut short is an error;
    /// a partial last block is counted (`cwa_partial_block`), or an error under `strict`.
    mutating func finish(strict: Bool) throws {
        if header == nil {
            let n = headBytes.count
            _ = try headBytes.withUnsafeBytes { try CWAFormat.header($0, fileBytes: n, displayPath: displayPath) }
        }
        if let p = pending { emit(p.block, index: p.index, next: nil) }
        pending = nil
        if !carry.isEmpty {
            let at = Self.offset(ofBlock: blocks)
            if strict {
                throw IngestError(.cwa(problem: "the file ends with a partial block of \(carry.count) bytes (blocks are 512 bytes; the file was cut short; without `strict: true` the whole blocks are read and the tail is counted as `cwa_partial_block`)"),
                                  at: SourceLocation(file: displayPath, byteOffset: at))
            }
            dropped[.partial] = (1, at)
        }
    }

    /// `rows_dropped` of the file: blocks by reason, and `missing_value` for temperatures.
    var rowsDropped: [String: Int] {
        var out: [String: Int] = [:]
        for (problem, d) in dropped { out[problem.rawValue] = d.count }
        if missingTemperature > 0 { out["missing_value"] = missingTemperature }
        return out
    }

    /// One warning per reason a block was left out, in a fixed order, then the blocks whose local
    /// time the clocks went back or forward over (`time.zone`).
    var warnings: [String] {
        blockWarnings + (clock?.messages(file: displayPath, item: "block", at: "byte") ?? [])
    }

    private var blockWarnings: [String] {
        CWAFormat.BlockProblem.allCases.compactMap { problem in
            guard let d = dropped[problem] else { return nil }
            let what: String
            switch problem {
            case .notData: what = "not a data block: it does not start `AX`"
            case .badChecksum: what = "its checksum fails"
            case .badBlock: what = "impossible fields: axes, packing, sample count, rate code or timestamp"
            case .repeated: what = "the same sequence number as the block before"
            case .backwards: what = "back in sequence number or time"
            case .partial: return "\(displayPath): the file ends with a partial block of \(carry.count) bytes at byte \(d.first), dropped (\(problem.rawValue))"
            }
            return "\(displayPath): \(d.count) block\(d.count == 1 ? "" : "s") dropped (\(problem.rawValue): \(what)), the first at byte \(d.first)"
        }
    }
}
