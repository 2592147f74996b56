import Foundation

/// Text and attribute escaping for XHTML-compatible output (the page must parse as XML).
enum Markup {
    /// `s` with `&`, `<`, `>`, `"` and `'` escaped, and characters XML 1.0 forbids dropped.
    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default:
                let v = u.value
                if v == 0x9 || v == 0xA || v == 0xD || (v >= 0x20 && v <= 0xD7FF) || (v >= 0xE000 && v <= 0xFFFD) || v >= 0x10000 {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out
    }

    /// A coordinate with at most one decimal (pixels; keeps the page small), no "-0".
    static func px(_ v: Double) -> String {
        guard v.isFinite else { return "0" }
        let r = (v * 10).rounded() / 10
        if r == r.rounded() { return String(Int(r)) }
        return String(format: "%.1f", r)
    }

    /// An integer with thousands separators ("1 234 567" with thin spaces).
    static func count(_ n: Int) -> String {
        let digits = String(abs(n))
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out += "\u{2009}" }
            out.append(c)
        }
        return n < 0 ? "−" + out : out
    }
}

/// Accumulates SVG markup. Colours come from CSS classes (`.s0`…`.s6`, `.fg`, `.grid`), so the
/// page's light and dark themes apply to every chart.
struct SVGBuilder {
    private(set) var body = ""
    let width: Double
    let height: Double

    init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// The finished `<svg>` element with `attributes` (already escaped `name="value"` pairs) and a
    /// `<title>` for screen readers.
    func svg(title: String, attributes: [(String, String)]) -> String {
        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(Markup.px(width)) \(Markup.px(height))\" width=\"\(Markup.px(width))\" height=\"\(Markup.px(height))\" role=\"img\""
        for (k, v) in attributes { s += " \(k)=\"\(Markup.escape(v))\"" }
        s += "><title>\(Markup.escape(title))</title>"
        return s + body + "</svg>"
    }

    mutating func raw(_ s: String) { body += s }

    mutating func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, cls: String) {
        body += "<line x1=\"\(Markup.px(x1))\" y1=\"\(Markup.px(y1))\" x2=\"\(Markup.px(x2))\" y2=\"\(Markup.px(y2))\" class=\"\(cls)\"/>"
    }

    mutating func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double, cls: String,
                       data: [(String, String)] = [], tooltip: String? = nil) {
        body += "<rect x=\"\(Markup.px(x))\" y=\"\(Markup.px(y))\" width=\"\(Markup.px(max(0, w)))\" height=\"\(Markup.px(max(0, h)))\" class=\"\(cls)\""
        for (k, v) in data { body += " \(k)=\"\(Markup.escape(v))\"" }
        if let tooltip { body += "><title>\(Markup.escape(tooltip))</title></rect>" } else { body += "/>" }
    }

    enum Anchor: String { case start, middle, end }

    mutating func text(_ x: Double, _ y: Double, _ s: String, anchor: Anchor = .start, cls: String = "lbl",
                       rotate: Bool = false) {
        let transform = rotate ? " transform=\"rotate(-90 \(Markup.px(x)) \(Markup.px(y)))\"" : ""
        body += "<text x=\"\(Markup.px(x))\" y=\"\(Markup.px(y))\" text-anchor=\"\(anchor.rawValue)\" class=\"\(cls)\"\(transform)>\(Markup.escape(s))</text>"
    }

    /// A polyline through `points` (pixels).
    mutating func polyline(_ points: [(Double, Double)], cls: String, data: [(String, String)] = []) {
        body += "<polyline class=\"\(cls)\""
        for (k, v) in data { body += " \(k)=\"\(Markup.escape(v))\"" }
        body += " points=\""
        var first = true
        for (x, y) in points {
            if !first { body += " " }
            first = false
            body += Markup.px(x) + "," + Markup.px(y)
        }
        body += "\"/>"
    }

    /// A y axis at `x` from `top` to `bottom` with gridlines across `plotWidth`, tick labels and a
    /// rotated title.
    mutating func yAxis(_ scale: NiceScale, x: Double, top: Double, bottom: Double, plotWidth: Double, title: String,
                        counts: Bool = false) {
        for t in scale.ticks {
            let y = scale.map(t, to: bottom, top)
            line(x, y, x + plotWidth, y, cls: "grid")
            line(x - 4, y, x, y, cls: "axis")
            text(x - 6, y + 3.5, counts ? CountFormat.label(t, step: scale.step) : scale.label(t), anchor: .end, cls: "tick")
        }
        line(x, top, x, bottom, cls: "axis")
        text(12, (top + bottom) / 2, title, anchor: .middle, cls: "axt", rotate: true)
    }

    /// An x axis at `y` from `left` to `right` with ticks, labels and a title below.
    mutating func xAxis(_ scale: NiceScale, y: Double, left: Double, right: Double, title: String) {
        line(left, y, right, y, cls: "axis")
        for t in scale.ticks {
            let x = scale.map(t, to: left, right)
            line(x, y, x, y + 4, cls: "axis")
            text(x, y + 15, scale.label(t), anchor: .middle, cls: "tick")
        }
        text((left + right) / 2, y + 31, title, anchor: .middle, cls: "axt")
    }
}
