import MotionChain
import MotionCore

/// A manifest decoded by ``ManifestDecoder``: the manifest (every field), and which optional
/// parts did not decode. Those hold placeholders in ``manifest``; the properties below give them
/// as nil instead, for checks that must skip what they cannot trust.
@dynamicMemberLookup
public struct DecodedManifest: Sendable {
    public var manifest: DatasetManifest
    /// Parts of ``manifest`` that did not decode (their problems are in the decoder's list).
    public var undecoded: Set<ManifestPart>

    public subscript<T>(dynamicMember path: KeyPath<DatasetManifest, T>) -> T { manifest[keyPath: path] }

    /// `split_policy.by`: nil when it did not decode.
    public var splitBy: String? { undecoded.contains(.splitBy) ? nil : manifest.splitPolicy?.by }
    /// `normalization.x` / `.features`: `.some(nil)` for JSON null, nil when it did not decode.
    public var xNormalization: DatasetManifest.Moments?? {
        undecoded.contains(.normalizationX) ? nil : .some(manifest.normalization.x)
    }
    public var featureNormalization: DatasetManifest.Moments?? {
        undecoded.contains(.normalizationFeatures) ? nil : .some(manifest.normalization.features)
    }
    /// `counts.windows_dropped`: nil when it did not decode.
    public var windowsDropped: [String: Int]? { undecoded.contains(.windowsDropped) ? nil : manifest.counts.windowsDropped }
}

/// The parts of a manifest that may fail to decode while the rest still describes the data.
public enum ManifestPart: Sendable, Hashable {
    case formatVersion, createdBy, pipeline, inputs, splitBy, splitPolicy, normalizationX, normalizationFeatures, counts, windowsDropped,
         sourceDataset, chain
}
