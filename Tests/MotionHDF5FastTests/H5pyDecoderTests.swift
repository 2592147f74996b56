import Foundation
import MotionCore
import MotionHDF5
import Testing

@testable import MotionSinks

/// ``HDF5ParallelChunkReader`` on files written by h5py (zlib's deflate streams, not
/// libdeflate's; h5py's bundled libhdf5): the datasets laid out as motionprep writes them decode
/// to exactly what h5py reads, and every other layout is declined, so it goes to `H5Dread`.
@Suite(.enabled(if: TestPython.available, "needs the project venv (numpy, h5py); set MOTIONPREP_PYTHON"))
struct H5pyDecoderTests {
    /// argv: the file to write, a folder for the raw dumps. Writes one dataset per layout and
    /// dumps what h5py reads from each as raw little-endian bytes (`NAME.bin`). Prints
    /// `{name: whether the raw-chunk path should take it}`.
    static let script = #"""
    import json, sys
    import numpy as np, h5py

    path, out = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(7)
    x = (np.sin(np.arange(50 * 3 * 2) * 0.01) * 9.81).astype("<f4").reshape(50, 3, 2)
    x[3, 1, 1] = np.nan; x[40, 0, 0] = -np.inf
    noise = rng.integers(0, 2**32, size=(21, 3, 2), dtype=np.uint32).view("<f4")  # incompressible rows
    x[7:28] = noise
    y = rng.integers(-1, 3, size=60).astype("<i8"); y[0] = np.iinfo(np.int64).min
    s = rng.integers(0, 40, size=60).astype("<i4")
    t = (1.7e9 + np.arange(60) * 1.28).astype("<f8")
    motion = dict(shuffle=True, compression="gzip", fletcher32=True)
    expected = {}
    with h5py.File(path, "w") as f:
        def add(name, data, fast, **kw):
            f.create_dataset(name, data=data, **kw)
            expected[name] = fast
        add("x_gzip6", x, True, chunks=(7, 3, 2), compression_opts=6, **motion)
        add("x_gzip1_one_chunk", x, True, chunks=(50, 3, 2), compression_opts=1, **motion)
        add("y_i8", y, True, chunks=(5,), **motion)
        add("s_i4", s, True, chunks=(8,), **motion)
        add("t_f8", t, True, chunks=(7,), **motion)
        add("x_gzip_no_shuffle", x, False, chunks=(7, 3, 2), compression="gzip", fletcher32=True)
        add("x_shuffle_gzip_no_checksum", x, False, chunks=(7, 3, 2), shuffle=True, compression="gzip")
        add("x_lzf", x, False, chunks=(7, 3, 2), shuffle=True, compression="lzf", fletcher32=True)
        add("x_chunked_unfiltered", x, False, chunks=(7, 3, 2))
        add("x_contiguous", x, False)
        add("x_chunks_cut_rows", x, False, chunks=(7, 1, 2), **motion)
        add("x_big_endian", x.astype(">f4"), False, chunks=(7, 3, 2), **motion)
        add("s_unsigned", s.astype("<u4"), False, chunks=(8,), **motion)
        # Fletcher-32 first, then shuffle and deflate: the same filters in another order.
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_chunk((7, 3, 2)); dcpl.set_fletcher32(); dcpl.set_shuffle(); dcpl.set_deflate(4)
        space = h5py.h5s.create_simple(x.shape)
        h5py.h5d.create(f.id, b"x_checksum_first", h5py.h5t.IEEE_F32LE, space, dcpl=dcpl).write(
            h5py.h5s.ALL, h5py.h5s.ALL, x)
        expected["x_checksum_first"] = False
        # Resizable, only the first 12 rows written: chunks past them do not exist.
        d = f.create_dataset("x_sparse", shape=(40, 3, 2), maxshape=(None, 3, 2), dtype="<f4", chunks=(6, 3, 2), **motion)
        d[0:12] = x[0:12]
        expected["x_sparse"] = True
    with h5py.File(path, "r") as f:
        for name in expected:
            np.ascontiguousarray(f[name][...]).astype(f[name].dtype.newbyteorder("<")).tofile(f"{out}/{name}.bin")
    print(json.dumps(expected))
    """#

    @Test func readerMatchesH5pyAndDeclinesOtherLayouts() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let scriptPath = directory.path("write.py"), path = directory.path("h5py.h5")
        try Self.script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let result = try run(TestPython.path ?? "python3", [scriptPath, path, directory.path("")])
        try #require(result.status == 0, "h5py failed:\n\(result.err)")
        let expected = try JSONDecoder().decode([String: Bool].self, from: Data(result.out.utf8))
        #expect(expected.count == 15)
        let file = try HDF5File.openReadOnly(path: path)
        defer { try? file.close() }
        for (name, fast) in expected.sorted(by: { $0.key < $1.key }) {
            let dataset = try file.openDataset(name)
            let mismatch = try HDF5ParallelChunkReader.layoutMismatch(dataset)
            #expect((mismatch == nil) == fast, "\(name): \(mismatch ?? "eligible")")
            let reader = HDF5ParallelChunkReader(dataset, threads: 3)
            #expect((reader != nil) == fast, "\(name)")
            let h5py = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory.path("\(name).bin"))))
            let rows = try dataset.rowCount
            if let reader {
                let bytes: [UInt8]?
                switch reader.elementType {
                case .float32: bytes = try reader.readFloats(0..<rows).map(rawBytes)
                case .float64: bytes = try reader.readDoubles(0..<rows).map(rawBytes)
                case .int32: bytes = try reader.readInt32s(0..<rows).map(rawBytes)
                case .int64: bytes = try reader.readInt64s(0..<rows).map(rawBytes)
                }
                if name == "x_sparse" {
                    #expect(bytes == nil, "unwritten chunks are H5Dread's")
                    let written = try #require(try reader.readFloats(0..<12))
                    #expect(rawBytes(written) == Array(h5py.prefix(12 * 6 * 4)))
                } else {
                    #expect(bytes == h5py, "\(name): the raw-chunk reader's values are h5py's, bit for bit")
                }
                // A read in the middle, through a prefetch of the next block.
                if rows >= 30, name != "x_sparse" {
                    reader.prefetch(10..<20)
                    let middle: [UInt8]? = switch reader.elementType {
                    case .float32: try reader.readFloats(10..<20).map(rawBytes)
                    case .float64: try reader.readDoubles(10..<20).map(rawBytes)
                    case .int32: try reader.readInt32s(10..<20).map(rawBytes)
                    case .int64: try reader.readInt64s(10..<20).map(rawBytes)
                    }
                    let rowBytes = h5py.count / rows
                    #expect(middle == Array(h5py[(10 * rowBytes)..<(20 * rowBytes)]), "\(name) rows 10..<20")
                }
            }
        }
    }
}
