import Foundation
import MotionEngine

/// One sensor of one recording over its whole grid: a line per axis (min/max per bucket, so
/// spikes survive decimation), the label segments as pale bands behind the lines and a strip of
/// solid colour above the plot, and gaps hatched and labelled. x is seconds since the grid's
/// first point, y the sensor's unit.
enum TimelineChart {
    static let width = 1060.0

    /// - Parameters:
    ///   - channels: indices into the timeline's channels, one line each, with legend labels.
    ///   - labelColor: the colour class of a label segment (`f2`, or `fn` for labels not in `classes`).
    static func render(_ t: Timeline, title: String, unit: String, channels: [(index: Int, label: String)],
                       labelColor: (Timeline.LabelSegment) -> String, data: [(String, String)]) -> String {
        let height = 168.0
        let left = 56.0, right = 12.0, top = 30.0, bottom = 36.0
        let plotBottom = height - bottom, plotRight = width - right
        let C = t.channelNames.count, B = t.bucketCount
        var lo = Double.infinity, hi = -Double.infinity
        for b in 0..<B {
            for (c, _) in channels {
                let mn = t.minimum[b * C + c], mx = t.maximum[b * C + c]
                if mn.isFinite { lo = min(lo, Double(mn)) }
                if mx.isFinite { hi = max(hi, Double(mx)) }
            }
        }
        let yScale = NiceScale(min: lo, max: hi, ticks: 4)
        let duration = max(Double(t.count) / t.rateHz, 1e-9)
        let xScale = NiceScale(min: 0, max: duration, ticks: 12, widen: false)
        func x(_ seconds: Double) -> Double { xScale.map(min(max(seconds - t.t0, 0), duration), to: left, plotRight) }

        var svg = SVGBuilder(width: width, height: height)
        // Label bands behind everything, and the solid label strip above the plot.
        for seg in t.labels {
            let x0 = x(seg.start), x1 = x(seg.end)
            let tip = "\(seg.label): \(seconds(seg.start - t.t0)) – \(seconds(seg.end - t.t0)) s"
            svg.rect(x0, top, x1 - x0, plotBottom - top, cls: "band " + labelColor(seg),
                     data: [("data-label", seg.label), ("data-start", String(seg.start)), ("data-end", String(seg.end))], tooltip: tip)
            svg.rect(x0, top - 7, x1 - x0, 5, cls: "strip " + labelColor(seg))
        }
        svg.yAxis(yScale, x: left, top: top, bottom: plotBottom, plotWidth: plotRight - left,
                  title: unit.isEmpty ? "value" : UnitText.display(unit))
        svg.xAxis(xScale, y: plotBottom, left: left, right: plotRight, title: "time since the first grid point (s)")
        // Lines: per bucket its min and max, in an order that keeps the zig-zag short; a bucket
        // with no valid point breaks the line.
        for (i, (c, _)) in channels.enumerated() {
            var d = ""
            var pen = false
            for b in 0..<B {
                let mn = t.minimum[b * C + c], mx = t.maximum[b * C + c]
                guard mn.isFinite, mx.isFinite else { pen = false; continue }
                let tb = Double(b * t.bucketSize) / t.rateHz + Double(t.bucketSize - 1) / (2 * t.rateHz)
                let px = xScale.map(min(tb, duration), to: left, plotRight)
                let (a, z) = b % 2 == 0 ? (mn, mx) : (mx, mn)
                d += (pen ? "L" : "M") + Markup.px(px) + "," + Markup.px(yScale.map(Double(a), to: plotBottom, top))
                if z != a { d += "L" + Markup.px(px) + "," + Markup.px(yScale.map(Double(z), to: plotBottom, top)) }
                pen = true
            }
            svg.raw("<path class=\"ln \(Palette.stroke(i))\" data-channel=\"\(Markup.escape(t.channelNames[c]))\" d=\"\(d)\"/>")
        }
        // Gaps on top: hatched, with their length written above when there is room.
        for (g, span) in t.gaps.enumerated() {
            let x0 = x(span.start), x1 = max(x(span.end), x0 + 1.5)
            var hatch = ""
            var o = -(plotBottom - top)
            while o < x1 - x0 {
                // 45° lines clipped to the rectangle.
                let ax = max(0, o), ay = plotBottom - (ax - o)
                let bx = min(x1 - x0, o + (plotBottom - top)), by = plotBottom - (bx - o)
                if bx > ax { hatch += "M\(Markup.px(x0 + ax)),\(Markup.px(ay))L\(Markup.px(x0 + bx)),\(Markup.px(by))" }
                o += 6
            }
            let length = span.end - span.start
            svg.raw("<g class=\"gap\" data-gap=\"\(g)\" data-start=\"\(span.start)\" data-end=\"\(span.end)\" data-points=\"\(t.gapIndices[g].count)\"><title>gap: \(seconds(span.start - t.t0)) – \(seconds(span.end - t.t0)) s (\(t.gapIndices[g].count) invalid grid points)</title>")
            svg.rect(x0, top, x1 - x0, plotBottom - top, cls: "gapr")
            if !hatch.isEmpty { svg.raw("<path class=\"hatch\" d=\"\(hatch)\"/>") }
            svg.raw("</g>")
            if x1 - x0 >= 26 || t.gaps.count <= 8 {
                svg.text((x0 + x1) / 2, top + 10, "gap \(seconds(length)) s", anchor: .middle, cls: "gapt")
            }
        }
        svg.text(left, 12, title, cls: "ttl")
        var lx = plotRight
        for (i, (_, label)) in channels.enumerated().reversed() {
            lx -= Double(label.count) * 6.2 + 24
            svg.line(lx, 9, lx + 14, 9, cls: "ln lg " + Palette.stroke(i))
            svg.text(lx + 17, 13, label, cls: "tick")
        }
        return svg.svg(title: "\(title) over recording \(t.recording)",
                       attributes: [("data-chart", "timeline")] + data + [("data-series", String(channels.count)),
                                    ("data-bands", String(t.labels.count)), ("data-gaps", String(t.gaps.count))])
    }

    /// Seconds with at most 2 decimals.
    static func seconds(_ v: Double) -> String {
        var s = String(format: "%.2f", v)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s == "-0" ? "0" : s
    }
}
