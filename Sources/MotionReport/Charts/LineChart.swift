/// One sensor of one window: a line per axis over time in the window, like the accelerometer
/// charts phone developers draw, with an inline legend naming the axes.
enum LineChart {
    /// - Parameters:
    ///   - series: per channel its legend label (`x`), full name (`acc_x`) and values, all the
    ///     same length.
    ///   - rateHz: samples per second (x axis in seconds).
    static func render(title: String, unit: String, series: [(label: String, channel: String, values: [Float])], rateHz: Double,
                       data: [(String, String)]) -> String {
        let width = 330.0, height = 170.0
        let left = 52.0, right = 10.0, top = 24.0, bottom = 38.0
        let plotBottom = height - bottom, plotRight = width - right
        let n = series.first?.values.count ?? 0
        var lo = Double.infinity, hi = -Double.infinity
        for (_, _, v) in series { for x in v where x.isFinite { lo = min(lo, Double(x)); hi = max(hi, Double(x)) } }
        let yScale = NiceScale(min: lo, max: hi, ticks: 5)
        let duration = Double(max(1, n - 1)) / rateHz
        let xScale = NiceScale(min: 0, max: duration, ticks: 6, widen: false)
        var svg = SVGBuilder(width: width, height: height)
        svg.yAxis(yScale, x: left, top: top, bottom: plotBottom, plotWidth: plotRight - left, title: unit.isEmpty ? "value" : UnitText.display(unit))
        svg.xAxis(xScale, y: plotBottom, left: left, right: plotRight, title: "time in window (s)")
        for (i, (_, name, values)) in series.enumerated() {
            let points = values.enumerated().map { j, v in
                (xScale.map(Double(j) / rateHz, to: left, plotRight),
                 yScale.map(v.isFinite ? Double(v) : yScale.lower, to: plotBottom, top))
            }
            svg.polyline(points, cls: "ln " + Palette.stroke(i), data: [("data-channel", name)])
        }
        svg.text(left, 14, title, cls: "ttl")
        // Legend: a short line and the channel name per series, right-aligned in the title row.
        var x = plotRight
        for (i, (label, _, _)) in series.enumerated().reversed() {
            x -= Double(label.count) * 6.2 + 24
            svg.line(x, 10, x + 14, 10, cls: "ln lg " + Palette.stroke(i))
            svg.text(x + 17, 14, label, cls: "tick")
        }
        return svg.svg(title: "\(title) over one window", attributes: [("data-chart", "example")] + data + [("data-series", String(series.count))])
    }
}
