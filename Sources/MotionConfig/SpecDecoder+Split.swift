import MotionCore
import MotionYAML

extension SpecDecoder {
    // MARK: - split

    static let splitNames = ["train", "validation", "test"]

    func decodeSplit(_ node: YAMLNode) -> SplitSpec? {
        guard let f = fields(node, path: "split", allowed: ["by", "seed", "fractions", "assign", "folds", "allocation", "leave_one_out", "stratify"]) else { return nil }
        var ok = true
        var spec = SplitSpec()
        if let n = f["by"] {
            if let by: SplitSpec.By = choice(n, "split.by") { spec.by = by } else { ok = false }
        }
        if let n = f["seed"] {
            if let seed = integer(n, "split.seed", "a whole number from 0 to \(Int.max)", { $0 >= 0 }) {
                spec.seed = UInt64(seed)
            } else {
                ok = false
            }
        }
        if let n = f["fractions"] {
            if let fr = decodeFractions(n) {
                (spec.train, spec.validation, spec.test) = fr
            } else {
                ok = false
            }
        }
        if let n = f["assign"] {
            if let assign = decodeAssign(n) { spec.assign = assign } else { ok = false }
        }
        if let n = f["folds"] {
            if let k = integer(n, "split.folds", "a whole number from 2 to 1000", { (2...1000).contains($0) }) {
                spec.folds = k
            } else {
                ok = false
            }
        }
        if let n = f["allocation"] {
            if let a: SplitSpec.Allocation = choice(n, "split.allocation") { spec.allocation = a } else { ok = false }
        }
        if let n = f["stratify"] {
            if let s: SplitSpec.Stratify = choice(n, "split.stratify") {
                spec.stratify = s
                if spec.allocation != .exact {
                    report(n.mark, "`split.stratify: label` at \(at(n.mark)) shares out each class's \(spec.by.rawValue)s by count, which is `split.allocation: exact`; add `allocation: exact` to `split`")
                    ok = false
                }
            } else {
                ok = false
            }
        }
        if let n = f["leave_one_out"] {
            if let b = bool(n, "split.leave_one_out") {
                spec.leaveOneOut = b
                if b, let folds = f["folds"] {
                    report(n.mark, "`split.leave_one_out` at \(at(n.mark)) gives every train subject its own fold, so it cannot go with `split.folds` at \(at(folds.mark)); keep one of the two")
                    ok = false
                }
            } else {
                ok = false
            }
        }
        return ok ? spec : nil
    }

    /// `fractions`: keys from train/validation/test (missing ones are 0), each in [0, 1],
    /// adding up to 1 within 1e-9.
    func decodeFractions(_ node: YAMLNode) -> (Double, Double, Double)? {
        guard let f = fields(node, path: "split.fractions", allowed: Self.splitNames) else { return nil }
        var values: [Double] = []
        var ok = true
        for name in Self.splitNames {
            guard let n = f[name] else { values.append(0); continue }
            if let v = number(n, "split.fractions.\(name)", "a number from 0 to 1", { (0...1).contains($0) }) {
                values.append(v)
            } else {
                ok = false
            }
        }
        guard ok, f.isClean else { return nil }
        let sum = values.reduce(0, +)
        guard abs(sum - 1) <= 1e-9 else {
            let terms = zip(Self.splitNames, values).map { "\($0) \(Self.format($1))" }.joined(separator: " + ")
            let shown = Self.format((sum * 1e9).rounded() / 1e9)
            report(node.mark, "`split.fractions` at \(at(node.mark)) must add up to 1, not \(shown) (\(terms))")
            return nil
        }
        return (values[0], values[1], values[2])
    }

    /// `assign`: split name → subjects; a subject may be pinned once.
    func decodeAssign(_ node: YAMLNode) -> [KeyValue<[String]>]? {
        guard let f = fields(node, path: "split.assign", allowed: Self.splitNames), let pairs = node.mapping else { return nil }
        var out: [KeyValue<[String]>] = []
        var pinned: [String: (split: String, mark: YAMLMark)] = [:]
        var ok = true
        for pair in pairs {
            guard let split = pair.key.scalar?.value, f.has(split) else { continue }
            let path = "split.assign.\(split)"
            guard let items = pair.value.sequence else {
                mustBe(path, pair.value, "a list of names")
                ok = false
                continue
            }
            var names: [String] = []
            for (i, item) in items.enumerated() {
                guard let name = string(item, "\(path)[\(i)]") else { ok = false; continue }
                if let first = pinned[name] {
                    report(item.mark, "`\(Self.shorten(name))` in `\(path)` at \(at(item.mark)) is already assigned to `\(first.split)` at \(first.mark); a name may be pinned to one split only")
                    ok = false
                    continue
                }
                pinned[name] = (split, item.mark)
                names.append(name)
            }
            out.append(KeyValue(split, names))
        }
        return ok ? out : nil
    }
}
