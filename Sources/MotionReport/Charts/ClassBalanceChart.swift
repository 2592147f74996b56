/// Grouped bars: one group per split, one bar per class, the window count above each bar.
enum ClassBalanceChart {
    /// - Parameters:
    ///   - splits: the splits in order, with class counts (last entry: unlabelled).
    ///   - classNames: one name per drawn class, aligned with `classIndices`.
    ///   - classIndices: which entries of `classCounts` to draw (classes, plus unlabelled when any).
    static func render(splits: [DatasetStatistics.SplitCounts], classNames: [String], classIndices: [Int]) -> String {
        let K = classIndices.count
        let left = 64.0, right = 16.0, top = 20.0, bottom = 48.0
        let groupWidth = max(120.0, min(260.0, Double(K) * 44 + 40))
        let width = left + right + groupWidth * Double(max(1, splits.count))
        let height = 300.0
        let maxCount = splits.flatMap { s in classIndices.map { s.classCounts[$0] } }.max() ?? 0
        let scale = NiceScale(min: 0, max: Double(max(1, maxCount)), ticks: 6, integer: true)
        var svg = SVGBuilder(width: width, height: height)
        let plotBottom = height - bottom
        svg.yAxis(scale, x: left, top: top, bottom: plotBottom, plotWidth: width - left - right, title: "windows", counts: true)
        let barWidth = min(40.0, (groupWidth - 32) / Double(max(1, K)))
        for (g, split) in splits.enumerated() {
            let gx = left + Double(g) * groupWidth + (groupWidth - barWidth * Double(K)) / 2
            for (j, k) in classIndices.enumerated() {
                let n = split.classCounts[k]
                let y = scale.map(Double(n), to: plotBottom, top)
                let x = gx + Double(j) * barWidth
                svg.rect(x + 1, y, barWidth - 2, plotBottom - y, cls: "bar " + Palette.fill(j),
                         data: [("data-split", split.name), ("data-class", classNames[j]), ("data-count", String(n))],
                         tooltip: "\(split.name) · \(classNames[j]): \(n) windows")
                svg.text(x + barWidth / 2, y - 4, Markup.count(n), anchor: .middle, cls: "val")
            }
            svg.text(left + (Double(g) + 0.5) * groupWidth, plotBottom + 16, "\(split.name) (\(Markup.count(split.windows)))",
                     anchor: .middle, cls: "cat")
        }
        svg.line(left, plotBottom, width - right, plotBottom, cls: "axis")
        svg.text(left + (width - left - right) / 2, plotBottom + 36, "split (windows)", anchor: .middle, cls: "axt")
        return svg.svg(title: "Windows per class and split",
                       attributes: [("data-chart", "class-balance"), ("data-splits", String(splits.count)),
                                    ("data-classes", String(K))])
    }
}
