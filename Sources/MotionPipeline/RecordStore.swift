import Foundation
import MotionChecksum
import MotionCore

/// One input file of a recording as the manifest lists it.
struct InputEntry: Sendable, Equatable {
    var inputIndex: Int
    var path: String          // relative to the pipeline file's folder
    var bytes: Int
    var sha256: String
}

/// What a worker produced for one recording, with the inputs it read: the unit that is saved for
/// `--resume`, shipped between `--worker` parts and `merge`, and fed to the dataset writer.
struct RecordingRecord: Sendable {
    var processed: ProcessedRecording
    var inputs: [InputEntry]
}

/// Saves and loads `RecordingRecord`s as files: `MPREC1\n\0`, a little-endian u64 header length,
/// a compact JSON header, then raw little-endian arrays (x, y, features, start times, moments).
/// Files are written under a temporary name and renamed, so a killed run leaves only complete
/// records behind.
enum RecordStore {
    static let magic: [UInt8] = Array("MPREC1\n\0".utf8)

    static func fileName(for recordingIndex: Int) -> String { String(format: "rec-%08d.mprec", recordingIndex) }

    static func save(_ record: RecordingRecord, pipelineSHA256: String, to path: String) throws {
        let p = record.processed
        let w = p.windows
        var header: [String: JSONValue] = [
            "pipeline_sha256": .string(pipelineSHA256),
            "recording": .string(p.source.name),
            "subject": .string(p.source.subject),
            "rows_read": .int(p.rowsRead),
            "rows_dropped": .object(p.rowsDropped.mapValues { .int($0) }),
            "windows_dropped": .object(p.windowsDropped.mapValues { .int($0) }),
            "recording_dropped": p.recordingDropped.map { .string($0) } ?? .null,
            "gaps": .int(p.gaps),
            "invalid_points": .int(p.invalidPoints),
            "warnings": .array(p.warnings.map { .string($0) }),
            "length": .int(w.length), "channels": .int(w.channelCount), "feature_count": .int(w.featureCount),
            "windows": .int(w.count),
            "x_moments": .int(p.xMoments == nil ? 0 : 1),
            "feature_moments": .int(p.featureMoments == nil ? 0 : 1),
            "inputs": .array(record.inputs.map {
                .object(["input_index": .int($0.inputIndex), "path": .string($0.path), "bytes": .int($0.bytes), "sha256": .string($0.sha256)])
            }),
        ]
        header["version"] = .int(1)
        let json = Array(JSONValue.object(header).compact().utf8)
        var out = [UInt8]()
        out.reserveCapacity(64 + json.count + w.x.count * 4 + w.count * 16 + w.features.count * 4)
        out += magic
        append(UInt64(json.count), to: &out)
        out += json
        appendArray(w.x, to: &out)
        appendArray(w.y, to: &out)
        appendArray(w.features, to: &out)
        appendArray(w.startTimes, to: &out)
        for m in [p.xMoments, p.featureMoments] {
            if let m { appendArray([m.count] + m.mean + m.m2, to: &out) }
        }
        let tmp = path + ".tmp"
        guard FileManager.default.createFile(atPath: tmp, contents: Data(out)) else {
            throw MotionError(.cannotCreate, "cannot write resume state \(tmp)")
        }
        guard rename(tmp, path) == 0 else {
            throw MotionError(.cannotCreate, "cannot move resume state into place at \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Loads a record; nil when the file is missing, incomplete or not a record.
    static func load(path: String, source: RecordingSource) throws -> (record: RecordingRecord, pipelineSHA256: String)? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let bytes = [UInt8](data)
        guard bytes.count >= 16, Array(bytes[0..<8]) == magic else { return nil }
        var off = 8
        let hlen = Int(readU64(bytes, &off))
        guard hlen >= 0, off + hlen <= bytes.count,
              let h = try? JSONSerialization.jsonObject(with: Data(bytes[off..<(off + hlen)])) as? [String: Any] else { return nil }
        off += hlen
        func int(_ k: String) -> Int { (h[k] as? NSNumber)?.intValue ?? 0 }
        func counts(_ k: String) -> [String: Int] { ((h[k] as? [String: Any]) ?? [:]).mapValues { ($0 as? NSNumber)?.intValue ?? 0 } }
        let T = int("length"), C = int("channels"), F = int("feature_count"), N = int("windows")
        var batch = WindowBatch(length: T, channelCount: C, featureCount: F)
        guard let x: [Float] = readArray(bytes, &off, N * T * C), let y: [Int64] = readArray(bytes, &off, N),
              let f: [Float] = readArray(bytes, &off, N * F), let t: [Double] = readArray(bytes, &off, N) else { return nil }
        batch.x = x
        batch.y = y
        batch.features = f
        batch.startTimes = t
        func moments(_ flag: String, _ cols: Int) -> RunningMoments?? {
            guard int(flag) == 1 else { return .some(nil) }
            guard let a: [Double] = readArray(bytes, &off, 1 + 2 * cols) else { return nil }
            var m = RunningMoments(columns: cols)
            m.count = a[0]
            m.mean = Array(a[1...cols])
            m.m2 = Array(a[(cols + 1)...])
            return .some(m)
        }
        guard let xm = moments("x_moments", C), let fm = moments("feature_moments", F), off == bytes.count else { return nil }
        let inputs = ((h["inputs"] as? [[String: Any]]) ?? []).map {
            InputEntry(inputIndex: ($0["input_index"] as? NSNumber)?.intValue ?? 0, path: $0["path"] as? String ?? "",
                       bytes: ($0["bytes"] as? NSNumber)?.intValue ?? 0, sha256: $0["sha256"] as? String ?? "")
        }
        guard h["recording"] as? String == source.name else { return nil }
        let processed = ProcessedRecording(
            source: source, windows: batch, rowsRead: int("rows_read"), rowsDropped: counts("rows_dropped"),
            windowsDropped: counts("windows_dropped"), recordingDropped: h["recording_dropped"] as? String,
            gaps: int("gaps"), invalidPoints: int("invalid_points"), warnings: (h["warnings"] as? [String]) ?? [],
            xMoments: xm, featureMoments: fm)
        return (RecordingRecord(processed: processed, inputs: inputs), h["pipeline_sha256"] as? String ?? "")
    }

    private static func append(_ v: UInt64, to out: inout [UInt8]) {
        withUnsafeBytes(of: v.littleEndian) { out += $0 }
    }

    private static func appendArray<T>(_ a: [T], to out: inout [UInt8]) {
        a.withUnsafeBytes { out += $0 }   // host order: little-endian on every supported platform
    }

    private static func readU64(_ b: [UInt8], _ off: inout Int) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<8 { v |= UInt64(b[off + i]) << (8 * i) }
        off += 8
        return v
    }

    private static func readArray<T>(_ b: [UInt8], _ off: inout Int, _ count: Int) -> [T]? {
        let n = count * MemoryLayout<T>.stride
        guard count >= 0, off + n <= b.count else { return nil }
        let out = [T](unsafeUninitializedCapacity: count) { buf, initialized in
            b.withUnsafeBytes { src in
                UnsafeMutableRawBufferPointer(buf).copyMemory(from: UnsafeRawBufferPointer(rebasing: src[off..<(off + n)]))
            }
            initialized = count
        }
        off += n
        return out
    }

    /// Size and SHA-256 of every file of a recording.
    static func hashInputs(_ source: RecordingSource) throws -> [InputEntry] {
        try source.files.map { f in
            let (hex, bytes) = try SHA256.hexOfFile(path: f.path)
            return InputEntry(inputIndex: f.inputIndex, path: f.manifestPath, bytes: bytes, sha256: hex)
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
