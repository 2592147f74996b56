import MotionConfig
import MotionCore
import MotionResample

extension TransformPlan {
    // MARK: - Resolution

    /// `{prefix}_{kind}_{axis}` for a channel `{prefix}_{axis}` (axis `x`, `y` or `z`), else
    /// `{name}_{kind}` (`acc_mag` → `acc_mag_jerk`).
    package static func derivedName(_ name: String, _ kind: String) -> String {
        guard let u = name.lastIndex(of: "_"), u != name.startIndex, ["x", "y", "z"].contains(name[name.index(after: u)...]) else {
            return "\(name)_\(kind)"
        }
        return "\(name[..<u])_\(kind)_\(name[name.index(after: u)...])"
    }

    /// `50` rather than `50.0`.
    package static func number(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : "\(d)"
    }

    /// The prefix shared by every channel of a group (`acc` of `acc_x, acc_y, acc_z`), if any.
    package static func commonPrefix(_ names: [String]) -> String? {
        let prefixes = Set(names.map { n in n.lastIndex(of: "_").map { String(n[..<$0]) } ?? "" })
        guard prefixes.count == 1, let p = prefixes.first, !p.isEmpty else { return nil }
        return p
    }

    /// Resolves `spec.transforms` against `names`/`units` (the channels of `x` before them) and
    /// `sensors` (sensor name → its channel indices). Nil when there are no transforms.
    /// - Throws: `PipelineFileError` (78) listing, at each reference's `file:line:column`, an
    ///   unknown channel, one produced only by a later step, a channel listed twice in a step, a
    ///   name produced twice, a magnitude of a single channel, a calibration of a channel the step
    ///   does not list.
    package static func make(_ spec: PipelineSpec, names baseNames: [String], units baseUnits: [String],
                     sensors: [(name: String, channels: [Int])]) throws -> TransformPlan? {
        guard !spec.transforms.isEmpty else { return nil }
        var names = baseNames, units = baseUnits
        var producedBy: [String: Int] = [:]
        var issues: [ConfigIssue] = []
        var unresolved: [(step: Int, ref: String, at: SourceLocation)] = []
        var steps: [Step] = []
        let rate = spec.resample.rateHz
        func place(_ loc: SourceLocation?) -> String {
            guard let loc, loc.line != nil else { return "in \(spec.file)" }
            return "at \(loc)"
        }
        for (i, t) in spec.transforms.enumerated() {
            let path = "transforms[\(i)].\(t.kind.rawValue)"
            var inputs: [Int] = []
            var groups: [(ref: String, channels: [Int], isPrefix: Bool)] = []
            var ok = true
            for (j, ref) in t.channels.enumerated() {
                let loc = j < t.channelLocations.count ? t.channelLocations[j] : (t.location ?? SourceLocation(file: spec.file))
                var found: [Int]?
                var isPrefix = false
                if let c = names.firstIndex(of: ref) {
                    found = [c]
                } else if let s = sensors.first(where: { $0.name == ref }) {
                    found = s.channels
                } else {
                    let axes = ["x", "y", "z"].compactMap { names.firstIndex(of: "\(ref)_\($0)") }
                    if !axes.isEmpty { found = axes; isPrefix = true }
                }
                guard let found else {
                    // Reported below; the step still appends what its other references give, so
                    // later steps are checked against the channels they would see.
                    unresolved.append((i, ref, loc))
                    continue
                }
                for c in found where inputs.contains(c) {
                    issues.append(ConfigIssue(location: loc, message: "`\(path).channels` \(place(loc)) lists channel `\(names[c])` twice (`\(ref)` names it again); list each channel once"))
                    ok = false
                }
                inputs += found
                groups.append((ref, found, isPrefix))
            }
            // Later steps may still resolve names this step would have produced; they are checked as usual.
            var outputNames: [String] = []
            var outputUnits: [String] = []
            var operation: Operation?
            // The decoder checks these; a spec built in code (or read back from a manifest) may not
            // have been through it, and the filter design must never see them.
            func designable(_ order: Int, _ cutoff: [Double], bandpass: Bool) -> Bool {
                let fine = (1...TransformSpec.maxOrder).contains(order) && cutoff.count == (bandpass ? 2 : 1)
                    && cutoff.allSatisfy { $0 > 0 && $0 < rate / 2 } && (cutoff.count == 1 || cutoff[0] < cutoff[1])
                if !fine {
                    issues.append(ConfigIssue(location: t.location ?? SourceLocation(file: spec.file), message: "`\(path)` \(place(t.location)) cannot be designed: it needs an order from 1 to \(TransformSpec.maxOrder) and \(bandpass ? "two cutoffs, low below high," : "a cutoff") above 0 and below the Nyquist frequency, \(Self.number(rate / 2)) Hz, not order \(order) and cutoff_hz \(cutoff.map { Self.number($0) }.joined(separator: ", "))"))
                    ok = false
                }
                return fine
            }
            switch t.operation {
            case .median(let samples):
                if samples >= 1 && samples % 2 == 1 {
                    operation = .median(samples: samples)
                } else {
                    issues.append(ConfigIssue(location: t.location ?? SourceLocation(file: spec.file), message: "`\(path).samples` \(place(t.location)) must be an odd integer from 1 to \(TransformSpec.maxMedianSamples), not \(samples)"))
                    ok = false
                }
            case .butterworth(let type, let order, let cutoff, let zeroPhase):
                if designable(order, cutoff, bandpass: type == .bandpass) {
                    operation = .filter(sos: SignalFilters.butter(order: order, cutoffHz: cutoff, type: type, rateHz: rate), zeroPhase: zeroPhase)
                }
            case .gravity(let order, let cutoff, let zeroPhase):
                if designable(order, [cutoff], bandpass: false) {
                    operation = .gravity(sos: SignalFilters.butter(order: order, cutoffHz: [cutoff], type: .lowpass, rateHz: rate), zeroPhase: zeroPhase)
                }
                outputNames = inputs.map { Self.derivedName(names[$0], "body") } + inputs.map { Self.derivedName(names[$0], "gravity") }
                outputUnits = (inputs + inputs).map { units[$0] }
            case .derivative:
                operation = .derivative
                outputNames = inputs.map { Self.derivedName(names[$0], "jerk") }
                outputUnits = inputs.map { units[$0] == "1" ? "1/s" : "\(units[$0])/s" }
            case .magnitude(let name?):
                // One magnitude of every channel listed, named as asked.
                if inputs.count < 2 {
                    issues.append(ConfigIssue(location: t.location ?? SourceLocation(file: spec.file), message: "`\(path)` \(place(t.location)) with `name: \(name)` needs at least two channels, but its `channels` give \(inputs.map { "`\(names[$0])`" }.joined(separator: ", "))"))
                    ok = false
                }
                outputNames = [name]
                outputUnits = [inputs.first.map { units[$0] } ?? ""]
                operation = .magnitude(groups: [inputs])
            case .magnitude(nil):
                for g in groups {
                    let loc = t.channelLocations.count == t.channels.count ? t.channelLocations[t.channels.firstIndex(of: g.ref)!] : (t.location ?? SourceLocation(file: spec.file))
                    guard g.channels.count >= 2 else {
                        issues.append(ConfigIssue(location: loc, message: "`\(path).channels` \(place(loc)) names `\(g.ref)`, a single channel; a magnitude needs a group: a sensor, or a prefix `P` of channels `P_x`, `P_y`, `P_z`"))
                        ok = false
                        continue
                    }
                    let prefix = g.isPrefix ? g.ref : (Self.commonPrefix(g.channels.map { names[$0] }) ?? g.ref)
                    outputNames.append("\(prefix)_mag")
                    outputUnits.append(units[g.channels[0]])
                }
                operation = .magnitude(groups: groups.map(\.channels))
            case .calibrate(let scale, let offset):
                let listed = Set(inputs.map { names[$0] })
                for key in scale.overrides.map(\.key) + offset.overrides.map(\.key) where !listed.contains(key) && ok {
                    issues.append(ConfigIssue(location: t.location ?? SourceLocation(file: spec.file), message: "`\(path)` \(place(t.location)) calibrates channel `\(key)`, which its `channels` do not list; they give \(inputs.map { "`\(names[$0])`" }.joined(separator: ", "))"))
                    ok = false
                }
                operation = .calibrate(scale: inputs.map { scale.value(for: names[$0]) }, offset: inputs.map { offset.value(for: names[$0]) })
            }
            guard ok, let operation else { continue }
            var outputs = inputs
            if !outputNames.isEmpty {
                outputs = []
                let clashes = outputNames.filter { names.contains($0) }
                if let name = clashes.first {
                    let by = producedBy[name].map { "transforms[\($0)]" } ?? "the inputs or `magnitude`"
                    let what = clashes.count == 1 ? "channel `\(name)`, which \(by) already gives"
                        : "channels \(clashes.map { "`\($0)`" }.joined(separator: ", ")), which \(by) already gives"
                    issues.append(ConfigIssue(location: t.location ?? SourceLocation(file: spec.file), message: "`\(path)` \(place(t.location)) produces \(what); each channel name may occur only once in `x`"))
                    ok = false
                } else {
                    for (n, name) in outputNames.enumerated() {
                        producedBy[name] = i
                        outputs.append(names.count)
                        names.append(name)
                        units.append(outputUnits[n])
                    }
                }
            }
            guard ok else { continue }
            var minimum = 1
            switch operation {
            case .filter(let sos, true), .gravity(let sos, true): minimum = SignalFilters.padLength(sos) + 1
            default: break
            }
            steps.append(Step(operation: operation, inputs: inputs, outputs: outputs, minimumSegment: minimum))
        }
        for u in unresolved {
            let path = "transforms[\(u.step)].\(spec.transforms[u.step].kind.rawValue)"
            let matches = { (n: String) in n == u.ref || ["x", "y", "z"].contains { n == "\(u.ref)_\($0)" } }
            var message: String
            if let later = producedBy.first(where: { matches($0.key) && $0.value >= u.step }) {
                message = "`\(path).channels` \(place(u.at)) names `\(u.ref)`, which only transforms[\(later.value)] produces, at or after this step; steps run in the order written, so put this one after it"
            } else {
                let available = Array(names.prefix(baseNames.count)) + producedBy.filter { $0.value < u.step }.map(\.key).sorted()
                message = "unknown channel `\(u.ref)` in `\(path).channels` \(place(u.at)); a reference is a channel, a sensor (\(sensors.map { "`\($0.name)`" }.joined(separator: ", "))) or a prefix `P` of channels `P_x`, `P_y`, `P_z`, and the channels before this step are \(available.map { "`\($0)`" }.joined(separator: ", "))"
                // Groups first: `accel` is more likely `acc` than `acc_x`.
                let prefixes = Set(available.compactMap { n in n.lastIndex(of: "_").map { String(n[..<$0]) } }).sorted()
                let candidates = sensors.map(\.name) + prefixes + available
                if let s = Text.suggestion(for: u.ref, among: candidates) { message += "; did you mean `\(s)`?" }
            }
            issues.append(ConfigIssue(location: u.at, message: message))
        }
        if !issues.isEmpty {
            let sorted = issues.enumerated().sorted { a, b in
                (a.element.location.line ?? 0, a.element.location.column ?? 0, a.offset) < (b.element.location.line ?? 0, b.element.location.column ?? 0, b.offset)
            }.map(\.element)
            throw PipelineFileError(file: spec.file, issues: sorted)
        }
        return TransformPlan(steps: steps, inputChannels: baseNames.count, names: Array(names[baseNames.count...]),
                             units: Array(units[baseNames.count...]))
    }

}
