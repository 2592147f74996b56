import Foundation
import MotionCore
import MotionDataset
import MotionValidate
import Testing

/// `manifest.*` and `counts.*`: a manifest that is broken, or lies about the data, fails.
@Suite struct ManifestTests {
    @Test func brokenJSONFailsParse() throws {
        let dir = Fixture.copy()
        let path = dir + "/manifest.json"
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"format_version\": 2,", with: "\"format_version\": 2,,")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/manifest.json: manifest.parse: is not valid JSON at manifest.json:"))
        #expect(output.contains("expected a key in double quotes, found `,`"))
        let r = report(dir)
        #expect(failedChecks(r) == ["manifest.parse"])
        // Everything else is reported as skipped, never as passed.
        #expect(r.checks.allSatisfy { $0.status != .passed })
        #expect(r.outcome(.filesSHA256)?.status == .skipped)
    }

    @Test func truncatedManifestFailsParse() throws {
        let dir = Fixture.copy()
        let path = dir + "/manifest.json"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try String(text.prefix(text.count / 2)).write(toFile: path, atomically: true, encoding: .utf8)
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("manifest.json: manifest.parse: is not valid JSON"))
    }

    @Test func missingManifestFails() throws {
        let dir = Fixture.copy()
        try FileManager.default.removeItem(atPath: dir + "/manifest.json")
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/manifest.json: manifest.parse: is missing"))
    }

    @Test func emptyFolderFails() throws {
        let dir = makeTemporaryDirectory("empty")
        #expect(try validate(dir).status == .checkFailed)
    }

    @Test func schemaProblemsAreAllReported() throws {
        let dir = Fixture.copy()
        try editManifest(dir) { m in
            m.remove("created_by")
            m[["window_stride"]] = .string("64")
            m[["storage"]] = .string("hdf5")
            m[["splits", "train", "files", 0, "sha256"]] = .string("XYZ")
            m[["format_versoin"]] = .int(1)
            m[["arrays", "x", "shape"]] = .array([.null, .int(128), .int(17)])
        }
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        for expected in [
            "manifest.json: manifest.schema: missing key `created_by` in the manifest",
            "manifest.json: manifest.schema: `window_stride` must be a whole number ≥ 1, not \"64\"",
            "manifest.json: manifest.schema: `splits.train.files[0].sha256` must be 64 lowercase hex digits, not \"XYZ\"",
            "manifest.json: manifest.schema: unknown key `format_versoin` in the manifest; did you mean `format_version`?",
            "manifest.json: manifest.schema: `arrays.x.shape` must be [null, 128, 18]",
        ] {
            #expect(output.contains(expected), "missing: \(expected)\n\(output)")
        }
    }

    @Test func formatVersion1IsExplainedAsWrittenByAnOlderMotionprep() throws {
        let dir = Fixture.copy()
        try editManifest(dir) { m in
            m[["format_version"]] = .int(1)
            m.remove("resolved", at: ["pipeline"])
        }
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("manifest.json: manifest.schema: `format_version` is 1: the dataset was written by an older motionprep (format_version 1), whose shards and manifest this build no longer reads; rerun `motionprep run` to rewrite it in format_version 2"), "\(output)")
        // Version 1 had no `pipeline.resolved`: its absence is not a second complaint; its files
        // are not read as version 2 files (the data checks are skipped, not failed).
        #expect(!output.contains("resolved"), "\(output)")
        let r = report(dir)
        #expect(failedChecks(r) == ["manifest.schema"])
        #expect(r.outcome(.valuesFinite)?.status == .skipped)
    }

    @Test func aNewerFormatVersionNamesTheVersionFoundAndTheOneRead() throws {
        let dir = Fixture.copy()
        try editManifest(dir) { m in
            m[["format_version"]] = .int(3)
            m[["created_by"]] = .string("motionprep 0.9.0")
            m[["a_key_of_version_3"]] = .bool(true)
        }
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("manifest.json: manifest.schema: `format_version` is 3: the dataset was written by a newer motionprep (`created_by` is \"motionprep 0.9.0\") than this one, which reads format_version 2 only; check it with the motionprep that wrote it, or a newer one"), "\(output)")
        // Another format's keys are not listed as unknown: the version says it all.
        #expect(!output.contains("a_key_of_version_3"), "\(output)")
        let r = report(dir)
        #expect(failedChecks(r) == ["manifest.schema"])
        #expect(r.outcome(.valuesFinite)?.status == .skipped)
    }

    @Test func version2NeedsTheResolvedPipeline() throws {
        let dir = Fixture.copy()
        try editManifest(dir) { $0.remove("resolved", at: ["pipeline"]) }
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("manifest.json: manifest.schema: missing key `resolved` in `pipeline`"), "\(output)")
    }

    @Test func unreadableStorageFailsSupported() throws {
        let dir = Fixture.copy()
        try editManifest(dir) { $0[["storage"]] = .string("shards") }
        let r = DatasetValidator.validate(directory: dir, options: ValidationOptions(storages: [HDF5Storage()]))
        #expect(r.failures.first?.description == "manifest.json: storage.supported: storage \"shards\" cannot be read by this build (it reads `hdf5`), so its data is not checked")
        // The bytes are still checked; the data checks are skipped, never passed.
        #expect(r.outcome(.filesSHA256)?.status == .passed)
        #expect(r.outcome(.valuesFinite)?.status == .skipped)
    }

    @Test func wrongStorageFailsReadable() throws {
        let dir = Fixture.copy()
        try editManifest(dir) { $0[["storage"]] = .string("shards") }
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/train.h5: files.readable: cannot be opened as shards: "))
        #expect(output.contains("\(dir)/train.h5: files.metadata: is shard 0 of split `train` in the manifest, so it should be `train/train-00000.tar.zst`"))
    }

    @Test func changedSplitCountFails() throws {
        let dir = Fixture.copy()
        try editManifest(dir) { m in
            let n = m[["splits", "train", "num_windows"]].intValue
            m[["splits", "train", "num_windows"]] = .int(n + 1)
        }
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("manifest.json: counts.split: split `train` lists"))
        #expect(failedChecks(report(dir)) == ["counts.split"])
    }

    @Test func changedFileCountFails() throws {
        let dir = Fixture.copy()
        try editManifest(dir) { m in
            let n = m[["splits", "test", "files", 0, "num_windows"]].intValue
            m[["splits", "test", "files", 0, "num_windows"]] = .int(n - 1)
            m[["splits", "test", "num_windows"]] = .int(n - 1)
        }
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/test.h5: counts.file: holds "))
        #expect(output.contains("manifest.json: counts.split: split `test` holds "))
        #expect(Set(failedChecks(report(dir))) == ["counts.file", "counts.split"])
    }

    @Test func changedClassCountFails() throws {
        let dir = Fixture.copy()
        try editManifest(dir) { m in
            let walk = m[["splits", "validation", "files", 0, "class_counts", 0]].intValue
            let turn = m[["splits", "validation", "files", 0, "class_counts", 1]].intValue
            // Same total, different split between the classes.
            m[["splits", "validation", "files", 0, "class_counts"]] = .array([.int(walk - 1), .int(turn + 1)])
            m[["splits", "validation", "class_counts"]] = .array([.int(walk - 1), .int(turn + 1)])
        }
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/validation.h5: counts.file: holds ["))
        #expect(output.contains("windows per class (walk "))
        #expect(Set(failedChecks(report(dir))) == ["counts.file", "counts.split"])
    }

    @Test func editedNormalizationFails() throws {
        let dir = Fixture.copy()
        try editManifest(dir) { m in
            m[["normalization", "x", "mean", 2]] = .double(1.5)
        }
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("manifest.json: normalization.stats: `normalization.x` disagrees with the train split for 1 column(s): `acc_z` mean 1.5"))
    }
}
