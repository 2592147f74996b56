import Foundation
import Testing

@testable import MotionHDF5

@Suite struct HDF5RoundTripTests {
    @Test func windowFileReadsBackBitForBit() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fixture = WindowFixture(windows: 1000)
        #expect(fixture.batches.count > 10 && Set(fixture.batches).count > 5, "batches should be uneven")
        let path = directory.path("train.h5")
        try fixture.write(to: path)

        let file = try HDF5File.openReadOnly(path: path)
        #expect(try file.datasetNames() == ["start_time_s", "subject_index", "x", "y"])

        let x = try file.openDataset("x")
        #expect(try x.shape == [1000, 128, 7])
        #expect(x.rowShape == [128, 7])
        #expect(try x.elementType == .float32)
        #expect(try x.chunkRows == 18)
        #expect(try x.chunkShape == [18, 128, 7])
        #expect(try x.filters == ["shuffle", "deflate", "fletcher32"])
        #expect(try x.deflateLevel == 4)
        #expect(bits(try x.readFloats(start: 0, count: 1000)) == bits(fixture.x))
        // A window in the middle, crossing a chunk boundary (rows 17..<19 straddle 18).
        let rowFloats = 128 * 7
        #expect(bits(try x.readFloats(start: 17, count: 2)) == bits(Array(fixture.x[(17 * rowFloats)..<(19 * rowFloats)])))

        let y = try file.openDataset("y")
        #expect(try y.shape == [1000])
        #expect(try y.elementType == .int64)
        #expect(try y.chunkRows == 4096)
        #expect(try y.readInt64s(start: 0, count: 1000) == fixture.y)

        let subjects = try file.openDataset("subject_index")
        #expect(try subjects.elementType == .int32)
        #expect(try subjects.readInt32s(start: 0, count: 1000) == fixture.subjectIndex)

        let times = try file.openDataset("start_time_s")
        #expect(try times.elementType == .float64)
        #expect(bits(try times.readDoubles(start: 0, count: 1000)) == bits(fixture.startTime))
        try file.close()
    }

    @Test func attributesRoundTrip() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("attrs.h5")
        try WindowFixture(windows: 3).write(to: path)

        let file = try HDF5File.openReadOnly(path: path)
        defer { try? file.close() }
        #expect(try file.attributeNames() == [
            "channel_names", "class_names", "feature_names", "format", "format_version", "min_value",
            "note", "sample_rate_hz", "split", "subject_names", "tiny", "window_length", "window_stride",
        ])
        #expect(try file.stringAttribute("format") == "motionprep.windows")
        #expect(try file.stringAttribute("note") == "Grüße aus 北京 🚶")
        #expect(try file.intAttribute("format_version") == 1)
        #expect(try file.intAttribute("min_value") == .min)
        #expect(try file.doubleAttribute("sample_rate_hz") == 50)
        #expect(try file.doubleAttribute("tiny").bitPattern == (-Double.leastNonzeroMagnitude).bitPattern)
        #expect(try file.doubleAttribute("window_length") == 128, "integers read as doubles convert")
        #expect(try file.stringsAttribute("class_names") == WindowFixture.classNames)
        #expect(try file.stringsAttribute("channel_names") == WindowFixture.channelNames)
        #expect(try file.stringsAttribute("feature_names") == [])
        #expect(try file.stringsAttribute("subject_names") == ["Müller", "步行者", "s03"])
        #expect(try file.stringsAttribute("split") == ["train"], "a scalar reads as a one-element list")
    }

    @Test func settingAnAttributeAgainReplacesIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("replace.h5")
        let file = try HDF5File.create(path: path)
        try file.setAttribute("split", string: "train")
        try file.setAttribute("split", strings: ["a", "b"])
        try file.setAttribute("count", double: 1.5)
        try file.setAttribute("count", int: 7)
        try file.close()

        let reopened = try HDF5File.openReadOnly(path: path)
        #expect(try reopened.stringsAttribute("split") == ["a", "b"])
        #expect(try reopened.intAttribute("count") == 7)
        try reopened.close()
    }

    @Test func largeStringListAttributeUsesDenseStorage() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("large.h5")
        // 20 000 names: 320 KB of vlen references, far over the 64 KiB object-header limit.
        let names = (0..<20_000).map { "subject-\($0)-Müller" }
        let file = try HDF5File.create(path: path)
        try file.setAttribute("recording_names", strings: names)
        try file.close()
        let reopened = try HDF5File.openReadOnly(path: path)
        #expect(try reopened.stringsAttribute("recording_names") == names)
        try reopened.close()
    }

    @Test func emptyDatasetsReadBackWithZeroRows() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("empty.h5")
        let file = try HDF5File.create(path: path)
        let x = try file.createDataset("x", type: .float32, rowShape: [128, 7], chunkRows: 18)
        try x.append([Float](), rows: 0)
        _ = try file.createDataset("y", type: .int64, rowShape: [], chunkRows: 4096)
        try file.setAttribute("class_names", strings: [])
        try file.close()

        let reopened = try HDF5File.openReadOnly(path: path)
        defer { try? reopened.close() }
        let readX = try reopened.openDataset("x")
        #expect(try readX.shape == [0, 128, 7])
        #expect(try readX.readFloats(start: 0, count: 0) == [])
        #expect(try readX.chunkRows == 18)
        #expect(try readX.filters == ["shuffle", "deflate", "fletcher32"])
        let readY = try reopened.openDataset("y")
        #expect(try readY.shape == [0])
        #expect(try readY.readInt64s(start: 0, count: 0) == [])
    }

    /// Every small batch size, in every position relative to a 5-row chunk.
    @Test func appendsOfEverySmallSizeConcatenate() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for first in 0...6 {
            for second in 0...11 {
                let path = directory.path("sizes-\(first)-\(second).h5")
                let values = (0..<((first + second) * 3)).map { Int32($0 * 7 - 50) }
                let file = try HDF5File.create(path: path)
                let set = try file.createDataset("v", type: .int32, rowShape: [3], chunkRows: 5)
                try set.append(Array(values[..<(first * 3)]), rows: first)
                try set.append(Array(values[(first * 3)...]), rows: second)
                #expect(try set.shape == [first + second, 3], "first \(first), second \(second)")
                #expect(try set.readInt32s(start: 0, count: first + second) == values, "first \(first), second \(second)")
                try file.close()
            }
        }
    }

    @Test func typedAppendsAndReadsConvertBetweenTypes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try HDF5File.create(path: directory.path("convert.h5"))
        defer { try? file.close() }
        let set = try file.createDataset("v", type: .float64, rowShape: [2], chunkRows: 8)
        try set.append([Float(1.5), -2.25], rows: 1)
        try set.append([Int32(3), 4], rows: 1)
        try set.append([Int64(-5), 6], rows: 1)
        #expect(try set.readDoubles(start: 0, count: 3) == [1.5, -2.25, 3, 4, -5, 6])
        #expect(try set.readFloats(start: 1, count: 1) == [3, 4])
        #expect(try set.readInt64s(start: 2, count: 1) == [-5, 6])
    }

    @Test func resizeAndRawChunkWrites() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("raw.h5")
        let file = try HDF5File.create(path: path)
        let set = try file.createDataset("v", type: .int32, rowShape: [2], chunkRows: 4)
        try set.resize(rows: 6)
        // Two chunks stored raw (every filter skipped: mask 0b111); the second is partial (rows 4, 5).
        let first: [Int32] = [1, 2, 3, 4, 5, 6, 7, 8]
        let second: [Int32] = [9, 10, 11, 12, 0, 0, 0, 0]
        try first.withUnsafeBytes { try set.writeRawChunk(offsetRow: 0, filterMask: 0b111, bytes: $0) }
        try second.withUnsafeBytes { try set.writeRawChunk(offsetRow: 4, filterMask: 0b111, bytes: $0) }
        try file.close()

        let reopened = try HDF5File.openReadOnly(path: path)
        let readSet = try reopened.openDataset("v")
        #expect(try readSet.shape == [6, 2])
        #expect(try readSet.readInt32s(start: 0, count: 6) == Array(first + second.prefix(4)))
        try reopened.close()
    }

    /// Copies every filtered chunk of one dataset into another without decompressing, then
    /// checks the copy reads back the same (so `writeRawChunk` with mask 0 stores real filtered
    /// chunks correctly, Fletcher-32 included).
    @Test func filteredChunksCopyVerbatim() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("copy.h5")
        let values = (0..<(23 * 5)).map { Float($0) * 0.25 - 3 }
        let file = try HDF5File.create(path: path)
        let source = try file.createDataset("source", type: .float32, rowShape: [5], chunkRows: 4)
        try source.append(values, rows: 23)
        let copy = try file.createDataset("copy", type: .float32, rowShape: [5], chunkRows: 4)
        try copy.resize(rows: 23)
        for offset in stride(from: 0, to: 23, by: 4) {
            let chunk = try source.readRawChunk(offsetRow: offset)
            #expect(chunk.filterMask == 0, "all three filters applied")
            #expect(chunk.bytes.count < 4 * 5 * 4 + 4 || offset == 20, "deflate should shrink this chunk")
            try chunk.bytes.withUnsafeBytes { try copy.writeRawChunk(offsetRow: offset, filterMask: chunk.filterMask, bytes: $0) }
        }
        #expect(throws: HDF5Error.self) { _ = try source.readRawChunk(offsetRow: 24) }
        try file.close()

        let reopened = try HDF5File.openReadOnly(path: path)
        #expect(try reopened.openDataset("copy").readFloats(start: 0, count: 23) == values)
        try reopened.close()
    }

    @Test func corruptedChunkFailsItsChecksum() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("corrupt.h5")
        let file = try HDF5File.create(path: path)
        defer { try? file.close() }
        let source = try file.createDataset("source", type: .int64, rowShape: [], chunkRows: 8)
        try source.append((0..<8).map { Int64($0) }, rows: 8)
        let target = try file.createDataset("target", type: .int64, rowShape: [], chunkRows: 8)
        try target.resize(rows: 8)
        var chunk = try source.readRawChunk(offsetRow: 0)
        chunk.bytes[chunk.bytes.count / 2] ^= 0x40
        try chunk.bytes.withUnsafeBytes { try target.writeRawChunk(offsetRow: 0, filterMask: 0, bytes: $0) }
        do {
            _ = try target.readInt64s(start: 0, count: 8)
            Issue.record("a corrupted chunk should not read")
        } catch let error as HDF5Error {
            #expect(error.exitStatus == .ioError)
            #expect(error.message.hasPrefix("cannot read rows 0..<8 of dataset `target` in `\(path)`: "))
            #expect(error.message.lowercased().contains("checksum") || error.message.contains("filter"), "\(error.message)")
        }
    }

    @Test func handlesAreAllClosed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("handles.h5")
        let file = try HDF5File.create(path: path)
        #expect(try file._openObjectCount() == 1)
        let set = try file.createDataset("v", type: .float32, rowShape: [4], chunkRows: 8)
        try set.append([Float](repeating: 1, count: 12), rows: 3)
        try file.setAttribute("names", strings: ["a", "b"])
        _ = try set.filters
        _ = try set.chunkRows
        _ = try file.attributeNames()
        _ = try file.datasetNames()
        #expect(try file._openObjectCount() == 2, "only the file and the dataset stay open")
        try set.close()
        try set.close()   // idempotent
        #expect(try file._openObjectCount() == 1)
        _ = try file.stringsAttribute("names")
        _ = try file.openDataset("v")   // dropped at once: closed in deinit
        #expect(try file._openObjectCount() == 1)
        try file.close()
        try file.close()   // idempotent
        // Close degree SEMI would have refused if anything were still open; reopening works.
        let reopened = try HDF5File.openReadOnly(path: path)
        #expect(try reopened.openDataset("v").readFloats(start: 0, count: 3) == [Float](repeating: 1, count: 12))
        try reopened.close()
    }

    @Test func closingTheFileClosesItsDatasets() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("close.h5")
        let file = try HDF5File.create(path: path)
        let set = try file.createDataset("v", type: .int64, rowShape: [], chunkRows: 16)
        try set.append([Int64(1), 2, 3], rows: 3)
        try file.close()   // dataset still referenced, but closed with the file
        #expect(throws: HDF5Error.self) { try set.append([Int64(4)], rows: 1) }
        let reopened = try HDF5File.openReadOnly(path: path)
        #expect(try reopened.openDataset("v").readInt64s(start: 0, count: 3) == [1, 2, 3])
        try reopened.close()
    }

    @Test func concurrentAppendsFromManyThreads() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("threads.h5")
        let file = try HDF5File.create(path: path)
        let sets = try (0..<8).map { try file.createDataset("d\($0)", type: .int64, rowShape: [3], chunkRows: 7) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, set) in sets.enumerated() {
                group.addTask {
                    for batch in 0..<50 {
                        let base = Int64(index * 1000 + batch * 3)
                        try set.append([base, base + 1, base + 2], rows: 1)
                    }
                }
            }
            try await group.waitForAll()
        }
        for (index, set) in sets.enumerated() {
            let values = try set.readInt64s(start: 0, count: 50)
            #expect(values == (0..<50).flatMap { batch -> [Int64] in
                let base = Int64(index * 1000 + batch * 3)
                return [base, base + 1, base + 2]
            })
        }
        try file.close()
    }
}
