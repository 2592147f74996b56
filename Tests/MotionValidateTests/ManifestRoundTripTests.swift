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
        #expect(manifest.splitPolicy?.folds == 3 && manifest.splitPolicy?.seed == 42)
        #expect(manifest.arrays == manifest.expectedArrays)
        #expect(manifest.inputs.count == 8 && manifest.inputs.allSatisfy { $0.role == "recording" })
        guard case .object(let resolved) = manifest.pipeline.resolved else { Issue.record("no resolved pipeline"); return }
        #expect(resolved["resample"] != nil && resolved["split"] != nil)
        #expect(manifest.normalization.x?.mean.count == manifest.channels.count)
    }

    /// The keys a run writes only sometimes (`assign`, `allocation`, `leave_one_out`,
    /// `label_rows_ignored`, skipped recordings, a null normalization) survive the round trip too.
    @Test func everyOptionalKeyRoundTrips() throws {
        let sha = String(repeating: "ab", count: 32)
        let m = DatasetManifest(
            createdBy: "motionprep 0.1.0", storage: "shards",
            pipeline: .init(name: "p", sha256: sha, resolved: .object(["version": .int(1)])),
            sampleRateHz: 62.5, windowLength: 4, windowStride: 2,
            channels: [.init(name: "acc_x", unit: "m/s^2")], classes: ["a", "b"], featureNames: [],
            inputs: [.init(path: "d/r.csv", bytes: 10, sha256: sha, role: "recording"),
                     .init(path: "labels.csv", bytes: 3, sha256: sha, role: "labels")],
            subjects: ["s1", "s2"], recordings: ["r1", "r2"],
            arrays: DatasetSchema.arrays(windowLength: 4, channels: 1, features: 0, hasFolds: true),
            splitPolicy: .init(by: "recording", seed: 7, train: 0.6, validation: 0.2, test: 0.2, folds: 1,
                               allocation: "exact", leaveOneOut: true, assign: ["test": ["r2"]]),
            normalization: .init(x: nil, features: nil),
            counts: .init(recordings: 2, rowsRead: 100, rowsDropped: ["missing_value": 1], windowsDropped: [:],
                          recordingsDropped: ["skipped_on_error": 1],
                          skippedRecordings: [.init(recording: "r2", error: "r2.csv:3:1: bad \"value\"")],
                          labelRowsIgnored: ["unknown_recording": 2, "label_not_in_classes": 0, "no_overlap": 1],
                          gaps: 0, gapSeconds: 0.016),
            splits: [.train: .init(numWindows: 1, classCounts: [1, 0],
                                   files: [.init(split: .train, path: "train/train-00000.tar.zst", bytes: 9, sha256: sha,
                                                 numWindows: 1, classCounts: [1, 0])]),
                     .validation: .init(numWindows: 0, classCounts: [0, 0],
                                        files: [.init(split: .validation, path: "validation/validation-00000.tar.zst", bytes: 9,
                                                      sha256: sha, numWindows: 0, classCounts: [0, 0])]),
                     .test: .init(numWindows: 0, classCounts: [0, 0],
                                  files: [.init(split: .test, path: "test/test-00000.tar.zst", bytes: 9, sha256: sha,
                                                numWindows: 0, classCounts: [0, 0])])])
        let text = m.text
        let back = try DatasetManifest.decode(bytes: Array(text.utf8), file: "manifest.json")
        #expect(back == m)
        #expect(back.text == text)
    }

    /// The output of `apply` is the same model: `source_dataset` for `split_policy`, one split,
    /// `windows`, `windows_unlabelled`, the normalised arrays; its text decodes back to itself.
    @Test func anAppliedManifestRoundTrips() throws {
        let sha = String(repeating: "cd", count: 32)
        let m = DatasetManifest(
            formatVersion: DatasetSchema.appliedFormatVersion, createdBy: "motionprep 0.1.0", storage: "hdf5",
            pipeline: .init(name: "p", sha256: sha, resolved: .object(["version": .int(1)])),
            sampleRateHz: 50, windowLength: 4, windowStride: 2,
            channels: [.init(name: "acc_x", unit: "m/s^2")], classes: ["a", "b"], featureNames: ["acc_x_mean"],
            inputs: [.init(path: "new/r.csv", bytes: 10, sha256: sha, role: "recording")],
            subjects: ["s9"], recordings: ["r9"],
            arrays: DatasetSchema.appliedArrays(windowLength: 4, channels: 1, features: 1),
            splitPolicy: nil,
            normalization: .init(x: .init(mean: [0.5], std: [2]), features: .init(mean: [0.25], std: [0])),
            counts: .init(recordings: 1, rowsRead: 40, rowsDropped: [:], windowsDropped: ["no_label": 2],
                          recordingsDropped: [:], skippedRecordings: [], labelRowsIgnored: nil, gaps: 0, gapSeconds: 0),
            splits: [.windows: .init(numWindows: 5, classCounts: [2, 1],
                                     files: [.init(split: .windows, path: "windows.h5", bytes: 9, sha256: sha,
                                                   numWindows: 5, classCounts: [2, 1])])],
            applied: .init(name: "p", manifestSHA256: sha, pipelineSHA256: sha))
        let text = m.text
        #expect(text.contains("\"format\": \"motionprep.applied\"") && text.contains("\"windows_unlabelled\"")
                && !text.contains("split_policy") && text.contains("\"source_dataset\""))
        let back = try DatasetManifest.decode(bytes: Array(text.utf8), file: "manifest.json")
        #expect(back == m)
        #expect(back.text == text)
        #expect(back.splitNames == [.windows] && back.files.map(\.path) == ["windows.h5"])
        #expect(back.arrays == back.expectedArrays && back.arrays["x_normalized"] != nil && back.arrays["fold_index"] == nil)
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
