import MotionDataset
import MotionFeatures

/// Reads one data file array by array in row blocks and recomputes what the checks compare:
/// class counts, label and index ranges, non-finite values, per-channel extremes, range
/// violations and moments. Memory is one block (at most `blockWindows` rows and about
/// `maxBlockBytes`) whatever the file's size.
struct FileScanner {
    /// A value-range rule resolved to channel indices.
    struct ResolvedRange {
        var rule: Int
        var range: Expectations.ValueRange
        var channels: [Int]
    }

    let reader: any DatasetFileReader
    let manifest: DecodedManifest
    /// The arrays that exist with the expected row shape (others are not read).
    let readable: [String: StoredArray]
    let ranges: [ResolvedRange]
    let blockWindows: Int
    let maxBlockBytes: Int
    /// Whether the file belongs to the train split: its `fold_index` values are folds
    /// 0..<folds; other splits' are −1 (docs/pipeline.md, "Splits and folds").
    var isTrain = true
    /// The run's feature code for the manifest's features (`features.recomputed`), or nil when
    /// they are not recomputed (no features, or a manifest they cannot be planned from).
    var extractor: FeatureExtractor?

    /// Row blocks of `array` sized for `bytesPerRow`.
    func blocks(_ array: StoredArray, bytesPerRow: Int) -> StrideTo<Int> {
        let rows = max(1, min(blockWindows, maxBlockBytes / max(1, bytesPerRow)))
        return stride(from: 0, to: array.rows, by: rows)
    }

    func blockRange(_ start: Int, _ array: StoredArray, bytesPerRow: Int) -> Range<Int> {
        let rows = max(1, min(blockWindows, maxBlockBytes / max(1, bytesPerRow)))
        return start..<min(array.rows, start + rows)
    }

    /// Whether `x` and `features` have the row shapes the scan needs.
    private var xScanned: Bool {
        readable["x"]?.rowShape == [manifest.windowLength, manifest.channelNames.count]
    }
    private var featuresScanned: Bool {
        readable["features"]?.rowShape == [manifest.featureNames.count]
    }
    /// Whether `x` and `features` are read together, block by block, to recompute the features.
    private var recomputesFeatures: Bool {
        guard let extractor, xScanned, featuresScanned, let x = readable["x"],
              let f = readable["features"] else { return false }
        return extractor.plan.count == manifest.featureNames.count
            && extractor.plan.windowLength == manifest.windowLength
            && extractor.plan.channelNames.count == manifest.channelNames.count
            && x.rows == f.rows
    }

    /// Every block ``scan()`` reads, in its order (given to the reader to read ahead).
    func plan() -> [BlockRead] {
        var arrays: [(String, Int)] = [("y", 8), ("subject_index", 4), ("recording_index", 4), ("fold_index", 4),
                                       ("start_time_s", 8)]
        let joint = recomputesFeatures
        if xScanned && !joint { arrays.append(("x", xRowBytes)) }
        if featuresScanned && !joint { arrays.append(("features", manifest.featureNames.count * 4)) }
        var out: [BlockRead] = []
        for (name, bytesPerRow) in arrays {
            guard let a = readable[name] else { continue }
            for start in blocks(a, bytesPerRow: bytesPerRow) {
                out.append(BlockRead(array: name, rows: blockRange(start, a, bytesPerRow: bytesPerRow)))
            }
        }
        // Recomputing: each block of `x`, then the same rows of `features`.
        if joint, let x = readable["x"] {
            for start in blocks(x, bytesPerRow: xRowBytes) {
                let rows = blockRange(start, x, bytesPerRow: xRowBytes)
                out.append(BlockRead(array: "x", rows: rows))
                out.append(BlockRead(array: "features", rows: rows))
            }
        }
        return out
    }

    var xRowBytes: Int { manifest.windowLength * manifest.channelNames.count * 4 }

    /// Scans the file; read failures are returned as sentences (for `files.readable`).
    func scan() -> (FileScan, readErrors: [String]) {
        reader.willRead(plan())
        var scan = FileScan()
        var errors: [String] = []
        func attempt(_ name: String, _ body: () throws -> Void) {
            do {
                try body()
                scan.completeArrays.insert(name)
            } catch {
                errors.append("cannot read `\(name)`: \(error)")
            }
        }
        if let y = readable["y"] {
            attempt("y") { try scanLabels(y, into: &scan) }
        }
        for (name, size) in [("subject_index", manifest.subjects.count), ("recording_index", manifest.recordings.count),
                             ("fold_index", manifest.folds ?? 0)] {
            guard let a = readable[name] else { continue }
            attempt(name) { try scanIndex(name, a, limit: size, into: &scan) }
        }
        if let y = readable["y"], let s = readable["y_seq"], y.rows == s.rows, s.rowShape == [manifest.windowLength],
           let rule = PerSampleRule(resolved: manifest.pipeline.resolved, classes: manifest.classes.count) {
            attempt("y_seq") { try scanLabelSequences(s, rule: rule, into: &scan) }
        }
        if let q = readable["qa"], q.rowShape == [manifest.qaColumns.count], !manifest.qaColumns.isEmpty {
            attempt("qa") {
                let Q = manifest.qaColumns.count
                var bad = BadValues()
                for start in blocks(q, bytesPerRow: Q * 4) {
                    let rows = blockRange(start, q, bytesPerRow: Q * 4)
                    let v = try reader.readFloats("qa", rows: rows)
                    for (i, f) in v.enumerated() where !(f >= 0 && f <= 1) {
                        bad.add(ValueLocation(window: rows.lowerBound + i / Q, column: i % Q), "\(f)")
                    }
                }
                scan.badQA = bad
            }
        }
        if let t = readable["start_time_s"] {
            attempt("start_time_s") {
                var bad = BadValues()
                var times: [Double] = []
                times.reserveCapacity(t.rows)
                for start in blocks(t, bytesPerRow: 8) {
                    let rows = blockRange(start, t, bytesPerRow: 8)
                    let v = try reader.readDoubles("start_time_s", rows: rows)
                    times += v
                    for (i, d) in v.enumerated() where !d.isFinite {
                        bad.add(ValueLocation(window: rows.lowerBound + i), "\(d)")
                    }
                }
                scan.nonFinite["start_time_s"] = bad
                scan.rowStartTimes = times
            }
        }
        if recomputesFeatures, let x = readable["x"], let extractor {
            scanXAndFeatures(x, extractor: extractor, into: &scan, errors: &errors)
        } else {
            if let x = readable["x"], xScanned {
                attempt("x") { try scanX(x, into: &scan) }
            }
            if let f = readable["features"], featuresScanned {
                attempt("features") { try scanFeatures(f, into: &scan) }
            }
        }
        errors += scanNormalized(into: &scan)
        return (scan, errors)
    }

    private func scanLabels(_ y: StoredArray, into scan: inout FileScan) throws {
        let k = manifest.classes.count
        var counts = [Int](repeating: 0, count: k)
        var bad = BadValues()
        for start in blocks(y, bytesPerRow: 8) {
            let rows = blockRange(start, y, bytesPerRow: 8)
            let values = try reader.readInt64s("y", rows: rows)
            for (i, v) in values.enumerated() {
                if k > 0, v >= 0, v < Int64(k) {
                    counts[Int(v)] += 1
                } else if !(v == -1 && (k == 0 || manifest.isApplied)) {
                    // −1: an unlabelled dataset's every window; an applied output's unlabelled windows.
                    bad.add(ValueLocation(window: rows.lowerBound + i), "\(v)")
                }
            }
        }
        scan.windows = y.rows
        scan.classCounts = counts
        scan.badLabels = bad
    }

    /// `y_seq` against the class ids and, window by window, against `y` (rule C8).
    private func scanLabelSequences(_ s: StoredArray, rule: PerSampleRule, into scan: inout FileScan) throws {
        let T = manifest.windowLength
        var bad = BadValues(), inconsistent = BadValues()
        for start in blocks(s, bytesPerRow: T * 8) {
            let rows = blockRange(start, s, bytesPerRow: T * 8)
            let seq = try reader.readInt64s("y_seq", rows: rows)
            let y = try reader.readInt64s("y", rows: rows)
            for i in 0..<rows.count {
                let window = seq[(i * T)..<((i + 1) * T)]
                if let (step, value) = rule.badValue(window) {
                    bad.add(ValueLocation(window: rows.lowerBound + i, timeStep: step), "\(value)")
                } else if let why = rule.problem(y: y[i], ySeq: window) {
                    inconsistent.add(ValueLocation(window: rows.lowerBound + i), "`y` is \(y[i]), but \(why)")
                }
            }
        }
        scan.badYSeqValues = bad
        scan.ySeqInconsistent = inconsistent
    }

    private func scanIndex(_ name: String, _ a: StoredArray, limit: Int, into scan: inout FileScan) throws {
        var present = [Bool](repeating: false, count: limit)
        var bad = BadValues()
        let foldOutsideTrain = name == "fold_index" && !isTrain
        var recordings: [Int32] = []
        if name == "recording_index" { recordings.reserveCapacity(a.rows) }
        for start in blocks(a, bytesPerRow: 4) {
            let rows = blockRange(start, a, bytesPerRow: 4)
            let values = try reader.readInt64s(name, rows: rows)
            if name == "recording_index" { recordings += values.map { Int32(clamping: $0) } }
            for (i, v) in values.enumerated() {
                if foldOutsideTrain {
                    if v != -1 { bad.add(ValueLocation(window: rows.lowerBound + i), "\(v)") }
                } else if v >= 0, v < Int64(limit) { present[Int(v)] = true } else {
                    bad.add(ValueLocation(window: rows.lowerBound + i), "\(v)")
                }
            }
        }
        scan.badIndices[name] = bad
        if name == "subject_index" { scan.subjectsPresent = present }
        if name == "recording_index" {
            scan.recordingsPresent = present
            scan.rowRecordings = recordings
        }
    }

    /// What the scan of `x` accumulates over a file's blocks.
    struct XState {
        var fileMin: [Float]
        var fileMax: [Float]
        var moments: ColumnMoments
        var bad = BadValues()
        var hashes: [UInt64] = []

        init(channels c: Int, rows: Int) {
            fileMin = [Float](repeating: .infinity, count: c)
            fileMax = [Float](repeating: -.infinity, count: c)
            moments = ColumnMoments(columns: c)
            hashes.reserveCapacity(rows)
        }
    }

    private func scanX(_ x: StoredArray, into scan: inout FileScan) throws {
        var state = XState(channels: manifest.channelNames.count, rows: x.rows)
        for start in blocks(x, bytesPerRow: xRowBytes) {
            let rows = blockRange(start, x, bytesPerRow: xRowBytes)
            addX(try reader.readFloats("x", rows: rows), rows: rows, to: &state, scan: &scan)
        }
        finishX(state, into: &scan)
    }

    /// One block of `x`: hashes, extremes, moments, non-finite values, range rules.
    func addX(_ values: [Float], rows: Range<Int>, to state: inout XState, scan: inout FileScan) {
        let c = manifest.channelNames.count
        let rowFloats = manifest.windowLength * c
        Self.hashRows(values, rowFloats: rowFloats, into: &state.hashes)
        var block = _BlockStatistics(columns: c)
        let nonFinite = block.accumulate(values, columns: c)
        if nonFinite > 0 {
            for (i, v) in values.enumerated() where !v.isFinite {
                state.bad.add(ValueLocation(window: rows.lowerBound + i / rowFloats, timeStep: (i % rowFloats) / c,
                                            column: i % c), "\(v)")
            }
        }
        for ch in 0..<c {
            state.fileMin[ch] = min(state.fileMin[ch], block.min[ch])
            state.fileMax[ch] = max(state.fileMax[ch], block.max[ch])
        }
        state.moments.merge(block.moments)
        // Range rules: only a block whose extremes break a rule is searched value by value.
        for r in ranges {
            for ch in r.channels where !(r.range.contains(block.min[ch]) && r.range.contains(block.max[ch]))
                && block.moments.count[ch] > 0 {
                var violations = scan.rangeViolations[r.rule, default: [:]][ch, default: BadValues()]
                var i = ch
                while i < values.count {
                    let v = values[i]
                    if v.isFinite, !r.range.contains(v) {
                        violations.add(ValueLocation(window: rows.lowerBound + i / rowFloats,
                                                     timeStep: (i % rowFloats) / c, column: ch), "\(v)")
                    }
                    i += c
                }
                scan.rangeViolations[r.rule, default: [:]][ch] = violations
            }
        }
    }

    func finishX(_ state: XState, into scan: inout FileScan) {
        scan.channelMin = state.fileMin
        scan.channelMax = state.fileMax
        scan.xMoments = state.moments
        scan.nonFinite["x"] = state.bad
        scan.rowXHashes = state.hashes
    }
}

/// Per-column extremes and moments of one block of row-major values: the hot loop of
/// validation, one pass over the block.
struct _BlockStatistics {
    var min: [Float]
    var max: [Float]
    var moments: ColumnMoments

    init(columns: Int) {
        min = [Float](repeating: .infinity, count: columns)
        max = [Float](repeating: -.infinity, count: columns)
        moments = ColumnMoments(columns: columns)
    }

    /// Accumulates `values` (rows × `columns`, row-major); returns how many were not finite
    /// (those are left out of extremes and moments).
    ///
    /// Complexity: O(values.count).
    mutating func accumulate(_ values: [Float], columns: Int) -> Int {
        guard columns > 0, !values.isEmpty else { return 0 }
        var nonFinite = 0
        var lo = min, hi = max
        var sum = [Double](repeating: 0, count: columns)
        var squares = [Double](repeating: 0, count: columns)
        var counts = [Int](repeating: 0, count: columns)
        var shift = [Double](repeating: 0, count: columns)
        // Shift each column by its first finite value in the block.
        var shifted = 0
        var i = 0
        while i < values.count, shifted < columns {
            let c = i % columns
            if !moments.hasShift[c], values[i].isFinite {
                shift[c] = Double(values[i]); moments.hasShift[c] = true; shifted += 1
            }
            i += 1
        }
        let rows = values.count / columns
        // The same operations in the same order per column as a row-by-row loop over arrays,
        // through pointers: no bounds or uniqueness checks in the hot loop (validate's busiest
        // loop after inflating).
        values.withUnsafeBufferPointer { v in
            lo.withUnsafeMutableBufferPointer { lo in
                hi.withUnsafeMutableBufferPointer { hi in
                    sum.withUnsafeMutableBufferPointer { sum in
                        squares.withUnsafeMutableBufferPointer { squares in
                            counts.withUnsafeMutableBufferPointer { counts in
                                shift.withUnsafeBufferPointer { shift in
                                    var row = v.baseAddress!
                                    for _ in 0..<rows {
                                        for c in 0..<columns {
                                            let x = row[c]
                                            if x.isFinite {
                                                if x < lo[c] { lo[c] = x }
                                                if x > hi[c] { hi[c] = x }
                                                let d = Double(x) - shift[c]
                                                sum[c] += d
                                                squares[c] += d * d
                                                counts[c] += 1
                                            } else {
                                                nonFinite += 1
                                            }
                                        }
                                        row += columns
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        min = lo
        max = hi
        moments.shift = shift
        moments.sum = sum
        moments.sumSquares = squares
        moments.count = counts
        return nonFinite
    }
}
