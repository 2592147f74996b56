import Foundation
import MotionCore
import MotionValidate
import Testing

/// Checks on what the arrays hold. Each test rewrites one split file through MotionHDF5 and then
/// fixes its size and SHA-256 in the manifest and SHA256SUMS, so only the check under test can fail.
@Suite struct DataCorruptionTests {
    @Test func rewritingWithoutChangesStillPasses() throws {
        let dir = Fixture.copy()
        try rewriteSplitFile(dir, "train.h5") { _ in }
        let (status, output) = try validate(dir)
        #expect(status == .success, "\(output)")
    }

    @Test func nanInXFailsFinite() throws {
        let dir = Fixture.copy()
        try rewriteSplitFile(dir, "test.h5") { f in
            guard case .float32(var x) = f.arrays["x"]!.values else { return }
            x[3 * 128 * 18 + 5 * 18 + 1] = .nan  // window 3, time step 5, channel acc_y
            x[7] = -.infinity
            f.arrays["x"]!.values = .float32(x)
        }
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/test.h5: values.finite: `x` holds 2 NaN or infinite value(s); first: -inf at window 0, time step 0, channel `mag_y`"))
        #expect(failedChecks(report(dir)) == ["values.finite"])
    }

    @Test func nanInFeaturesFailsFinite() throws {
        let dir = Fixture.copy()
        try rewriteSplitFile(dir, "validation.h5") { f in
            guard case .float32(var v) = f.arrays["features"]!.values else { return }
            v[36 + 2] = .nan  // window 1, acc_y_mean
            f.arrays["features"]!.values = .float32(v)
        }
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/validation.h5: values.finite: `features` holds 1 NaN or infinite value(s); first: nan at window 1, feature `acc_y_mean`"))
        #expect(failedChecks(report(dir)) == ["values.finite"])
    }

    @Test func subjectInTwoSplitsFailsDisjoint() throws {
        let dir = Fixture.copy()
        // The train split's first subject also shows up in the test split.
        var trainSubject: Int32 = 0
        let train = try SplitFileContents(path: dir + "/train.h5")
        if case .int32(let s) = train.arrays["subject_index"]!.values { trainSubject = s[0] }
        try rewriteSplitFile(dir, "test.h5") { f in
            guard case .int32(var s) = f.arrays["subject_index"]!.values else { return }
            s[s.count - 1] = trainSubject
            f.arrays["subject_index"]!.values = .int32(s)
        }
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/test.h5: splits.disjoint_subjects: subject `subject0\(trainSubject + 1)` has windows in split `train` (train.h5) and in split `test`"))
        #expect(failedChecks(report(dir)) == ["splits.disjoint_subjects"])
    }

    @Test func recordingInTwoSplitsFailsDisjoint() throws {
        let dir = Fixture.copy()
        var trainRecording: Int32 = 0
        let train = try SplitFileContents(path: dir + "/train.h5")
        if case .int32(let r) = train.arrays["recording_index"]!.values { trainRecording = r[0] }
        try rewriteSplitFile(dir, "validation.h5") { f in
            guard case .int32(var r) = f.arrays["recording_index"]!.values else { return }
            r[0] = trainRecording
            f.arrays["recording_index"]!.values = .int32(r)
        }
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/validation.h5: splits.disjoint_recordings: recording `subject0"))
    }

    @Test func invalidClassIdFailsLabels() throws {
        let dir = Fixture.copy()
        try rewriteSplitFile(dir, "train.h5") { f in
            guard case .int64(var y) = f.arrays["y"]!.values else { return }
            y[4] = 2
            y[9] = -1
            f.arrays["y"]!.values = .int64(y)
        }
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/train.h5: labels.range: `y` holds 2 invalid value(s); class ids are 0 to 1 (walk, turn); first: 2 at window 4"))
        #expect(failedChecks(report(dir)).contains("labels.range"))
    }

    @Test func indexOutOfRangeFails() throws {
        let dir = Fixture.copy()
        try rewriteSplitFile(dir, "test.h5") { f in
            guard case .int32(var s) = f.arrays["fold_index"]!.values else { return }
            s[0] = 3
            f.arrays["fold_index"]!.values = .int32(s)
        }
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/test.h5: indices.range: `fold_index` holds 1 value(s) other than -1 (windows outside the train split have no fold); first: 3 at window 0"))
        #expect(failedChecks(report(dir)) == ["indices.range"])
    }

    @Test func trainFoldOutOfRangeFails() throws {
        let dir = Fixture.copy()
        try rewriteSplitFile(dir, "train.h5") { f in
            guard case .int32(var s) = f.arrays["fold_index"]!.values else { return }
            s[0] = -1
            f.arrays["fold_index"]!.values = .int32(s)
        }
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/train.h5: indices.range: `fold_index` holds 1 value(s) outside 0..<3 (the manifest's folds); first: -1 at window 0"))
        #expect(failedChecks(report(dir)) == ["indices.range"])
    }

    @Test func wrongDtypeFails() throws {
        let dir = Fixture.copy()
        try rewriteSplitFile(dir, "validation.h5") { f in
            guard case .int64(let y) = f.arrays["y"]!.values else { return }
            f.arrays["y"]!.values = .int32(y.map { Int32($0) })
        }
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/validation.h5: arrays.dtype: `y` is int32, but the manifest says int64"))
        #expect(failedChecks(report(dir)) == ["arrays.dtype"])
    }

    @Test func missingArrayFailsShape() throws {
        let dir = Fixture.copy()
        try rewriteSplitFile(dir, "train.h5") { f in f.arrays["features"] = nil }
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/train.h5: arrays.shape: lacks the array `features` (float32 [null, 36])"))
        // The train split's feature statistics can no longer be checked.
        #expect(report(dir).outcome(.normalizationStats)?.status == .skipped)
    }

    @Test func wrongShapeAndRowCountFail() throws {
        let dir = Fixture.copy()
        try rewriteSplitFile(dir, "test.h5") { f in
            guard case .float32(let x) = f.arrays["x"]!.values else { return }
            // One channel fewer: [N, 128, 17].
            var narrow: [Float] = []
            for (i, v) in x.enumerated() where i % 18 != 17 { narrow.append(v) }
            f.arrays["x"] = .init(values: .float32(narrow), rowShape: [128, 17])
            guard case .float64(let t) = f.arrays["start_time_s"]!.values else { return }
            f.arrays["start_time_s"]!.values = .float64(Array(t.dropLast()))
        }
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/test.h5: arrays.shape: `x` has shape ["))
        #expect(output.contains(", 128, 17], but the manifest says [null, 128, 18]"))
        #expect(output.contains("\(dir)/test.h5: arrays.shape: `start_time_s` has "))
    }

    @Test func extraArrayFailsShape() throws {
        let dir = Fixture.copy()
        try rewriteSplitFile(dir, "test.h5") { f in f.arrays["weights"] = .init(values: .float32([1, 2]), rowShape: []) }
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/test.h5: arrays.shape: holds an array `weights` (shape [2]) that the manifest does not list"))
    }

    @Test func wrongAttributeFailsMetadata() throws {
        let dir = Fixture.copy()
        try rewriteSplitFile(dir, "validation.h5") { f in
            f.attributes = f.attributes.map { name, value in
                name == "split" ? (name, .string("train")) : (name, value)
            }.filter { $0.0 != "channel_units" }
        }
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/validation.h5: files.metadata: root attribute `split` is \"train\", but the manifest says \"validation\""))
        #expect(output.contains("\(dir)/validation.h5: files.metadata: root attribute `channel_units` is missing"))
        #expect(failedChecks(report(dir)) == ["files.metadata"])
    }

    @Test func notAnHDF5FileFailsReadable() throws {
        let dir = Fixture.copy()
        try "not hdf5".write(toFile: dir + "/test.h5", atomically: true, encoding: .utf8)
        try refreshChecksums(dir, "test.h5")
        let (status, output) = try validate(dir)
        #expect(status == .checkFailed)
        #expect(output.contains("\(dir)/test.h5: files.readable: cannot be opened as hdf5"))
    }

    /// Block boundaries must not matter: a block of 1, 5 or 7 windows finds exactly the same.
    @Test(arguments: [1, 5, 7, 4096])
    func blockSizeDoesNotChangeTheReport(_ blockWindows: Int) throws {
        let dir = Fixture.copy()
        try rewriteSplitFile(dir, "test.h5") { f in
            guard case .float32(var x) = f.arrays["x"]!.values else { return }
            x[x.count - 1] = .nan
            x[128 * 18 * 6] = .infinity
            f.arrays["x"]!.values = .float32(x)
        }
        let expectations = Expectations(file: "e.yaml", valueRanges: [.init(channels: "acc_*", min: -15, max: 15, source: "e.yaml:1:1")])
        let reference = report(dir, expectations: expectations, blockWindows: 4096)
        let r = report(dir, expectations: expectations, blockWindows: blockWindows)
        #expect(r.failures == reference.failures)
        #expect(r.windows == reference.windows)
        #expect(failedChecks(r).contains("values.finite"))
    }
}
