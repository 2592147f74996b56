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
}
