import MotionConfig
import MotionCore
import MotionDataset
import MotionIngest
import MotionInputs
import MotionEngine
import MotionInspect

/// What `validate PIPELINE.yaml` and `inspect PIPELINE.yaml` check against the data without
/// running (docs/commands.md, "validate"):
///
/// - every input's first file (in sorted order) is read with the input's settings, so a column
///   the input names that is not in the header, a header that does not match the format, or a
///   time or value that does not parse is found before a run;
/// - the labels found — in those first files for `from: rows` and `from: markers`, in every
///   recording for `from: path`, in the whole file for `from: intervals` — are checked against
///   `labels.map` and `labels.classes`: none reaching a class is an error (every window would
///   be dropped), labels reaching no class and, where every label was seen, classes no label
///   reaches are warnings.
///
/// Reading only first files keeps the check fast on big datasets; `run` still checks every file.
public enum PipelineChecks {
    /// The problems found, errors first within each input, in input order.
    public static func check(_ spec: PipelineSpec) -> [Diagnostic] {
        var out: [Diagnostic] = []
        let layout: ChannelLayout
        do { layout = try ChannelLayout.make(spec) } catch { return diagnostics(error) }
        let matched = InputDiscovery.match(spec)
        var found: [String] = []
        var seen: Set<String> = []
        var firstFiles: [String] = []
        var unreadable = false
        for (i, files) in matched.files.enumerated() {
            guard let file = files.first else { continue }
            firstFiles.append(file.path)
            let source = RecordingSource(name: PathText.stem(file.path), subject: "", files: [file])
            do {
                let first = try readFirstFile(source, input: i, spec: spec, layout: layout)
                if !first.hasStreams, spec.inputs[i].type != .motioncollector {
                    out.append(Diagnostic(.warning, at: SourceLocation(file: file.path), "no samples were read from this first file of inputs[\(i)]"))
                }
                for slow in first.slow { out.append(slowStreamDiagnostic(slow, file: file.path, spec: spec)) }
                if let labels = spec.labels, labels.from == .rows || labels.from == .markers {
                    for name in (labels.from == .rows ? first.rowNames : first.markerNames) where seen.insert(name).inserted {
                        found.append(name)
                    }
                }
            } catch {
                out += diagnostics(error)
                unreadable = true
            }
        }
        // Labels from rows of a file that could not be read are unknown, not absent.
        guard let labels = spec.labels, !(unreadable && (spec.labels?.from == .rows || spec.labels?.from == .markers)) else { return out }
        var complete = false
        var where_ = firstFiles.count == 1 ? firstFiles[0] : "the first file of each input (\(firstFiles.joined(separator: ", ")))"
        switch labels.from {
        case .rows, .markers:
            break
        case .path:
            complete = true
            where_ = "the paths of the recordings"
            do {
                let sources = try InputDiscovery.recordings(spec)
                for source in sources {
                    if let l = try LabelSources.pathLabel(source, spec: spec), !l.isEmpty, seen.insert(l).inserted { found.append(l) }
                }
                if !spec.ignoreWarnings.contains(.splitMissingClass) { out += try splitClassDiagnostics(spec, sources: sources) }
            } catch { return out + diagnostics(error) }
        case .intervals:
            complete = true
            do {
                if let intervals = try Inspector.loadIntervals(spec) {
                    where_ = intervals.path
                    for row in intervals.rows where seen.insert(row.label).inserted { found.append(row.label) }
                }
            } catch { return out + diagnostics(error) }
        }
        out += labelDiagnostics(labels, found: found, where: where_, complete: complete, file: spec.file, ignored: spec.ignoreWarnings)
        return out
    }

    /// What the checks need of an input's first file: whether it gave any stream, and the names
    /// of its row labels and markers in the order their first events come (as
    /// `RecordingLoader.loadRaw` numbers them). Read in blocks, in bounded memory, as `run` reads
    /// it (the same errors).
    static func readFirstFile(_ source: RecordingSource, input i: Int, spec: PipelineSpec, layout: ChannelLayout) throws
        -> (hasStreams: Bool, rowNames: [String], markerNames: [String], slow: [SlowStreams.Finding]) {
        let file = source.files[0]
        func names(_ e: LabelEvents, into out: inout [String], seen: inout Set<String>) {
            var done = [Bool](repeating: false, count: e.names.count)
            for l in e.labels where !done[Int(l)] {
                done[Int(l)] = true
                if seen.insert(e.names[Int(l)]).inserted { out.append(e.names[Int(l)]) }
            }
        }
        var rows: [String] = [], markers: [String] = []
        var seenRows: Set<String> = [], seenMarkers: Set<String> = []
        // Read as `inspect` reads it (a `sort: true` input's file as it is).
        guard let reader = try RecordingReader.blockReader(file, spec: spec, layout: layout,
                                                              blockBytes: StreamDefaults.blockBytes, ledger: nil) else {
            return (false, [], [], [])   // an IIO input none of whose streams is kept
        }
        var hasStreams = false
        var tallies = SlowStreams.Tallies()
        while let block = try reader.next() {
            hasStreams = hasStreams || !block.streams.isEmpty
            for raw in block.streams { tallies.add(raw, spec: spec) }
            names(block.rowLabels, into: &rows, seen: &seenRows)
            names(block.markers, into: &markers, seen: &seenMarkers)
        }
        try (reader as? IIOBlockReader)?.requireWholeScan()
        return (hasStreams, rows, markers, tallies.findings(place: file.path))
    }

    /// With `from: path` every recording's class is known before the run: a split that gets
    /// recordings but none of a class other splits get is warned about (`split_missing_class`),
    /// as `run` warns from the windows written.
    static func splitClassDiagnostics(_ spec: PipelineSpec, sources: [RecordingSource]) throws -> [Diagnostic] {
        guard let labels = spec.labels else { return [] }
        let splitter = SplitAssigner(spec.split)
        let keys = sources.map { splitter.key(subject: $0.subject, recording: $0.name) }
        let assignment = splitter.assign(keys, strata: try RunPlan.strata(spec: spec, sources: sources, keys: keys))
        var present: [SplitName: Set<Int>] = [:]
        for (source, key) in zip(sources, keys) {
            guard let l = try LabelSources.pathClass(source, spec: spec), let c = labels.classes.firstIndex(of: l) else { continue }
            present[assignment.split[key]!, default: []].insert(c)
        }
        var out: [Diagnostic] = []
        for (split, missing) in SplitClassCoverage.missing(present, classCount: labels.classes.count) {
            let listed = SplitClassCoverage.list(missing.map { labels.classes[$0] })
            let fix = spec.split.stratify != nil
                ? "each class needs a \(spec.split.by.rawValue) for every split with a fraction above 0"
                : "`split.stratify: label` (with `allocation: exact`) shares out each class's \(spec.split.by.rawValue)s on their own"
            out.append(Diagnostic(.warning, at: SourceLocation(file: spec.file),
                                  "split `\(split.rawValue)` gets no recording of class(es) \(listed), which other splits get",
                                  hints: [fix, PipelineSpec.WarningName.splitMissingClass.silenceHint]))
        }
        return out
    }

    /// A stream of a first file whose samples are further apart than its `max_gap_s`: `run`
    /// would find every interval a gap and cut no window (docs/commands.md, "validate", point 4).
    static func slowStreamDiagnostic(_ f: SlowStreams.Finding, file: String, spec: PipelineSpec) -> Diagnostic {
        Diagnostic(.error, at: SourceLocation(file: file),
                   "stream `\(f.stream)`: its samples are \(String(format: "%.4g", f.medianIntervalS)) s apart (median interval), more than its `resample.max_gap_s` of \(MessageNumber.number(f.maxGapS)) s, so \(f.overLimit) of its \(f.intervals) intervals are gaps and `run` would cut no window from them",
                   hints: ["set `\(SlowStreams.suggestedSetting([f], spec: spec))` in `resample` of \(spec.file): \(MessageNumber.number(f.suggestedMaxGapS)) s is 2.5 of its intervals (docs/signal.md, \"Gaps and segments\")"])
    }

    /// The label checks alone (see ``check(_:)``); `found` in order of first appearance.
    static func labelDiagnostics(_ labels: LabelsSpec, found: [String], where place: String, complete: Bool, file: String,
                                 ignored: [PipelineSpec.WarningName] = []) -> [Diagnostic] {
        let renames = labels.renames
        let classes = Set(labels.classes)
        let at = labels.location ?? SourceLocation(file: file)
        let shownClasses = labels.classes.map { "`\($0)`" }.joined(separator: ", ")
        func list(_ xs: [String]) -> String {
            let shown = xs.prefix(8).map { "`\($0)`" }.joined(separator: ", ")
            return xs.count > 8 ? shown + " and \(xs.count - 8) more" : shown
        }
        guard !found.isEmpty else {
            return [Diagnostic(.warning, at: at, "no label was found in \(place) (`labels.from: \(labels.from.rawValue)`), so its windows would all be unlabelled and dropped",
                               hints: ["check `labels.from` and the input's label column; `motionprep inspect` lists the labels of every recording"])]
        }
        var out: [Diagnostic] = []
        let outside = found.filter { !classes.contains(renames[$0] ?? $0) }
        if outside.count == found.count {
            var hints = ["classes: \(shownClasses)"]
            for l in outside.prefix(4) {
                if let s = Text.suggestion(for: l, among: labels.classes + labels.map.map(\.key)) { hints.append("did you mean `\(s)` for `\(l)`?") }
            }
            hints.append("add the labels to `classes`, or rename them to classes with `map`")
            out.append(Diagnostic(.error, at: at, "none of the labels found in \(place) (\(list(found))) is a class after `labels.map`, so every window would be dropped", hints: hints))
            return out
        }
        if !outside.isEmpty && !ignored.contains(.unclassifiedLabels) {
            var hints: [String] = []
            for l in outside.prefix(4) {
                if let s = Text.suggestion(for: l, among: labels.classes) { hints.append("did you mean `\(s)` for `\(l)`? (rename it with `map: {\(l): \(s)}`)") }
            }
            hints.append("add them to `classes` or rename them with `map`")
            hints.append(PipelineSpec.WarningName.unclassifiedLabels.silenceHint)
            out.append(Diagnostic(.warning, at: at, "label(s) \(list(outside)) found in \(place) are not in `labels.classes` after `labels.map`, so their windows are dropped (counted as `no_label`)",
                                  hints: hints))
        }
        let unusedKeys = labels.map.map(\.key).filter { !found.contains($0) }
        if !unusedKeys.isEmpty {
            let sev: Diagnostic.Severity = complete ? .warning : .note
            out.append(Diagnostic(sev, at: at, "`labels.map` key(s) \(list(unusedKeys)) match no label found in \(place)",
                                  hints: complete ? ["labels found: \(list(found))"] : ["labels found there: \(list(found)); later files may hold the others"]))
        }
        if complete && !ignored.contains(.emptyClass) {
            let reached = Set(found.map { renames[$0] ?? $0 })
            let missed = labels.classes.filter { !reached.contains($0) }
            if !missed.isEmpty {
                out.append(Diagnostic(.warning, at: at, "class(es) \(list(missed)) get no label from \(place), so no window can have them",
                                      hints: ["labels found: \(list(found))", PipelineSpec.WarningName.emptyClass.silenceHint]))
            }
        }
        return out
    }

    static func diagnostics(_ error: Error) -> [Diagnostic] {
        if let e = error as? UserFacingError { return e.diagnostics }
        return [Diagnostic(.error, "\(error)")]
    }
}
