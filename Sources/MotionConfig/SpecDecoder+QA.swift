import MotionCore
import MotionYAML

extension SpecDecoder {
    static let qaKeys = ["channels", "epoch_s", "nonwear_std_mg", "nonwear_patience_min", "calibration_std_mg", "range_g",
                         "clip_tolerance_g", "policy", "drop_nonwear_above", "drop_clipped_above"]

    /// `qa` (docs/pipeline.md, "qa"): every key checked at its `file:line:column`.
    func decodeQA(_ node: YAMLNode, rateHz: Double?) -> QASpec? {
        guard let f = fields(node, path: "qa", allowed: Self.qaKeys) else { return nil }
        var spec = QASpec()
        var ok = true
        func positive(_ key: String, _ set: (Double) -> Void) {
            guard let n = f[key] else { return }
            if let v = number(n, "qa.\(key)", "a number above 0", { $0 > 0 }) { set(v) } else { ok = false }
        }
        func fraction(_ key: String, _ set: (Double) -> Void) {
            guard let n = f[key] else { return }
            if let v = number(n, "qa.\(key)", "a number from 0 to 1", { $0 >= 0 && $0 <= 1 }) { set(v) } else { ok = false }
        }
        if let n = f["channels"] {
            if let s = string(n, "qa.channels") { spec.channels = s } else { ok = false }
        }
        positive("epoch_s") { spec.epochS = $0 }
        if let n = f["epoch_s"], ok, let rateHz, (spec.epochS * rateHz).rounded() < 2 {
            mustBe("qa.epoch_s", n, "at least 2 grid points (2 / `resample.rate_hz` = \(JSONValue.format(2 / rateHz)) s)")
            ok = false
        }
        positive("nonwear_std_mg") { spec.nonwearStdMg = $0 }
        positive("nonwear_patience_min") { spec.nonwearPatienceMin = $0 }
        positive("calibration_std_mg") { spec.calibrationStdMg = $0 }
        positive("range_g") { spec.rangeG = $0 }
        if let n = f["clip_tolerance_g"] {
            if let v = number(n, "qa.clip_tolerance_g", "a number from 0 to below `range_g`", { $0 >= 0 }) { spec.clipToleranceG = v } else { ok = false }
        }
        if ok, spec.clipToleranceG >= spec.rangeG, let n = f["clip_tolerance_g"] ?? f["range_g"] {
            report(n.mark, "`qa.clip_tolerance_g` (\(JSONValue.format(spec.clipToleranceG)) g) at \(at(n.mark)) must be below `qa.range_g` (\(JSONValue.format(spec.rangeG)) g): every point would be clipped")
            ok = false
        }
        if let n = f["policy"] {
            if let p: QASpec.Policy = choice(n, "qa.policy") { spec.policy = p } else { ok = false }
        }
        fraction("drop_nonwear_above") { spec.dropNonwearAbove = $0 }
        fraction("drop_clipped_above") { spec.dropClippedAbove = $0 }
        if spec.policy != .drop {
            for key in ["drop_nonwear_above", "drop_clipped_above"] {
                guard let k = f.keyNode(key) else { continue }
                report(k.mark, "`qa.\(key)` at \(at(k.mark)) applies only with `qa.policy: drop`, and the policy is `\(spec.policy.rawValue)`; remove it, or set `policy: drop`")
                ok = false
            }
        }
        guard ok else { return nil }
        spec.location = location(node.mark)
        return spec
    }
}
