/// The page's style sheet: light and dark themes through `prefers-color-scheme`, chart element
/// classes, and the palette. Contains no `<` or `&`, so it is valid XML text too.
enum ReportStyle {
    static var css: String {
        """
        :root{color-scheme:light dark;--bg:#ffffff;--fg:#1d1d1f;--muted:#5f6368;--grid:#e3e3e6;--axis:#8a8a8e;--card:#f5f5f7;--line:#d2d2d7;--warn:#b3261e;--ok:#1b7f3b}
        @media (prefers-color-scheme: dark){:root{--bg:#161618;--fg:#ececef;--muted:#a1a1a6;--grid:#2e2e33;--axis:#7b7b80;--card:#202024;--line:#3a3a3f;--warn:#ff8a80;--ok:#7ddc9b}}
        *{box-sizing:border-box}
        body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
        main{max-width:1120px;margin:0 auto;padding:24px 20px 48px}
        h1{font-size:26px;margin:0 0 4px}h2{font-size:19px;margin:36px 0 8px;padding-top:8px;border-top:1px solid var(--line)}h3{font-size:15px;margin:20px 0 6px}
        p{margin:6px 0}.sub,.note-p{color:var(--muted)}
        nav a{color:inherit;margin-right:14px;font-size:13px}
        .cards{display:flex;flex-wrap:wrap;gap:10px;margin:14px 0}
        .card{background:var(--card);border-radius:10px;padding:8px 12px;min-width:96px}
        .card b{display:block;font-size:20px;font-variant-numeric:tabular-nums}.card span{color:var(--muted);font-size:12px}
        table{border-collapse:collapse;margin:10px 0;font-variant-numeric:tabular-nums}
        th,td{padding:3px 10px;border-bottom:1px solid var(--line);text-align:right}
        th:first-child,td:first-child{text-align:left}th{font-weight:600;color:var(--muted)}
        .grid{display:flex;flex-wrap:wrap;gap:12px}.row{display:flex;flex-wrap:wrap;gap:8px 40px;align-items:flex-start}
        figure{margin:0;background:var(--card);border-radius:10px;padding:8px;width:fit-content;max-width:100%}
        figcaption{font-size:12px;color:var(--muted);margin:0 4px 4px}figure.example{width:346px}
        svg{max-width:100%;height:auto;display:block}
        svg text{fill:var(--fg);font-family:inherit}
        .tick{font-size:10px;fill:var(--muted)}.axt{font-size:11px;fill:var(--muted)}.cat{font-size:11px}.val{font-size:10px;fill:var(--muted)}
        .ttl{font-size:12px;font-weight:600}.note{font-size:10px;fill:var(--warn)}
        svg .warn{font-size:10px;fill:var(--warn);font-weight:600}
        line.grid{stroke:var(--grid);stroke-width:1}line.axis{stroke:var(--axis);stroke-width:1}
        .ln{fill:none;stroke-width:1.3;stroke-linejoin:round}.lg{stroke-width:2.5}
        .hist{stroke:none}
        .legend{list-style:none;padding:0;margin:6px 0;display:flex;flex-wrap:wrap;gap:14px;font-size:13px}
        .legend li{display:flex;align-items:center;gap:6px}
        .sw{display:inline-block;width:12px;height:12px;border-radius:3px}
        .checks{padding:8px 12px;border-radius:8px;background:var(--card)}
        .ok{color:var(--ok)}.bad{color:var(--warn)}
        ul.issues{margin:4px 0;padding-left:20px;color:var(--warn)}
        footer{margin-top:40px;color:var(--muted);font-size:12px}
        figure.timeline{width:100%;margin:0 0 14px}figure.timeline .legend{margin:2px 4px 4px;font-size:12px}
        .band{opacity:.17}.strip{opacity:.9}.fn{fill:#8a8a8e}.wn{background:#8a8a8e}
        @media (prefers-color-scheme: dark){.band{opacity:.24}}
        .gapr{fill:var(--bg);opacity:.75}.hatch{fill:none;stroke:var(--axis);stroke-width:1}
        .gapt{font-size:10px;fill:var(--fg);font-weight:600}
        .wgap{border:1px solid var(--axis);background:repeating-linear-gradient(45deg,var(--axis) 0 1px,transparent 1px 4px)}
        .muted{color:var(--muted)}
        """ + "\n" + Palette.css
    }
}
