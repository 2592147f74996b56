import Foundation
import MotionCore
import MotionReport

/// `motionprep report DATASET_DIR [-o report.html]`.
enum ReportCommand {
    static let help = """
        usage: motionprep report DATASET_DIR [-o report.html] [--examples N] [--histogram-windows N] [--quiet]

        Writes one self-contained HTML page (inline SVG and CSS, no network, light and dark mode)
        describing a dataset written by `motionprep run`: the summary (rate, window, channels with
        units, classes, subjects, windows per split), class balance per split, windows per subject
        and split, per-channel value histograms of the train split, and example windows per class.

          -o, --output FILE        where to write the page (default: report.html)
          --examples N             example windows per class (default 3, 0 to 20)
          --histogram-windows N    at most N train windows feed the histograms, as evenly spaced
                                   row blocks (default: about 50 million values; 0 = all windows)
          --quiet                  print nothing on success
        """

    static func run(_ args: [String]) throws -> ExitStatus {
        if args.contains("--help") || args.contains("-h") { Diagnostics.stdout(help); return .success }
        let a = try ArgumentScanner(args, valueOptions: ["-o", "--output", "--examples", "--histogram-windows", "--recordings"],
                                    flagOptions: ["--quiet"], command: "report")
        guard a.positionals.count == 1 else {
            throw UsageError(message: a.positionals.isEmpty
                ? "`motionprep report` needs a dataset folder: motionprep report DATASET_DIR [-o report.html]"
                : "`motionprep report` takes one dataset folder, got \(a.positionals.count): \(a.positionals.joined(separator: " "))")
        }
        if a.value("--recordings") != nil {
            throw UsageError(message: "option `--recordings` of `motionprep report` (recording timelines) is not available in this build yet")
        }
        var options = StatisticsOptions()
        if let n = try a.int("--examples", in: 0...20, command: "report") { options.examplesPerClass = n }
        if let n = try a.int("--histogram-windows", in: 0...Int(Int32.max), command: "report") { options.histogramWindows = n }
        let output = a.value("-o") ?? a.value("--output") ?? "report.html"
        let rendered = try Report.render(directory: a.positionals[0], options: options)
        let bytes = Data(rendered.html.utf8)
        guard FileManager.default.createFile(atPath: output + ".partial", contents: bytes) else {
            throw ReportError(.cannotCreate, "cannot write `\(output)`: its folder does not exist or is not writable")
        }
        // rename(2) replaces a previous page atomically: a reader never sees half a page.
        guard rename(output + ".partial", output) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: output + ".partial")
            throw ReportError(.cannotCreate, "cannot write `\(output)`: \(reason)")
        }
        if !a.flag("--quiet") {
            let st = rendered.statistics
            Diagnostics.stdout("wrote \(output) (\(bytes.count / 1024) KiB): \(st.totalWindows) windows in \(st.splits.count) splits, \(rendered.manifest.channels.count) channels, \(rendered.manifest.classes.count) classes")
        }
        return .success
    }
}
