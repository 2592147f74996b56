import MotionCore
import MotionDecompress

/// Where every reader's file bytes come from (docs/inputs.md, "Compressed files"): an open
/// file read in chunks, and, for text inputs, decompressed on the way when its first bytes are
/// a gzip, zstd, xz or bzip2 magic number (`CompressionFormat.detect`; never the file's name).
///
/// The observer (the input ledger's hash and the check that the file did not change) hears the
/// bytes as they are on disk, compressed; the parsers see the text. A text input whose first
/// bytes look binary (`_BinaryText`) is refused before a parser sees them, and a compressed
/// stream that is cut short or damaged is an error at its byte offset in the file, never an
/// early end. Memory: two buffers of `chunkBytes` (the second only when compressed) and the
/// decoder's state; the decompressed text is never held whole.
final class _InputBytes {
    private let fd: Int32
    private let displayPath: String
    private let observed: _ObservedRead?
    private let isText: Bool
    /// Bytes read from the file (compressed, for a compressed file).
    private(set) var fileBytesRead = 0
    /// The compression found by the first read, or nil for a plain (or not yet read) file.
    private(set) var format: CompressionFormat?
    /// Bytes handed to the parser (decompressed).
    private(set) var textBytesRead = 0

    /// The file's bytes: the head (the first `_BinaryText.sniffBytes`), then, compressed, the
    /// undecoded input (grown to `chunkBytes` once the file is known to be compressed).
    private var raw: UnsafeMutableRawBufferPointer
    private let chunkBytes: Int
    private var rawStart = 0, rawEnd = 0
    /// Decoded bytes not yet handed out (compressed files only).
    private var decoded: UnsafeMutableRawBufferPointer?
    private var decodedStart = 0, decodedEnd = 0
    private var decoder: StreamDecoder?
    private var primed = false
    private var fileEnded = false
    private var textEnded = false
    /// Set once decoding threw: the decoder is not called again.
    private var decodeFailed = false
    /// Set while `damageBehind` reads on: the end of the file is not reported to the observer
    /// (the read failed; nothing is to be recorded as read).
    private var draining = false

    private let refusesBinary: Bool

    /// `isText`: detect compression and refuse binary (false for IIO dumps, read as they are);
    /// `refusesBinary` false keeps the detection but hands binary text out (for sniffing heads).
    init(fd: Int32, displayPath: String, observed: _ObservedRead?, chunkBytes: Int, isText: Bool, refusesBinary: Bool = true) {
        self.refusesBinary = refusesBinary
        self.fd = fd
        self.displayPath = displayPath
        self.observed = observed
        self.isText = isText
        self.chunkBytes = Swift.max(1, chunkBytes)
        // A binary input reads straight into the caller's buffer; a plain text one after its head.
        raw = .allocate(byteCount: isText ? _BinaryText.sniffBytes : 1, alignment: 64)
    }

    deinit {
        raw.deallocate()
        decoded?.deallocate()
    }

    /// Reads the file's first bytes and decides how it is read; later calls do nothing. After
    /// it, `format` is known. Throws a plain binary file's refusal.
    func prime() throws {
        guard !primed else { return }
        primed = true
        guard isText else { return }
        // At least enough bytes for the magic numbers and the binary check (reads of a regular
        // file return them at once; a short read is repeated).
        while rawEnd < _BinaryText.sniffBytes {
            let n = try readFile(into: UnsafeMutableRawBufferPointer(rebasing: raw[rawEnd...]))
            if n == 0 { break }
            rawEnd += n
        }
        let head = UnsafeRawBufferPointer(rebasing: raw[0..<rawEnd])
        if let found = CompressionFormat.detect(head) {
            format = found
            do { decoder = try StreamDecoder(found) } catch let e as DecompressionError { throw error(e) }
            // Reads of `chunkBytes` of the compressed file, decoded into as much.
            let input = UnsafeMutableRawBufferPointer.allocate(byteCount: Swift.max(chunkBytes, raw.count), alignment: 64)
            input.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[0..<rawEnd]))
            raw.deallocate()
            raw = input
            decoded = .allocate(byteCount: Swift.max(chunkBytes, _BinaryText.sniffBytes), alignment: 64)
            // The first decoded bytes must be text too.
            try fillDecoded(atLeast: _BinaryText.sniffBytes)
            let text = UnsafeRawBufferPointer(rebasing: decoded![decodedStart..<decodedEnd])
            if refusesBinary, let looks = _BinaryText.binaryDescription(text, isWholeText: textEnded) {
                throw IngestError(.binaryNotText(description: looks, compression: found.rawValue), at: SourceLocation(file: displayPath))
            }
        } else if refusesBinary, let looks = _BinaryText.binaryDescription(head, isWholeText: fileEnded) {
            throw IngestError(.binaryNotText(description: looks, compression: nil), at: SourceLocation(file: displayPath))
        }
    }

    /// Reads the next bytes of text (or of the file, for a binary input) into `buffer`: the count,
    /// 0 at the end (after the observer's end-of-file check and, compressed, the check that the
    /// last stream ended).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try prime()
        guard !buffer.isEmpty else { return 0 }
        if let decoded {
            if decodedStart == decodedEnd {
                decodedStart = 0
                decodedEnd = 0
                try fillDecoded(atLeast: 1)
            }
            let n = Swift.min(buffer.count, decodedEnd - decodedStart)
            if n > 0 {
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: decoded[decodedStart..<(decodedStart + n)]))
            }
            decodedStart += n
            textBytesRead += n
            return n
        }
        // Plain: the head first, then straight from the file.
        if rawStart < rawEnd {
            let n = Swift.min(buffer.count, rawEnd - rawStart)
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[rawStart..<(rawStart + n)]))
            rawStart += n
            textBytesRead += n
            return n
        }
        if fileEnded { return 0 }
        let n = try readFile(into: buffer)
        textBytesRead += n
        return n
    }

    /// One `read(2)` of the file, heard by the observer; at the end of the file, the observer's
    /// check that it did not change.
    private func readFile(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard !fileEnded else { return 0 }
        switch _Syscalls.read(fd, into: buffer) {
        case .success(0):
            fileEnded = true
            if !draining { try observed?.finish() }
            return 0
        case .success(let n):
            fileBytesRead += n
            observed?.consume(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            return n
        case .failure(let e):
            throw IngestError(.readFailed(reason: e.text, errno: e.code), at: SourceLocation(file: displayPath))
        }
    }

    /// Decodes into `decoded` (after `decodedEnd`) until it holds `atLeast` bytes or the text
    /// ends; at the end, checks that the last stream ended.
    private func fillDecoded(atLeast: Int) throws {
        guard let decoder, let decoded else { return }
        while decodedEnd - decodedStart < atLeast && !textEnded && decodedEnd < decoded.count {
            let input = UnsafeRawBufferPointer(rebasing: raw[rawStart..<rawEnd])
            let out = UnsafeMutableRawBufferPointer(rebasing: decoded[decodedEnd...])
            let r: (consumed: Int, produced: Int)
            do {
                r = try decoder.decode(input, into: out, atEnd: fileEnded)
            } catch let e as DecompressionError {
                // A file rewritten while it is read is reported as such, not as its bad bytes.
                if let changed = observed?.changeSinceOpen(atEnd: false) { throw changed }
                throw error(e)
            }
            rawStart += r.consumed
            decodedEnd += r.produced
            if r.produced > 0 || (r.consumed > 0 && rawStart < rawEnd) { continue }
            if rawStart < rawEnd && r.consumed == 0 {
                // Input left and no progress with room to write: the data cannot be decoded.
                throw error(DecompressionError(decoder.format, .corrupt(reason: "the decoder makes no progress"), at: decoder.bytesIn))
            }
            // All input consumed.
            if fileEnded {
                do { try decoder.finish() } catch let e as DecompressionError {
                    if let changed = observed?.changeSinceOpen(atEnd: false) { throw changed }
                    throw error(e)
                }
                textEnded = true
                return
            }
            rawStart = 0
            rawEnd = try readFile(into: raw)
        }
    }

    /// The most compressed bytes `damageBehind` reads past a parse error.
    static let damageLookaheadBytes = 64 << 20

    /// After a parse error in a compressed file: whether its stream is damaged a little further
    /// on (decoding on, at most `damageLookaheadBytes` more of the file, the text discarded).
    /// Garbage decoded from a damaged stream often fails to parse before the decoder notices
    /// (a CRC at the member's end): the damage is then the error to report, not the garbage.
    func damageBehind() -> IngestError? {
        guard let decoded, !textEnded, !decodeFailed else { return nil }
        let limit = fileBytesRead + Self.damageLookaheadBytes
        draining = true
        while !textEnded && fileBytesRead <= limit {
            decodedStart = 0
            decodedEnd = 0
            do {
                try fillDecoded(atLeast: decoded.count)
            } catch let e as IngestError {
                if case .decompression = e.kind { return e }
                return nil
            } catch {
                return nil
            }
        }
        return nil
    }

    private func error(_ e: DecompressionError) -> IngestError {
        decodeFailed = true
        return IngestError(.decompression(problem: e.problem), at: SourceLocation(file: displayPath, byteOffset: e.byteOffset))
    }
}
