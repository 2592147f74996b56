/// The stable string hash of docs/dataset-format.md, "Splits and normalisation"; docs/scale.md: FNV-1a-64 over the UTF-8 bytes, then the
/// splitmix64 finaliser (plain FNV-1a sends names differing only in their last character to the
/// same split).
public enum StableHash {
    /// FNV-1a-64 (offset basis 0xcbf29ce484222325, prime 0x100000001b3) mixed by splitmix64's finaliser.
    public static func hash(_ s: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in s.utf8 {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01b3
        }
        return mix(h)
    }

    /// splitmix64's finaliser.
    public static func mix(_ x: UInt64) -> UInt64 {
        var z = x
        z ^= z >> 30
        z = z &* 0xbf58_476d_1ce4_e5b9
        z ^= z >> 27
        z = z &* 0x94d0_49bb_1331_11eb
        z ^= z >> 31
        return z
    }

    /// The hash as a uniform number in [0, 1): (h >> 11) × 2^−53.
    public static func unit(_ s: String) -> Double {
        Double(hash(s) >> 11) * 0x1p-53
    }
}
