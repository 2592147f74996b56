import MotionDataset
import MotionSinks
import MotionCore

/// `arrays.*`, `counts.*`, `labels.range`, `indices.range`, `values.finite`, `splits.*` and
/// `normalization.stats`: what the data says, recomputed and compared with the manifest.
extension _ValidationRun {
    /// Opens one file through its storage, checks its metadata and arrays, and scans it.
    func checkData(_ file: DatasetManifest.DataFile, storage: any DatasetStorage) {
        for c in [CheckID.filesContainer, CheckID.filesReadable, .filesMetadata, .arraysShape, .arraysDtype, .countsFile, .labelsRange,
                  .indicesRange, .valuesFinite] { builder.ran(c) }
        if manifest.hasYSeq { builder.ran(.labelsPerSample) }
        if !manifest.qaColumns.isEmpty { builder.ran(.qaRange) }
        let reader: any DatasetFileReader
        let expectedContents = ExpectedFileContents(
            windows: file.numWindows, arrayRowElements: manifest.arrays.values.map { $0.rowShape.reduce(1, *) },
            classes: manifest.classes.count, arrayRowShapes: manifest.arrays.mapValues(\.rowShape),
            subjectNames: manifest.subjects, recordingNames: manifest.recordings)
        do {
            reader = try storage.open(path: path(file.path), displayPath: file.path, expected: expectedContents)
        } catch let e as ContainerError {
            builder.fail(.filesContainer, file.path, e.message)
            incomplete.insert(file.path)
            return
        } catch {
            builder.fail(.filesReadable, file.path, "cannot be opened as \(storage.name): \(error)")
            incomplete.insert(file.path)
            return
        }
        defer { reader.close() }

        var container = ContainerProblems()
        do {
            container = try reader.containerProblems()
            for p in container.messages { builder.fail(.filesContainer, file.path, p) }
        } catch {
            builder.fail(.filesReadable, file.path, "its structure cannot be listed: \(error)")
            incomplete.insert(file.path)
            return
        }

        var described = DatasetDescription(
            sampleRateHz: manifest.sampleRateHz, windowLength: manifest.windowLength, windowStride: manifest.windowStride,
            channelNames: manifest.channelNames, channelUnits: manifest.channelUnits, classNames: manifest.classes,
            featureNames: manifest.featureNames, subjectNames: manifest.subjects, recordingNames: manifest.recordings,
            hasFolds: manifest.folds != nil)
        described.qaColumns = manifest.qaColumns
        let expected = ExpectedFileMetadata(split: file.split.rawValue, dataset: described)
        do {
            for p in try reader.metadataProblems(expected: expected) { builder.fail(.filesMetadata, file.path, p) }
        } catch {
            builder.fail(.filesReadable, file.path, "its metadata cannot be read: \(error)")
        }

        let stored: [String: StoredArray]
        do {
            stored = try reader.arrays()
        } catch {
            builder.fail(.filesReadable, file.path, "its arrays cannot be listed: \(error)")
            incomplete.insert(file.path)
            return
        }
        var readable = checkArrays(file, stored, refused: container.refusedArrays)
        for name in container.refusedArrays { readable[name] = nil }
        // An extent far beyond the entry (a tiny HDF5 file can declare billions of rows of fill
        // values) is not read: it would cost hours, and the counts are wrong anyway.
        let maxRows = Self.maximumRows(listedWindows: file.numWindows)
        for name in DatasetSchema.arrayOrder(readable.keys) where readable[name]!.rows > maxRows {
            builder.fail(.filesContainer, file.path,
                         "`\(name)` has \(readable[name]!.rows) rows, far more than the \(file.numWindows) windows its manifest entry lists (at most \(maxRows) are read); it is not read")
            readable[name] = nil
        }
        if readable.count < manifest.arrays.count { incomplete.insert(file.path) }

        let ranges = resolvedRanges()
        let scanner = FileScanner(reader: reader, manifest: manifest, readable: readable, ranges: ranges,
                                  blockWindows: options.blockWindows, maxBlockBytes: options.maxBlockBytes,
                                  isTrain: file.split == .train, extractor: featureExtractor)
        let (scan, errors) = scanner.scan()
        for e in errors { builder.fail(.filesReadable, file.path, e) }
        if !errors.isEmpty { incomplete.insert(file.path) }
        scans[file.path] = scan
        windows += scan.windows ?? 0
        reportScan(file, scan, reader: reader)
        let numbers = try? reader.windowNumbers()
        if let numbers { windowNumbers[file.split, default: []] += numbers }
        fileWindowNumbers[file.path] = numbers
        reportFeatureComparison(file, scan)
    }

    /// `arrays.shape` and `arrays.dtype`; returns the arrays that can be read as the manifest
    /// describes them.
    /// `refused`: names already failed under `files.container` (a link where the array should
    /// be is not reported again as a missing array).
    private func checkArrays(_ file: DatasetManifest.DataFile, _ stored: [String: StoredArray],
                             refused: Set<String>) -> [String: StoredArray] {
        var readable: [String: StoredArray] = [:]
        for name in DatasetSchema.arrayOrder(Set(stored.keys).union(manifest.arrays.keys)) {
            switch (manifest.arrays[name], stored[name]) {
            case (_?, nil) where refused.contains(name):
                break
            case (let schema?, nil):
                builder.fail(.arraysShape, file.path, "lacks the array `\(name)` (\(schema.dtype) \(ManifestDecoder.shape(schema.rowShape)))")
            case (nil, let a?):
                builder.fail(.arraysShape, file.path, "holds an array `\(name)` (shape \(Self.shape(a.shape))) that the manifest does not list")
            case (let schema?, let a?):
                var ok = true
                if a.rowShape != schema.rowShape {
                    builder.fail(.arraysShape, file.path,
                                 "`\(name)` has shape \(Self.shape(a.shape)), but the manifest says \(ManifestDecoder.shape(schema.rowShape))")
                    ok = false
                }
                if a.dtype != schema.dtype {
                    builder.fail(.arraysDtype, file.path,
                                 "`\(name)` is \(a.dtype ?? "of a type other than float32, float64, int32 or int64 (little-endian)"), but the manifest says \(schema.dtype)")
                    if a.dtype == nil { ok = false }
                }
                if ok { readable[name] = a }
            case (nil, nil):
                break
            }
        }
        // Every array has one row per window.
        if let x = stored["x"] ?? stored["y"] {
            let reference = stored["x"] != nil ? "x" : "y"
            for name in DatasetSchema.arrayOrder(stored.keys) where name != reference && stored[name]!.rows != x.rows {
                builder.fail(.arraysShape, file.path, "`\(name)` has \(stored[name]!.rows) rows, but `\(reference)` has \(x.rows)")
                readable[name] = nil
            }
        }
        return readable
    }

    /// The most rows an array of a file listed with `listedWindows` windows is read for: the
    /// listed windows plus one block of slack, so a modest disagreement is still counted and
    /// reported by `counts.file`.
    static func maximumRows(listedWindows: Int) -> Int {
        listedWindows > Int.max - 4096 ? Int.max : listedWindows + 4096
    }

    static func shape(_ s: [Int]) -> String { "[" + s.map(String.init).joined(separator: ", ") + "]" }

    /// The expectations' value ranges resolved to channel indices.
    func resolvedRanges() -> [FileScanner.ResolvedRange] {
        guard let e = options.expectations else { return [] }
        return e.valueRanges.enumerated().map { i, r in
            FileScanner.ResolvedRange(rule: i, range: r, channels: manifest.channelNames.indices.filter {
                channelPatternMatches(r.channels, manifest.channelNames[$0])
            })
        }
    }

    /// Per-file checks on a scan: counts, labels, indices, finiteness.
    private func reportScan(_ file: DatasetManifest.DataFile, _ scan: FileScan, reader: any DatasetFileReader) {
        // counts.file
        if let n = scan.windows, let counts = scan.classCounts {
            if n != file.numWindows {
                builder.fail(.countsFile, file.path, "holds \(n) windows, but the manifest lists \(file.numWindows) (split `\(file.split.rawValue)`)")
            }
            if counts != file.classCounts && scan.badLabels.count == 0 {
                builder.fail(.countsFile, file.path,
                             "holds \(Self.list(counts)) windows per class (\(perClass(counts))), but the manifest lists \(Self.list(file.classCounts))")
            }
            do {
                if let declared = try reader.declaredCounts() {
                    if declared.numWindows != n {
                        builder.fail(.countsFile, file.path, "its header declares \(declared.numWindows) windows, but it holds \(n)")
                    }
                    if declared.classCounts != counts {
                        builder.fail(.countsFile, file.path, "its header declares \(Self.list(declared.classCounts)) windows per class, but it holds \(Self.list(counts))")
                    }
                }
            } catch {
                builder.fail(.filesReadable, file.path, "its header cannot be read: \(error)")
            }
        } else {
            builder.skip(.countsFile, "`y` of a file could not be read")
        }
        // normalization.applied
        for name in ["x_normalized", "features_normalized"] {
            guard let c = scan.normalizedComparisons[name], c.valuesDiffering > 0, let first = c.first else { continue }
            let column = name == "x_normalized" ? "channel `\(manifest.channelNames[first.column])`" : "feature `\(manifest.featureNames[first.column])`"
            builder.fail(.normalizationApplied, file.path,
                         "`\(name)` differs from (v − mean) / std with `normalization.\(name == "x_normalized" ? "x" : "features")` in \(c.valuesDiffering) of \(c.valuesCompared) value(s); first: window \(first.row), \(column): stored \(first.stored), recomputed \(first.recomputed)")
        }
        // labels.range
        if scan.badLabels.count > 0, let first = scan.badLabels.first {
            let allowed = manifest.classes.isEmpty
                ? "the dataset is unlabelled (no classes), so every `y` must be -1"
                : "class ids are 0 to \(manifest.classes.count - 1) (\(manifest.classes.joined(separator: ", ")))"
                    + (manifest.isApplied ? ", or -1 for a window kept unlabelled" : "")
            builder.fail(.labelsRange, file.path,
                         "`y` holds \(scan.badLabels.count) invalid value(s); \(allowed); first: \(first.value) at \(describe(first.location, array: "y"))")
        }
        // labels.per_sample (rule C8)
        if manifest.hasYSeq {
            let numbers = try? reader.windowNumbers()
            let partition = DatasetPartition.of(path: file.path)
            func window(_ l: ValueLocation) -> String {
                var s = "window \(l.window)"
                if let numbers, l.window < numbers.count {
                    s = "window \(numbers[l.window]) (sample `\(ShardSplitSink.key(split: file.split.rawValue, window: numbers[l.window], partition: partition))`)"
                }
                return s + " of split `\(file.split.rawValue)`" + (l.timeStep.map { ", time step \($0)" } ?? "")
            }
            if let bad = scan.badYSeqValues, bad.count > 0, let first = bad.first {
                builder.fail(.labelsPerSample, file.path,
                             "`y_seq` holds \(bad.count) invalid value(s); a point's class id is 0 to \(manifest.classes.count - 1) (\(manifest.classes.joined(separator: ", "))), or -1 where it has none; first: \(first.value) at \(window(first.location))")
            }
            if let bad = scan.ySeqInconsistent, bad.count > 0, let first = bad.first {
                builder.fail(.labelsPerSample, file.path,
                             "\(window(first.location)): \(first.value) (rule C8: `y` is what the label policy gives from `y_seq`); \(bad.count) window(s) of this file break it")
            }
        }
        // qa.range
        if let bad = scan.badQA, bad.count > 0, let first = bad.first {
            let column = first.location.column.map { manifest.qaColumns.indices.contains($0) ? manifest.qaColumns[$0] : "\($0)" } ?? "?"
            builder.fail(.qaRange, file.path,
                         "`qa` holds \(bad.count) value(s) that are not a fraction from 0 to 1; first: \(first.value) in column `\(column)` of window \(first.location.window) of split `\(file.split.rawValue)`")
        }
        // indices.range
        for (name, list) in [("subject_index", "subjects"), ("recording_index", "recordings"), ("fold_index", "folds")] {
            guard let bad = scan.badIndices[name], bad.count > 0, let first = bad.first else { continue }
            let size = name == "fold_index" ? (manifest.folds ?? 0) : (name == "subject_index" ? manifest.subjects.count : manifest.recordings.count)
            let allowed = name == "fold_index" && file.split != .train
                ? "other than -1 (windows outside the train split have no fold)"
                : "outside 0..<\(size) (the manifest's \(list))"
            builder.fail(.indicesRange, file.path,
                         "`\(name)` holds \(bad.count) value(s) \(allowed); first: \(first.value) at \(describe(first.location, array: name))")
        }
        // values.finite
        for name in ["x", "features", "start_time_s"] {
            guard let bad = scan.nonFinite[name], bad.count > 0, let first = bad.first else { continue }
            builder.fail(.valuesFinite, file.path,
                         "`\(name)` holds \(bad.count) NaN or infinite value(s); first: \(first.value) at \(describe(first.location, array: name))")
        }
    }

    // MARK: Across files

    /// `counts.split`: each split's totals equal the sum of its files, in the manifest and in the data.
    func checkSplitCounts() {
        builder.ran(.countsSplit)
        for split in manifest.splitNames {
            guard let s = manifest.splits[split] else { continue }
            let name = split.rawValue
            let listedWindows = s.files.reduce(0) { $0 + $1.numWindows }
            var listedCounts = [Int](repeating: 0, count: manifest.classes.count)
            for f in s.files { for (i, c) in f.classCounts.enumerated() { listedCounts[i] += c } }
            if s.numWindows != listedWindows {
                builder.fail(.countsSplit, Self.manifestName,
                             "split `\(name)` lists \(s.numWindows) windows, but its files list \(listedWindows) together")
            }
            if s.classCounts != listedCounts {
                builder.fail(.countsSplit, Self.manifestName,
                             "split `\(name)` lists \(Self.list(s.classCounts)) windows per class, but its files list \(Self.list(listedCounts)) together")
            }
            // An applied output's unlabelled windows (y = −1) are in no class count.
            func countsAgree(_ counted: Int, _ windows: Int) -> Bool { manifest.isApplied ? counted <= windows : counted == windows }
            if !manifest.classes.isEmpty, !countsAgree(s.classCounts.reduce(0, +), s.numWindows) {
                builder.fail(.countsSplit, Self.manifestName,
                             "split `\(name)` lists \(s.numWindows) windows but its class counts \(Self.list(s.classCounts)) add up to \(s.classCounts.reduce(0, +))")
            }
            for f in s.files where !manifest.classes.isEmpty && !countsAgree(f.classCounts.reduce(0, +), f.numWindows) {
                builder.fail(.countsFile, f.path,
                             "the manifest lists \(f.numWindows) windows for it, but its class counts \(Self.list(f.classCounts)) add up to \(f.classCounts.reduce(0, +))")
            }
            if let partitions = manifest.partitions {
                // A partitioned dataset: each partition's files, in partition order, each named
                // for its partition; shards numbered and keyed within their partition.
                checkPartitionFiles(split, s.files, partitions: partitions)
                if manifest.storage == "shards" {
                    for p in 0..<partitions {
                        let files = s.files.filter { $0.partition == p }
                        checkShardSequence(split, files, partition: DatasetPartition(index: p, count: partitions))
                        checkWindowNumbers(split, files: files, partition: DatasetPartition(index: p, count: partitions))
                    }
                }
            } else if manifest.storage == "shards" {
                checkShardSequence(split, s.files)
                checkWindowNumbers(split, files: s.files)
            }
            guard let (n, counts) = recomputed(split) else { continue }
            if n != s.numWindows {
                builder.fail(.countsSplit, Self.manifestName, "split `\(name)` holds \(n) windows in its files, but the manifest lists \(s.numWindows)")
            }
            if counts != s.classCounts {
                builder.fail(.countsSplit, Self.manifestName,
                             "split `\(name)` holds \(Self.list(counts)) windows per class (\(perClass(counts))) in its files, but the manifest lists \(Self.list(s.classCounts))")
            }
        }
    }

    /// Shards of a split are numbered from 00000 without a hole, in manifest order, and every
    /// shard but the last holds the same number of windows (`windows_per_shard`), the last no more.
    private func checkShardSequence(_ split: SplitName, _ files: [DatasetManifest.DataFile], partition: DatasetPartition? = nil) {
        // Every shard has the first one's extension: `.tar.zst` (compression zstd) or `.tar` (none).
        let ext = files.first?.path.hasSuffix(".tar") == true ? ".tar" : ".tar.zst"
        for (i, f) in files.enumerated() {
            let number = String(repeating: "0", count: max(0, 5 - String(i).count)) + String(i)
            let expected = partition.map { "\(split.rawValue)/\($0.name)-\(number)\(ext)" } ?? "\(split.rawValue)/\(split.rawValue)-\(number)\(ext)"
            if f.path != expected {
                let of = partition.map { " partition \($0.index)" } ?? ""
                builder.fail(.filesMetadata, f.path, "is shard \(i) of split `\(split.rawValue)`\(of) in the manifest, so it should be `\(expected)`")
            }
        }
        guard let first = files.first, files.count > 1 else { return }
        for f in files.dropFirst().dropLast() where f.numWindows != first.numWindows {
            builder.fail(.countsSplit, f.path, "holds \(f.numWindows) windows, but every shard of split `\(split.rawValue)` but the last must hold \(first.numWindows) like the first")
        }
        if let last = files.last, last.numWindows > first.numWindows {
            builder.fail(.countsSplit, last.path, "the last shard of split `\(split.rawValue)` holds \(last.numWindows) windows, more than the \(first.numWindows) of the others")
        }
    }

    /// The sample keys of a split's shards number its windows 0 ..< N, each once
    /// (docs/dataset-format.md, "Shards"); checked when every shard was read.
    /// A partitioned dataset (`partitions`): every file's `partition` is the one its name gives,
    /// the files are listed in partition order, and every partition has at least one file.
    private func checkPartitionFiles(_ split: SplitName, _ files: [DatasetManifest.DataFile], partitions: Int) {
        var last = -1
        for f in files {
            let named = DatasetPartition.of(path: f.path)
            if named == nil || named!.count != partitions || named!.index != f.partition {
                builder.fail(.filesMetadata, f.path, "is listed as partition \(f.partition.map(String.init) ?? "none") of \(partitions), so it should be named `\(split.rawValue)/\(DatasetPartition(index: Swift.min(Swift.max(f.partition ?? 0, 0), partitions - 1), count: partitions).name)…` (docs/dataset-format.md, \"Partitioned datasets\")")
            }
            if let p = f.partition {
                if p < last {
                    builder.fail(.filesMetadata, f.path, "is listed after a file of partition \(last); a split's files are listed in partition order")
                }
                last = Swift.max(last, p)
            }
        }
        let present = Set(files.compactMap(\.partition))
        if let missing = (0..<partitions).first(where: { !present.contains($0) }) {
            builder.fail(.countsSplit, Self.manifestName, "split `\(split.rawValue)` lists no file of partition \(missing) of \(partitions); every partition writes every split, an empty one too")
        }
    }

    private func checkWindowNumbers(_ split: SplitName, files: [DatasetManifest.DataFile], partition: DatasetPartition? = nil) {
        guard files.allSatisfy({ !incomplete.contains($0.path) && scans[$0.path] != nil }) else { return }
        var numbers = partition == nil ? windowNumbers[split] ?? [] : files.flatMap { (fileWindowNumbers[$0.path] ?? nil) ?? [] }
        numbers.sort()
        var missing = 0, repeated = 0, firstMissing: Int?, firstRepeated: Int?
        var expected = 0
        for (i, n) in numbers.enumerated() {
            if i > 0 && numbers[i - 1] == n {
                repeated += 1
                if firstRepeated == nil { firstRepeated = n }
                continue
            }
            if n > expected {
                missing += n - expected
                if firstMissing == nil { firstMissing = expected }
            }
            expected = n + 1
        }
        let total = numbers.count
        if numbers.last.map({ $0 >= total }) == true || repeated > 0 || missing > 0 {
            var parts: [String] = []
            if let m = firstMissing { parts.append("\(missing) number(s) below the largest are missing, first \(m)") }
            if let r = firstRepeated { parts.append("\(repeated) repeated, first \(r)") }
            if parts.isEmpty { parts.append("the largest is \(numbers.last!)") }
            let whose = partition.map { "partition \($0.index) of split `\(split.rawValue)`" } ?? "split `\(split.rawValue)`"
            builder.fail(.countsSplit, Self.manifestName,
                         "the sample keys of \(whose) do not number its \(total) windows 0 to \(total - 1) once each: \(parts.joined(separator: "; "))")
        }
    }

    /// Windows and class counts of a split recomputed from its files; nil when a file's `y`
    /// could not be read.
    func recomputed(_ split: SplitName) -> (windows: Int, classCounts: [Int])? {
        var n = 0
        var counts = [Int](repeating: 0, count: manifest.classes.count)
        for f in manifest.splits[split]?.files ?? [] {
            guard let scan = scans[f.path], let w = scan.windows, let c = scan.classCounts else { return nil }
            n += w
            for (i, v) in c.enumerated() { counts[i] += v }
        }
        return (n, counts)
    }

    /// `splits.disjoint_subjects` (when the split is by subject) and `splits.disjoint_recordings`.
    func checkDisjointSplits() {
        let allRead = manifest.files.allSatisfy { scans[$0.path]?.subjectsPresent != nil && scans[$0.path]?.recordingsPresent != nil }
        let bySubject = manifest.splitBy != "recording"
        let checks: [(CheckID, String, [String], KeyPath<FileScan, [Bool]?>)] =
            (bySubject ? [(.splitsDisjointSubjects, "subject", manifest.subjects, \FileScan.subjectsPresent)] : [])
            + [(.splitsDisjointRecordings, "recording", manifest.recordings, \FileScan.recordingsPresent)]
        for (id, kind, names, key) in checks {
            guard allRead else {
                builder.skip(id, "the \(kind) indices of some files could not be read")
                continue
            }
            builder.ran(id)
            // For each subject (recording): the first split and file holding it.
            var owner: [Int: (split: SplitName, file: String)] = [:]
            var reported: Set<[Int]> = []
            for f in manifest.files {
                guard let present = scans[f.path]?[keyPath: key] else { continue }
                for (i, has) in present.enumerated() where has {
                    if let o = owner[i] {
                        if o.split != f.split, reported.insert([i, SplitName.order.firstIndex(of: f.split)!]).inserted {
                            builder.fail(id, f.path,
                                         "\(kind) `\(names[i])` has windows in split `\(o.split.rawValue)` (\(o.file)) and in split `\(f.split.rawValue)`: a \(kind) in two splits leaks between training and evaluation")
                        }
                    } else {
                        owner[i] = (f.split, f.path)
                    }
                }
            }
        }
    }

    /// `normalization.stats`: the manifest's mean and std per channel (and feature) equal the
    /// train split's, recomputed in float64 (relative tolerance 1e-6).
    func checkNormalization() {
        if manifest.isApplied {
            checkAppliedNormalization()
            return
        }
        let train = manifest.splits[.train]?.files ?? []
        guard train.allSatisfy({ scans[$0.path] != nil && !incomplete.contains($0.path) }),
              let (trainWindows, _) = recomputed(.train) else {
            builder.skip(.normalizationStats, "the train split could not be read completely")
            return
        }
        builder.ran(.normalizationStats)
        let targets: [(String, DatasetManifest.Moments??, [String], KeyPath<FileScan, ColumnMoments?>)] = [
            ("x", manifest.xNormalization, manifest.channelNames, \FileScan.xMoments),
            ("features", manifest.featureNormalization, manifest.featureNames, \FileScan.featureMoments),
        ]
        for (name, listed, columns, key) in targets {
            guard let listed else { continue }  // did not decode: manifest.schema failed
            if trainWindows == 0 || columns.isEmpty {
                if listed != nil {
                    builder.fail(.normalizationStats, Self.manifestName,
                                 "`normalization.\(name)` must be null \(columns.isEmpty ? "without \(name) columns" : "when the train split is empty")")
                }
                continue
            }
            guard let listed else {
                builder.fail(.normalizationStats, Self.manifestName, "`normalization.\(name)` is null, but the train split holds \(trainWindows) windows")
                continue
            }
            var total = ColumnMoments(columns: columns.count)
            for f in train { if let m = scans[f.path]?[keyPath: key] { total.merge(m) } }
            let mean = total.mean, std = total.std
            var bad: [String] = []
            for c in columns.indices {
                let scale = abs(mean[c]) + std[c]
                let tolerance = 1e-6 * scale + 1e-12
                if abs(listed.mean[c] - mean[c]) > tolerance || abs(listed.std[c] - std[c]) > tolerance {
                    bad.append("`\(columns[c])` mean \(listed.mean[c]) std \(listed.std[c]) (recomputed \(mean[c]), \(std[c]))")
                }
            }
            if !bad.isEmpty {
                builder.fail(.normalizationStats, Self.manifestName,
                             "`normalization.\(name)` disagrees with the train split for \(bad.count) column(s): " + bad.prefix(3).joined(separator: "; ")
                             + (bad.count > 3 ? "; …" : ""))
            }
        }
    }

    /// An applied output: its statistics are its source dataset's train split's, which it does
    /// not hold, so `normalization.stats` is not recomputed; `normalization.applied` checks the
    /// normalised arrays against them (per file, in ``reportScan``) and that they are there.
    private func checkAppliedNormalization() {
        builder.skip(.normalizationStats, "an applied output's `normalization` is its source dataset's train statistics, which it does not hold; `normalization.applied` checks its normalised arrays against them")
        builder.ran(.normalizationApplied)
        for (name, listed, columns) in [("x", manifest.xNormalization, manifest.channelNames.count),
                                        ("features", manifest.featureNormalization, manifest.featureNames.count)] {
            guard let listed else { continue }  // did not decode: manifest.schema failed
            if columns > 0, listed == nil {
                builder.fail(.normalizationApplied, Self.manifestName,
                             "`normalization.\(name)` is null, but an applied output's `\(name)_normalized` is made with it (`motionprep apply` refuses a dataset without train statistics)")
            }
            if columns == 0, listed != nil {
                builder.fail(.normalizationApplied, Self.manifestName, "`normalization.\(name)` must be null without \(name) columns")
            }
        }
    }
}
