import MotionDataset
import MotionFeatures

extension FileScanner {
    /// `x` and `features` read together, block by block (the same rows of each), so that each
    /// window's features are recomputed from its `x` with the run's feature code and compared,
    /// bit for bit, with the stored ones (`features.recomputed`); memory stays one block of each.
    /// A read error ends that array's scan (and the comparison); the other array is read on.
    func scanXAndFeatures(_ x: StoredArray, extractor: FeatureExtractor, into scan: inout FileScan,
                                  errors: inout [String]) {
        let c = manifest.channelNames.count, rowFloats = manifest.windowLength * c, n = manifest.featureNames.count
        var xState = XState(channels: c, rows: x.rows)
        var featureState = FeatureState(columns: n)
        var comparison = FeatureComparison()
        var xRead = true, featuresRead = true
        for start in blocks(x, bytesPerRow: xRowBytes) {
            let rows = blockRange(start, x, bytesPerRow: xRowBytes)
            var xValues: [Float]?, featureValues: [Float]?
            if xRead {
                do { xValues = try reader.readFloats("x", rows: rows) } catch {
                    xRead = false
                    errors.append("cannot read `x`: \(error)")
                }
            }
            if featuresRead {
                do { featureValues = try reader.readFloats("features", rows: rows) } catch {
                    featuresRead = false
                    errors.append("cannot read `features`: \(error)")
                }
            }
            if let xValues { addX(xValues, rows: rows, to: &xState, scan: &scan) }
            if let featureValues { addFeatures(featureValues, rows: rows, to: &featureState) }
            guard let xValues, let featureValues, xValues.count == rows.count * rowFloats,
                  featureValues.count == rows.count * n else { continue }
            comparison.merge(compareFeatures(xValues, featureValues, firstRow: rows.lowerBound, extractor: extractor))
        }
        if xRead {
            finishX(xState, into: &scan)
            scan.completeArrays.insert("x")
        }
        if featuresRead {
            finishFeatures(featureState, into: &scan)
            scan.completeArrays.insert("features")
        }
        if xRead && featuresRead { scan.featureComparison = comparison }
    }

    /// A 64-bit hash of each row's float32 bit patterns (a multiply–xor–shift mix of every
    /// value and the row length): the identity of a window's `x` for `splits.disjoint_windows`.
    /// Two rows with equal bits always hash alike; unequal rows collide with probability about
    /// 2⁻⁶⁴ per pair.
    static func hashRows(_ values: [Float], rowFloats: Int, into hashes: inout [UInt64]) {
        guard rowFloats > 0 else { return }
        values.withUnsafeBufferPointer { v in
            var i = 0
            while i + rowFloats <= v.count {
                var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(rowFloats)
                for j in i..<(i + rowFloats) {
                    h = (h ^ UInt64(v[j].bitPattern)) &* 0xBF58_476D_1CE4_E5B9
                    h ^= h >> 31
                }
                h = (h ^ (h >> 30)) &* 0x94D0_49BB_1331_11EB
                hashes.append(h ^ (h >> 31))
                i += rowFloats
            }
        }
    }

    /// The stored features of a block (`features`, rows × F) against those recomputed from its
    /// `x` (rows × T × C). One thread: on the 2-core VM two threads through `concurrentPerform`
    /// took twice the CPU time and more wall time under load (docs/validate.md, C7).
    private func compareFeatures(_ x: [Float], _ stored: [Float], firstRow: Int, extractor: FeatureExtractor) -> FeatureComparison {
        let rowFloats = manifest.windowLength * manifest.channelNames.count, n = manifest.featureNames.count
        let windows = stored.count / max(1, n)
        var c = FeatureComparison()
        var out = [Float](repeating: 0, count: n)
        x.withUnsafeBufferPointer { xv in
            stored.withUnsafeBufferPointer { fv in
                out.withUnsafeMutableBufferPointer { out in
                    for w in 0..<windows {
                        let window = UnsafeBufferPointer(rebasing: xv[(w * rowFloats)..<((w + 1) * rowFloats)])
                        // A window with NaN or infinity (`values.finite`) is not a window the run computed features of.
                        guard window.allSatisfy(\.isFinite) else {
                            c.windowsSkipped += 1
                            continue
                        }
                        extractor.extract(window: window, into: out)
                        c.windowsCompared += 1
                        var differs = false
                        // A stored NaN or infinity is `values.finite`'s, not reported twice.
                        for k in 0..<n where fv[w * n + k].isFinite && out[k].bitPattern != fv[w * n + k].bitPattern {
                            c.valuesDiffering += 1
                            if c.first == nil { c.first = (firstRow + w, k, fv[w * n + k], out[k]) }
                            differs = true
                        }
                        if differs { c.windowsDiffering += 1 }
                    }
                }
            }
        }
        return c
    }

    /// What the scan of `features` accumulates over a file's blocks.
    private struct FeatureState {
        var moments: ColumnMoments
        var bad = BadValues()
        init(columns: Int) { moments = ColumnMoments(columns: columns) }
    }

    func scanFeatures(_ f: StoredArray, into scan: inout FileScan) throws {
        let n = manifest.featureNames.count
        var state = FeatureState(columns: n)
        for start in blocks(f, bytesPerRow: n * 4) {
            let rows = blockRange(start, f, bytesPerRow: n * 4)
            addFeatures(try reader.readFloats("features", rows: rows), rows: rows, to: &state)
        }
        finishFeatures(state, into: &scan)
    }

    private func addFeatures(_ values: [Float], rows: Range<Int>, to state: inout FeatureState) {
        let n = manifest.featureNames.count
        var block = _BlockStatistics(columns: n)
        if block.accumulate(values, columns: n) > 0 {
            for (i, v) in values.enumerated() where !v.isFinite {
                state.bad.add(ValueLocation(window: rows.lowerBound + i / n, timeStep: nil, column: i % n), "\(v)")
            }
        }
        state.moments.merge(block.moments)
    }

    private func finishFeatures(_ state: FeatureState, into scan: inout FileScan) {
        scan.featureMoments = state.moments
        scan.nonFinite["features"] = state.bad
    }
}
