import MotionDataset
import Foundation
import MotionCore

/// `expect.*`: the rules of an expectations file, against counts recomputed from the data.
extension _ValidationRun {
    /// The expectation checks the options ask for.
    var expectationChecks: [CheckID] {
        guard let e = options.expectations else { return [] }
        var ids: [CheckID] = []
        if !e.requiredChannels.isEmpty { ids.append(.expectChannels) }
        if !e.requiredClasses.isEmpty { ids.append(.expectClasses) }
        if e.minWindows != nil { ids.append(.expectMinWindows) }
        if e.minWindowsPerClass != nil { ids.append(.expectMinWindowsPerClass) }
        if e.maxImbalanceRatio != nil { ids.append(.expectMaxImbalance) }
        if !e.valueRanges.isEmpty { ids.append(.expectValueRange) }
        if e.maxDroppedFraction != nil { ids.append(.expectMaxDroppedFraction) }
        return ids
    }

    func skipExpectations(_ reason: String) {
        for id in expectationChecks { builder.skip(id, reason) }
    }

    func checkExpectations() {
        guard let e = options.expectations else { return }
        let manifestName = Self.manifestName
        let source = e.file

        if !e.requiredChannels.isEmpty {
            builder.ran(.expectChannels)
            for c in e.requiredChannels where !manifest.channelNames.contains(c) {
                var m = "channel `\(c)` required by \(source) is not in the dataset"
                if let s = Text.suggestion(for: c, among: manifest.channelNames) { m += " (did you mean `\(s)`?)" }
                builder.fail(.expectChannels, manifestName, m)
            }
        }
        if !e.requiredClasses.isEmpty {
            builder.ran(.expectClasses)
            for c in e.requiredClasses where !manifest.classes.contains(c) {
                var m = "class `\(c)` required by \(source) is not in the dataset"
                m += manifest.classes.isEmpty ? " (it is unlabelled)" : " (its classes are \(Text.alternatives(manifest.classes)))"
                builder.fail(.expectClasses, manifestName, m)
            }
        }

        // Counts come from the data; when a split could not be read they are not trusted.
        var counts: [SplitName: (windows: Int, classCounts: [Int])] = [:]
        for split in manifest.splitNames { if let c = recomputed(split) { counts[split] = c } }
        let unreadable = "the windows of some files could not be counted"

        if let rule = e.minWindows {
            checkPerSplit(.expectMinWindows, rule, counts, unreadable) { split, c, minimum in
                c.windows < minimum
                    ? ["split `\(split.rawValue)` holds \(c.windows) windows, fewer than the \(minimum) required by \(rule.source)"]
                    : []
            }
        }
        if let rule = e.minWindowsPerClass {
            checkPerSplit(.expectMinWindowsPerClass, rule, counts, unreadable) { split, c, minimum in
                if manifest.classes.isEmpty {
                    return ["split `\(split.rawValue)` has no classes (the dataset is unlabelled), so `min_windows_per_class` from \(rule.source) cannot hold"]
                }
                return zip(manifest.classes, c.classCounts).compactMap { name, n in
                    n < minimum ? "split `\(split.rawValue)`: class `\(name)` has \(n) windows, fewer than the \(minimum) required by \(rule.source)" : nil
                }
            }
        }
        if let rule = e.maxImbalanceRatio {
            checkPerSplit(.expectMaxImbalance, rule, counts, unreadable) { split, c, limit in
                guard let most = c.classCounts.max(), most > 0, let least = c.classCounts.min() else { return [] }
                let ratio = least == 0 ? Double.infinity : Double(most) / Double(least)
                guard ratio > limit else { return [] }
                let big = manifest.classes[c.classCounts.firstIndex(of: most)!]
                let small = manifest.classes[c.classCounts.firstIndex(of: least)!]
                let shown = ratio.isInfinite ? "unbounded" : String(format: "%.2f", ratio)
                return ["split `\(split.rawValue)`: class `\(big)` has \(most) windows and `\(small)` \(least), a ratio of \(shown), above the \(limit) allowed by \(rule.source)"]
            }
        }
        if !e.valueRanges.isEmpty { checkValueRanges(e) }
        if let (limit, ruleSource) = e.maxDroppedFraction {
            let kept = manifest.splitNames.compactMap { counts[$0]?.windows }
            if kept.count < manifest.splitNames.count || manifest.windowsDropped == nil {
                builder.skip(.expectMaxDroppedFraction, manifest.windowsDropped == nil ? "`counts.windows_dropped` did not decode" : unreadable)
            } else {
                builder.ran(.expectMaxDroppedFraction)
                let dropped = manifest.windowsDropped!.values.reduce(0, +)
                let total = dropped + kept.reduce(0, +)
                let fraction = total == 0 ? 0 : Double(dropped) / Double(total)
                if fraction > limit {
                    let reasons = manifest.windowsDropped!.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                    builder.fail(.expectMaxDroppedFraction, manifestName,
                                 "the run dropped \(dropped) of \(total) windows (\(String(format: "%.4f", fraction)); \(reasons)), more than the \(limit) allowed by \(ruleSource)")
                }
            }
        }
    }

    private func checkPerSplit<V>(_ id: CheckID, _ rule: Expectations.PerSplit<V>,
                                  _ counts: [SplitName: (windows: Int, classCounts: [Int])], _ unreadable: String,
                                  _ test: (SplitName, (windows: Int, classCounts: [Int]), V) -> [String]) {
        let splits = manifest.splitNames.filter { rule.values[$0] != nil }
        guard splits.allSatisfy({ counts[$0] != nil }) else {
            builder.skip(id, unreadable)
            return
        }
        builder.ran(id)
        for split in splits {
            for message in test(split, counts[split]!, rule.values[split]!) {
                builder.fail(id, Self.manifestName, message)
            }
        }
    }

    /// `expect.value_ranges`: per rule, per channel, per file: values outside the range.
    private func checkValueRanges(_ e: Expectations) {
        builder.ran(.expectValueRange)
        let ranges = resolvedRanges()
        for r in ranges where r.channels.isEmpty {
            builder.fail(.expectValueRange, Self.manifestName,
                         "`value_ranges` entry `\(r.range.channels)` (\(r.range.source)) matches no channel of the dataset")
        }
        for f in manifest.files {
            guard let scan = scans[f.path], scan.channelMin != nil else {
                builder.skip(.expectValueRange, "`x` of some files could not be read")
                continue
            }
            for r in ranges {
                for ch in r.channels {
                    guard let bad = scan.rangeViolations[r.rule]?[ch], bad.count > 0, let first = bad.first else { continue }
                    builder.fail(.expectValueRange, f.path,
                                 "channel `\(manifest.channelNames[ch])` has \(bad.count) value(s) outside \(r.range.text) (\(r.range.source)); "
                                 + "range found [\(scan.channelMin![ch]), \(scan.channelMax![ch])]; first: \(first.value) at \(describe(first.location, array: "x"))")
                }
            }
        }
    }
}
