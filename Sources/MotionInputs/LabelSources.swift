import Foundation
import MotionConfig
import MotionCore

/// The label sources whose step function is known before a recording is read: `intervals` and
/// `path` (docs/signal.md, "The label of each point").
package enum LabelSources {
    /// The recording's track from an intervals file or its path, on the file's clock; nil for
    /// `rows` and `markers` (or without `labels`).
    package static func fixedTrack(_ source: RecordingSource, spec: PipelineSpec, intervals: IntervalLabels?) throws -> LabelTrack? {
        guard let labels = spec.labels else { return nil }
        switch labels.from {
        case .rows, .markers: return nil
        case .intervals: return intervals?.tracks[source.name] ?? .empty
        case .path:
            guard let label = try pathLabel(source, spec: spec), !label.isEmpty else { return .empty }
            return LabelTrack(names: [label], times: [-.infinity], labels: [0])
        }
    }

    /// `from: path`: the template rendered for the recording's files, which must agree (as
    /// `subject` must). Nil without `from: path`; an empty rendering is no label.
    /// The class `pathLabel` gives after `labels.map`; nil without one, or when the label is no
    /// class (what `split.stratify` and `split_missing_class` know before reading a file).
    package static func pathClass(_ source: RecordingSource, spec: PipelineSpec) throws -> String? {
        guard let labels = spec.labels, let label = try pathLabel(source, spec: spec) else { return nil }
        let name = labels.renames[label] ?? label
        return labels.classes.contains(name) ? name : nil
    }

    package static func pathLabel(_ source: RecordingSource, spec: PipelineSpec) throws -> String? {
        guard let labels = spec.labels, labels.from == .path, let template = labels.template else { return nil }
        var first: (value: String, file: String)?
        for file in source.files {
            let value = InputDiscovery.render(template, file: file.path, base: spec.baseDirectory)
            if let first, first.value != value {
                throw MotionError(.config, "recording `\(source.name)` gets label `\(first.value)` from \(first.file) but `\(value)` from \(file.path); the `labels.template` of \(spec.file) must give every file of a recording the same label")
            }
            if first == nil { first = (value, file.path) }
        }
        return first?.value
    }
}

extension LabelTrack {
    /// The track on the input's clock: with `clock: recording` its times are seconds from `t0`
    /// (the grid's first point) and are moved there; nil `t0` (no stream) leaves it as it is.
    package func onGrid(t0: Double?, clock: LabelsSpec.Clock) -> LabelTrack {
        guard clock == .recording, let t0 else { return self }
        return LabelTrack(names: names, times: times.map { $0 + t0 }, labels: labels)
    }
}

/// Rows of an intervals file that label nothing (docs/signal.md, "The label of each point"):
/// counted in the manifest's `counts.label_rows_ignored` and warned about, one line per kind.
package struct IgnoredLabelRows: Sendable, JSONDecodable {
    /// Kind → rows: `unknown_recording` (the recording is not one of the pipeline's) and
    /// `label_not_in_classes` (the label, after `map`, is not in `classes`). Both keys are always present.
    package var counts: [String: Int]
    package var warnings: [String]
    /// The intervals file as named in messages.
    package var path: String

    package init(counts: [String: Int], warnings: [String], path: String) {
        self.counts = counts
        self.warnings = warnings
        self.path = path
    }

    /// As `part.json` keeps it for `merge`.
    package var json: JSONValue {
        .object(["path": .string(path), "counts": .object(counts.mapValues { .int($0) }), "warnings": .array(warnings.map { .string($0) })])
    }

    /// Decodes ``json``'s form (`part.json`'s `label_rows_ignored`), each problem naming its key path.
    package init(json o: JSONNode) throws(JSONProblem) {
        self.init(counts: try o["counts"].counts(), warnings: try o["warnings"].strings(), path: try o["path"].string())
    }

    /// How many examples a warning names.
    package static let examples = 3

    package init(_ intervals: IntervalLabels, recordings: Set<String>, labels: LabelsSpec) {
        let renames = labels.renames
        let classes = Set(labels.classes)
        var unknown: [IntervalLabels.Row] = [], outside: [IntervalLabels.Row] = []
        for row in intervals.rows {
            if !recordings.contains(row.recording) {
                unknown.append(row)
            } else if !classes.contains(renames[row.label] ?? row.label) {
                outside.append(row)
            }
        }
        counts = ["unknown_recording": unknown.count, "label_not_in_classes": outside.count]
        let path = intervals.path
        self.path = path
        func list(_ rows: [IntervalLabels.Row], _ show: (IntervalLabels.Row) -> String) -> String {
            let shown = rows.prefix(Self.examples).map { "\(show($0)) at \(path):\($0.line)" }.joined(separator: ", ")
            return rows.count > Self.examples ? shown + ", …" : shown
        }
        warnings = []
        if !unknown.isEmpty {
            warnings.append("\(unknown.count) row(s) of \(path) name no recording of the pipeline and label nothing: \(list(unknown) { "`\($0.recording)`" }); recording names are listed by `motionprep inspect`")
        }
        if !outside.isEmpty {
            warnings.append("\(outside.count) row(s) of \(path) have a label that is not in `labels.classes` (after `labels.map`), so their windows are dropped: \(list(outside) { r in renames[r.label].map { "`\(r.label)` (mapped to `\($0)`)" } ?? "`\(r.label)`" }); add it to `classes` or rename it with `map`")
        }
    }
}

extension IgnoredLabelRows {
    /// The warning for intervals rows that cover no grid point, or nil when there are none.
    package static func noOverlapWarning(_ lines: [Int], path: String) -> String? {
        guard !lines.isEmpty else { return nil }
        let shown = lines.prefix(examples).map { "\(path):\($0)" }.joined(separator: ", ") + (lines.count > examples ? ", …" : "")
        return "\(lines.count) row(s) of \(path) cover no sample of their recording and label nothing: \(shown); check the times against the recording's (`labels.clock`, `motionprep inspect`)"
    }
}

extension LabelSources {
    /// The lines of `intervals`' rows for `recording` whose label is in `classes` (after `map`)
    /// and whose [start_s, end_s) (moved to the input's clock as `clock` says) holds no grid
    /// point t_k, k in 0..<gridCount. Rows of other kinds are counted by `IgnoredLabelRows`.
    package static func noOverlapLines(_ intervals: IntervalLabels, recording: String, spec: PipelineSpec,
                               gridCount: Int, time: (Int) -> Double) -> [Int] {
        guard let labels = spec.labels else { return [] }
        let renames = labels.renames
        let classes = Set(labels.classes)
        let shift = labels.clock == .recording && gridCount > 0 ? time(0) : 0
        var lines: [Int] = []
        for row in intervals.rows where row.recording == recording && classes.contains(renames[row.label] ?? row.label) {
            let start = row.start + shift, end = row.end + shift
            // The first grid point at or after `start` (times ascend with k).
            var lo = 0, hi = gridCount
            while lo < hi {
                let mid = (lo + hi) >> 1
                if time(mid) < start { lo = mid + 1 } else { hi = mid }
            }
            if lo == gridCount || !(time(lo) < end) { lines.append(row.line) }
        }
        return lines
    }
}
