import Foundation
import Testing

@testable import MotionHDF5

/// `HDF5File.rootLinks()` and `HDF5Dataset.storageInfo` on files h5py writes with every link and
/// layout `motionprep validate` refuses; every external source is a FIFO, so following a link or
/// reading external data would block the test.
@Suite struct HDF5StructureTests {
    static let script = #"""
    import os, sys
    import numpy as np, h5py
    d = sys.argv[1]
    with h5py.File(f"{d}/f.h5", "w") as f:
        f.create_dataset("chunked", data=np.arange(10), chunks=(5,))
        f.create_dataset("contiguous", data=np.arange(10))
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_layout(h5py.h5d.COMPACT)
        h5py.h5d.create(f.id, b"compact", h5py.h5t.STD_I64LE, h5py.h5s.create_simple((10,)), dcpl=dcpl)
        f.create_dataset("external", shape=(10,), dtype="<i8", external=[(f"{d}/ext.bin", 0, 80)])
        layout = h5py.VirtualLayout(shape=(10,), dtype="<i8")
        layout[...] = h5py.VirtualSource(f"{d}/source.h5", "x", shape=(10,))
        f.create_virtual_dataset("virtual", layout)
        f["soft"] = h5py.SoftLink("/chunked")
        f["elink"] = h5py.ExternalLink(f"{d}/source.h5", "/x")
        f.create_group("group")
    os.mkfifo(f"{d}/ext.bin")
    os.mkfifo(f"{d}/source.h5")
    """#

    @Test(.enabled(if: HDF5H5pyTests.pythonAvailable, "needs the project venv with h5py"))
    func linksAndLayoutsAreReportedWithoutFollowingAnything() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let scriptPath = directory.path("make.py")
        try Self.script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let result = try run(HDF5H5pyTests.python, [scriptPath, directory.url.path])
        try #require(result.status == 0, "h5py failed:\n\(result.err)")

        let file = try HDF5File.openReadOnly(path: directory.path("f.h5"))
        defer { try? file.close() }
        let links = try file.rootLinks()
        #expect(links == [
            HDF5Link(name: "chunked", kind: .dataset),
            HDF5Link(name: "compact", kind: .dataset),
            HDF5Link(name: "contiguous", kind: .dataset),
            HDF5Link(name: "elink", kind: .external(file: directory.path("source.h5"), object: "/x")),
            HDF5Link(name: "external", kind: .dataset),
            HDF5Link(name: "group", kind: .group),
            HDF5Link(name: "soft", kind: .soft(target: "/chunked")),
            HDF5Link(name: "virtual", kind: .dataset),
        ])
        let expected: [(String, HDF5Layout, [String])] = [
            ("chunked", .chunked, []), ("compact", .compact, []), ("contiguous", .contiguous, []),
            ("external", .contiguous, [directory.path("ext.bin")]), ("virtual", .virtual, []),
        ]
        for (name, layout, external) in expected {
            let info = try file.openDataset(name).storageInfo
            #expect(info == HDF5StorageInfo(layout: layout, externalFiles: external), "\(name)")
        }
    }
}
