#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MotionChecksum
import MotionConfig
import MotionCore
import MotionSinks
import MotionOutput
import MotionInputs

/// A record file opened with stdio: whole arrays in and out, positions as u64.
package final class _RecordFile: @unchecked Sendable {
    private var handle: UnsafeMutablePointer<FILE>?
    package let path: String

    package init(readingAt path: String) throws {
        self.path = path
        // Opened as every input is (never waiting on a FIFO: docs/hardening.md), then as stdio.
        let fd: Int32
        switch RegularFile.openForReading(path) {
        case .success(let opened): fd = opened
        case .failure(let failure): throw RecordDamaged(path: path, reason: "it cannot be opened: \(failure.reason)")
        }
        guard let f = fdopen(fd, "rb") else {
            let reason = String(cString: strerror(errno))
            _ = Glibc.close(fd)
            throw RecordDamaged(path: path, reason: "it cannot be opened: \(reason)")
        }
        handle = f
    }

    /// Writes to `fd` (a file just created), named `path` in messages.
    package init(writing fd: Int32, path: String) throws {
        self.path = path
        guard let f = fdopen(fd, "wb") else {
            let reason = String(cString: strerror(errno))
            _ = Glibc.close(fd)
            throw MotionError(.cannotCreate, "cannot write resume state \(path): \(reason)")
        }
        handle = f
        setvbuf(f, nil, _IOFBF, 1 << 20)
    }

    package init(writingAt path: String) throws {
        self.path = path
        guard let f = fopen(path, "wb") else {
            throw MotionError(.cannotCreate, "cannot write resume state \(path): \(String(cString: strerror(errno)))")
        }
        handle = f
        setvbuf(f, nil, _IOFBF, 1 << 20)
    }

    deinit { close() }

    package func close() {
        if let h = handle { fclose(h) }
        handle = nil
    }

    package func flushAndClose() throws {
        guard let h = handle else { return }
        handle = nil
        if fclose(h) != 0 { throw writeError() }
    }

    package func damaged(_ what: String) -> Error {
        RecordDamaged(path: path, reason: what)
    }

    private func writeError() -> Error {
        MotionError(.cannotCreate, "cannot write resume state \(path): \(String(cString: strerror(errno)))")
    }

    package func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try writeRaw($0) }
    }

    package func writeU64(_ v: UInt64) throws {
        try withUnsafeBytes(of: v.littleEndian) { try writeRaw($0) }
    }

    /// Host order: little-endian on every supported platform.
    package func writeArray<T: BitwiseCopyable>(_ a: [T]) throws {
        try a.withUnsafeBytes { try writeRaw($0) }
    }

    private func writeRaw(_ raw: UnsafeRawBufferPointer) throws {
        guard raw.count > 0 else { return }
        if fwrite(raw.baseAddress, 1, raw.count, handle) != raw.count { throw writeError() }
    }

    package func position() throws -> UInt64 {
        let p = ftello(handle)
        if p < 0 { throw writeError() }
        return UInt64(p)
    }

    package func size() throws -> UInt64 {
        guard fseeko(handle, 0, SEEK_END) == 0 else { throw damaged("cannot seek") }
        return UInt64(ftello(handle))
    }

    package func seek(to offset: UInt64) throws {
        guard fseeko(handle, off_t(offset), SEEK_SET) == 0 else { throw damaged("cannot seek to \(offset)") }
    }

    package func readBytes(at offset: UInt64, count: Int) throws -> [UInt8] {
        try seek(to: offset)
        return try readArray(UInt8.self, count: count)
    }

    package func readU64() throws -> UInt64 {
        var v: UInt64 = 0
        let n = withUnsafeMutableBytes(of: &v) { fread($0.baseAddress, 1, 8, handle) }
        guard n == 8 else { throw damaged("it ends early") }
        return UInt64(littleEndian: v)
    }

    /// Feeds the next `count` bytes to `hasher`, 1 MiB at a time.
    package func hash(count: Int, into hasher: inout XXH3Hasher) throws {
        var left = count
        var buffer = [UInt8](repeating: 0, count: Swift.min(count, 1 << 20))
        while left > 0 {
            let n = Swift.min(left, buffer.count)
            let got = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, n, handle) }
            guard got == n else { throw damaged("it ends early") }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            left -= n
        }
    }

    package func readArray<T: BitwiseCopyable>(_: T.Type, count: Int) throws -> [T] {
        guard count > 0 else { return [] }
        var ok = true
        let a = [T](unsafeUninitializedCapacity: count) { buf, initialized in
            let bytes = count * MemoryLayout<T>.stride
            ok = fread(buf.baseAddress, 1, bytes, handle) == bytes
            initialized = ok ? count : 0
        }
        guard ok else { throw damaged("it ends early") }
        return a
    }
}

/// A record file's JSON header (docs/hardening.md, "Records"), as `RecordStore.header` and
/// `RecordWriter.finish` write it; `version` and `implementation` are checked before it is decoded.
package struct RecordHeader: JSONDecodable {
    package var pipelineSHA256: String
    package var recording: String
    package var rowsRead: Int
    package var rowsDropped: [String: Int]
    package var windowsDropped: [String: Int]
    package var recordingDropped: String?
    package var gaps: Int
    package var invalidPoints: Int
    package var warnings: [String]
    package var labelRowsNoOverlap: [Int]
    package var xMoments: Bool
    package var featureMoments: Bool
    package var inputs: [InputEntry]
    package var windows: Int
    package var length: Int
    package var channels: Int
    package var featureCount: Int
    /// Each window's `y_seq` length: T with `labels.per_sample`, else 0.
    package var ySeqLength: Int
    /// Each window's `qa` values: 3 with the pipeline's `qa`, else 0; and the recording's report.
    package var qaLength: Int
    package var qa: JSONValue?

    package init(json h: JSONNode) throws(JSONProblem) {
        pipelineSHA256 = try h["pipeline_sha256"].string()
        recording = try h["recording"].string()
        rowsRead = try h["rows_read"].int(min: 0)
        rowsDropped = try h["rows_dropped"].counts()
        windowsDropped = try h["windows_dropped"].counts()
        recordingDropped = try h["recording_dropped"].optional { n throws(JSONProblem) in try n.string() }
        gaps = try h["gaps"].int(min: 0)
        invalidPoints = try h["invalid_points"].int(min: 0)
        warnings = try h["warnings"].strings()
        labelRowsNoOverlap = []
        for item in try h["label_rows_no_overlap"].items() { labelRowsNoOverlap.append(try item.int()) }
        xMoments = try Self.flag(h["x_moments"])
        featureMoments = try Self.flag(h["feature_moments"])
        inputs = []
        for item in try h["inputs"].items() { inputs.append(try item.decode()) }
        windows = try h["windows"].int(min: 0)
        length = try h["length"].int(min: 0)
        channels = try h["channels"].int(min: 0)
        featureCount = try h["feature_count"].int(min: 0)
        ySeqLength = try h["y_seq_length"].int(min: 0)
        qaLength = try h["qa_length"].int(min: 0)
        qa = h["qa"].value
    }

    /// `x_moments` / `feature_moments`: 1 when the moments follow the header, else 0.
    private static func flag(_ n: JSONNode) throws(JSONProblem) -> Bool {
        switch try n.int() {
        case 0: return false
        case 1: return true
        case let v: throw n.problem("must be 0 or 1, not \(v)")
        }
    }
}
