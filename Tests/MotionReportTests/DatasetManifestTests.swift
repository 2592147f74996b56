import Foundation
import Testing
@testable import MotionReport

@Suite struct DatasetManifestTests {
    static let minimal = """
        {"format": "motionprep.dataset", "storage": "hdf5", "sample_rate_hz": 50.0, "window_length": 4, "window_stride": 2,
         "channels": [{"name": "acc_x", "unit": "m/s^2"}], "classes": ["a", "b"], "subjects": ["s1"], "recordings": ["r1"],
         "counts": {"gaps": 0, "gap_seconds": 0.0, "rows_dropped": {"missing_value": 1}, "flag": true},
         "splits": {"train": {"num_windows": 0, "class_counts": [0, 0], "files": [{"path": "train.h5"}]}}}
        """

    /// Zeros are numbers, not booleans (on Linux `NSNumber(0) is Bool` is true), and every count
    /// of the manifest appears, nested keys flattened.
    @Test func zeroCountsAreKept() throws {
        let m = try DatasetManifest.decode(Data(Self.minimal.utf8), path: "manifest.json")
        #expect(m.counts.map(\.key) == ["gap_seconds", "gaps", "rows_dropped.missing_value"])
        #expect(m.counts.map(\.value) == [0, 0, 1])
        #expect(m.splits.map(\.numWindows) == [0])
        #expect(m.splits.first?.classCounts == [0, 0])
        #expect(m.normalizationMean == nil)
    }

    @Test(arguments: [
        ("[]", "the top level is not a JSON object"),
        ("{\"format\": \"other\"}", "`format` is not \"motionprep.dataset\""),
        ("{\"format\": \"motionprep.dataset\", \"channels\": [], \"splits\": {}}", "`sample_rate_hz` is missing or has the wrong type"),
    ])
    func badManifestsNameTheProblem(text: String, reason: String) {
        #expect(throws: ReportError.badManifest("m.json", reason)) {
            try DatasetManifest.decode(Data(text.utf8), path: "m.json")
        }
    }
}
