import Foundation
import MotionCore
import MotionDataset
import Testing

/// One manifest type, read and written by the same code: a manifest `motionprep run` wrote
/// decodes into `DatasetManifest` and encodes back to the very same bytes.
@Suite struct ManifestRoundTripTests {
    @Test(arguments: [false, true])
    func writtenManifestRoundTripsByteForByte(shards: Bool) throws {
        let dir = shards ? Fixture.shardDataset : Fixture.dataset
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: dir + "/manifest.json")))
        let manifest = try DatasetManifest.decode(bytes: bytes, file: "manifest.json")
        #expect(Array(manifest.text.utf8) == bytes)
        #expect(try DatasetManifest.load(directory: dir) == manifest)
        // Every field is there, typed: what `apply` and the readers use.
        #expect(manifest.storage == (shards ? "shards" : "hdf5"))
        #expect(manifest.splitPolicy.folds == 3 && manifest.splitPolicy.seed == 42)
        #expect(manifest.arrays == manifest.expectedArrays)
        #expect(manifest.inputs.count == 8 && manifest.inputs.allSatisfy { $0.role == "recording" })
        guard case .object(let resolved) = manifest.pipeline.resolved else { Issue.record("no resolved pipeline"); return }
        #expect(resolved["resample"] != nil && resolved["split"] != nil)
        #expect(manifest.normalization.x?.mean.count == manifest.channels.count)
    }

    @Test func strictDecodingNamesTheFieldAndTheCount() throws {
        let dir = Fixture.copy()
        try editManifest(dir) { m in
            m[["window_stride"]] = .string("64")
            m[["counts", "gaps"]] = .int(-1)
        }
        #expect(throws: MotionError(.dataError, "\(dir)/manifest.json: `window_stride` must be a whole number ≥ 1, not \"64\" (and 1 more problem; `motionprep validate` lists them)")) {
            try DatasetManifest.load(directory: dir)
        }
    }

    @Test func aMissingManifestIsNoInput() throws {
        let dir = makeTemporaryDirectory("no-manifest")
        #expect(throws: MotionError(.noInput, "\(dir) is not a finished motionprep dataset: \(dir)/manifest.json is missing or cannot be read (a run writes it last)")) {
            try DatasetManifest.load(directory: dir)
        }
    }
}
