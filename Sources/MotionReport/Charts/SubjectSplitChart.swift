/// Horizontal stacked bars: one row per subject, one segment per split, so a subject that sits
/// in two splits (a leak when splitting by subject) and unevenly sized subjects stand out.
enum SubjectSplitChart {
    static func render(subjects: [String], splits: [DatasetStatistics.SplitCounts], flagLeaks: Bool) -> String {
        let rowHeight = 18.0, labelWidth = 150.0, right = 110.0, top = 10.0, bottom = 44.0
        let width = 760.0
        let height = top + bottom + rowHeight * Double(max(1, subjects.count))
        let totals = subjects.indices.map { s in splits.reduce(0) { $0 + $1.subjectCounts[s] } }
        let scale = NiceScale(min: 0, max: Double(max(1, totals.max() ?? 0)), ticks: 6, integer: true)
        let plotLeft = labelWidth, plotRight = width - right
        let plotBottom = height - bottom
        var svg = SVGBuilder(width: width, height: height)
        for t in scale.ticks {
            let x = scale.map(t, to: plotLeft, plotRight)
            svg.line(x, top, x, plotBottom, cls: "grid")
            svg.line(x, plotBottom, x, plotBottom + 4, cls: "axis")
            svg.text(x, plotBottom + 15, CountFormat.label(t, step: scale.step), anchor: .middle, cls: "tick")
        }
        svg.text((plotLeft + plotRight) / 2, plotBottom + 32, "windows", anchor: .middle, cls: "axt")
        var leaks = 0
        for (s, name) in subjects.enumerated() {
            let y = top + Double(s) * rowHeight
            let shown = name.count > 22 ? String(name.prefix(21)) + "…" : name
            svg.text(plotLeft - 6, y + rowHeight / 2 + 4, shown, anchor: .end, cls: "cat")
            var x = plotLeft
            var inSplits = 0
            for (j, split) in splits.enumerated() {
                let n = split.subjectCounts[s]
                guard n > 0 else { continue }
                inSplits += 1
                let w = scale.map(Double(n), to: plotLeft, plotRight) - plotLeft
                svg.rect(x, y + 2, w, rowHeight - 4, cls: "bar " + Palette.fill(j),
                         data: [("data-subject", name), ("data-split", split.name), ("data-count", String(n))],
                         tooltip: "\(name) · \(split.name): \(n) windows")
                x += w
            }
            var note = Markup.count(totals[s])
            if flagLeaks && inSplits > 1 { note += "  ⚠ in \(inSplits) splits"; leaks += 1 }
            svg.text(x + 5, y + rowHeight / 2 + 4, note, anchor: .start, cls: inSplits > 1 && flagLeaks ? "warn" : "val")
        }
        svg.line(plotLeft, top, plotLeft, plotBottom, cls: "axis")
        return svg.svg(title: "Windows per subject and split",
                       attributes: [("data-chart", "subjects"), ("data-subjects", String(subjects.count)),
                                    ("data-leaks", String(leaks))])
    }
}
