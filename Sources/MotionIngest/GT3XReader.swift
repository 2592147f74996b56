import MotionCore
import MotionDecompress

/// Everything read from one ActiGraph GT3X file (docs/inputs.md, "ActiGraph GT3X (gt3x)").
public struct GT3XFile: Sendable, Equatable {
    public var archive: GT3XFormat.Archive
    /// `acc` when kept; each sample's "line" is the 0-based index of its record in `log.bin`.
    public var streams: [RawStream]
    /// Samples of the activity records kept (`rows_read`).
    public var rowsRead: Int
    /// Records left out, by reason (`gt3x_bad_checksum`, …), and `gt3x_idle_sleep_filled`.
    public var rowsDropped: [String: Int]
    public var warnings: [String]
}

/// Reads ActiGraph `.gt3x` files: `acc` (acc_x, acc_y, acc_z; g, or m/s² under `units: si`).
public enum GT3XReader {
    /// The streams a GT3X input can keep.
    public static let sensors: [(name: String, channels: [(String, String)])] = [
        ("acc", [("acc_x", "g"), ("acc_y", "g"), ("acc_z", "g")]),
    ]

    /// Decodes a whole file held in memory (tests, the fuzz target), fed `chunkBytes` at a time;
    /// the same as the block reader's concatenated blocks. `sampleLimit`: stop (returning nil)
    /// once more samples than that are decoded (the fuzz target's bound on a hostile fill).
    public static func read(bytes: [UInt8], displayPath: String, keep: Set<String>, units: UnitSystem,
                            strict: Bool = false, zone: WallClockZone? = nil, chunkBytes: Int = 1 << 16,
                            sampleLimit: Int = .max) throws -> GT3XFile? {
        let archive = try GT3XFormat.archive(fileBytes: bytes.count, displayPath: displayPath) { offset, count in
            guard offset < bytes.count else { return [] }
            return Array(bytes[offset..<Swift.min(bytes.count, offset + count)])
        }
        var stream = try _GT3XZipStream(archive: archive, displayPath: displayPath, keep: keep, units: units, zone: zone)
        var at = 0
        let step = Swift.max(1, chunkBytes)
        var all: [RawStream] = []
        var count = 0
        func collect() throws {
            count += stream.decoder.times.count
            if count > sampleLimit { throw LimitReached() }
            for s in streams(&stream.decoder, units: units) {
                if all.isEmpty { all = [s]; continue }
                all[0].times += s.times
                for c in s.channels.indices { all[0].channels[c] += s.channels[c] }
                all[0].lines += s.lines
            }
        }
        do {
            try bytes.withUnsafeBytes { b in
                while at < b.count {
                    let end = Swift.min(b.count, at + step)
                    try stream.consume(UnsafeRawBufferPointer(rebasing: b[at..<end]))
                    at = end
                    while try stream.step(fileDone: false, strict: strict, fillLimit: step) { try collect() }
                    try collect()
                }
            }
            try stream.endOfFile()
            while try stream.step(fileDone: true, strict: strict, fillLimit: step) { try collect() }
            try collect()
            try requireData(stream.decoder)
        } catch is LimitReached {
            return nil
        }
        if all.isEmpty { all = streams(&stream.decoder, units: units) }
        return GT3XFile(archive: archive, streams: all, rowsRead: stream.decoder.samples,
                        rowsDropped: stream.decoder.rowsDropped, warnings: stream.warnings)
    }

    struct LimitReached: Error {}

    /// A file without one usable sample is an error (docs/inputs.md, "Empty files").
    static func requireData(_ d: _GT3XDecoder) throws {
        guard d.samples == 0 else { return }
        let dropped = d.rowsDropped.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        let why = dropped.isEmpty
            ? "`log.bin` has \(d.records) record\(d.records == 1 ? "" : "s") and no activity record"
            : "none of `log.bin`'s \(d.records) records has a sample that could be used (\(dropped))"
        throw IngestError(.gt3x(problem: "no data rows: \(why) (a file without data is an error unless `on_error: skip`)"),
                          at: SourceLocation(file: d.displayPath))
    }

    /// The samples decoded since the last call, as the kept streams.
    static func streams(_ d: inout _GT3XDecoder, units: UnitSystem) -> [RawStream] {
        var out: [RawStream] = []
        if d.keepAcc {
            let s = sensors[0]
            out.append(RawStream(name: s.name, channelNames: s.channels.map(\.0),
                                 channelUnits: s.channels.map { PhysicalUnit.conversion(from: $0.1, to: units).unit },
                                 times: d.times, channels: d.acc, lines: d.lines))
        }
        d.times = []; d.lines = []; d.acc = [[], [], []]
        return out
    }
}

/// The archive's bytes in file order → `log.bin`'s bytes (inflated, CRC-32 checked) → records.
struct _GT3XZipStream {
    let archive: GT3XFormat.Archive
    let displayPath: String
    var decoder: _GT3XDecoder
    private let inflater: RawInflater?
    private var fileOffset = 0
    private var crc: UInt32 = 0
    private var produced = 0
    private var out = [UInt8](repeating: 0, count: 1 << 18)
    private(set) var archiveWarnings: [String] = []

    init(archive: GT3XFormat.Archive, displayPath: String, keep: Set<String>, units: UnitSystem, zone: WallClockZone?) throws {
        self.archive = archive
        self.displayPath = displayPath
        decoder = _GT3XDecoder(displayPath: displayPath, info: archive.info, keep: keep, units: units, zone: zone)
        inflater = archive.log.method == 8 ? try RawInflater() : nil
    }

    var warnings: [String] { archiveWarnings + decoder.warnings }

    private mutating func feed(_ bytes: UnsafeRawBufferPointer) throws {
        crc = RawInflater.crc32(crc, bytes)
        produced += bytes.count
        try decoder.feed(bytes)
    }

    mutating func consume(_ chunk: UnsafeRawBufferPointer) throws {
        let start = fileOffset
        fileOffset += chunk.count
        let log = archive.log
        let lo = Swift.max(start, log.dataOffset), hi = Swift.min(fileOffset, log.dataOffset + log.compressedSize)
        guard lo < hi else { return }
        let piece = UnsafeRawBufferPointer(rebasing: chunk[(lo - start)..<(hi - start)])
        guard let inflater else { try feed(piece); return }
        var at = 0
        while !inflater.ended {
            let rest = UnsafeRawBufferPointer(rebasing: piece[at...])
            let (c, p): (Int, Int)
            do {
                (c, p) = try out.withUnsafeMutableBytes { try inflater.decode(rest, into: $0) }
            } catch let f as RawInflater.Failure {
                throw IngestError(.gt3x(problem: "`log.bin`'s compressed data is damaged at byte \(log.dataOffset + f.offset) (zlib: \(f.reason))"),
                                  at: SourceLocation(file: displayPath, byteOffset: log.dataOffset + f.offset))
            }
            at += c
            if p > 0 { try out.withUnsafeBytes { try feed(UnsafeRawBufferPointer(rebasing: $0[0..<p])) } }
            if (at == piece.count && p < out.count) || (c == 0 && p == 0) { break }
        }
    }

    /// One step of the work left once the file's bytes so far are fed: drain a pending fill,
    /// parse what waited behind one, and (with `fileDone`) end `log.bin`. True while there is more.
    mutating func step(fileDone: Bool, strict: Bool, fillLimit: Int) throws -> Bool {
        if decoder.fill != nil {
            decoder.drainFill(limit: fillLimit)
            return true
        }
        if decoder.stalled {
            try decoder.parse(atEnd: fileDone)
            return true
        }
        guard fileDone, !decoder.finished else { return false }
        try decoder.parse(atEnd: true)
        if decoder.fill != nil || decoder.stalled { return true }
        try decoder.finish(strict: strict)
        return decoder.fill != nil
    }

    /// The archive's checks at the end of the file: the deflate stream ended, the CRC-32 and size.
    mutating func endOfFile() throws {
        let log = archive.log
        if let inflater, !inflater.ended {
            throw IngestError(.gt3x(problem: "`log.bin`'s deflate stream does not end within its \(log.compressedSize) compressed bytes (the archive is damaged)"),
                              at: SourceLocation(file: displayPath, byteOffset: log.dataOffset + log.compressedSize))
        }
        if crc != log.crc32 || produced != log.size {
            archiveWarnings.append("\(displayPath): `log.bin` does not match the archive's CRC-32 or size for it (\(produced) bytes read, \(log.size) listed): the archive is damaged; each record was still checked against its own checksum")
        }
    }
}

/// Reads a GT3X file a block of the file at a time (docs/streaming.md): the archive's directory
/// and `info.txt` first (read from the file's end), then the file front to back, `log.bin`
/// inflated as it comes. Memory: the samples of about `blockBytes / 8` of file and one record.
public final class GT3XBlockReader: IngestBlockReader {
    private let file: _BlockFile
    private var stream: _GT3XZipStream
    private let units: UnitSystem
    private let strict: Bool
    private var done = false
    private var fileDone = false
    public private(set) var warnings: [String] = []
    public private(set) var rowsDropped: [String: Int] = [:]
    private var taken = 0
    public var archive: GT3XFormat.Archive { stream.archive }

    /// Opens `path` (`.cannotOpen`, 66) and reads its directory and `info.txt` (65 when they are
    /// not a GT3X file's). `keep`: the streams to give (`acc`).
    public init(path: String, displayPath: String, keep: Set<String>, units: UnitSystem, strict: Bool, blockBytes: Int,
                observer: (any FileReadObserver)? = nil, zone: WallClockZone? = nil) throws {
        let archive = try GT3XFormat.archive(path: path, displayPath: displayPath)
        stream = try _GT3XZipStream(archive: archive, displayPath: displayPath, keep: keep, units: units, zone: zone)
        self.units = units
        self.strict = strict
        // The file is compressed: a block of it holds several times its bytes of records.
        let block = Swift.max(1 << 16, blockBytes / 8)
        file = try _BlockFile(path: path, displayPath: displayPath, chunkBytes: Swift.min(1 << 20, block), blockBytes: block,
                              observer: observer, isText: false)
    }

    public func next() throws -> IngestBlock? {
        guard !done else { return nil }
        // A long idle-sleep fill comes out in blocks of about 2^16 samples.
        if try stream.step(fileDone: fileDone, strict: strict, fillLimit: 1 << 16) { return take() }
        if !fileDone {
            if try file.readBlock({ try stream.consume($0) }) { return take() }
            fileDone = true
            try stream.endOfFile()
            return take()
        }
        done = true
        try GT3XReader.requireData(stream.decoder)
        rowsDropped = stream.decoder.rowsDropped
        warnings = stream.warnings
        return take()
    }

    private func take() -> IngestBlock {
        let read = stream.decoder.samples - taken
        taken = stream.decoder.samples
        var block = IngestBlock(streams: GT3XReader.streams(&stream.decoder, units: units), rowLabels: LabelEvents(),
                                markers: LabelEvents(), rowsRead: read, bytesRead: file.bytesRead)
        block.added = stream.decoder.filledSpans
        stream.decoder.filledSpans = []
        return block
    }
}
