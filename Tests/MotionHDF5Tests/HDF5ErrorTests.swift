import Foundation
import MotionCore
import Testing

@testable import MotionHDF5

@Suite struct HDF5ErrorTests {
    private func capture(_ body: () throws -> Void) -> HDF5Error? {
        do {
            try body()
            return nil
        } catch let error as HDF5Error {
            return error
        } catch {
            Issue.record("expected HDF5Error, got \(type(of: error)): \(error)")
            return nil
        }
    }

    @Test func createInMissingDirectory() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("no/such/dir/train.h5")
        let error = try #require(capture { _ = try HDF5File.create(path: path) })
        #expect(error.exitStatus == .cannotCreate)
        #expect(error.path == path)
        #expect(error.message == "cannot create `\(path)`: unable to open file: No such file or directory (H5Fcreate)")
    }

    @Test func createWhileOpenNamesTheInnermostCause() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("train.h5")
        let file = try HDF5File.create(path: path)
        defer { try? file.close() }
        let error = try #require(capture { _ = try HDF5File.create(path: path) })
        #expect(error.exitStatus == .cannotCreate)
        #expect(error.message == "cannot create `\(path)`: unable to truncate a file which is already open (H5Fcreate)")
    }

    @Test func openNonHDF5File() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("notes.h5")
        try Data("this is not HDF5\n".utf8).write(to: URL(fileURLWithPath: path))
        let error = try #require(capture { _ = try HDF5File.openReadOnly(path: path) })
        #expect(error.exitStatus == .dataError)
        #expect(error.message.hasPrefix("cannot open `\(path)`: not a readable HDF5 file: "))
        #expect(error.message.contains("file signature not found"), "\(error.message)")
        #expect(error.message.hasSuffix("(H5Fopen)"), "\(error.message)")
    }

    @Test func openMissingFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("absent.h5")
        let error = try #require(capture { _ = try HDF5File.openReadOnly(path: path) })
        #expect(error.exitStatus == .noInput)
        #expect(error.message == "cannot open `\(path)`: no such file")
    }

    @Test func openMissingDataset() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("train.h5")
        try WindowFixture(windows: 2).write(to: path)
        let file = try HDF5File.openReadOnly(path: path)
        defer { try? file.close() }
        for name in ["features", "", "a/b"] {
            let error = try #require(capture { _ = try file.openDataset(name) })
            #expect(error.exitStatus == .dataError)
            #expect(error.objectName == name)
            #expect(error.message == "cannot open dataset `\(name)` in `\(path)`: there is no such dataset")
        }
    }

    @Test func missingAndMistypedAttributes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("train.h5")
        try WindowFixture(windows: 2).write(to: path)
        let file = try HDF5File.openReadOnly(path: path)
        defer { try? file.close() }
        let missing = try #require(capture { _ = try file.stringAttribute("nope") })
        #expect(missing.exitStatus == .dataError)
        #expect(missing.message == "cannot read attribute `nope` of `\(path)`: there is no such attribute")
        let notInteger = try #require(capture { _ = try file.intAttribute("format") })
        #expect(notInteger.message == "cannot read attribute `format` of `\(path)`: it is not an integer")
        let notText = try #require(capture { _ = try file.stringAttribute("format_version") })
        #expect(notText.message == "cannot read attribute `format_version` of `\(path)`: it is not text")
        let notOne = try #require(capture { _ = try file.stringAttribute("class_names") })
        #expect(notOne.message == "cannot read attribute `class_names` of `\(path)`: it holds 5 strings, expected one")
    }

    @Test func readOutsideTheRows() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("train.h5")
        try WindowFixture(windows: 3).write(to: path)
        let file = try HDF5File.openReadOnly(path: path)
        defer { try? file.close() }
        let y = try file.openDataset("y")
        let error = try #require(capture { _ = try y.readInt64s(start: 2, count: 2) })
        #expect(error.exitStatus == .dataError)
        #expect(error.message == "cannot read rows 2..<4 of dataset `y` in `\(path)`: the dataset has only 3 rows")
    }

    @Test func writingToAReadOnlyFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("train.h5")
        try WindowFixture(windows: 2).write(to: path)
        let file = try HDF5File.openReadOnly(path: path)
        defer { try? file.close() }
        let y = try file.openDataset("y")
        let append = try #require(capture { try y.append([Int64(1)], rows: 1) })
        #expect(append.exitStatus == .ioError)
        #expect(append.message.hasPrefix("cannot append to dataset `y` in `\(path)`: "))
        #expect(append.libraryDetail?.isEmpty == false)
        let attribute = try #require(capture { try file.setAttribute("split", string: "x") })
        #expect(attribute.exitStatus == .ioError)
        let dataset = try #require(capture { _ = try file.createDataset("z", type: .int32, rowShape: [], chunkRows: 4) })
        #expect(dataset.exitStatus == .cannotCreate)
    }

    @Test func duplicateDatasetAndZeroExtent() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("train.h5")
        let file = try HDF5File.create(path: path)
        defer { try? file.close() }
        _ = try file.createDataset("x", type: .float32, rowShape: [4], chunkRows: 4)
        let duplicate = try #require(capture { _ = try file.createDataset("x", type: .float32, rowShape: [4], chunkRows: 4) })
        #expect(duplicate.exitStatus == .cannotCreate)
        #expect(duplicate.message.hasPrefix("cannot create dataset `x` in `\(path)`: "))
        #expect(duplicate.message.hasSuffix("(H5Dcreate2)"), "\(duplicate.message)")
        let zero = try #require(capture { _ = try file.createDataset("features", type: .float32, rowShape: [0], chunkRows: 4) })
        #expect(zero.message == "cannot create dataset `features` in `\(path)`: row extent 1 of [0] is 0, and HDF5 chunks cannot be empty")
    }

    @Test func nulInAStringIsADataError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("train.h5")
        let file = try HDF5File.create(path: path)
        defer { try? file.close() }
        let error = try #require(capture { try file.setAttribute("class_names", strings: ["ok", "bad\u{0}name"]) })
        #expect(error.exitStatus == .dataError)
        #expect(error.message == "cannot write attribute `class_names` to `\(path)`: string 1 contains a NUL character, which HDF5 strings cannot hold")
    }

    @Test func usingAClosedFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("train.h5")
        let file = try HDF5File.create(path: path)
        try file.close()
        let error = try #require(capture { _ = try file.datasetNames() })
        #expect(error.message == "cannot list the datasets of `\(path)`: the file has been closed")
    }

    @Test(arguments: [
        ("unable to open file: name = 'a/b.h5', errno = 2, error message = 'No such file or directory', flags = 13, o_flags = 242",
         "unable to open file: No such file or directory"),
        ("file write failed: time = Tue Dec  1 15:04:20 2026\n, filename = 'out.partial/train.h5', file descriptor = 6, errno = 28, error message = 'No space left on device', buf = 0x7fffdc1766c0, total write size = 13400, bytes this sub-write = 13400, bytes actually written = 18446744073709551615, offset = 0",
         "file write failed: No space left on device"),
        ("file signature not found", "file signature not found"),
        ("", ""),
    ])
    func conciseDescriptions(raw: String, concise: String) {
        #expect(_conciseDescription(raw) == concise)
    }

    @Test func discardClosesTheFileAndEverythingInIt() throws {
        // After discard() HDF5 holds nothing of the file: it is closed for this object, its
        // datasets are closed, and the path can be created afresh (an HDF5 file still open
        // would refuse: "unable to truncate a file which is already open").
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("train.h5")
        let file = try HDF5File.create(path: path)
        let dataset = try file.createDataset("y", type: .int64, rowShape: [], chunkRows: 4)
        try dataset.append([Int64](repeating: 7, count: 10), rows: 10)
        file.discard()
        file.discard()
        #expect(capture { _ = try file.datasetNames() }?.message.hasSuffix("the file has been closed") == true)
        #expect(capture { _ = try dataset.rowCount } != nil)
        let again = try HDF5File.create(path: path)
        try again.close()
    }

    @Test func errorStackIsEmptyAfterSuccess() throws {
        // A failure must not leak into later, successful calls' errors.
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        _ = capture { _ = try HDF5File.openReadOnly(path: directory.path("absent.h5")) }
        let file = try HDF5File.create(path: directory.path("ok.h5"))
        try file.close()
        #expect(HDF5Library.withLock { HDF5Library.errorStack() } == [])
    }
}
