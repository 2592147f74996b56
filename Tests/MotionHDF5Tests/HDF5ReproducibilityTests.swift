import Foundation
import Testing

@testable import MotionHDF5

@Suite struct HDF5ReproducibilityTests {
    /// SHA-256 through coreutils' `sha256sum` (this target depends on MotionHDF5 only).
    private func sha256sum(_ path: String) throws -> String {
        let result = try run("/usr/bin/sha256sum", [path])
        #expect(result.status == 0, "sha256sum failed: \(result.err)")
        return String(result.out.prefix(64))
    }

    @Test func sameContentGivesIdenticalBytes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fixture = WindowFixture(windows: 300)
        let first = directory.path("first.h5"), second = directory.path("second.h5")
        try fixture.write(to: first)
        try fixture.write(to: second)
        let firstBytes = try Data(contentsOf: URL(fileURLWithPath: first))
        let secondBytes = try Data(contentsOf: URL(fileURLWithPath: second))
        #expect(firstBytes.count > 100_000)
        #expect(firstBytes == secondBytes)
        #expect(try sha256sum(first) == sha256sum(second))

        // Rewriting over an existing file (truncate) gives the same bytes again.
        try fixture.write(to: first)
        #expect(try sha256sum(first) == sha256sum(second))
    }

    /// Different batchings store the same content; their bytes may differ (see
    /// `HDF5Dataset.append`): one 700-row batch overflows x's 1 MiB chunk cache before the other
    /// datasets are first written, which moves chunks. Recorded here so a change in HDF5's
    /// behaviour is noticed either way.
    @Test func batchingChangesLayoutNotContent() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let uneven = WindowFixture(windows: 700)   // seeded uneven batches
        var small = uneven
        small.batches = [1, 699]
        var single = uneven
        single.batches = [700]
        let paths = ["uneven", "small", "single"].map { directory.path("\($0).h5") }
        try uneven.write(to: paths[0])
        try small.write(to: paths[1])
        try single.write(to: paths[2])
        let hashes = try paths.map(sha256sum)
        #expect(hashes[0] == hashes[1], "small first batches lay out like uneven ones")
        withKnownIssue("a first batch larger than the chunk cache lays the file out differently") {
            #expect(hashes[0] == hashes[2])
        }
        for path in paths {
            let file = try HDF5File.openReadOnly(path: path)
            #expect(bits(try file.openDataset("x").readFloats(start: 0, count: 700)) == bits(uneven.x))
            #expect(try file.openDataset("y").readInt64s(start: 0, count: 700) == uneven.y)
            try file.close()
        }
    }

    /// Byte equality alone would pass when both writes fall in the same second; this checks the
    /// timestamps themselves are absent.
    @Test func objectTimesAreNotRecorded() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("times.h5")
        try WindowFixture(windows: 5).write(to: path)
        let file = try HDF5File.openReadOnly(path: path)
        defer { try? file.close() }
        for name in ["/", "x", "y", "subject_index", "start_time_s"] {
            #expect(try file._objectTimes(name) == [0, 0, 0, 0], "\(name)")
        }
    }

    @Test func fileHasNoAbsolutePathOrHostName() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("paths.h5")
        try WindowFixture(windows: 5).write(to: path)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.range(of: Data(directory.url.lastPathComponent.utf8)) == nil)
        #expect(bytes.range(of: Data(ProcessInfo.processInfo.hostName.utf8)) == nil)
    }
}
