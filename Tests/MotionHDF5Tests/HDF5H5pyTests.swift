import Foundation
import Testing

@testable import MotionHDF5

/// Reads files written by MotionHDF5 with h5py (the project venv), as docs/dataset-format.md, "HDF5 files" promises.
@Suite struct HDF5H5pyTests {
    /// The project's venv Python, with numpy and h5py (see the repository README).
    static var python: String { TestPython.path ?? "python3" }
    static var pythonAvailable: Bool { TestPython.available }

    /// Checks one file; prints a JSON report, or raises with a message.
    static let script = #"""
    import json, sys
    import numpy as np, h5py

    path, raw_dir = sys.argv[1], sys.argv[2]
    report = {}
    with h5py.File(path, "r") as f:
        report["keys"] = sorted(f.keys())
        for name, dtype in [("x", "<f4"), ("y", "<i8"), ("subject_index", "<i4"), ("start_time_s", "<f8")]:
            d = f[name]
            data = d[...]
            expected = np.fromfile(f"{raw_dir}/{name}.bin", dtype=dtype).reshape(data.shape)
            report[name] = {
                "dtype": d.dtype.str,
                "shape": list(d.shape),
                "maxshape": [m for m in d.maxshape],
                "chunks": list(d.chunks),
                "compression": d.compression,
                "compression_opts": d.compression_opts,
                "shuffle": d.shuffle,
                "fletcher32": d.fletcher32,
                # Bitwise, so NaN payloads and -0 count.
                "equal": data.tobytes() == expected.tobytes(),
                "chunk_bytes": int(np.prod(d.chunks)) * d.dtype.itemsize,
            }
        attrs = {}
        for key in sorted(f.attrs.keys()):
            value = f.attrs[key]          # plain access, no .asstr()
            if isinstance(value, np.ndarray):
                attrs[key] = {
                    "kind": "array",
                    "dtype_kind": value.dtype.kind,
                    "shape": list(value.shape),
                    "element_types": sorted({type(s).__name__ for s in value}),
                    "values": [s if isinstance(s, str) else s.decode() for s in value],
                    "vlen_str": h5py.check_string_dtype(value.dtype) is not None
                        and h5py.check_string_dtype(value.dtype).encoding == "utf-8"
                        and h5py.check_string_dtype(value.dtype).length is None,
                }
            else:
                attrs[key] = {"kind": "scalar", "type": type(value).__name__,
                              "value": value if isinstance(value, str) else value.item()}
        report["attrs"] = attrs
        report["format_is_str"] = isinstance(f.attrs["format"], str)
    print(json.dumps(report, ensure_ascii=False))
    """#

    private func writeRaw<T>(_ values: [T], to path: String) throws {
        try values.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: path)) }
    }

    @Test(.enabled(if: HDF5H5pyTests.pythonAvailable,
                   "needs the project venv at /work/main/.venv with numpy and h5py"))
    func h5pyReadsTheWindowFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fixture = WindowFixture(windows: 1000)
        let path = directory.path("train.h5")
        try fixture.write(to: path)
        // The expected arrays as raw little-endian bytes (x86-64 and arm64 are little-endian).
        try writeRaw(fixture.x, to: directory.path("x.bin"))
        try writeRaw(fixture.y, to: directory.path("y.bin"))
        try writeRaw(fixture.subjectIndex, to: directory.path("subject_index.bin"))
        try writeRaw(fixture.startTime, to: directory.path("start_time_s.bin"))
        let scriptPath = directory.path("check.py")
        try Self.script.write(toFile: scriptPath, atomically: true, encoding: .utf8)

        let result = try run(Self.python, [scriptPath, path, directory.url.path])
        try #require(result.status == 0, "h5py check failed:\n\(result.err)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any],
            "not JSON: \(result.out)")

        #expect(report["keys"] as? [String] == ["start_time_s", "subject_index", "x", "y"])
        let expectations: [(String, String, [Int], [Int])] = [
            ("x", "<f4", [1000, 128, 7], [18, 128, 7]),
            ("y", "<i8", [1000], [4096]),
            ("subject_index", "<i4", [1000], [4096]),
            ("start_time_s", "<f8", [1000], [4096]),
        ]
        for (name, dtype, shape, chunks) in expectations {
            let dataset = try #require(report[name] as? [String: Any], "\(name) missing")
            #expect(dataset["dtype"] as? String == dtype, "\(name)")
            #expect(dataset["shape"] as? [Int] == shape, "\(name)")
            #expect((dataset["maxshape"] as? [Any])?.first is NSNull, "\(name): rows should be unlimited")
            #expect((dataset["maxshape"] as? [Any])?.dropFirst().compactMap { $0 as? Int } == Array(shape.dropFirst()), "\(name)")
            #expect(dataset["chunks"] as? [Int] == chunks, "\(name)")
            #expect(dataset["compression"] as? String == "gzip", "\(name)")
            #expect(dataset["compression_opts"] as? Int == 4, "\(name)")
            #expect(dataset["shuffle"] as? Bool == true, "\(name)")
            #expect(dataset["fletcher32"] as? Bool == true, "\(name)")
            #expect(dataset["equal"] as? Bool == true, "\(name): values differ")
        }
        let xChunkBytes = try #require((report["x"] as? [String: Any])?["chunk_bytes"] as? Int)
        #expect((48 * 1024...64 * 1024).contains(xChunkBytes), "x chunk of \(xChunkBytes) bytes is not about 64 KiB")

        #expect(report["format_is_str"] as? Bool == true)
        let attributes = try #require(report["attrs"] as? [String: [String: Any]])
        func scalar(_ name: String) -> (type: String?, value: Any?) {
            (attributes[name]?["type"] as? String, attributes[name]?["value"])
        }
        #expect(scalar("format").type == "str")
        #expect(scalar("format").value as? String == "motionprep.windows")
        #expect(scalar("split").value as? String == "train")
        #expect(scalar("note").type == "str")
        #expect(scalar("note").value as? String == "Grüße aus 北京 🚶")
        #expect(scalar("format_version").type == "int64")
        #expect(scalar("format_version").value as? Int == 1)
        #expect(scalar("window_length").value as? Int == 128)
        #expect(scalar("min_value").value as? Int64 == Int64.min)
        #expect(scalar("sample_rate_hz").type == "float64")
        #expect(scalar("sample_rate_hz").value as? Double == 50)

        for (name, values) in [("class_names", WindowFixture.classNames),
                               ("channel_names", WindowFixture.channelNames),
                               ("subject_names", ["Müller", "步行者", "s03"]),
                               ("feature_names", [])] {
            let attribute = try #require(attributes[name], "\(name) missing")
            #expect(attribute["kind"] as? String == "array", "\(name)")
            #expect(attribute["dtype_kind"] as? String == "O", "\(name)")
            #expect(attribute["shape"] as? [Int] == [values.count], "\(name)")
            #expect(attribute["values"] as? [String] == values, "\(name)")
            #expect(attribute["vlen_str"] as? Bool == true, "\(name): not variable-length UTF-8")
            if !values.isEmpty {
                #expect(attribute["element_types"] as? [String] == ["str"], "\(name): h5py should return str elements")
            }
        }
    }

    /// Files h5py writes (fixed-length and vlen strings, gzip-only datasets) read in Swift.
    @Test(.enabled(if: HDF5H5pyTests.pythonAvailable,
                   "needs the project venv at /work/main/.venv with numpy and h5py"))
    func swiftReadsFilesWrittenByH5py() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("from-h5py.h5")
        let script = #"""
        import sys
        import numpy as np, h5py
        with h5py.File(sys.argv[1], "w") as f:
            f.create_dataset("x", data=np.arange(24, dtype="<f4").reshape(4, 3, 2), chunks=(2, 3, 2), compression="gzip")
            f.create_dataset("big_endian", data=np.arange(3, dtype=">f8"))
            f.create_dataset("unsigned", data=np.arange(3, dtype="<u2"))
            f.create_group("group")
            f.attrs["vlen"] = "Müller"
            f.attrs["fixed"] = np.bytes_(b"walk")
            f.attrs["fixed_list"] = np.array([b"a", b"bc"], dtype="S2")
            f.attrs["vlen_list"] = np.array(["步行", "x"], dtype=h5py.string_dtype())
            f.attrs["int16"] = np.int16(-7)
            f.attrs["float32"] = np.float32(0.5)
        """#
        let scriptPath = directory.path("write.py")
        try script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let result = try run(Self.python, [scriptPath, path])
        try #require(result.status == 0, "h5py write failed:\n\(result.err)")

        let file = try HDF5File.openReadOnly(path: path)
        defer { try? file.close() }
        #expect(try file.datasetNames() == ["big_endian", "unsigned", "x"], "groups are not datasets")
        let x = try file.openDataset("x")
        #expect(try x.shape == [4, 3, 2])
        #expect(try x.chunkRows == 2)
        #expect(try x.filters == ["deflate"])
        #expect(try x.readFloats(start: 1, count: 2) == (6..<18).map(Float.init))
        let bigEndian = try file.openDataset("big_endian")
        #expect(try bigEndian.elementType == nil)
        #expect(try bigEndian.chunkRows == nil, "contiguous")
        #expect(try bigEndian.readDoubles(start: 0, count: 3) == [0, 1, 2])
        #expect(try file.openDataset("unsigned").elementType == nil)
        #expect(try file.stringAttribute("vlen") == "Müller")
        #expect(try file.stringAttribute("fixed") == "walk")
        #expect(try file.stringsAttribute("fixed_list") == ["a", "bc"])
        #expect(try file.stringsAttribute("vlen_list") == ["步行", "x"])
        #expect(try file.intAttribute("int16") == -7)
        #expect(try file.doubleAttribute("float32") == 0.5)
    }
}
