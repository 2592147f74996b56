#if canImport(Glibc)
import Glibc
#endif
import MotionChain
import MotionConfig
import MotionCore
import MotionDataset

/// What `apply` verifies of its source dataset before it trusts the manifest's `normalization`
/// (docs/commands.md, "apply"): the train statistics are only the model's if the manifest is one
/// `run` wrote for the data beside it.
///
/// - The manifest decodes with the decoder `validate` uses (`ManifestDecoder`, every key of
///   docs/dataset-format.md, "manifest.json"), and its `split_policy`, `classes` and `chain` are
///   its own `pipeline.resolved`'s (rules C1–C3 of docs/validate.md, "Consistency rules",
///   `DatasetConsistency`): 78, as an edited `pipeline.resolved` is.
/// - The dataset is complete: every data file the manifest lists is a regular file (reached
///   through folders, never a link) of the listed `bytes`, and `SHA256SUMS` lists exactly those
///   files with the manifest's digests (a folder holding a manifest without its data, or data
///   changed since, is not the dataset the statistics were computed from): 65.
///
/// - `normalization.x` and `.features` are the train split's statistics, recomputed from the
///   train files (`checkNormalization`): 65.
///
/// The data files are not hashed (that is `validate`'s work): a file changed in place with its
/// size kept is found by `validate`; the train files are read once, for their statistics.
extension ApplyRunner {
    /// Refuses a dataset made by stage code this build does not implement (`chain.implementation`,
    /// docs/dataset-format.md, "Implementation versions"): 78, before anything else is trusted.
    /// A manifest without the record was made by every stage's first version. A record that does
    /// not decode is left to `checkDatasetFiles` (rule C3 names it).
    static func checkImplementation(_ dataset: SourceDataset) throws {
        guard case .success(let problem?) = ProcessingChain.implementationProblem(JSONNode(dataset.manifestJSON)["chain"]) else { return }
        throw MotionError(.config, "\(dataset.manifestPath): `apply` cannot reproduce this dataset's processing: \(problem) (`chain.implementation`); apply it with the motionprep that wrote it, or run its pipeline again with this one")
    }

    static func checkDatasetFiles(_ dataset: SourceDataset) throws {
        let manifestPath = dataset.manifestPath
        var decoder = ManifestDecoder()
        let decoded = decoder.decode(dataset.manifestJSON)
        if let first = decoder.problems.first {
            let more = decoder.problems.count > 1 ? " (and \(decoder.problems.count - 1) more problem(s); `motionprep validate` lists them)" : ""
            throw MotionError(.config, "\(manifestPath): \(first)\(more); this is not a manifest motionprep wrote (docs/dataset-format.md, \"manifest.json\"), so `apply` does not trust its normalization")
        }
        guard let decoded else {
            throw MotionError(.config, "\(manifestPath): does not decode as a motionprep dataset manifest (docs/dataset-format.md, \"manifest.json\"), so `apply` does not trust its normalization")
        }
        let consistency = DatasetConsistency.manifestProblems(decoded)
        if let first = consistency.first {
            let more = consistency.count > 1 ? " (and \(consistency.count - 1) more; `motionprep validate` lists them)" : ""
            throw MotionError(.config, "\(manifestPath): \(first)\(more) (docs/validate.md, \"Consistency rules\"); the manifest was edited, so `apply` does not trust its normalization")
        }
        let manifest = decoded.manifest
        let directory = dataset.directory
        func full(_ relative: String) -> String { directory.hasSuffix("/") ? directory + relative : directory + "/" + relative }

        for file in manifest.files {
            // Each folder on the path, then the file itself, with lstat: a link is never followed.
            let parts = file.path.split(separator: "/").map(String.init)
            var current = ""
            for (i, part) in parts.enumerated() {
                current = current.isEmpty ? part : current + "/" + part
                var st = stat()
                guard lstat(full(current), &st) == 0 else {
                    throw MotionError(.dataError, "\(full(file.path)): does not exist, but \(manifestPath) lists it (\(file.bytes) bytes, split `\(file.split.rawValue)`): \(directory) is not a complete dataset (a manifest without its data files), so `apply` does not trust its normalization; give the folder `motionprep run` wrote")
                }
                let kind = st.st_mode & S_IFMT
                if i < parts.count - 1 {
                    guard kind == S_IFDIR else {
                        throw MotionError(.dataError, "\(full(current)): is on the path of `\(file.path)`, which \(manifestPath) lists, but is not a folder (\(describe(kind))), so it is not followed: \(directory) is not the dataset `motionprep run` wrote")
                    }
                    continue
                }
                guard kind == S_IFREG else {
                    throw MotionError(.dataError, "\(full(file.path)): is \(describe(kind)), not a regular file, so it is not opened (\(manifestPath) lists it): \(directory) is not the dataset `motionprep run` wrote")
                }
                guard Int(st.st_size) == file.bytes else {
                    throw MotionError(.dataError, "\(full(file.path)): has \(st.st_size) bytes, but \(manifestPath) lists \(file.bytes): the file has changed since the dataset was written, so `apply` does not trust its normalization (`motionprep validate \(directory)` checks it)")
                }
            }
        }
        try checkSums(manifest, path: full("SHA256SUMS"), manifestPath: manifestPath)
        try checkNormalization(manifest, full: full, manifestPath: manifestPath)
    }

    /// `normalization.x` and `normalization.features` are the train split's statistics, as
    /// `validate`'s `normalization.stats` recomputes them: per column, the mean and population
    /// std in float64 of every finite value of the train files, read through the dataset readers
    /// (`DatasetStorage`) in blocks of about 1 MiB, so memory stays flat; each stored value must
    /// be within 1e-6 × (|mean| + std) + 1e-12 of the recomputed one. An edited statistic (the
    /// manifest is not in `SHA256SUMS`) is refused with 65, naming the first column that differs.
    static func checkNormalization(_ manifest: DatasetManifest, full: (String) -> String, manifestPath: String) throws {
        let targets: [(name: String, listed: DatasetManifest.Moments?, columns: [String], rowColumns: Int)] = [
            ("x", manifest.normalization.x, manifest.channelNames, manifest.windowLength * manifest.channelNames.count),
            ("features", manifest.normalization.features, manifest.featureNames, manifest.featureNames.count),
        ].filter { $0.listed != nil && !$0.columns.isEmpty }
        let train = manifest.files.filter { $0.split == .train }
        guard !targets.isEmpty, !train.isEmpty else { return }
        guard let storage = DatasetStorages.standard().first(where: { $0.name == manifest.storage }) else { return }
        var moments = targets.map { TrainMoments(columns: $0.columns.count) }
        for file in train {
            let reader: any DatasetFileReader
            do { reader = try storage.open(path: full(file.path), displayPath: file.path) } catch {
                throw MotionError(.dataError, "\(full(file.path)): cannot be read to check the manifest's train statistics (\(error)), so `apply` does not trust its normalization")
            }
            defer { reader.close() }
            for (t, target) in targets.enumerated() {
                let rowsPerBlock = Swift.max(1, (1 << 18) / Swift.max(1, target.rowColumns))
                var start = 0
                while start < file.numWindows {
                    let rows = start..<Swift.min(file.numWindows, start + rowsPerBlock)
                    let values: [Float]
                    do { values = try reader.readFloats(target.name, rows: rows) } catch {
                        throw MotionError(.dataError, "\(full(file.path)): cannot read `\(target.name)` to check the manifest's train statistics (\(error)), so `apply` does not trust its normalization")
                    }
                    moments[t].add(values)
                    start = rows.upperBound
                }
            }
        }
        for (t, target) in targets.enumerated() {
            let listed = target.listed!, mean = moments[t].mean, std = moments[t].std
            for c in target.columns.indices where c < listed.mean.count && c < listed.std.count {
                let tolerance = 1e-6 * (abs(mean[c]) + std[c]) + 1e-12
                for (key, stored, recomputed) in [("mean", listed.mean[c], mean[c]), ("std", listed.std[c], std[c])]
                where !(abs(stored - recomputed) <= tolerance) {
                    throw MotionError(.dataError, "\(manifestPath): `normalization.\(target.name).\(key)[\(c)]` (\(target.name == "x" ? "channel" : "feature") `\(target.columns[c])`) is \(stored), but the train split gives \(recomputed) (recomputed in float64 from its \(train.count) file(s), relative tolerance 1e-6, as `validate`'s `normalization.stats`): the statistics were edited, so `apply` does not trust its normalization")
                }
            }
        }
    }

    /// `SHA256SUMS` lists exactly the manifest's data files, with the manifest's digests.
    private static func checkSums(_ manifest: DatasetManifest, path: String, manifestPath: String) throws {
        var st = stat()
        guard lstat(path, &st) == 0 else {
            throw MotionError(.dataError, "\(path): is missing (`run` writes it beside manifest.json): the dataset is not complete, so `apply` does not trust its normalization")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw MotionError(.dataError, "\(path): is \(describe(st.st_mode & S_IFMT)), not a regular file, so it is not read: the dataset is not one `motionprep run` wrote")
        }
        let bytes: [UInt8]
        switch RegularFile.readAll(path, maxBytes: 64 << 20) {
        case .success(let b): bytes = b
        case .failure(let e): throw MotionError(.ioError, "cannot read \(path): \(e)")
        }
        var listed: [String: String] = [:]
        for (index, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            let chars = Array(line)
            let hex = String(decoding: chars.prefix(64), as: UTF8.self)
            guard chars.count > 66, hex.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }),
                  chars[64] == 0x20, chars[65] == 0x20 || chars[65] == UInt8(ascii: "*") else {
                throw MotionError(.dataError, "\(path):\(index + 1): the line is not `<64 hex digits>  <path>`, so the dataset's checksums cannot be read: not a dataset `motionprep run` wrote")
            }
            let name = String(decoding: chars[66...], as: UTF8.self)
            guard listed.updateValue(hex, forKey: name) == nil else {
                throw MotionError(.dataError, "\(path):\(index + 1): lists `\(name)` a second time: not a dataset `motionprep run` wrote")
            }
        }
        for file in manifest.files {
            guard let hex = listed.removeValue(forKey: file.path) else {
                throw MotionError(.dataError, "\(path): does not list `\(file.path)`, which \(manifestPath) lists: the checksums are not the manifest's, so `apply` does not trust its normalization")
            }
            guard hex == file.sha256 else {
                throw MotionError(.dataError, "\(path): gives `\(file.path)` the digest \(hex), but \(manifestPath) lists \(file.sha256): the checksums are not the manifest's, so `apply` does not trust its normalization")
            }
        }
        if let extra = listed.keys.sorted(by: Text.utf8Less).first {
            throw MotionError(.dataError, "\(path): lists `\(extra)`, which \(manifestPath) does not: the checksums are not the manifest's, so `apply` does not trust its normalization")
        }
    }

    private static func describe(_ kind: mode_t) -> String {
        switch kind {
        case S_IFDIR: return "a folder"
        case S_IFLNK: return "a symbolic link"
        case S_IFIFO: return "a FIFO (named pipe)"
        case S_IFSOCK: return "a socket"
        case S_IFCHR, S_IFBLK: return "a device"
        default: return "of another kind"
        }
    }
}

/// Per column: count, shift (the first finite value), and the sums of the shifted values and of
/// their squares in float64, as `validate` accumulates them (its `ColumnMoments`): the sum of
/// squares does not cancel for a column far from zero.
struct TrainMoments {
    private var count: [Int]
    private var shift: [Double]
    private var hasShift: [Bool]
    private var sum: [Double]
    private var squares: [Double]

    init(columns: Int) {
        count = [Int](repeating: 0, count: columns)
        shift = [Double](repeating: 0, count: columns)
        hasShift = [Bool](repeating: false, count: columns)
        sum = shift
        squares = shift
    }

    /// Adds rows of values (row-major; the column of value i is i mod columns); NaN and infinity
    /// are left out.
    mutating func add(_ values: [Float]) {
        let columns = count.count
        var c = 0
        for v in values {
            if v.isFinite {
                if !hasShift[c] { shift[c] = Double(v); hasShift[c] = true }
                let d = Double(v) - shift[c]
                sum[c] += d
                squares[c] += d * d
                count[c] += 1
            }
            c += 1
            if c == columns { c = 0 }
        }
    }

    var mean: [Double] { count.indices.map { count[$0] == 0 ? 0 : shift[$0] + sum[$0] / Double(count[$0]) } }

    /// Population standard deviation.
    var std: [Double] {
        count.indices.map { c in
            guard count[c] > 0 else { return 0 }
            let n = Double(count[c]), m = sum[c] / n
            return Swift.max(0, squares[c] / n - m * m).squareRoot()
        }
    }
}
