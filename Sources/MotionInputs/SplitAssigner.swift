import MotionConfig
import MotionCore
import MotionDataset

/// Assigns subjects (or recordings, with `by: recording`) to splits and folds
/// (docs/pipeline.md, "Splits and folds").
///
/// - `allocation: hash` (default): u = (h >> 11) × 2^−53 with h = FNV-1a-64 + splitmix64 of
///   "{seed}:{key}"; the first split whose cumulative fraction exceeds u takes the key, the last
///   taking any remainder. A key's split never depends on the other keys.
/// - `allocation: exact`: the keys not pinned by `assign`, ordered by u (ties by UTF-8 bytes),
///   get ⌊fraction × n⌋ each per split in order train, validation, test; the remaining keys go one
///   each to the splits with the largest remainders (ties in that order). So 4 subjects at
///   0.5/0.25/0.25 are always 2/1/1.
/// - `stratify: label` (with `exact`): the same, within each class on its own: a class's keys,
///   ordered by u, get its largest-remainder quotas, so every class is shared out by count.
/// - `assign` overrides both.
/// - `folds: k`: the train split's keys, ordered by h2 of "{seed}:fold:{key}" (ties by UTF-8
///   bytes), are dealt to folds 0, 1, …, k−1, 0, 1, … — balanced in keys and independent of the
///   split's draw. `leave_one_out: true` is k = the number of train keys. Keys of other splits
///   have no fold (−1 in `fold_index`).
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

    /// Where every key went.
    public struct Assignment: Sendable, Equatable {
        /// Split of each key.
        public var split: [String: SplitName]
        /// Fold of each train key, when folds are on.
        public var fold: [String: Int32]
        /// The number of folds (k, or the number of train keys with `leave_one_out`); nil
        /// without folds.
        public var foldCount: Int?
    }

    /// Assigns `keys` (each once; order does not matter).
    ///
    /// - Parameter strata: with `stratify: label`, each key's stratum (its class; a key of no
    ///   class, or missing here, is in the stratum ""). Each stratum's free keys are shared out
    ///   on their own, as `allocation: exact` shares out all of them. Ignored without `stratify`.
    public func assign(_ keys: [String], strata: [String: String] = [:]) -> Assignment {
        let unique = Array(Set(keys)).sorted(by: Text.utf8Less)
        var split: [String: SplitName] = [:]
        switch spec.allocation {
        case .hash:
            for key in unique { split[key] = hashSplit(of: key) }
        case .exact:
            let free = unique.filter { pinned[$0] == nil }
                .map { (key: $0, u: unit($0)) }
                .sorted { $0.u != $1.u ? $0.u < $1.u : Text.utf8Less($0.key, $1.key) }
            let fractions = [spec.train, spec.validation, spec.test]
            // Without `stratify`, one stratum holds every free key.
            var groups: [String: [String]] = [:]
            for item in free { groups[spec.stratify == nil ? "" : (strata[item.key] ?? ""), default: []].append(item.key) }
            for stratum in groups.keys.sorted(by: Text.utf8Less) {
                let members = groups[stratum]!
                let quotas = Self.quotas(count: members.count, fractions: fractions)
                var next = 0
                for (s, quota) in zip(SplitName.datasetSplits, quotas) {
                    for key in members[next..<(next + quota)] { split[key] = s }
                    next += quota
                }
            }
            for (key, s) in pinned where unique.contains(key) { split[key] = s }
        }
        var fold: [String: Int32] = [:]
        var foldCount: Int?
        if spec.folds != nil || spec.leaveOneOut {
            let train = unique.filter { split[$0] == .train }
                .map { (key: $0, h: StableHash.hash("\(spec.seed):fold:\($0)")) }
                .sorted { $0.h != $1.h ? $0.h < $1.h : Text.utf8Less($0.key, $1.key) }
            let k = spec.leaveOneOut ? train.count : spec.folds!
            foldCount = k
            for (i, item) in train.enumerated() { fold[item.key] = Int32(i % Swift.max(k, 1)) }
        }
        return Assignment(split: split, fold: fold, foldCount: foldCount)
    }

    /// Largest-remainder quotas of `count` items for `fractions` (which add up to 1): ⌊f × n⌋
    /// each (f × n rounded to 1e-9 first, so 0.29 × 100 counts as 29), then one more to each of the
    /// splits with the largest remainders, ties to the earlier split.
    package static func quotas(count n: Int, fractions: [Double]) -> [Int] {
        let exact = fractions.map { ($0 * Double(n) * 1e9).rounded() / 1e9 }
        var q = exact.map { Int($0.rounded(.down)) }
        let left = n - q.reduce(0, +)
        if left > 0 {
            let order = fractions.indices.sorted {
                let a = exact[$0] - Double(q[$0]), b = exact[$1] - Double(q[$1])
                return a != b ? a > b : $0 < $1
            }
            for i in order.prefix(left) { q[i] += 1 }
        }
        return q
    }

    /// u = (h >> 11) × 2^−53 with h = FNV-1a-64 + splitmix64 of "{seed}:{key}".
    public func unit(_ key: String) -> Double {
        StableHash.unit("\(spec.seed):\(key)")
    }

    /// The split a key gets under `allocation: hash` (`assign` overrides).
    package func hashSplit(of key: String) -> SplitName {
        if let p = pinned[key] { return p }
        let u = unit(key)
        var cumulative = 0.0
        for (name, f) in [(SplitName.train, spec.train), (.validation, spec.validation), (.test, spec.test)] {
            cumulative += f
            if u < cumulative { return name }
        }
        return .test
    }

    /// The key a recording is split by.
    public func key(subject: String, recording: String) -> String {
        spec.by == .subject ? subject : recording
    }
}

/// `split_missing_class`: a split holding some class but none of one another split holds, so a
/// model validated or tested on it is not measured on that class. `run` warns from the windows
/// written, `validate PIPELINE` from the classes the recordings' paths give.
package enum SplitClassCoverage {
    /// Each split (in split order) that holds some class, with the classes (indices, in class
    /// order) it lacks and another split holds. `present`: the classes each split holds.
    package static func missing(_ present: [SplitName: Set<Int>], classCount: Int) -> [(split: SplitName, classes: [Int])] {
        var out: [(split: SplitName, classes: [Int])] = []
        for split in SplitName.datasetSplits {
            guard let mine = present[split], !mine.isEmpty else { continue }
            let missing = (0..<classCount).filter { c in
                !mine.contains(c) && SplitName.datasetSplits.contains { $0 != split && present[$0]?.contains(c) == true }
            }
            if !missing.isEmpty { out.append((split, missing)) }
        }
        return out
    }

    /// The classes as a message lists them: "`a`, `b`", at most 8, then "and N more".
    package static func list(_ names: [String]) -> String {
        names.prefix(8).map { "`\($0)`" }.joined(separator: ", ") + (names.count > 8 ? " and \(names.count - 8) more" : "")
    }
}
