import MotionDataset
import MotionSinks
import MotionCore

/// `counts.split`, `splits.*` across a split's files, and `normalization.stats`: the checks that
/// compare files with each other, or a split's data with the manifest.
extension _ValidationRun {
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
