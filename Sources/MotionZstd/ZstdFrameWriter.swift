import CZstd
import MotionCore

/// Streams one zstd frame whose content size is known up front, so that a large archive can be
/// compressed without ever holding it whole.
///
/// Wraps `ZSTD_CCtx_setPledgedSrcSize` and `ZSTD_compressStream2`. The frame records the pledged
/// content size and a checksum; libzstd fails the frame if the bytes fed differ from the pledge.
/// Feeding the same bytes in the same pieces always gives the same output.
///
///     let writer = try ZstdFrameWriter(level: 3, contentSize: 1024) { chunk in try file.write(chunk) }
///     try writer.write(part1); try writer.write(part2)
///     try writer.finish()
public final class ZstdFrameWriter {
    private let compressor: _ZstdCompressor
    private let output: (UnsafeRawBufferPointer) throws -> Void
    private var outBuffer: [UInt8]
    private let pledged: UInt64
    private var fed: UInt64 = 0
    private var finished = false

    /// Starts a frame.
    /// - Parameters:
    ///   - level: zstd compression level.
    ///   - contentSize: the exact number of bytes that `write` will be given in total.
    ///   - output: receives compressed bytes in order; the buffer is only valid during the call.
    /// - Throws: `MotionError(.ioError)` when libzstd rejects a parameter.
    public init(level: Int, contentSize: Int, output: @escaping (UnsafeRawBufferPointer) throws -> Void) throws {
        precondition(contentSize >= 0, "ZstdFrameWriter: negative content size \(contentSize)")
        compressor = try _ZstdCompressor(level: level)
        pledged = UInt64(contentSize)
        try _ZstdCompressor.check(ZSTD_CCtx_setPledgedSrcSize(compressor.pointer, pledged),
                                  "ZSTD_CCtx_setPledgedSrcSize", "pledging \(contentSize) bytes")
        outBuffer = [UInt8](repeating: 0, count: ZSTD_CStreamOutSize())
        self.output = output
    }

    /// Compresses the next piece of content.
    /// - Throws: `MotionError(.ioError)` from libzstd (for example more bytes than pledged) or
    ///   whatever `output` throws.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        precondition(!finished, "ZstdFrameWriter.write after finish")
        guard bytes.count > 0 else { return }
        fed += UInt64(bytes.count)
        if fed > pledged {
            throw MotionError(.ioError, "a zstd frame was given \(fed) bytes but \(pledged) were pledged")
        }
        var input = ZSTD_inBuffer(src: bytes.baseAddress, size: bytes.count, pos: 0)
        while input.pos < input.size {
            try step(&input, ZSTD_e_continue)
        }
    }

    /// Compresses the next piece of content.
    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Ends the frame (writing the checksum) and flushes everything to `output`.
    /// - Throws: `MotionError(.ioError)` when fewer bytes were fed than pledged.
    public func finish() throws {
        precondition(!finished, "ZstdFrameWriter.finish called twice")
        guard fed == pledged else {
            throw MotionError(.ioError, "a zstd frame was given \(fed) bytes but \(pledged) were pledged")
        }
        var input = ZSTD_inBuffer(src: nil, size: 0, pos: 0)
        var remaining = 1
        while remaining != 0 {
            remaining = try step(&input, ZSTD_e_end)
        }
        finished = true
    }

    @discardableResult
    private func step(_ input: inout ZSTD_inBuffer, _ mode: ZSTD_EndDirective) throws -> Int {
        let cctx = compressor.pointer
        let (code, produced) = outBuffer.withUnsafeMutableBytes { out -> (Int, Int) in
            var o = ZSTD_outBuffer(dst: out.baseAddress, size: out.count, pos: 0)
            let code = ZSTD_compressStream2(cctx, &o, &input, mode)
            return (code, o.pos)
        }
        try _ZstdCompressor.check(code, "ZSTD_compressStream2", "compressing a frame")
        if produced > 0 {
            try outBuffer.withUnsafeBytes { try output(UnsafeRawBufferPointer(rebasing: $0[..<produced])) }
        }
        return code
    }
}
