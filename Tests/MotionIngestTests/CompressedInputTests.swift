import Foundation
import MotionCore
import MotionDecompress
import MotionTestSupport
import Testing
@testable import MotionIngest

/// Compressed text inputs (docs/inputs.md, "Compressed files"): every text reader, whole or in
/// blocks of any size, reads a gzip, zstd, xz or bzip2 file as it reads the plain text; the
/// observer hears the compressed bytes; errors name the decompressed text's line and column, a
/// cut or damaged stream its byte offset, and binary is refused before it is parsed.
@Suite struct CompressedInputTests {
    static let formats = CompressionFormat.allCases.map(\.rawValue)

    static let mcText: [UInt8] = Array(("Source,Label,When,X,Y,Z\n"
        + (0..<4000).map { "\($0 % 3 == 0 ? "G" : "A"),\($0 < 2000 ? "W" : "T"),\(1000 + Double($0) / 100),0.\($0 % 97),-0.2,\($0)\n" }.joined()).utf8)

    static let csvText: [UInt8] = Array(("time,x,y,z,label\n"
        + (0..<4000).map { "\(Double($0) / 50),\($0 % 13),-\($0 % 7).5,1e-3,\($0 < 1500 ? "sit" : "walk")\n" }.joined()).utf8)

    static let format = CSVFormat(delimiter: UInt8(ascii: ","), timeColumn: "time", timeUnit: .s,
                                  channels: ["x", "y", "z"].map { CSVFormat.Channel(name: $0, column: $0) }, labelColumn: "label")

    /// Reads a MotionCollector file to its end: in blocks of `blockBytes`, or whole (nil).
    static func readMotionCollector(_ path: String, blockBytes: Int?) throws {
        if let blockBytes {
            let reader = try MotionCollectorBlockReader(path: path, displayPath: "rec.csv.gz", units: .si, keep: nil,
                                                        blockBytes: blockBytes)
            while try reader.next() != nil {}
        } else {
            _ = try MotionCollectorReader.read(path: path, displayPath: "rec.csv.gz", units: .si, keep: nil)
        }
    }

    static func write(_ bytes: [UInt8], _ dir: TemporaryDirectory, _ name: String) throws -> String {
        let path = dir.path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Every block of a reader, concatenated stream by stream, as the whole reader gives them.
    static func streams(_ reader: IngestBlockReader) throws -> (streams: [String: RawStream], labels: [String]) {
        var out: [String: RawStream] = [:]
        var labels: [String] = []
        while let block = try reader.next() {
            for s in block.streams {
                if var have = out[s.name] {
                    have.times += s.times
                    have.lines += s.lines
                    for c in have.channels.indices { have.channels[c] += s.channels[c] }
                    out[s.name] = have
                } else {
                    out[s.name] = s
                }
            }
            labels += block.rowLabels.labels.map { block.rowLabels.names[Int($0)] }
        }
        return (out, labels)
    }

    @Test(arguments: formats)
    func motionCollectorReadsAsThePlainText(_ format: String) throws {
        let dir = try TemporaryDirectory(label: "compressed-mc")
        defer { dir.remove() }
        let plain = try MotionCollectorReader.read(chunks: [Self.mcText], displayPath: "rec.csv", units: .si, keep: nil)
        let path = try Self.write(Compressors.compress(Self.mcText, format), dir, "rec.csv.x")
        #expect(try MotionCollectorReader.read(path: path, displayPath: "rec.csv", units: .si, keep: nil) == plain)
        // Blocks much smaller than the 1 MiB decoding buffer, and of one byte: the decoded text
        // is cut anywhere, lines and compressed blocks straddle every boundary.
        for blockBytes in [1, 7, 4096, 1 << 20] {
            let reader = try MotionCollectorBlockReader(path: path, displayPath: "rec.csv", units: .si, keep: nil, blockBytes: blockBytes)
            let got = try Self.streams(reader)
            #expect(got.streams.count == plain.streams.count, "\(format) block \(blockBytes)")
            for s in plain.streams { #expect(got.streams[s.name] == s, "\(format) block \(blockBytes) stream \(s.name)") }
        }
    }

    @Test(arguments: formats)
    func csvReadsAsThePlainText(_ format: String) throws {
        let dir = try TemporaryDirectory(label: "compressed-csv")
        defer { dir.remove() }
        let plain = try CSVReader.read(chunks: [Self.csvText], displayPath: "rec.csv", format: Self.format, wideSensorName: "rec")
        let path = try Self.write(Compressors.compress(Self.csvText, format), dir, "rec.csv.gz")
        #expect(try CSVReader.read(path: path, displayPath: "rec.csv", format: Self.format, units: [:], unitSystem: .si,
                                   wideSensorName: "rec", keep: nil) == plain)
        for blockBytes in [3, 5000] {
            let reader = try CSVBlockReader(path: path, displayPath: "rec.csv", format: Self.format, units: [:], unitSystem: .si,
                                            wideSensorName: "rec", keep: nil, blockBytes: blockBytes)
            let got = try Self.streams(reader)
            #expect(got.streams["rec"] == plain.streams[0], "\(format) block \(blockBytes)")
        }
    }

    /// Concatenated streams (`cat a.gz b.gz`) are one text, as the tools read them.
    @Test(arguments: formats)
    func concatenatedStreamsAreOneText(_ format: String) throws {
        let dir = try TemporaryDirectory(label: "compressed-cat")
        defer { dir.remove() }
        let cut = Self.mcText.firstIndex(of: 0x0A)! + 1 + 10_000
        let packed = Compressors.compress(Array(Self.mcText[..<cut]), format) + Compressors.compress(Array(Self.mcText[cut...]), format)
        let path = try Self.write(packed, dir, "rec.csv.gz")
        let plain = try MotionCollectorReader.read(chunks: [Self.mcText], displayPath: "rec.csv", units: .si, keep: nil)
        #expect(try MotionCollectorReader.read(path: path, displayPath: "rec.csv", units: .si, keep: nil) == plain)
    }

    /// The observer (the provenance hash) hears the file as it is on disk.
    @Test(arguments: formats)
    func theObserverHearsTheCompressedBytes(_ format: String) throws {
        let dir = try TemporaryDirectory(label: "compressed-observed")
        defer { dir.remove() }
        let packed = Compressors.compress(Self.mcText, format)
        let path = try Self.write(packed, dir, "rec.csv.gz")
        for blocks in [false, true] {
            let heard = ObservedReadTests.Collector()
            if blocks {
                let reader = try MotionCollectorBlockReader(path: path, displayPath: path, units: .si, keep: nil, blockBytes: 100,
                                                            observer: heard)
                while try reader.next() != nil {}
            } else {
                _ = try MotionCollectorReader.read(path: path, displayPath: path, units: .si, keep: nil, observer: heard)
            }
            #expect(heard.bytes == packed && heard.finished == packed.count, "\(format) blocks \(blocks)")
        }
        let heard = ObservedReadTests.Collector()
        let csv = Compressors.compress(Array("recording,start_s,end_s,label\nr,0,1,walk\n".utf8), format)
        let labels = try Self.write(csv, dir, "labels.csv.gz")
        #expect(try WholeFile.read(path: labels, displayPath: "labels.csv.gz", observer: heard)
            == Array("recording,start_s,end_s,label\nr,0,1,walk\n".utf8))
        #expect(heard.bytes == csv)
    }

    /// An error in the text names its line and column there, as for the plain file.
    @Test(arguments: formats)
    func errorsNameTheDecompressedLine(_ format: String) throws {
        let dir = try TemporaryDirectory(label: "compressed-error")
        defer { dir.remove() }
        var text = Self.mcText
        text += Array("A,W,2000,0.5,x1,0.5\n".utf8)  // line 4002
        let path = try Self.write(Compressors.compress(text, format), dir, "rec.csv.gz")
        for blockBytes in [nil, 64] as [Int?] {
            let got = ingestErrorMessage { try Self.readMotionCollector(path, blockBytes: blockBytes) }
            #expect(got?.message.hasPrefix("rec.csv.gz:4002:14: `x1` is not a number") == true, "\(got?.message ?? "no error")")
            #expect(got?.status == .dataError)
        }
    }

    /// Cut short anywhere past its magic: an error naming the file and a byte offset (65), never
    /// a shorter recording; by the whole reader and the block reader.
    @Test(arguments: formats)
    func truncatedFilesAreErrors(_ format: String) throws {
        let dir = try TemporaryDirectory(label: "compressed-truncated")
        defer { dir.remove() }
        let packed = Compressors.compress(Self.mcText, format)
        for cut in [CompressionFormat.magicBytes, packed.count / 2, packed.count - 1] {
            let path = try Self.write(Array(packed[0..<cut]), dir, "rec.csv.gz")
            for blocks in [false, true] {
                let got = ingestErrorMessage {
                    if blocks {
                        let reader = try MotionCollectorBlockReader(path: path, displayPath: "rec.csv.gz", units: .si, keep: nil,
                                                                    blockBytes: 4096)
                        while try reader.next() != nil {}
                    } else {
                        _ = try MotionCollectorReader.read(path: path, displayPath: "rec.csv.gz", units: .si, keep: nil)
                    }
                }
                #expect(got?.status == .dataError, "\(format) cut \(cut)")
                let message = got?.message ?? ""
                #expect(message.hasPrefix("rec.csv.gz at byte "), "\(message)")
                #expect(message.contains("\(format) data"), "\(message)")
            }
        }
    }

    /// A damaged stream whose garbage fails to parse before the decoder notices (a stored gzip
    /// block: the flipped byte is text, the CRC at the end finds it) is reported as damaged.
    @Test func damageIsTheErrorNotItsGarbage() throws {
        let dir = try TemporaryDirectory(label: "compressed-damage")
        defer { dir.remove() }
        var packed = Compressors.gzip(Self.mcText, level: 0)
        let line = Array(Self.mcText).split(separator: 0x0A, omittingEmptySubsequences: false)
        // Line 11's When ("1000.09") becomes "x000.09": a parse error at 11:5 in the plain text.
        let offset = line[0..<10].reduce(0) { $0 + $1.count + 1 } + 4
        let at = packed.firstIndex(of: 0x0A)!  // the first line ends inside the stored block
        let textStart = at - (line[0].count)
        packed[textStart + offset] = UInt8(ascii: "x")
        let path = try Self.write(packed, dir, "rec.csv.gz")
        for blockBytes in [nil, 256] as [Int?] {
            let got = ingestErrorMessage { try Self.readMotionCollector(path, blockBytes: blockBytes) }
            #expect(got?.message.hasPrefix("rec.csv.gz at byte \(packed.count - 4): corrupt gzip data at byte \(packed.count - 4): incorrect data check") == true,
                    "\(got?.message ?? "no error")")
        }
        // The same bytes as plain text: the parser's error, at its line.
        let plain = try Self.write(Array(packed[textStart..<(textStart + Self.mcText.count)]), dir, "plain.csv")
        let got = ingestErrorMessage { _ = try MotionCollectorReader.read(path: plain, displayPath: "plain.csv", units: .si, keep: nil) }
        #expect(got?.message.hasPrefix("plain.csv:11:5: `x000.09` is not a number") == true, "\(got?.message ?? "")")
    }

    /// An empty text compressed is the plain empty file's error.
    @Test(arguments: formats)
    func emptyCompressedTextIsAnEmptyFile(_ format: String) throws {
        let dir = try TemporaryDirectory(label: "compressed-empty")
        defer { dir.remove() }
        let path = try Self.write(Compressors.compress([], format), dir, "rec.csv.gz")
        let got = ingestErrorMessage { _ = try MotionCollectorReader.read(path: path, displayPath: "rec.csv.gz", units: .si, keep: nil) }
        #expect(got?.message.hasPrefix("rec.csv.gz: the file is empty") == true, "\(got?.message ?? "no error")")
    }

    @Test func binaryIsRefusedWithWhatItLooksLike() throws {
        let dir = try TemporaryDirectory(label: "compressed-binary")
        defer { dir.remove() }
        var g = SeededGenerator(seed: 9)
        let random = (0..<5000).map { _ in UInt8.random(in: 0...255, using: &g) }
        let cases: [([UInt8], String)] = [
            (random, "binary, not text: its first bytes are \(random.prefix(12).map { String(format: "%02x", $0) }.joined(separator: " ")) …: "),
            ([0x50, 0x4B, 0x03, 0x04, 0x14, 0x00] + random, "binary, not text: its first bytes are 50 4b 03 04 14 00"),
            ([0x04, 0x22, 0x4D, 0x18] + random, "lz4 data"),
            ([0xFF, 0xFE] + Array("t\0,\0x\0\n\0".utf8), "UTF-16 text"),
            (Compressors.gzip(random), "binary, not text, once gzip-decompressed: its first bytes are"),
        ]
        for (bytes, expected) in cases {
            let path = try Self.write(bytes, dir, "rec.csv")
            for reader in ["mc", "csv", "blocks"] {
                let got = ingestErrorMessage {
                    switch reader {
                    case "mc": _ = try MotionCollectorReader.read(path: path, displayPath: "rec.csv", units: .si, keep: nil)
                    case "csv": _ = try CSVReader.read(path: path, displayPath: "rec.csv", format: Self.format, units: [:],
                                                       unitSystem: .si, wideSensorName: "rec", keep: nil)
                    default:
                        let r = try CSVBlockReader(path: path, displayPath: "rec.csv", format: Self.format, units: [:], unitSystem: .si,
                                                   wideSensorName: "rec", keep: nil, blockBytes: 16)
                        while try r.next() != nil {}
                    }
                }
                #expect(got?.status == .dataError)
                #expect(got?.message.hasPrefix("rec.csv: ") == true && got?.message.contains(expected) == true,
                        "\(reader): \(got?.message ?? "no error")")
            }
        }
    }

    /// Text with a few stray NUL or invalid bytes is still text: the parser names the line.
    @Test func strayBinaryBytesStayTheParsersErrors() throws {
        let dir = try TemporaryDirectory(label: "compressed-stray")
        defer { dir.remove() }
        let path = try Self.write(Array("Source,Label,When,X,Y,Z\nA,W,1,\0,2,3\n".utf8), dir, "rec.csv")
        let got = ingestErrorMessage { _ = try MotionCollectorReader.read(path: path, displayPath: "rec.csv", units: .si, keep: nil) }
        #expect(got?.message.hasPrefix("rec.csv:2:") == true, "\(got?.message ?? "")")
    }

    /// IIO dumps are binary: read as they are on disk, even when their first bytes are a magic.
    @Test func iioDumpsAreNotDecompressed() throws {
        let dir = try TemporaryDirectory(label: "compressed-iio")
        defer { dir.remove() }
        let packed = Compressors.gzip(Array(repeating: 7, count: 64))
        let path = try Self.write(packed, dir, "dump.bin")
        var bytes: [UInt8] = []
        try _ChunkedFile.withOpenFile(path: path, displayPath: "dump.bin", isText: false) { input, size in
            #expect(size == packed.count)
            try _ChunkedFile.forEachChunk(input, chunkBytes: 5) { bytes += $0 }
            #expect(input.format == nil)
        }
        #expect(bytes == packed)
    }

    /// `TextHead` gives the decompressed head, for init's and inspect's sniffing.
    @Test(arguments: formats)
    func textHeadIsTheText(_ format: String) throws {
        let dir = try TemporaryDirectory(label: "compressed-head")
        defer { dir.remove() }
        let path = try Self.write(Compressors.compress(Self.mcText, format), dir, "rec.csv.gz")
        #expect(TextHead.compression(ofFileAt: path) == format)
        #expect(try TextHead.read(path: path, displayPath: path, count: 100) == Array(Self.mcText.prefix(100)))
        #expect(try TextHead.read(path: path, displayPath: path, count: 10 << 20) == Self.mcText)
    }
}
