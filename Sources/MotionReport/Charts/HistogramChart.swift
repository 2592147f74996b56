/// One channel's value distribution: bars of a fixed-bin histogram, drawn as one path.
enum HistogramChart {
    static func render(_ h: Histogram, channel: String, unit: String, colorIndex: Int) -> String {
        let width = 330.0, height = 190.0
        let left = 52.0, right = 12.0, top = 22.0, bottom = 40.0
        let plotBottom = height - bottom, plotRight = width - right
        let maxCount = h.counts.max() ?? 0
        let yScale = NiceScale(min: 0, max: Double(max(1, maxCount)), ticks: 4, integer: true)
        let xScale = NiceScale(min: h.lower, max: h.upper, ticks: 6)
        var svg = SVGBuilder(width: width, height: height)
        svg.yAxis(yScale, x: left, top: top, bottom: plotBottom, plotWidth: plotRight - left, title: "samples", counts: true)
        var d = ""
        for (i, n) in h.counts.enumerated() where n > 0 {
            let x0 = xScale.map(h.lower + Double(i) * h.binWidth, to: left, plotRight)
            let x1 = xScale.map(h.lower + Double(i + 1) * h.binWidth, to: left, plotRight)
            let y = yScale.map(Double(n), to: plotBottom, top)
            d += "M\(Markup.px(x0)) \(Markup.px(plotBottom))V\(Markup.px(y))H\(Markup.px(x1))V\(Markup.px(plotBottom))Z"
        }
        if !d.isEmpty { svg.raw("<path class=\"hist \(Palette.fill(colorIndex))\" d=\"\(d)\"/>") }
        svg.xAxis(xScale, y: plotBottom, left: left, right: plotRight, title: unit.isEmpty ? channel : "\(channel) (\(UnitText.display(unit)))")
        svg.text(left + 4, 14, channel, cls: "ttl")
        var outside: [String] = []
        if h.below > 0 { outside.append("\(Markup.count(h.below)) below") }
        if h.above > 0 { outside.append("\(Markup.count(h.above)) above") }
        if h.nonFinite > 0 { outside.append("\(Markup.count(h.nonFinite)) not finite") }
        if !outside.isEmpty { svg.text(plotRight, 14, outside.joined(separator: ", ") + " range", anchor: .end, cls: "note") }
        return svg.svg(title: "Distribution of \(channel)",
                       attributes: [("data-chart", "histogram"), ("data-channel", channel), ("data-bins", String(h.counts.count)),
                                    ("data-total", String(h.total)), ("data-below", String(h.below)), ("data-above", String(h.above))])
    }
}
