import MotionCore
import MotionDataset
import Foundation

/// Assembles the HTML page from the manifest and the statistics. The markup is XHTML-compatible
/// (every element closed, attributes quoted, text escaped) so tests can parse it as XML; charts are
/// inline SVG, styles inline CSS, and nothing is fetched from anywhere.
struct ReportPage {
    var manifest: DatasetManifest
    var statistics: DatasetStatistics
    /// Extra sections (e.g. recording timelines), already rendered.
    var extraSections: [String] = []

    private var classIndices: [Int] {
        let K = manifest.classes.count
        let unlabelled = statistics.splits.contains { $0.classCounts[K] > 0 }
        return Array(0..<K) + (unlabelled || K == 0 ? [K] : [])
    }

    private func className(_ k: Int) -> String {
        k < manifest.classes.count ? manifest.classes[k] : "unlabelled"
    }

    func render() -> String {
        let m = manifest
        let title = m.pipeline.name.isEmpty ? "dataset" : m.pipeline.name
        var h = "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
        h += "<meta charset=\"utf-8\"/>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
        h += "<meta name=\"color-scheme\" content=\"light dark\"/>\n<meta name=\"generator\" content=\"\(Markup.escape(m.createdBy))\"/>\n"
        h += "<title>\(Markup.escape(title)) · motionprep report</title>\n<style>\n\(ReportStyle.css)\n</style>\n</head>\n"
        h += "<body data-format=\"motionprep.report\" data-dataset=\"\(Markup.escape(title))\" data-windows=\"\(statistics.totalWindows)\">\n<main>\n"
        h += "<header><h1>\(Markup.escape(title))</h1><p class=\"sub\">motionprep dataset report · storage \(Markup.escape(m.storage)) · \(Markup.escape(m.createdBy))</p>\n"
        h += "<nav><a href=\"#summary\">Summary</a><a href=\"#balance\">Class balance</a><a href=\"#subjects\">Subjects</a><a href=\"#distributions\">Distributions</a><a href=\"#examples\">Examples</a>"
        if !extraSections.isEmpty { h += "<a href=\"#timelines\">Timelines</a>" }
        h += "</nav></header>\n"
        h += summarySection() + balanceSection() + subjectSection() + distributionSection() + exampleSection()
        h += extraSections.joined()
        h += "<footer>Written by <code>motionprep report</code> from manifest.json and the split files. Self-contained: inline SVG and CSS, no scripts, no network. Colours: Okabe–Ito palette.</footer>\n"
        h += "</main>\n</body>\n</html>\n"
        return h
    }

    // MARK: Sections

    private func summarySection() -> String {
        let m = manifest, st = statistics
        var s = "<section id=\"summary\" data-section=\"summary\">\n<h2>Summary</h2>\n<div class=\"cards\">"
        func card(_ value: String, _ label: String, _ key: String) {
            s += "<div class=\"card\" data-stat=\"\(key)\"><b>\(Markup.escape(value))</b><span>\(Markup.escape(label))</span></div>"
        }
        card(fmt(m.sampleRateHz) + " Hz", "sample rate", "rate")
        card("\(m.windowLength) samples", "window, \(fmt(Double(m.windowLength) / m.sampleRateHz)) s", "window")
        card("\(m.windowStride) samples", "stride, \(fmt(Double(m.windowStride) / m.sampleRateHz)) s", "stride")
        card(String(m.channels.count), "channels", "channels")
        card(String(m.classes.count), m.classes.isEmpty ? "classes (unlabelled)" : "classes: " + m.classes.joined(separator: ", "), "classes")
        card(String(m.subjects.count), "subjects", "subjects")
        card(String(m.recordings.count), "recordings", "recordings")
        card(Markup.count(st.totalWindows), "windows", "windows")
        s += "</div>\n"

        // Windows per split and class.
        let ks = classIndices
        s += "<table data-table=\"splits\"><thead><tr><th>split</th><th>windows</th>"
        for k in ks { s += "<th>\(Markup.escape(className(k)))</th>" }
        s += "<th>subjects</th></tr></thead><tbody>"
        for sp in st.splits {
            s += "<tr data-split=\"\(sp.name)\" data-windows=\"\(sp.windows)\"><td>\(sp.name)</td><td>\(Markup.count(sp.windows))</td>"
            for k in ks {
                let share = sp.windows > 0 ? " (\(fmt(100 * Double(sp.classCounts[k]) / Double(sp.windows), digits: 1)) %)" : ""
                s += "<td data-class=\"\(Markup.escape(className(k)))\" data-count=\"\(sp.classCounts[k])\">\(Markup.count(sp.classCounts[k]))\(share)</td>"
            }
            s += "<td>\(sp.subjectCounts.filter { $0 > 0 }.count)</td></tr>"
        }
        s += "</tbody></table>\n"

        // Channels with units and train statistics.
        s += "<div class=\"row\"><div><h3>Channels</h3><table data-table=\"channels\"><thead><tr><th>channel</th><th>unit</th><th>train mean</th><th>train std</th><th>min</th><th>max</th></tr></thead><tbody>"
        for (c, ch) in m.channels.enumerated() {
            let mean = (m.normalization.x?.mean).flatMap { c < $0.count ? $0[c] : nil }
            let std = (m.normalization.x?.std).flatMap { c < $0.count ? $0[c] : nil }
            let h = c < st.histograms.count ? st.histograms[c] : nil
            s += "<tr data-channel=\"\(Markup.escape(ch.name))\"><td>\(Markup.escape(ch.name))</td><td>\(Markup.escape(ch.unit.isEmpty ? "–" : UnitText.display(ch.unit)))</td>"
            s += "<td>\(mean.map { fmt($0, digits: 4) } ?? "–")</td><td>\(std.map { fmt($0, digits: 4) } ?? "–")</td>"
            s += "<td>\(h.flatMap { $0.minimum.isFinite ? fmt($0.minimum, digits: 4) : nil } ?? "–")</td><td>\(h.flatMap { $0.maximum.isFinite ? fmt($0.maximum, digits: 4) : nil } ?? "–")</td></tr>"
        }
        s += "</tbody></table>\n"
        if !st.histograms.isEmpty && st.histogramWindows < st.trainWindows {
            s += "<p class=\"note-p\">min and max over the \(Markup.count(st.histogramWindows)) \(manifest.isApplied ? "" : "train ")windows sampled for the histograms.</p>\n"
        }
        s += "</div><div>"

        // Data quality from the manifest's counts (gaps, dropped rows and windows).
        let counts = Self.flatCounts(m)
        if !counts.isEmpty {
            s += "<h3>Data quality</h3><table data-table=\"counts\"><thead><tr><th>manifest counts</th><th>value</th></tr></thead><tbody>"
            for (k, v) in counts {
                s += "<tr data-key=\"\(Markup.escape(k))\"><td>\(Markup.escape(k))</td><td>\(v == v.rounded() && abs(v) < 1e15 ? Markup.count(Int(v)) : fmt(v, digits: 3))</td></tr>"
            }
            s += "</tbody></table>\n"
        }
        s += "</div></div>\n"

        // Checks.
        var issues = st.discrepancies
        if m.splitPolicy?.by == "subject" {
            for (i, name) in m.subjects.enumerated() {
                let inSplits = st.splits.filter { $0.subjectCounts[i] > 0 }.map(\.name)
                if inSplits.count > 1 { issues.append("subject \(name) has windows in \(inSplits.joined(separator: " and ")) although the split is by subject") }
            }
        }
        for sp in st.splits where sp.windows == 0 { issues.append("the \(sp.name) split is empty") }
        s += "<div class=\"checks\" data-issues=\"\(issues.count)\">"
        if issues.isEmpty {
            s += "<p class=\"ok\">✓ Windows and class counts recomputed from the split files equal manifest.json; no subject is in two splits.</p>"
        } else {
            s += "<p class=\"bad\">Worth a look:</p><ul class=\"issues\">" + issues.map { "<li>\(Markup.escape($0))</li>" }.joined() + "</ul>"
        }
        s += "</div>\n</section>\n"
        return s
    }

    private func balanceSection() -> String {
        let ks = classIndices
        var s = "<section id=\"balance\" data-section=\"class-balance\">\n<h2>Class balance per split</h2>\n"
        s += LegendMarkup.html(ks.enumerated().map { (className($1), $0) }, kind: "classes")
        s += "<figure>" + ClassBalanceChart.render(splits: statistics.splits, classNames: ks.map(className), classIndices: ks) + "</figure>\n"
        return s + "</section>\n"
    }

    private func subjectSection() -> String {
        var s = "<section id=\"subjects\" data-section=\"subjects\">\n<h2>Windows per subject and split</h2>\n"
        if let source = manifest.applied {
            // An applied output has no split assignment: its one split holds every new window.
            s += "<p class=\"note-p\">One bar per subject. The output of <code>motionprep apply</code> with the pipeline and train statistics of dataset \(Markup.escape(source.name)): one split, <code>windows</code>, with no split assignment.</p>\n"
        } else if let policy = manifest.splitPolicy {
            s += "<p class=\"note-p\">One bar per subject, one colour per split. Split by \(Markup.escape(policy.by))"
            s += policy.by == "subject" ? ": a subject in two splits would leak between training and evaluation.</p>\n" : ".</p>\n"
        }
        s += LegendMarkup.html(statistics.splits.enumerated().map { ($1.name, $0) }, kind: "splits")
        s += "<figure>" + SubjectSplitChart.render(subjects: manifest.subjects, splits: statistics.splits,
                                                  flagLeaks: manifest.splitPolicy?.by == "subject") + "</figure>\n"
        return s + "</section>\n"
    }

    private func distributionSection() -> String {
        let st = statistics
        // An applied output's histograms are of its one split, `windows`.
        let split = manifest.isApplied ? "windows" : "train"
        var s = "<section id=\"distributions\" data-section=\"distributions\">\n<h2>Value distributions (\(split))</h2>\n"
        guard !st.histograms.isEmpty else {
            return s + "<p class=\"note-p\">The \(split) split has no windows: nothing to draw.</p>\n</section>\n"
        }
        let sample = st.histogramWindows < st.trainWindows
            ? "\(Markup.count(st.histogramWindows)) of \(Markup.count(st.trainWindows)) \(split) windows (evenly spaced row blocks)"
            : "all \(Markup.count(st.trainWindows)) \(split) windows"
        let range = st.histogramRange == "normalization"
            ? "range: the \(manifest.isApplied ? "source dataset's " : "")train mean ± 4 standard deviations from manifest.json, widened to round ticks; values outside are counted above each chart"
            : "range: the smallest to the largest value"
        s += "<p class=\"note-p\">Every sample of every window, per channel, from \(sample); \(range).</p>\n<div class=\"grid\">"
        let groups = SensorGroup.make(manifest.channels)
        var colorOf = [Int](repeating: 0, count: manifest.channels.count)
        for (g, group) in groups.enumerated() { for c in group.channels { colorOf[c] = g } }
        for (c, h) in st.histograms.enumerated() {
            let ch = manifest.channels[c]
            s += "<figure>" + HistogramChart.render(h, channel: ch.name, unit: ch.unit, colorIndex: colorOf[c]) + "</figure>"
        }
        return s + "</div>\n</section>\n"
    }

    private func exampleSection() -> String {
        let m = manifest
        var s = "<section id=\"examples\" data-section=\"examples\">\n<h2>Example windows per class</h2>\n"
        s += "<p class=\"note-p\">Windows picked deterministically: evenly spaced by rank among the class’s windows in file order, from the train split when it has the class. One chart per sensor, one line per axis.</p>\n"
        let groups = SensorGroup.make(m.channels)
        let T = m.windowLength, C = m.channels.count
        for k in classIndices {
            let examples = k < statistics.examples.count ? statistics.examples[k] : []
            let total = statistics.splits.reduce(0) { $0 + $1.classCounts[k] }
            s += "<h3 data-class=\"\(Markup.escape(className(k)))\">\(Markup.escape(className(k))) · \(Markup.count(total)) windows</h3>\n"
            guard !examples.isEmpty else { s += "<p class=\"note-p\">No windows of this class.</p>\n"; continue }
            s += "<div class=\"grid\">"
            for ex in examples {
                let subject = ex.subject >= 0 && ex.subject < m.subjects.count ? m.subjects[ex.subject] : "?"
                let recording = ex.recording >= 0 && ex.recording < m.recordings.count ? m.recordings[ex.recording] : "?"
                s += "<figure class=\"example\" data-class=\"\(Markup.escape(className(k)))\" data-split=\"\(ex.split)\" data-index=\"\(ex.index)\">"
                let who = recording.contains(subject) ? recording : "\(subject): \(recording)"
                s += "<figcaption>\(ex.split) #\(ex.index) · \(Markup.escape(who)) · from \(fmt(ex.startTimeS, digits: 2)) s</figcaption>"
                for g in groups {
                    let series = g.channels.enumerated().map { j, c in
                        (label: g.labels[j], channel: m.channels[c].name, values: (0..<T).map { t in ex.values[t * C + c] })
                    }
                    s += LineChart.render(title: g.name, unit: g.unit, series: series, rateHz: m.sampleRateHz,
                                          data: [("data-class", className(k)), ("data-sensor", g.name)])
                }
                s += "</figure>"
            }
            s += "</div>\n"
        }
        return s + "</section>\n"
    }

    // MARK: Numbers

    /// `v` with at most `digits` decimals, trailing zeros removed.
    private func fmt(_ v: Double, digits: Int = 3) -> String {
        guard v.isFinite else { return "–" }
        var s = String(format: "%.\(digits)f", v)
        if s.contains(".") {
            while s.hasSuffix("0") { s.removeLast() }
            if s.hasSuffix(".") { s.removeLast() }
        }
        if s == "-0" { s = "0" }
        return s
    }

    /// The manifest's `counts` as flat `(key, value)` pairs sorted by key, nested objects as
    /// `rows_dropped.missing_value`; lists (`skipped_recordings`) are left out.
    static func flatCounts(_ m: DatasetManifest) -> [(key: String, value: Double)] {
        var out: [(key: String, value: Double)] = []
        func flatten(_ prefix: String, _ v: JSONValue) {
            switch v {
            case .object(let o):
                for k in o.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                    flatten(prefix.isEmpty ? k : prefix + "." + k, o[k]!)
                }
            case .int(let i): out.append((prefix, Double(i)))
            case .double(let d): out.append((prefix, d))
            default: break
            }
        }
        if case .object(let top) = m.json, let c = top["counts"] { flatten("", c) }
        return out
    }
}
