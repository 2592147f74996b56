import MotionDataset
import MotionConfig
import MotionEngine

/// The "Recording timelines" section of `motionprep report --recordings PIPELINE.yaml`: per
/// recording, one chart per sensor over the whole resampled grid with label bands and gaps.
public enum TimelineSection {
    /// The section's markup, to pass to ``Report/render(directory:options:extraSections:)``.
    ///
    /// - Parameters:
    ///   - loaded: the timelines and how many recordings there are in all.
    ///   - classes: the dataset's classes, so a label has the colour it has in the rest of the page.
    ///   - pipeline: the pipeline file's path as given, for the text.
    public static func render(_ loaded: RecordingTimeline.Loaded, classes: [String], pipeline: String) -> String {
        var s = "<section id=\"timelines\" data-section=\"timelines\" data-recordings=\"\(loaded.timelines.count)\" data-total-recordings=\"\(loaded.totalRecordings)\">\n<h2>Recording timelines</h2>\n"
        let shown = loaded.timelines.count
        var note = "Each recording of <code>\(Markup.escape(pipeline))</code> read and resampled as <code>motionprep run</code> does it, before windowing: one chart per sensor, one line per axis (the smallest and largest value per pixel column), labels after <code>map</code> as coloured bands, gaps (invalid grid points, docs/signal.md, \"Resampling and gaps\") hatched."
        if shown < loaded.totalRecordings {
            note += " <b data-capped=\"true\">Showing the first \(shown) of \(loaded.totalRecordings) recordings</b> (by subject and name; <code>--max-recordings N</code> draws more)."
        } else {
            note += " All \(loaded.totalRecordings) recordings."
        }
        s += "<p class=\"note-p\">\(note)</p>\n"
        for t in loaded.timelines { s += recording(t, classes: classes) }
        return s + "</section>\n"
    }

    private static func recording(_ t: Timeline, classes: [String]) -> String {
        var s = "<figure class=\"timeline\" data-recording=\"\(Markup.escape(t.recording))\" data-subject=\"\(Markup.escape(t.subject))\" data-grid-points=\"\(t.count)\" data-label-segments=\"\(t.labels.count)\" data-gaps=\"\(t.gaps.count)\">"
        let who = t.recording.contains(t.subject) ? t.recording : "\(t.subject): \(t.recording)"
        if let problem = t.problem {
            return s + "<figcaption>\(Markup.escape(who))</figcaption><p class=\"bad\" data-problem=\"true\">Not drawn: \(Markup.escape(problem))</p></figure>\n"
        }
        let duration = Double(t.count) / t.rateHz
        let gapPoints = t.gapIndices.reduce(0) { $0 + $1.count }
        var caption = "\(who) · \(TimelineChart.seconds(duration)) s at \(TimelineChart.seconds(t.rateHz)) Hz from t = \(TimelineChart.seconds(t.t0)) s"
        caption += " · \(t.gaps.count) gap\(t.gaps.count == 1 ? "" : "s")"
        if gapPoints > 0 { caption += " (\(TimelineChart.seconds(Double(gapPoints) / t.rateHz)) s)" }
        if t.bucketSize > 1 { caption += " · \(t.bucketSize) grid points per column" }
        s += "<figcaption>\(Markup.escape(caption))</figcaption>"

        // Legend: the labels present, in class order, then the others, then the gap swatch.
        var names: [String] = []
        for seg in t.labels where !names.contains(seg.label) { names.append(seg.label) }
        names.sort { (classes.firstIndex(of: $0) ?? Int.max, $0) < (classes.firstIndex(of: $1) ?? Int.max, $1) }
        s += "<ul class=\"legend\" data-legend=\"labels\">"
        for n in names {
            let k = classes.firstIndex(of: n)
            s += "<li data-name=\"\(Markup.escape(n))\"><span class=\"sw \(k.map(Palette.swatch) ?? "wn")\"></span>\(Markup.escape(n))\(k == nil ? " (not a class)" : "")</li>"
        }
        if t.labels.isEmpty { s += "<li class=\"muted\">no labels</li>" }
        s += "<li data-name=\"gap\"><span class=\"sw wgap\"></span>gap</li></ul>"

        let channels = t.channelNames.indices.map { DatasetManifest.Channel(name: t.channelNames[$0], unit: t.channelUnits[$0]) }
        for g in SensorGroup.make(channels) {
            s += TimelineChart.render(t, title: g.name, unit: g.unit, channels: g.channels.enumerated().map { ($1, g.labels[$0]) },
                                      labelColor: { $0.classIndex.map(Palette.fill) ?? "fn" },
                                      data: [("data-recording", t.recording), ("data-sensor", g.name)])
        }
        return s + "</figure>\n"
    }
}
