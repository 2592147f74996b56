import MotionCore
import MotionDataset
import MotionFeatures

/// `features.recomputed` (docs/validate.md): every window's `features` are what the run's feature
/// code (`FeatureExtractor`, MotionFeatures) computes from that window's `x`. The run computes
/// them from the very float32 values it stores in `x` (`WindowOutput.flush`, MotionEngine), so the
/// recomputation is exact: a stored value whose bits differ from the recomputed one fails.
extension _ValidationRun {
    /// The plan of the manifest's features, as the run plans them
    /// (`RecordingProcessor`: `pipeline.resolved.features`, the channels of `x`,
    /// `sample_rate_hz`, `window_length`); nil when the dataset has no features (the check
    /// passes) or the manifest does not give a plan whose columns are its `feature_names` (the
    /// check fails, naming why).
    func makeFeaturePlan() -> FeaturePlan? {
        let id = CheckID.featuresRecomputed
        guard !manifest.undecoded.contains(.pipeline), case .object(let resolved) = manifest.pipeline.resolved else {
            builder.skip(id, "`pipeline.resolved` did not decode")
            return nil
        }
        let names = manifest.featureNames
        let requested: [String]
        switch resolved["features"] {
        case .array(let items)?:
            var list: [String] = []
            for item in items {
                guard case .string(let name) = item else {
                    builder.fail(id, Self.manifestName, "`pipeline.resolved.features` holds \(item.compact()), not a feature name, so the features cannot be recomputed")
                    return nil
                }
                list.append(name)
            }
            requested = list
        case nil where names.isEmpty:
            requested = []
        default:
            builder.fail(id, Self.manifestName, "`pipeline.resolved.features` is missing or not a list, but the dataset has \(names.count) feature column(s), so they cannot be recomputed")
            return nil
        }
        var seen = Set<String>()
        for name in requested {
            guard FeatureCatalogue.contains(name) else {
                builder.fail(id, Self.manifestName, "`pipeline.resolved.features` lists \"\(name)\", which is not a feature this motionprep computes (\(Text.alternatives(FeatureCatalogue.names))), so the features cannot be recomputed")
                return nil
            }
            guard seen.insert(name).inserted else {
                builder.fail(id, Self.manifestName, "`pipeline.resolved.features` lists \"\(name)\" twice, so the features cannot be recomputed")
                return nil
            }
        }
        if requested.isEmpty && names.isEmpty {
            builder.ran(id)  // nothing to recompute
            return nil
        }
        let channels = manifest.channelNames
        let rate = manifest.sampleRateHz, length = manifest.windowLength
        guard rate.isFinite, rate > 0, length >= 1, Set(channels).count == channels.count else {
            builder.fail(id, Self.manifestName, "`sample_rate_hz` (\(rate)), `window_length` (\(length)) or the channel names (\(Text.joinedBounded(channels))) are not what a run gives (a positive rate and length, distinct channels), so the features cannot be recomputed")
            return nil
        }
        let plan = FeaturePlan(features: requested, channelNames: channels, rateHz: rate, windowLength: length)
        guard plan.featureNames == names else {
            builder.fail(id, Self.manifestName, "`feature_names` is \(Self.quoted(names)), but `pipeline.resolved.features` gives \(Self.quoted(plan.featureNames)) for the channels of `x`, so the features cannot be recomputed: the feature names must be the pipeline's, in its order")
            return nil
        }
        return plan
    }

    /// The file's comparison as one failure (the count and the first differing value), or the
    /// check run (passed) when every compared value is the recomputed one.
    func reportFeatureComparison(_ file: DatasetManifest.DataFile, _ scan: FileScan) {
        guard featureExtractor != nil else { return }
        guard let c = scan.featureComparison else {
            builder.skip(.featuresRecomputed, "`x` or `features` of some files could not be read as the manifest describes them")
            return
        }
        builder.ran(.featuresRecomputed)
        guard let first = c.first else { return }
        let feature = first.column < manifest.featureNames.count ? manifest.featureNames[first.column] : "column \(first.column)"
        builder.fail(.featuresRecomputed, file.path,
                     "\(windowName(file.path, first.row, split: file.split)), feature `\(feature)`: `features` holds \(first.stored), but the run's feature code computes \(first.recomputed) from the window's `x`; \(c.valuesDiffering) value(s) in \(c.windowsDiffering) of the \(c.windowsCompared) window(s) compared in this file differ (features must be recomputed from `x` bit for bit)")
    }

    /// `["a", "b"]`, at most 20 names shown.
    static func quoted(_ names: [String]) -> String {
        "[" + Text.joinedBounded(names.map { "\"\($0)\"" }) + "]"
    }
}
