import MotionDecompress
import MotionTestSupport
import Testing

/// The streaming decoders (docs/inputs.md, "Compressed files"): every format gives back its
/// bytes whatever the input and output pieces, concatenated streams are read whole, and a
/// stream that is cut short or damaged is an error at a byte offset, never a short text.
@Suite struct StreamDecoderTests {
    static let formats = CompressionFormat.allCases

    @Test(arguments: formats)
    func roundTripAtEveryPieceSize(_ format: CompressionFormat) throws {
        var g = SeededText(seed: 7)
        let text = g.csv(bytes: 200_000)
        let packed = Compressors.compress(text, format.rawValue)
        #expect(CompressionFormat.detect(packed) == format)
        // Input and output pieces of 1 byte up: a stream cut anywhere (headers, blocks,
        // checksums split across reads) decodes the same.
        for (inPiece, outPiece) in [(1, 7), (7, 1), (13, 4096), (4096, 13), (65_536, 65_536), (1 << 20, 1 << 20)] {
            let got = try StreamDecoder.decompress(packed, format: format, chunkBytes: inPiece, outputBytes: outPiece)
            #expect(got == text, "\(format) in \(inPiece) out \(outPiece)")
        }
    }

    @Test(arguments: formats)
    func emptyContent(_ format: CompressionFormat) throws {
        let packed = Compressors.compress([], format.rawValue)
        #expect(!packed.isEmpty)
        #expect(try StreamDecoder.decompress(packed, format: format, chunkBytes: 1, outputBytes: 1).isEmpty)
    }

    @Test(arguments: formats)
    func concatenatedStreamsAreReadWhole(_ format: CompressionFormat) throws {
        let a = Array("time,x\n1,2\n".utf8), b = Array("3,4\n5,6\n".utf8), c: [UInt8] = []
        let packed = Compressors.compress(a, format.rawValue) + Compressors.compress(c, format.rawValue) + Compressors.compress(b, format.rawValue)
        for piece in [1, 3, 1 << 16] {
            #expect(try StreamDecoder.decompress(packed, format: format, chunkBytes: piece, outputBytes: piece) == a + b,
                    "\(format) piece \(piece)")
        }
    }

    /// Cut at every length short of the whole: always an error at the file's end (or, where
    /// the cut leaves a damaged last block, a corruption at an offset within the file), never
    /// a text that ends early.
    @Test(arguments: formats)
    func truncatedAtEveryLength(_ format: CompressionFormat) throws {
        var g = SeededText(seed: 11)
        let text = g.csv(bytes: 3_000)
        let packed = Compressors.compress(text, format.rawValue)
        for cut in 0..<packed.count {
            let part = Array(packed[0..<cut])
            do {
                let got = try StreamDecoder.decompress(part, format: format, chunkBytes: 64, outputBytes: 256)
                Issue.record("\(format) cut at \(cut) of \(packed.count) gave \(got.count) bytes and no error")
            } catch let e as DecompressionError {
                #expect(e.format == format)
                #expect(e.byteOffset >= 0 && e.byteOffset <= cut, "\(format) cut \(cut): offset \(e.byteOffset)")
                if case .truncated(let start) = e.kind {
                    #expect(e.byteOffset == cut && start == 0, "\(format) cut \(cut)")
                    #expect(e.problem.contains("the file ends at byte \(cut)"))
                }
            }
        }
    }

    /// A file cut inside its second stream: truncated, naming where that stream starts.
    @Test(arguments: formats.filter { $0 != .xz })
    func truncatedSecondStreamNamesItsStart(_ format: CompressionFormat) throws {
        let first = Compressors.compress(Array("a,b\n1,2\n".utf8), format.rawValue)
        var g = SeededText(seed: 3)
        let second = Compressors.compress(g.csv(bytes: 5_000), format.rawValue)
        let part = first + second.prefix(second.count / 2)
        #expect(throws: DecompressionError(format, .truncated(streamStart: first.count), at: part.count)) {
            _ = try StreamDecoder.decompress(Array(part), format: format)
        }
    }

    /// A flipped byte in the data or in the trailer's checksum: an error (each fixture carries
    /// a CRC or a hash of its content, as the tools write them), at an offset within the file.
    @Test(arguments: formats)
    func corruptedBytesAreRefused(_ format: CompressionFormat) throws {
        var g = SeededText(seed: 5)
        let text = g.csv(bytes: 50_000)
        let packed = Compressors.compress(text, format.rawValue)
        for at in [packed.count / 3, packed.count / 2, packed.count - 2] {
            var bad = packed
            bad[at] ^= 0x55
            do {
                _ = try StreamDecoder.decompress(bad, format: format, chunkBytes: 4096, outputBytes: 4096)
                Issue.record("\(format) flip at \(at) of \(packed.count): no error")
            } catch let e as DecompressionError {
                // Where decoding stopped: not before the flipped byte (zstd names the start of
                // the 4 KiB it was decoding), not past the file.
                #expect(e.byteOffset <= packed.count && e.byteOffset + 4096 > at, "\(format) flip at \(at): \(e)")
                if case .corrupt = e.kind {} else if case .truncated = e.kind {} else { Issue.record("\(format) flip at \(at): \(e.kind)") }
                #expect(e.problem.contains("byte \(e.byteOffset)"))
            }
        }
    }

    @Test(arguments: formats)
    func trailingGarbageIsRefused(_ format: CompressionFormat) throws {
        let packed = Compressors.compress(Array("time,x\n1,2\n".utf8), format.rawValue)
        let bad = packed + Array("not compressed\n".utf8)
        #expect(throws: DecompressionError.self) {
            _ = try StreamDecoder.decompress(bad, format: format, chunkBytes: 5, outputBytes: 5)
        }
        do {
            _ = try StreamDecoder.decompress(bad, format: format)
        } catch let e as DecompressionError {
            if format != .xz {
                #expect(e == DecompressionError(format, .trailingData(afterStreams: 1), at: packed.count))
            }
        }
    }

    @Test func magicNumbers() {
        #expect(CompressionFormat.detect([0x1F, 0x8B, 0x08, 0]) == .gzip)
        #expect(CompressionFormat.detect([0x1F, 0x8B]) == nil)  // too short to be sure
        #expect(CompressionFormat.detect([0x28, 0xB5, 0x2F, 0xFD, 0]) == .zstd)
        #expect(CompressionFormat.detect([0x50, 0x2A, 0x4D, 0x18, 0, 0, 0, 0]) == .zstd)  // skippable frame
        #expect(CompressionFormat.detect([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00, 0]) == .xz)
        #expect(CompressionFormat.detect(Array("BZh91AY&SY".utf8)) == .bzip2)
        #expect(CompressionFormat.detect(Array("BZh1,2,3\n4,".utf8)) == nil)  // text that starts like bzip2
        #expect(CompressionFormat.detect(Array("time,x,y,z\n".utf8)) == nil)
        #expect(CompressionFormat.detect([UInt8]()) == nil)
    }

    /// A skippable zstd frame before the data (as some tools write metadata) is read past.
    @Test func zstdSkippableFrame() throws {
        let text = Array("time,x\n1,2\n".utf8)
        let skippable: [UInt8] = [0x5E, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 0xAA, 0xBB, 0xCC]
        #expect(try StreamDecoder.decompress(skippable + Compressors.zstd(text), format: .zstd, chunkBytes: 2, outputBytes: 3) == text)
    }
}
