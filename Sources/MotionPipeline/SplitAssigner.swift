import MotionConfig
import MotionCore

/// The three splits, in their canonical order.
public enum SplitName: String, Sendable, CaseIterable {
    case train, validation, test
}

/// Assigns subjects (or recordings) to splits and folds (SPEC §7).
public struct SplitAssigner: Sendable {
    public var spec: SplitSpec
    private var pinned: [String: SplitName] = [:]

    public init(_ spec: SplitSpec) {
        self.spec = spec
        for entry in spec.assign {
            guard let split = SplitName(rawValue: entry.key) else { continue }
            for subject in entry.value { pinned[subject] = split }
        }
    }

    /// u = (h >> 11) × 2^−53 with h = FNV-1a-64 + splitmix64 of "{seed}:{key}".
    public func unit(_ key: String) -> Double {
        StableHash.unit("\(spec.seed):\(key)")
    }

    /// The split of a subject (or recording name with `by: recording`): the first split whose
    /// cumulative fraction exceeds u, the last taking any remainder; `assign` overrides.
    public func split(of key: String) -> SplitName {
        if let p = pinned[key] { return p }
        let u = unit(key)
        var cumulative = 0.0
        for (name, f) in [(SplitName.train, spec.train), (.validation, spec.validation), (.test, spec.test)] {
            cumulative += f
            if u < cumulative { return name }
        }
        return .test
    }

    /// ⌊u × k⌋ when `folds: k` is set.
    public func fold(of key: String) -> Int32? {
        guard let k = spec.folds else { return nil }
        return Int32(Swift.min(Double(k - 1), (unit(key) * Double(k)).rounded(.down)))
    }

    /// The key a recording is split by.
    public func key(subject: String, recording: String) -> String {
        spec.by == .subject ? subject : recording
    }
}
