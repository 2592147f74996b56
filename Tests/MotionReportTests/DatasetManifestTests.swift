import Foundation
import MotionCore
import MotionDataset
import Testing
@testable import MotionReport

/// The report reads manifest.json through MotionDataset, as `validate` does.
@Suite struct DatasetManifestTests {
    /// Zeros are numbers, every count of the manifest appears, nested keys flattened, lists left out.
    @Test func countsAreFlattenedWithZerosKept() throws {
        let m = try DatasetManifest.load(directory: try Fixture.dataset())
        let keys = ReportPage.flatCounts(m).map(\.key)
        #expect(keys.contains("gaps") && keys.contains("gap_seconds") && keys.contains("rows_read") && keys.contains("recordings"))
        #expect(!keys.contains("skipped_recordings"))
        #expect(keys == keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(ReportPage.flatCounts(m).first { $0.key == "recordings" }?.value == Double(m.recordings.count))
    }

    /// A malformed manifest is refused with the field, what it must be and what it is.
    @Test func aMalformedManifestNamesTheField() throws {
        let dir = Fixture.temporaryDirectory("bad-manifest") + "/dataset"
        try FileManager.default.copyItem(atPath: try Fixture.dataset(), toPath: dir)
        let path = dir + "/manifest.json"
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"window_length\": 128,", with: "\"window_length\": \"128\",")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: MotionError(.dataError, "\(path): `window_length` must be a whole number ≥ 1, not \"128\"")) {
            try Report.render(directory: dir)
        }
    }

    /// A dataset of a newer format says so, naming the version found and the one this build reads.
    @Test func aNewerFormatVersionIsNamed() throws {
        let dir = Fixture.temporaryDirectory("newer-manifest") + "/dataset"
        try FileManager.default.copyItem(atPath: try Fixture.dataset(), toPath: dir)
        let path = dir + "/manifest.json"
        let text = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "\"format_version\": 2,", with: "\"format_version\": 3,")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: MotionError(.dataError, "\(path): `format_version` is 3: the dataset was written by a newer motionprep (`created_by` is \"motionprep 0.1.0\") than this one, which reads format_version 2 only; check it with the motionprep that wrote it, or a newer one")) {
            try Report.render(directory: dir)
        }
    }
}
