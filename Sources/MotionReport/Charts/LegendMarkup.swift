/// An HTML legend: one coloured swatch and name per series.
enum LegendMarkup {
    /// `<ul class="legend" data-legend="…">` with items `(name, colour index)`.
    static func html(_ items: [(String, Int)], kind: String) -> String {
        var s = "<ul class=\"legend\" data-legend=\"\(Markup.escape(kind))\">"
        for (name, i) in items {
            s += "<li data-name=\"\(Markup.escape(name))\"><span class=\"sw \(Palette.swatch(i))\"></span>\(Markup.escape(name))</li>"
        }
        return s + "</ul>"
    }
}
