import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import MotionDataset
import Testing
@testable import MotionReport

/// The same pipeline written as hdf5 and as shards gives the same page: every number the page
/// carries in `data-*` attributes is equal.
@Suite struct ShardsParityTests {
    /// Every `data-*` attribute in document order, as "element attribute=value".
    private func dataAttributes(_ html: String) throws -> [String] {
        let page = try PageDocument(html)
        var out: [String] = []
        func walk(_ e: XMLElement) {
            for a in e.attributes ?? [] where (a.name ?? "").hasPrefix("data-") {
                out.append("\(e.localName ?? "") \(a.name!)=\(a.stringValue ?? "")")
            }
            for c in e.children ?? [] { if let ce = c as? XMLElement { walk(ce) } }
        }
        walk(page.root)
        return out
    }

    @Test func shardsAndHDF5GiveTheSamePage() throws {
        let hdf5 = try Fixture.rendered.get()
        let shards = try Report.render(directory: try Fixture.shardsDataset())
        #expect(shards.manifest.storage == "shards")
        #expect(shards.manifest.splits.values.allSatisfy { $0.files.count >= 2 }, "the fixture has several shards per split")
        #expect(shards.statistics.splits == hdf5.statistics.splits)
        #expect(shards.statistics.examples == hdf5.statistics.examples)
        let a = try dataAttributes(hdf5.html), b = try dataAttributes(shards.html)
        #expect(a.count > 100)
        #expect(a == b)
        // Apart from the storage named in the subtitle, the pages are the same text.
        #expect(shards.html.replacingOccurrences(of: "storage shards", with: "storage hdf5") == hdf5.html)
    }

    @Test func blocksThatStraddleShardsReadTheSameRows() throws {
        let dir = try Fixture.shardsDataset()
        let manifest = try DatasetManifest.load(directory: dir)
        let shards = try ShardWindowStore(directory: dir, manifest: manifest)
        let hdf5Dir = try Fixture.dataset()
        let hdf5 = try HDF5WindowStore(directory: hdf5Dir, manifest: try DatasetManifest.load(directory: hdf5Dir))
        for (s, h) in zip(shards.splits, hdf5.splits) {
            let n = try h.windowCount
            #expect(try s.windowCount == n)
            #expect(s.preferredBlockRows == 16)
            // Blocks of 7 rows cross shard boundaries (16 windows per shard).
            var start = 0
            while start < n {
                let count = min(7, n - start)
                #expect(try s.labels(start: start, count: count) == h.labels(start: start, count: count))
                #expect(try s.subjectIndices(start: start, count: count) == h.subjectIndices(start: start, count: count))
                #expect(try s.recordingIndices(start: start, count: count) == h.recordingIndices(start: start, count: count))
                #expect(try s.startTimes(start: start, count: count) == h.startTimes(start: start, count: count))
                #expect(try s.windows(start: start, count: count) == h.windows(start: start, count: count))
                start += count
            }
        }
    }

    @Test func sampledHistogramsAgreeToo() throws {
        var options = StatisticsOptions()
        options.histogramWindows = 20
        options.blockRows = 5
        let a = try Report.render(directory: try Fixture.dataset(), options: options)
        let b = try Report.render(directory: try Fixture.shardsDataset(), options: options)
        #expect(a.statistics.histogramWindows == 20)
        #expect(b.html.replacingOccurrences(of: "storage shards", with: "storage hdf5") == a.html)
    }
}
