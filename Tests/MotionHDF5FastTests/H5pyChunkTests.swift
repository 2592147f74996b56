import Foundation
import MotionCore
import MotionHDF5
import Testing

@testable import MotionSinks

/// h5py (the project venv) reads every chunk the fast path stores, bit for bit, sees the filters of
/// docs/dataset-format.md, "HDF5 files", and rejects a corrupted chunk by its Fletcher-32.
@Suite(.enabled(if: TestPython.available, "needs the project venv (numpy, h5py); set MOTIONPREP_PYTHON"))
struct H5pyChunkTests {
    /// argv: file, then per dataset `name:dtype:raw-path`. Prints one JSON report.
    static let script = #"""
    import json, sys
    import numpy as np, h5py

    path, specs = sys.argv[1], sys.argv[2:]
    report = {}
    with h5py.File(path, "r") as f:
        for spec in specs:
            name, dtype, raw = spec.split(":", 2)
            d = f[name]
            expected = np.fromfile(raw, dtype=dtype).reshape((-1,) + d.shape[1:])
            rows, chunk_rows = d.shape[0], d.chunks[0]
            chunks_equal = True
            masks = []
            for start in range(0, rows, chunk_rows):
                # Chunk by chunk through HDF5's pipeline, compared as raw bytes (NaN payloads, -0).
                got = d[start:start + chunk_rows]
                chunks_equal &= got.tobytes() == expected[start:start + chunk_rows].tobytes()
                mask, _ = d.id.read_direct_chunk((start,) + (0,) * (len(d.shape) - 1))
                masks.append(mask)
            report[name] = {
                "dtype": d.dtype.str, "shape": list(d.shape), "chunks": list(d.chunks),
                "compression": d.compression, "compression_opts": d.compression_opts,
                "shuffle": d.shuffle, "fletcher32": d.fletcher32,
                "num_chunks": d.id.get_num_chunks(), "filter_masks": sorted(set(masks)),
                "chunks_equal": chunks_equal, "all_equal": d[...].tobytes() == expected.tobytes(),
            }
    print(json.dumps(report))
    """#

    struct Report: Decodable {
        var dtype: String
        var shape: [Int]
        var chunks: [Int]
        var compression: String?
        var compression_opts: Int?
        var shuffle: Bool
        var fletcher32: Bool
        var num_chunks: Int
        var filter_masks: [Int]
        var chunks_equal: Bool
        var all_equal: Bool
    }

    func check(path: String, columns: [FastColumn], in directory: TemporaryDirectory) throws -> [String: Report] {
        let scriptPath = directory.path("check.py")
        try Self.script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        var arguments = [scriptPath, path]
        for column in columns {
            let raw = directory.path("\(column.name).bin")
            try Data(column.bytes).write(to: URL(fileURLWithPath: raw))
            arguments.append("\(column.name):\(column.numpyType):\(raw)")
        }
        let result = try run(TestPython.path ?? "python3", arguments)
        try #require(result.status == 0, "h5py check failed:\n\(result.err)")
        return try JSONDecoder().decode([String: Report].self, from: Data(result.out.utf8))
    }

    /// Row counts around the chunk sizes: x has 7 rows per chunk, the 1-D datasets 5.
    @Test(arguments: [0, 1, 4, 5, 6, 7, 8, 34, 35, 36])
    func h5pyReadsEveryChunkBitForBit(rows: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("fast.h5")
        let cols = columns(rows: rows)
        try writeFast(cols, to: path, threads: 3)
        let reports = try check(path: path, columns: cols, in: directory)
        for column in cols {
            let report = try #require(reports[column.name])
            #expect(report.dtype == column.numpyType)
            #expect(report.shape == [rows] + column.rowShape)
            #expect(report.chunks == [column.chunkRows] + column.rowShape)
            #expect(report.compression == "gzip" && report.compression_opts == 4)
            #expect(report.shuffle && report.fletcher32)
            #expect(report.num_chunks == (rows + column.chunkRows - 1) / column.chunkRows)
            #expect(report.filter_masks == (rows == 0 ? [] : [0]))
            #expect(report.chunks_equal && report.all_equal, "\(column.name), \(rows) rows")
        }
    }

    /// The real sink with the chunk sizes of docs/dataset-format.md, "HDF5 files": x [N, 4, 2] float32 has 2048 rows per chunk, the
    /// 1-D datasets and `features` (3 columns) 4096.
    @Test(arguments: [1, 2047, 2048, 2049, 4095, 4096, 4097, 3 * 4096 + 7])
    func h5pyReadsTheSplitSink(windows: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let written = try SinkFixture(windows: windows).write(directory: directory.url.path, threads: 2)
        let reports = try check(path: directory.path("train.h5"), columns: written, in: directory)
        #expect(reports.keys.sorted() == written.map(\.name).sorted())
        for column in written {
            let report = try #require(reports[column.name])
            #expect(report.shape == [windows] + column.rowShape)
            #expect(report.chunks == [column.chunkRows] + column.rowShape, "\(column.name)")
            #expect(report.compression == "gzip" && report.compression_opts == 4 && report.shuffle && report.fletcher32)
            #expect(report.chunks_equal && report.all_equal, "\(column.name), \(windows) windows")
        }
    }

    /// h5py's bundled HDF5 reports only "filter returned failure during read", so the
    /// checksum is singled out by flipping a bit of the Fletcher-32 trailer itself: the deflate
    /// stream is intact, and only the checksum check can reject the chunk.
    @Test(arguments: [false, true])
    func h5pyRejectsACorruptedChunk(inChecksum: Bool) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("fast.h5")
        try writeFast(columns(rows: 20), to: path, threads: 1)
        let stored = try {
            let file = try HDF5File.openReadOnly(path: path)
            defer { try? file.close() }
            return try file.openDataset("start_time_s").readRawChunk(offsetRow: 5).bytes
        }()
        try corrupt(path: path, chunk: stored, inChecksum: inChecksum)
        let script = """
        import h5py
        d = h5py.File(r"\(path)", "r")["start_time_s"]
        d[0:5]; d[10:20]
        try:
            d[5:10]
        except OSError as e:
            print("OSError:", e)
        else:
            print("no error")
        """
        let result = try run(TestPython.path ?? "python3", ["-c", script])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.hasPrefix("OSError:") && result.out.contains("filter"), "h5py said: \(result.out)")
    }
}

/// Windows for an ``HDF5SplitSink``, appended in uneven per-recording batches.
struct SinkFixture {
    var windows: Int
    var length = 4, channels = 2, featureCount = 3

    var description: DatasetDescription {
        DatasetDescription(sampleRateHz: 50, windowLength: length, windowStride: 2, channelNames: ["a", "b"],
                           channelUnits: ["m/s^2", "m/s^2"], classNames: ["walk", "turn"],
                           featureNames: ["f0", "f1", "f2"], subjectNames: ["s"], recordingNames: ["r0", "r1", "r2"],
                           hasFolds: true)
    }

    /// Writes `train.h5` into `directory`; returns the columns it should hold.
    func write(directory: String, threads: Int) throws -> [FastColumn] {
        let x = floats(windows * length * channels, seed: 11)
        let features = floats(windows * featureCount, seed: 12)
        let y = int64s(windows, seed: 13).map { $0 & 1 }
        let times = doubles(windows, seed: 14)
        var subject: [Int32] = [], recording: [Int32] = [], fold: [Int32] = []
        let sink = try HDF5SplitSink(directory: WritableFolder(opening: directory), split: "train", description: description,
                                     compression: HDF5ChunkCompressionPool(threads: threads))
        var start = 0, recordingIndex: Int32 = 0
        while start < windows {
            let n = min(windows - start, [1, 700, 3000, 0, 1500][Int(recordingIndex) % 5] + 1)
            var batch = WindowBatch(length: length, channelCount: channels, featureCount: featureCount)
            batch.x = Array(x[(start * length * channels)..<((start + n) * length * channels)])
            batch.features = Array(features[(start * featureCount)..<((start + n) * featureCount)])
            batch.y = Array(y[start..<(start + n)])
            batch.startTimes = Array(times[start..<(start + n)])
            try sink.append(batch, subjectIndex: 0, recordingIndex: recordingIndex, foldIndex: recordingIndex % 3)
            subject += [Int32](repeating: 0, count: n)
            recording += [Int32](repeating: recordingIndex, count: n)
            fold += [Int32](repeating: recordingIndex % 3, count: n)
            start += n
            recordingIndex += 1
        }
        let files = try sink.finish()
        precondition(files == [WrittenFile(path: "train.h5", numWindows: windows,
                                           classCounts: [y.filter { $0 == 0 }.count, y.filter { $0 == 1 }.count])])
        func column(_ name: String, _ type: HDF5ElementType, _ rowShape: [Int], _ chunkRows: Int, _ bytes: [UInt8]) -> FastColumn {
            FastColumn(name: name, type: type, rowShape: rowShape, chunkRows: chunkRows, rows: windows, bytes: bytes)
        }
        return [
            column("x", .float32, [length, channels], 65536 / (length * channels * 4), rawBytes(x)),
            column("y", .int64, [], 4096, rawBytes(y)),
            column("features", .float32, [featureCount], 4096, rawBytes(features)),
            column("subject_index", .int32, [], 4096, rawBytes(subject)),
            column("recording_index", .int32, [], 4096, rawBytes(recording)),
            column("start_time_s", .float64, [], 4096, rawBytes(times)),
            column("fold_index", .int32, [], 4096, rawBytes(fold)),
        ]
    }
}
