import Foundation
import MotionHDF5
import Testing

@testable import MotionSinks

/// docs/scale.md: the number of compression threads changes timing, never bytes.
@Suite struct DeterminismTests {
    @Test(arguments: [0, 1, 6, 7, 8, 36, 200])
    func oneAndFourThreadsWriteIdenticalFiles(rows: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cols = columns(rows: rows)
        var files: [Data] = []
        for (index, threads) in [1, 4, 4, 1].enumerated() {
            let path = directory.path("\(index).h5")
            try writeFast(cols, to: path, threads: threads)
            files.append(try Data(contentsOf: URL(fileURLWithPath: path)))
        }
        #expect(files.allSatisfy { $0 == files[0] }, "\(rows) rows")
    }

    @Test func theSplitSinkIsIdenticalForOneAndFourThreads() throws {
        var files: [Data] = []
        for threads in [1, 4, 2] {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            _ = try SinkFixture(windows: 3 * 4096 + 7).write(directory: directory.url.path, threads: threads)
            files.append(try Data(contentsOf: directory.url.appendingPathComponent("train.h5")))
        }
        #expect(files[0].count > 10_000)
        #expect(files.allSatisfy { $0 == files[0] })
    }
}
