import Foundation
import MotionConfig
import MotionCore
import MotionDataset
import MotionReport
import MotionOutput
import MotionEngine
import MotionJob

/// `motionprep report DATASET_DIR [-o report.html]`.
enum ReportCommand {
    static let help = """
        usage: motionprep report DATASET_DIR [-o report.html] [--examples N] [--histogram-windows N]
                                [--recordings PIPELINE.yaml [--max-recordings N]] [--quiet] [--force]

        Writes one self-contained HTML page (inline SVG and CSS, no network, light and dark mode)
        describing a dataset written by `motionprep run` (hdf5 or shards storage), or the output of
        `motionprep apply`: the summary (rate, window, channels with units, classes, subjects,
        windows per split), class balance per split, windows per subject and split, per-channel
        value histograms of the train split (an applied output's `windows`), and example windows
        per class.

          -o, --output FILE        where to write the page (default: report.html)
          --examples N             example windows per class (default 3, 0 to 20)
          --histogram-windows N    at most N train windows feed the histograms, as evenly spaced
                                   row blocks (default: about 50 million values; 0 = all windows)
          --recordings PIPELINE    add a timeline per recording of the pipeline: its inputs read and
                                   resampled as `motionprep run` does, one chart per sensor, label
                                   bands in colour and gaps hatched
          --max-recordings N       draw at most N recordings (default 12, 1 to 500); the page says
                                   when there are more
          --quiet                  print nothing on success
          --force                  replace an existing FILE that motionprep did not write (by default
                                   only a page motionprep wrote, unchanged since, is replaced)
        """

    static func run(_ args: [String]) throws -> ExitStatus {
        if args.contains("--help") || args.contains("-h") { try Diagnostics.stdout(help); return .success }
        let a = try ArgumentScanner(args, valueOptions: CommandCatalogue["report"].valueOptions, flagOptions: CommandCatalogue["report"].flagOptions, command: "report")
        guard a.positionals.count == 1 else {
            throw UsageError(message: a.positionals.isEmpty
                ? "`motionprep report` needs a dataset folder: motionprep report DATASET_DIR [-o report.html]"
                : "`motionprep report` takes one dataset folder, got \(a.positionals.count): \(a.positionals.joined(separator: " "))")
        }
        let maxRecordings = try a.int("--max-recordings", in: 1...500, command: "report")
        if maxRecordings != nil && a.value("--recordings") == nil {
            throw UsageError(message: "`--max-recordings` of `motionprep report` needs `--recordings PIPELINE.yaml`")
        }
        var options = StatisticsOptions()
        if let n = try a.int("--examples", in: 0...20, command: "report") { options.examplesPerClass = n }
        if let n = try a.int("--histogram-windows", in: 0...Int(Int32.max), command: "report") { options.histogramWindows = n }
        let output = a.value("-o") ?? a.value("--output") ?? "report.html"
        var extra: [String] = []
        if let pipeline = a.value("--recordings") {
            // A folder that is no dataset fails before the recordings are read, with render's message.
            let manifest = a.positionals[0] + "/manifest.json"
            if !FileManager.default.fileExists(atPath: manifest) { _ = try Report.render(directory: a.positionals[0]) }
            let spec = try PipelineLoader.load(path: pipeline)
            let hooks = TestHooks()
            let loaded = try RecordingTimeline.load(spec: spec, maxRecordings: maxRecordings ?? 12,
                                                    blockBytes: hooks.blockBytes)
            let classes = (try? DatasetManifest.load(directory: a.positionals[0]).classes) ?? spec.labels?.classes ?? []
            extra.append(TimelineSection.render(loaded, classes: classes, pipeline: pipeline))
        }
        let rendered = try Report.render(directory: a.positionals[0], options: options, extraSections: extra)
        let bytes = Array(rendered.html.utf8)
        // docs/hardening.md, "One output policy": a new page is created exclusively; an existing
        // file is replaced (atomically) only when it is a page motionprep wrote and nobody changed
        // since, or with --force; never inside a dataset (`report DS -o DS/manifest.json`).
        try OutputPolicy.writeFile(bytes, to: output, what: "the report", seal: .html,
                                   inputs: [(a.positionals[0], "dataset folder")], force: a.flag("--force"))
        if !a.flag("--quiet") {
            let st = rendered.statistics
            try Diagnostics.stdout("wrote \(output) (\(bytes.count / 1024) KiB): \(st.totalWindows) windows in \(st.splits.count) split\(st.splits.count == 1 ? "" : "s"), \(rendered.manifest.channels.count) channels, \(rendered.manifest.classes.count) classes")
        }
        return .success
    }
}
