import MotionDataset
import Foundation
import MotionChecksum
import MotionCore
import MotionFeatures

/// How ``DatasetValidator`` runs.
public struct ValidationOptions: Sendable {
    /// Dataset-specific rules (`--expect FILE`), or nil for the dataset checks only.
    public var expectations: Expectations?
    /// The storages that can be read; a dataset whose manifest names another fails `storage.supported`.
    public var storages: [any DatasetStorage]
    /// Rows read at a time from each array (windows of `x`).
    public var blockWindows: Int
    /// Upper bound on one block's size in bytes (fewer rows for very wide windows).
    public var maxBlockBytes: Int

    public init(expectations: Expectations? = nil, storages: [any DatasetStorage] = DatasetStorages.standard(),
                blockWindows: Int = 4096, maxBlockBytes: Int = 64 << 20) {
        precondition(blockWindows > 0 && maxBlockBytes > 0, "block sizes must be positive")
        self.expectations = expectations
        self.storages = storages
        self.blockWindows = blockWindows
        self.maxBlockBytes = maxBlockBytes
    }
}

/// Checks a written dataset folder (docs/validate.md) and reports every problem, never only the first.
///
/// Reads `manifest.json`, `SHA256SUMS` and every data file once for its SHA-256 and once through
/// its storage's reader, array by array in row blocks, so memory stays flat however large the
/// dataset is. Never writes anything.
public enum DatasetValidator {
    /// Validates the dataset in `directory`.
    ///
    /// - Parameters:
    ///   - directory: the dataset folder as the user named it (used as written in the report).
    ///     The caller checks that it exists (`motionprep validate` exits 66 otherwise).
    ///   - options: expectations, storages and block sizes.
    /// - Returns: one outcome per check; ``ValidationReport/passed`` is false when any failed.
    public static func validate(directory: String, options: ValidationOptions = ValidationOptions()) -> ValidationReport {
        let run = _ValidationRun(directory: directory, options: options)
        run.run()
        return run.builder.build(dataset: directory, dataBytes: run.dataBytes, windows: run.windows)
    }
}

/// One validation: the state shared by the check groups (`+Files`, `+Data`, `+Expectations`).
final class _ValidationRun {
    let directory: String
    let options: ValidationOptions
    var builder = ReportBuilder()
    var manifest: DecodedManifest!
    var dataBytes = 0
    var windows = 0
    /// Scans of the files that could be read, by manifest path.
    var scans: [String: FileScan] = [:]
    /// Shards: the canonical window numbers of the samples read, per split.
    var windowNumbers: [SplitName: [Int]] = [:]
    /// Shards: each file's window numbers (sample keys) by row; nil for HDF5 (rows in window order).
    var fileWindowNumbers: [String: [Int]?] = [:]
    /// Files whose data could not all be read (missing, unreadable, wrong arrays).
    var incomplete: Set<String> = []
    /// The run's feature code for the manifest's features (`features.recomputed`), nil when
    /// there are none or they cannot be planned from the manifest.
    var featureExtractor: FeatureExtractor?

    static let manifestName = "manifest.json"
    static let sumsName = "SHA256SUMS"

    init(directory: String, options: ValidationOptions) {
        self.directory = directory
        self.options = options
    }

    func path(_ relative: String) -> String {
        directory.hasSuffix("/") ? directory + relative : directory + "/" + relative
    }

    /// Checks that depend on a readable manifest, marked skipped when it is not.
    static let dependentChecks: [CheckID] = [
        .manifestSchema, .manifestConsistency, .storageSupported, .filesSHA256SUMS, .filesExist, .filesSize, .filesSHA256, .filesUnlisted,
        .filesRegular, .filesContainer, .filesReadable, .filesMetadata, .arraysShape, .arraysDtype, .countsFile, .countsSplit, .labelsRange,
        .indicesRange, .valuesFinite, .normalizationStats, .splitsDisjointSubjects, .splitsDisjointRecordings,
        .splitsDisjointWindows, .windowsTimeOrder, .featuresRecomputed,
    ]

    func skipAll(_ checks: [CheckID], _ reason: String) {
        for c in checks { builder.skip(c, reason) }
        skipExpectations(reason)
    }

    func run() {
        guard let root = readManifest() else { return }
        var decoder = ManifestDecoder()
        let decoded = decoder.decode(root)
        builder.ran(.manifestSchema)
        for p in decoder.problems { builder.fail(.manifestSchema, Self.manifestName, p) }
        guard let decoded else {
            skipAll(Array(Self.dependentChecks.dropFirst()), "the manifest does not match its schema")
            return
        }
        manifest = decoded
        // The manifest's descriptive keys against the pipeline that wrote it (DatasetConsistency).
        builder.ran(.manifestConsistency)
        for p in DatasetConsistency.manifestProblems(decoded) { builder.fail(.manifestConsistency, Self.manifestName, p) }
        featureExtractor = makeFeaturePlan().map { FeatureExtractor(plan: $0) }

        let storage = options.storages.first { $0.name == decoded.storage }
        builder.ran(.storageSupported)
        if decoded.storage == Self.createMLStorage {
            runCreateML()
            return
        }
        if storage == nil {
            builder.fail(.storageSupported, Self.manifestName,
                         "storage \"\(decoded.storage)\" cannot be read by this build (it reads "
                         + Text.alternatives(options.storages.map(\.name)) + "), so its data is not checked")
        }
        checkSHA256SUMS()
        checkTree()
        for file in decoded.files {
            guard checkFileExists(file) else {
                incomplete.insert(file.path)
                continue
            }
            // The file is hashed while its data is checked. A file that cannot be read gets no
            // data checks: their outcome is then dropped, as if they had never run.
            let digest = _DigestJob(path: path(file.path))
            let before = (builder, scans, incomplete, windows)
            if let storage { checkData(file, storage: storage) }
            let result = digest.wait()
            if case .failure = result { (builder, scans, incomplete, windows) = before }
            guard checkFileDigest(file, result) else {
                incomplete.insert(file.path)
                continue
            }
            if storage == nil { incomplete.insert(file.path) }
        }
        if storage == nil {
            for c in [CheckID.filesContainer, .filesReadable, .filesMetadata, .arraysShape, .arraysDtype, .countsFile, .labelsRange,
                      .indicesRange, .valuesFinite, .normalizationStats, .splitsDisjointSubjects, .splitsDisjointRecordings,
                      .splitsDisjointWindows, .windowsTimeOrder, .featuresRecomputed] {
                builder.skip(c, "storage \"\(decoded.storage)\" cannot be read by this build")
            }
        }
        checkSplitCounts()
        checkDisjointSplits()
        checkDisjointWindows()
        checkTimeOrder()
        checkNormalization()
        checkExpectations()
    }

    /// A Create ML folder: its files as bytes, then as CSV against `createml` (`+CreateML`).
    private func runCreateML() {
        for c in Self.windowChecks { builder.skip(c, "a Create ML folder holds rows, not windows") }
        checkSHA256SUMS()
        checkTree()
        let entries = createMLEntries()
        for file in manifest.files {
            guard checkFileExists(file) else {
                incomplete.insert(file.path)
                continue
            }
            let digest = _DigestJob(path: path(file.path))
            if let entries { checkCreateMLFile(file, entries: entries) }
            guard checkFileDigest(file, digest.wait()) else {
                incomplete.insert(file.path)
                continue
            }
        }
        if let entries {
            let listed = Set(manifest.files.map(\.path))
            for p in entries.keys.sorted() where !listed.contains(p) {
                builder.fail(.countsFile, Self.manifestName, "`createml.files` lists `\(p)`, which no split's `files` lists")
            }
        }
        checkSplitCounts()
        builder.skip(.splitsDisjointSubjects, "a Create ML file names its recording, not its subject")
        builder.ran(.splitsDisjointRecordings)
        var owner: [String: DatasetManifest.DataFile] = [:]
        for f in manifest.files {
            guard let e = entries?[f.path] else { continue }
            if let o = owner[e.recording], o.split != f.split {
                builder.fail(.splitsDisjointRecordings, f.path, "recording `\(e.recording)` has rows in split `\(o.split.rawValue)` (\(o.path)) and in split `\(f.split.rawValue)`: a recording in two splits leaks between training and evaluation")
            } else if owner[e.recording] == nil {
                owner[e.recording] = f
            }
        }
        checkExpectations()
    }

    // MARK: Manifest

    /// Reads and parses `manifest.json`; reports `manifest.parse` and returns nil on failure.
    private func readManifest() -> JSONValue? {
        builder.ran(.manifestParse)
        let file = path(Self.manifestName)
        let kind = _EntryKind(lstatAt: file)
        guard kind == .regular else {
            if kind == .missing {
                builder.fail(.manifestParse, Self.manifestName,
                             "is missing: this folder is not a finished dataset (a run writes the manifest last)")
                skipAll(Self.dependentChecks, "there is no manifest")
            } else {
                builder.fail(.manifestParse, Self.manifestName, "is \(kind.phrase), not a regular file, so it is not read")
                skipAll(Self.dependentChecks, "the manifest is not a regular file")
            }
            return nil
        }
        guard let data = (try? RegularFile.readAll(file).get()).map({ Data($0) }) else {
            builder.fail(.manifestParse, Self.manifestName, "cannot be read")
            skipAll(Self.dependentChecks, "the manifest cannot be read")
            return nil
        }
        do {
            return try JSONParser.parse(Array(data))
        } catch {
            builder.fail(.manifestParse, Self.manifestName,
                         "is not valid JSON at \(Self.manifestName):\(error.line):\(error.column): \(error.problem)")
            skipAll(Self.dependentChecks, "the manifest is not valid JSON")
            return nil
        }
    }
}

// MARK: - Message helpers

extension _ValidationRun {
    /// "window 12", "window 12, time step 3, channel `acc_x`", "window 4, feature `acc_x_mean`".
    func describe(_ l: ValueLocation, array: String) -> String {
        var s = "window \(l.window)"
        if let t = l.timeStep { s += ", time step \(t)" }
        if let c = l.column {
            if array == "x", c < manifest.channelNames.count { s += ", channel `\(manifest.channelNames[c])`" }
            else if array == "features", c < manifest.featureNames.count { s += ", feature `\(manifest.featureNames[c])`" }
        }
        return s
    }

    /// "[3, 4]" for counts.
    static func list(_ counts: [Int]) -> String { "[" + counts.map(String.init).joined(separator: ", ") + "]" }

    /// Counts per class with names: "walk 62, turn 7".
    func perClass(_ counts: [Int]) -> String {
        zip(manifest.classes, counts).map { "\($0) \($1)" }.joined(separator: ", ")
    }
}
