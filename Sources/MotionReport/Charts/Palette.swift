/// The Okabe–Ito colour-blind-safe palette (Okabe & Ito, "Color Universal Design", 2008), without
/// its black, in an order whose neighbours stay distinct for deuteranopes, protanopes and
/// tritanopes. Charts refer to colours by CSS class (`f3` fill, `k3` stroke, `w3` swatch), so
/// the palette is defined once, in the page's style sheet.
enum Palette {
    /// blue, orange, bluish green, vermillion, sky blue, reddish purple, yellow.
    static let colors = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#F0E442"]

    /// The colour index of series `i` (colours repeat after seven series).
    static func index(_ i: Int) -> Int { ((i % colors.count) + colors.count) % colors.count }

    /// CSS rules for the fill, stroke and swatch classes.
    static var css: String {
        colors.enumerated().map { i, c in ".f\(i){fill:\(c)}.k\(i){stroke:\(c)}.w\(i){background:\(c)}" }.joined()
    }

    /// Classes `fill`, `stroke` and `swatch` for series `i`.
    static func fill(_ i: Int) -> String { "f\(index(i))" }
    static func stroke(_ i: Int) -> String { "k\(index(i))" }
    static func swatch(_ i: Int) -> String { "w\(index(i))" }
}

/// Tick labels for counts: "0", "500", "2.5k", "500k", "1.5M".
enum CountFormat {
    static func label(_ v: Double, step: Double) -> String {
        if abs(v) >= 1_000_000 { return trim(v / 1_000_000) + "M" }
        if abs(v) >= 10_000 || (step >= 1000 && v != 0) { return trim(v / 1000) + "k" }
        return NiceScale.format(v, step: step)
    }

    private static func trim(_ v: Double) -> String {
        var s = String(format: "%.2f", v)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }
}

/// Units as printed on axes: the manifest's ASCII exponents as superscripts (`m/s^2` → `m/s²`).
enum UnitText {
    static func display(_ unit: String) -> String {
        unit.replacingOccurrences(of: "^2", with: "²").replacingOccurrences(of: "^3", with: "³")
            .replacingOccurrences(of: "^-1", with: "⁻¹")
    }
}
