import MotionCore
import MotionDataset

/// The normalised arrays of an applied output against their definition (docs/validate.md,
/// `normalization.applied`): `x_normalized` is `(x − mean) / std` with the manifest's
/// `normalization.x`, per value in float64 from the stored float32 `x`, rounded to float32 (a
/// column whose std is 0 only centred); `features_normalized` the same with
/// `normalization.features`.
struct NormalizedComparison {
    /// Values compared, and values whose bits differ from the recomputed value's.
    var valuesCompared = 0
    var valuesDiffering = 0
    /// The first differing value: its window, column (channel or feature), stored and recomputed value.
    var first: (row: Int, column: Int, stored: Float, recomputed: Float)?
}

extension FileScanner {
    /// Pairs of (source array, normalised array, the manifest's moments for them, columns).
    private var normalizedPairs: [(source: String, normalized: String, moments: DatasetManifest.Moments?, columns: Int)] {
        [("x", "x_normalized", manifest.normalization.x, manifest.channelNames.count),
         ("features", "features_normalized", manifest.normalization.features, manifest.featureNames.count)]
    }

    /// Recomputes each normalised array of an applied output from its source array, block by
    /// block (memory: two blocks), and compares bit for bit. Arrays that are missing, of
    /// another shape, or whose moments are null or did not decode are not compared (other
    /// checks report them). Read errors are returned as sentences.
    func scanNormalized(into scan: inout FileScan) -> [String] {
        guard manifest.isApplied else { return [] }
        var errors: [String] = []
        for pair in normalizedPairs {
            guard let source = readable[pair.source], let normalized = readable[pair.normalized],
                  source.rowShape == normalized.rowShape, source.rows == normalized.rows,
                  let moments = pair.moments, moments.mean.count == pair.columns, moments.std.count == pair.columns,
                  pair.columns > 0 else { continue }
            let standardization = Standardization(mean: moments.mean, std: moments.std)
            let rowValues = max(1, source.rowShape.reduce(1, *))
            let rowsPerBlock = max(1, min(blockWindows, maxBlockBytes / (rowValues * 4)))
            var result = NormalizedComparison()
            do {
                for start in stride(from: 0, to: source.rows, by: rowsPerBlock) {
                    let rows = start..<min(source.rows, start + rowsPerBlock)
                    let values = try reader.readFloats(pair.source, rows: rows)
                    let stored = try reader.readFloats(pair.normalized, rows: rows)
                    guard values.count == stored.count else { break }
                    let expected = standardization.apply(values)
                    result.valuesCompared += expected.count
                    for i in expected.indices where expected[i].bitPattern != stored[i].bitPattern {
                        // NaN in the source gives NaN; any NaN payload is the same value.
                        if expected[i].isNaN && stored[i].isNaN { continue }
                        result.valuesDiffering += 1
                        if result.first == nil {
                            result.first = (rows.lowerBound + i / rowValues, i % pair.columns, stored[i], expected[i])
                        }
                    }
                }
                scan.normalizedComparisons[pair.normalized] = result
            } catch {
                errors.append("cannot read `\(pair.normalized)`: \(error)")
            }
        }
        return errors
    }
}
