import Foundation
import MotionChain
import MotionConfig
import MotionCore
import MotionDataset
import MotionIngest
import MotionSinks
import MotionInspect
import MotionJob

/// `motionprep inspect PATH [--json]` and `motionprep inspect PIPELINE.yaml --samples DIR`.
enum InspectCommand {
    static let help = """
        usage: motionprep inspect PATH [--json]
               motionprep inspect PIPELINE.yaml --samples DIR

        Describes, without resampling anything:
          a MotionCollector file     format, sensors, rows; per sensor the effective rate, interval
                                     percentiles (p50/p95/p99) and jitter, duplicate and out-of-order
                                     timestamps, gaps over 0.25 s, value ranges; the labels found
          any other csv file         the same, after guessing its delimiter, header, time column and
                                     unit (each guess with its reason), plus a pipeline input that
                                     reads it
          a pipeline file            the same for every recording of every input (gaps over the
                                     pipeline's max_gap_s); a recording that cannot be read is listed
                                     with its error, never stops the inspection; then the checks of
                                     `validate PIPELINE.yaml` (columns, labels against map/classes)
          a dataset folder           its manifest's summary (splits, classes, counts)
          a shard (.tar.zst, .tar)   its windows and arrays

        --samples DIR writes every sample ingest parsed, in file order (duplicates and out-of-order rows
        included, rows with missing values left out), as DIR/{recording}/{sensor}.csv (`time_s` then one
        column per channel, units after conversion) plus DIR/{recording}/labels.csv when the pipeline has
        labels.
        """

    static func run(_ args: [String]) throws -> ExitStatus {
        if args.contains("--help") || args.contains("-h") { try Diagnostics.stdout(help); return .success }
        let a = try ArgumentScanner(args, valueOptions: CommandCatalogue["inspect"].valueOptions, flagOptions: CommandCatalogue["inspect"].flagOptions, command: "inspect")
        guard a.positionals.count == 1 else {
            throw UsageError(message: "`motionprep inspect` takes one path (a csv or MotionCollector file, a pipeline file, a dataset folder or a shard)")
        }
        let path = a.positionals[0]
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            throw MotionError(.noInput, "cannot inspect \(path): no such file or folder")
        }
        if let dir = a.value("--samples") {
            guard path.hasSuffix(".yaml") || path.hasSuffix(".yml") else {
                throw UsageError(message: "`--samples` needs a pipeline file (it writes what each input of the pipeline parsed), not \(path)")
            }
            let spec = try PipelineLoader.load(path: path)
            let hooks = TestHooks()
            let files = try Inspector.writeSamples(pipeline: spec, to: dir,
                                                   blockBytes: hooks.blockBytes)
            Diagnostics.stderr("wrote \(files.count) file(s) to \(dir)")
            return .success
        }
        if isDir.boolValue {
            return try dataset(path, json: a.flag("--json"))
        }
        if path.hasSuffix(".yaml") || path.hasSuffix(".yml") {
            let spec = try PipelineLoader.load(path: path)
            let hooks = TestHooks()
            let reports = try Inspector.inspect(pipeline: spec,
                                                blockBytes: hooks.blockBytes)
            let checks = PipelineChecks.check(spec)
            if a.flag("--json") {
                try Diagnostics.stdout(JSONValue.object(["recordings": .array(reports.map(\.json)),
                                                         "checks": .array(checks.map(ValidateCommand.json))]).pretty())
            } else {
                try output(reports, json: false)
                Diagnostics.print(checks)
            }
            // Describing never fails on what it finds; `validate PIPELINE.yaml` is the gate.
            return .success
        }
        if path.hasSuffix(".tar.zst") || path.hasSuffix(".tar") {
            let shard = try ShardReader.read(path: path)
            // Windows per label (the class name in each sample's JSON; "null" when unlabelled), by name.
            var labels: [String: Int] = [:]
            for s in shard.samples { labels[s.label ?? "null", default: 0] += 1 }
            let numbers = shard.samples.map(\.windowNumber)
            let sampleMembers = shard.samples.first.map { first in
                shard.memberNames.prefix { $0.hasPrefix(first.key + ".") }.map { String($0.dropFirst(first.key.count)) }
            } ?? []
            let json: JSONValue = .object([
                "path": .string(path), "format": .string("motionprep shard (webdataset)"),
                "num_windows": .int(shard.numWindows),
                "labels": .object(labels.mapValues { .int($0) }),
                "sample_members": .array(sampleMembers.map { .string($0) }),
                "first_key": shard.samples.first.map { .string($0.key) } ?? .null,
                "window_numbers": numbers.isEmpty ? .null : .object(["min": .int(numbers.min()!), "max": .int(numbers.max()!)]),
                "subjects": .array(Set(shard.samples.map(\.subject)).sorted(by: Text.utf8Less).map { .string($0) }),
                "arrays": .array(shard.arrays.map { .object(["name": .string($0.name), "dtype": .string($0.dtype),
                                                              "shape": .array($0.shape.map { .int($0) })]) }),
            ])
            if a.flag("--json") { try Diagnostics.stdout(json.pretty()) } else {
                let perLabel = labels.sorted { Text.utf8Less($0.key, $1.key) }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                try Diagnostics.stdoutText("\(path): motionprep shard, \(shard.numWindows) windows (one webdataset sample each)" + (perLabel.isEmpty ? "" : "; labels: \(perLabel)"))
                if let first = shard.samples.first {
                    try Diagnostics.stdoutText("  sample members: {key}" + sampleMembers.joined(separator: ", {key}") + "; first key \(first.key)")
                }
                for arr in shard.arrays { try Diagnostics.stdoutText("  \(arr.name)  \(arr.dtype)  \(arr.shape)") }
            }
            return .success
        }
        let head = try readHead(path)
        if MotionCollectorReader.sniff(head) != nil {
            let hooks = TestHooks()
            try output([try Inspector.inspect(motionCollectorFile: path,
                                              blockBytes: hooks.blockBytes)],
                       json: a.flag("--json"))
            return .success
        }
        // A phone app's export: read as its preset reads it, recognised as `init` recognises it.
        if let match = Inspector.presetMatch(file: path, head: head) {
            let r = try Inspector.inspect(presetFile: path, match: match, blockBytes: TestHooks().blockBytes)
            if a.flag("--json") {
                guard case .object(var o) = r.recording.json else { return .success }
                o["preset"] = .object(["type": .string(match.app.rawValue), "sensors": .array(match.sensors.map { .string($0) }),
                                       "input": .string(r.inputYAML)])
                try Diagnostics.stdout(JSONValue.object(o).pretty())
                return .success
            }
            try Diagnostics.stdoutText("\(path): \(match.app.title) export (`type: \(match.app.rawValue)`), "
                                       + "\(match.sensors.joined(separator: ", ")); read as the preset reads it (docs/inputs.md, \"Phone-logger presets\")")
            try output([r.recording], json: false)
            let note = match.app.readsFolders ? "paths name export folders, relative to the folder holding this export" : "paths relative to this file's folder"
            try Diagnostics.stdoutText("a pipeline input that reads it (\(note)):\n" + r.inputYAML.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
            return .success
        }
        let hooks = TestHooks()
        let csv = try Inspector.inspect(csvFile: path,
                                        blockBytes: hooks.blockBytes)
        if a.flag("--json") {
            try Diagnostics.stdout(csv.json.pretty())
            return .success
        }
        try outputCSV(csv)
        return .success
    }

    static func readHead(_ path: String) throws -> [UInt8] {
        switch RegularFile.readHead(path, count: 4096) {
        // A compressed file: its text's head (docs/inputs.md, "Compressed files").
        case .success(let head) where TextHead.compression(head) != nil:
            return try TextHead.read(path: path, displayPath: path, count: 4096)
        case .success(let head): return head
        // A FIFO (also `inspect <(cat file)`, a pipe as /dev/fd/N) is refused, not waited on
        // or read: the file is read more than once (docs/hardening.md).
        case .failure(.notRegular(let kind)): throw RegularFile.refusal(path, kind: kind)
        case .failure(let failure): throw MotionError(.ioError, "cannot read \(path): \(failure.reason)")
        }
    }

    /// `inspect FILE.csv`: the guess, the columns, the streams as read with the guess, and an
    /// input entry to paste into a pipeline.
    static func outputCSV(_ r: CSVFileReport) throws {
        let g = r.guess
        let shown = g.delimiter == 9 ? "tab" : "`\(g.delimiterText)`"
        var out = ["\(r.path): delimited text, delimiter \(shown) (\(g.delimiterReason)), header on line \(g.headerLine), \(g.columns.count) columns"]
        if let t = g.timeColumn {
            out.append("  time: column `\(t)`, unit \(g.timeUnit?.rawValue ?? "?") (\(g.timeReason))")
        } else {
            out.append("  time: none found (\(g.timeReason))")
        }
        for c in g.columns {
            let role = c.name == g.timeColumn ? " (time)" : c.name == g.labelColumn ? " (labels)" : ""
            out.append("  column `\(c.name)`: \(c.kind.rawValue)\(role)" + (c.examples.isEmpty ? "" : ", values such as " + c.examples.map { "`\($0)`" }.joined(separator: ", ")))
        }
        try Diagnostics.stdoutText(out.joined(separator: "\n"))
        if let rec = r.recording { try output([rec], json: false) }
        if let e = r.error { try Diagnostics.stdoutText("  could not read it with this guess: \(e)") }
        try Diagnostics.stdoutText("a pipeline input that reads it (check the time unit; add `units:` for each channel):\n" + r.inputYAML.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
    }

    static func output(_ reports: [RecordingReport], json: Bool) throws {
        if json {
            try Diagnostics.stdout(JSONValue.array(reports.map(\.json)).pretty())
            return
        }
        var out: [String] = []
        for r in reports {
            let who = r.subject.map { " (subject \($0))" } ?? ""
            out.append("\(r.name)\(who): \(r.format), \(r.rows) rows" + (r.rowsDropped.isEmpty ? "" : ", dropped " + r.rowsDropped.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")))
            for f in r.files where r.files.count > 1 || f != r.name { out.append("  file \(f)") }
            if let e = r.error { out.append("  error: \(e)"); continue }
            func pad(_ t: String, _ n: Int, left: Bool = false) -> String {
                t.count >= n ? t : (left ? String(repeating: " ", count: n - t.count) + t : t + String(repeating: " ", count: n - t.count))
            }
            func ms(_ d: Double?) -> String { d.map { String(format: "%.2f", $0 * 1000) } ?? "-" }
            out.append("  " + pad("sensor", 12) + pad("samples", 9, left: true) + pad("rate Hz", 10, left: true)
                       + pad("interval ms p50/p95/p99", 26, left: true) + pad("duplicates", 12, left: true)
                       + pad("out of order", 14, left: true) + "  gaps")
            for s in r.streams {
                let rate = s.effectiveRateHz.map { String(format: "%.2f", $0) } ?? "-"
                let iv = "\(ms(s.intervalP50))/\(ms(s.intervalP95))/\(ms(s.intervalP99))"
                let gaps = String(format: "%d over %g s (%.2f s)", s.gaps, s.maxGapS, s.gapSeconds)
                out.append("  " + pad(s.sensor, 12) + pad("\(s.samples)", 9, left: true) + pad(rate, 10, left: true)
                           + pad(iv, 26, left: true) + pad("\(s.duplicates)", 12, left: true)
                           + pad("\(s.outOfOrder)", 14, left: true) + "  " + gaps)
            }
            for s in r.streams where !s.channels.isEmpty {
                func v(_ x: Double?) -> String { x.map { String(format: "%.6g", $0) } ?? "-" }
                let ranges = s.channels.indices.map { "\(s.channels[$0]) [\(v(s.minimum[$0])), \(v(s.maximum[$0]))]" + (s.units[$0].isEmpty || s.units[$0] == "1" ? "" : " \(s.units[$0])") }
                out.append("  \(s.sensor) ranges: " + ranges.joined(separator: ", ") + (s.intervalStd.map { String(format: "; interval jitter (std) %.3f ms", $0 * 1000) } ?? ""))
            }
            if r.labels.isEmpty {
                out.append("  labels: none found")
            } else {
                var totals: [String: Double] = [:]
                for s in r.labels { totals[s.label ?? "(none)", default: 0] += s.end - s.start }
                out.append("  labels (\(r.labelSource)): " + totals.sorted { $0.key < $1.key }.map { String(format: "%@ %.1f s", $0.key, $0.value) }.joined(separator: ", ") + ", \(r.labels.count) segments")
                for s in r.labels { out.append(String(format: "    %10.3f – %10.3f  %@", s.start, s.end, s.label ?? "(none)")) }
            }
            if r.labelSource == "intervals" {
                out.append("  intervals rows matched: \(r.labelRows.count)")
                for row in r.labelRows { out.append("    line \(row.line): \(row.start) – \(row.end)  \(row.label)") }
            }
            for w in r.warnings { out.append("  warning: \(w)") }
        }
        try Diagnostics.stdoutText(out.joined(separator: "\n"))
    }

    static func dataset(_ path: String, json: Bool) throws -> ExitStatus {
        let manifestPath = path + "/" + DatasetSchema.manifestFileName
        let bytes = try DatasetManifest.readBytes(path: manifestPath, directory: path)
        let m = try DatasetManifest.decode(bytes: bytes, file: manifestPath)
        if json { try Diagnostics.stdout(String(decoding: bytes, as: UTF8.self)); return .success }
        var out: [String] = []
        let channels = m.channels.map { "\($0.name) [\($0.unit)]" }
        let kind = m.applied.map { "output of `motionprep apply` with dataset \($0.name)'s pipeline and train statistics" } ?? "motionprep dataset"
        out.append("\(path): \(kind) (\(m.storage)), \(JSONValue.format(m.sampleRateHz)) Hz, windows of \(m.windowLength) samples every \(m.windowStride)")
        out.append("  channels: " + channels.joined(separator: ", "))
        out.append("  classes: " + (m.classes.isEmpty ? "none (unlabelled)" : m.classes.joined(separator: ", ")))
        out.append("  subjects: \(m.subjects.count), recordings: \(m.recordings.count)")
        if let chain = m.chain { out += chainLines(chain) }
        for split in m.splitNames {
            guard let s = m.splits[split] else { continue }
            let per = zip(m.classes, s.classCounts).map { "\($0) \($1)" }.joined(separator: ", ")
            out.append("  \(split.rawValue): \(s.numWindows) windows" + (per.isEmpty ? "" : " (\(per))"))
        }
        if case .object(let top) = m.json, case .object(let c)? = top["counts"] {
            func show(_ v: JSONValue) -> String {
                switch v {
                case .object(let d): return d.isEmpty ? "none" : d.keys.sorted().map { "\($0) \(show(d[$0]!))" }.joined(separator: ", ")
                case .array(let a): return a.isEmpty ? "none" : "\(a.count)"
                case .int(let i): return String(i)
                case .double(let d): return JSONValue.format(d)
                case .string(let s): return s
                case .bool(let b): return String(b)
                case .null: return "null"
                }
            }
            for key in c.keys.sorted() { out.append("  \(key.replacingOccurrences(of: "_", with: " ")): \(show(c[key]!))") }
        }
        try Diagnostics.stdoutText(out.joined(separator: "\n"))
        return .success
    }

    /// The manifest's `chain` (docs/dataset-format.md, "The processing chain") in a few lines:
    /// the streams with their resampling, anti-aliasing, magnitudes and each transform step.
    static func chainLines(_ chain: ProcessingChain) -> [String] {
        /// `acc_x, acc_y, acc_z` → `acc_x…z`: channels sharing a prefix, shortened.
        func short(_ names: [String]) -> String {
            var parts: [String] = []
            var i = 0
            while i < names.count {
                let n = names[i]
                if let cut = n.lastIndex(of: "_"), i + 2 < names.count, n[n.index(after: cut)...] == "x" {
                    let stem = n[..<cut]
                    if names[i + 1] == stem + "_y" && names[i + 2] == stem + "_z" {
                        parts.append("\(stem)_x…z")
                        i += 3
                        continue
                    }
                }
                parts.append(n)
                i += 1
            }
            return parts.joined(separator: ", ")
        }
        var lines: [String] = []
        let streams = chain.streams.map { s in
            "\(s.name) (\(short(s.channels)); \(s.method.rawValue), max gap \(s.maxGapS.map(JSONValue.format) ?? "?") s)"
        }
        lines.append("  streams: " + streams.joined(separator: ", "))
        // The filter's rate: the first 256 intervals, or (a chain without the key) the recording's median.
        let from = chain.antialiasFrom == .leading ? " (filter from each stream's first 256 intervals)"
            : " (filter from each recording's median interval)"
        lines.append("  anti-aliasing: " + (chain.antialias ? "on" + from : "off"))
        if !chain.magnitudes.isEmpty {
            lines.append("  magnitudes: " + chain.magnitudes.map { "\($0.name) of \(short($0.axes))" }.joined(separator: ", "))
        }
        if !chain.transforms.isEmpty {
            lines.append("  transforms:")
            for (k, step) in chain.transforms.enumerated() {
                var what = step.operation.op
                switch step.operation {
                case .median(let n): what += " \(n)"
                case .filter(_, let z), .gravity(_, let z): what += z ? " (zero phase)" : " (causal)"
                default: break
                }
                let target = step.inputs == step.outputs ? "\(short(step.inputs)), in place" : "\(short(step.inputs)) → \(short(step.outputs))"
                lines.append("    \(k + 1). \(what): \(target)")
            }
        }
        return lines
    }
}
