import Foundation
import MotionConfig
import MotionCore
import MotionEngine
import MotionIngest
import MotionOutput
import MotionInputs

/// What `motionprep inspect` reports about one stream, computed from its samples in file order.
public struct StreamReport: Sendable {
    public var sensor: String
    public var channels: [String]
    public var units: [String]
    public var samples: Int
    public var firstTime: Double?
    public var lastTime: Double?
    /// (samples − 1) / (last − first) over the sorted times.
    public var effectiveRateHz: Double?
    /// Percentiles of the positive intervals between consecutive sorted samples, seconds.
    public var intervalP50: Double?
    public var intervalP95: Double?
    public var intervalP99: Double?
    /// Samples whose time equals the previous one's (after sorting).
    public var duplicates: Int
    /// Samples whose time is below the previous sample's in file order.
    public var outOfOrder: Int
    /// Intervals longer than `max_gap_s`, and the seconds they span.
    public var gaps: Int
    public var gapSeconds: Double
    public var maxGapS: Double
    /// Per channel, the smallest and largest value (units after conversion); nil without samples.
    public var minimum: [Double?]
    public var maximum: [Double?]
    /// Jitter: the population standard deviation of the positive intervals, seconds.
    public var intervalStd: Double?

    /// A stream with no samples yet, for `StreamedInspection` to fill.
    package init(sensor: String, channels: [String], units: [String], maxGapS: Double) {
        self.sensor = sensor
        self.channels = channels
        self.units = units
        self.maxGapS = maxGapS
        samples = 0
        duplicates = 0
        outOfOrder = 0
        gaps = 0
        gapSeconds = 0
        minimum = channels.map { _ in nil }
        maximum = channels.map { _ in nil }
    }

    /// numpy's default (linear) percentile `p` of `n` sorted values, from the values at the ranks
    /// `percentileRanks` gives.
    package static func percentile(_ p: Double, count n: Int, value: (Int) -> Double) -> Double? {
        guard n > 0 else { return nil }
        let pos = p / 100 * Double(n - 1)
        let lo = Int(pos.rounded(.down)), hi = min(lo + 1, n - 1)
        return value(lo) + (value(hi) - value(lo)) * (pos - Double(lo))
    }

    /// The ranks `percentile` reads for the reported percentiles (50, 95, 99) of `n` values.
    package static func percentileRanks(count n: Int) -> [Int] {
        guard n > 0 else { return [] }
        return [50.0, 95, 99].flatMap { p -> [Int] in
            let lo = Int((p / 100 * Double(n - 1)).rounded(.down))
            return [lo, min(lo + 1, n - 1)]
        }
    }

    package init(_ raw: RawStream, maxGapS: Double) {
        minimum = raw.channels.map { $0.min() }
        maximum = raw.channels.map { $0.max() }
        sensor = raw.name
        channels = raw.channelNames
        units = raw.channelUnits
        samples = raw.times.count
        self.maxGapS = maxGapS
        var outOfOrder = 0
        for i in raw.times.indices.dropFirst() where raw.times[i] < raw.times[i - 1] { outOfOrder += 1 }
        self.outOfOrder = outOfOrder
        let sorted = outOfOrder == 0 ? raw.times : raw.times.sorted()
        firstTime = sorted.first
        lastTime = sorted.last
        var intervals: [Double] = []
        intervals.reserveCapacity(max(0, sorted.count - 1))
        var duplicates = 0, gaps = 0
        var gapSeconds = 0.0
        for i in sorted.indices.dropFirst() {
            let d = sorted[i] - sorted[i - 1]
            if d == 0 { duplicates += 1; continue }
            intervals.append(d)
            if d > maxGapS { gaps += 1; gapSeconds += d }
        }
        self.duplicates = duplicates
        self.gaps = gaps
        self.gapSeconds = gapSeconds
        if let f = firstTime, let l = lastTime, l > f, sorted.count > 1 {
            effectiveRateHz = Double(sorted.count - 1 - duplicates) / (l - f)
        }
        if !intervals.isEmpty {
            let mean = intervals.reduce(0, +) / Double(intervals.count)
            intervalStd = (intervals.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(intervals.count)).squareRoot()
        }
        intervals.sort()
        let sortedIntervals = intervals
        func percentile(_ p: Double) -> Double? { Self.percentile(p, count: sortedIntervals.count) { sortedIntervals[$0] } }
        intervalP50 = percentile(50)
        intervalP95 = percentile(95)
        intervalP99 = percentile(99)
    }

    package var json: JSONValue {
        func num(_ d: Double?) -> JSONValue { d.map { .double($0) } ?? .null }
        return .object([
            "sensor": .string(sensor), "channels": .array(channels.map { .string($0) }), "units": .array(units.map { .string($0) }),
            "samples": .int(samples), "first_time_s": num(firstTime), "last_time_s": num(lastTime),
            "effective_rate_hz": num(effectiveRateHz),
            "interval_s": .object(["p50": num(intervalP50), "p95": num(intervalP95), "p99": num(intervalP99), "std": num(intervalStd)]),
            "min": .array(minimum.map(num)), "max": .array(maximum.map(num)),
            "duplicate_times": .int(duplicates), "out_of_order": .int(outOfOrder),
            "gaps": .object(["max_gap_s": .double(maxGapS), "count": .int(gaps), "seconds": .double(gapSeconds)]),
        ])
    }
}

/// A label segment of a recording: [start, end) with a label (nil = no label).
public struct LabelSegment: Sendable {
    public var start: Double
    public var end: Double
    public var label: String?
}

/// What `motionprep inspect` reports about one recording (or one bare file).
public struct RecordingReport: Sendable {
    public var name: String
    public var subject: String?
    public var files: [String]
    public var format: String
    public var rows: Int
    public var rowsDropped: [String: Int]
    public var streams: [StreamReport]
    public var labels: [LabelSegment]
    public var labelSource: String
    /// `from: intervals`: the file's rows naming this recording, in file order.
    public var labelRows: [IntervalLabels.Row] = []
    public var warnings: [String]
    public var error: String?

    public var json: JSONValue {
        var totals: [String: Double] = [:]
        for s in labels { totals[s.label ?? "(none)", default: 0] += s.end - s.start }
        return .object([
            "recording": .string(name), "subject": subject.map { .string($0) } ?? .null,
            "files": .array(files.map { .string($0) }), "format": .string(format), "rows": .int(rows),
            "rows_dropped": .object(rowsDropped.mapValues { .int($0) }),
            "streams": .array(streams.map(\.json)),
            "labels": .object([
                "source": .string(labelSource),
                "rows": .array(labelRows.map { .object(["line": .int($0.line), "start_s": .double($0.start), "end_s": .double($0.end),
                                                        "label": .string($0.label)]) }),
                "seconds": .object(totals.mapValues { .double($0) }),
                "segments": .array(labels.map { .object(["start_s": .double($0.start), "end_s": .double($0.end),
                                                         "label": $0.label.map { .string($0) } ?? .null]) }),
            ]),
            "warnings": .array(warnings.map { .string($0) }),
            "error": error.map { .string($0) } ?? .null,
        ])
    }
}

/// `motionprep inspect`: describes inputs without resampling them, and writes parsed samples.
public enum Inspector {
    /// Every recording of a pipeline, in canonical order. A recording that cannot be read is
    /// reported with its error instead of stopping the inspection.
    ///
    /// Recordings whose files total at least `streamBytes` (by default every one) are read in
    /// blocks of `blockBytes`, in bounded memory (`StreamedInspection`: a stream whose times go
    /// back is sorted on disk); the others whole (the reference the tests compare with).
    public static func inspect(pipeline spec: PipelineSpec, blockBytes: Int = StreamDefaults.blockBytes) throws -> [RecordingReport] {
        try inspect(pipeline: spec, streamBytes: 0, blockBytes: blockBytes)
    }

    /// With `streamBytes`, files under that size are read whole: `init`'s small files, and the
    /// whole reading the tests compare the blocks with (`streamBytes: .max`).
    package static func inspect(pipeline spec: PipelineSpec, streamBytes: Int,
                          blockBytes: Int = StreamDefaults.blockBytes) throws -> [RecordingReport] {
        let layout = try ChannelLayout.make(spec)
        let sources = try InputDiscovery.recordings(spec)
        let intervals = try loadIntervals(spec)
        return sources.map { source in
            let formats = Set(source.files.map { spec.inputs[$0.inputIndex].type.rawValue }).sorted().joined(separator: "+")
            var report = RecordingReport(name: source.name, subject: source.subject, files: source.files.map(\.path),
                                         format: formats, rows: 0, rowsDropped: [:], streams: [], labels: [],
                                         labelSource: "none", warnings: [], error: nil)
            do {
                let maxGap = { spec.resample.maxGapS.value(for: $0) }
                let preferMarkers = spec.labels?.from == .markers
                if source.textBytes(probingUpTo: streamBytes) >= streamBytes {
                    let streamed = try StreamedInspection.scan(source, spec: spec, layout: layout, maxGap: maxGap,
                                                               blockBytes: blockBytes)
                    streamed.fill(&report, preferMarkers: preferMarkers)
                    try fillFixed(&report, source: source, spec: spec, gridStart: streamed.gridStart, intervals: intervals)
                } else {
                    let raw = try RecordingLoader.loadRaw(source, spec: spec, layout: layout, checkOrder: false)
                    fill(&report, raw, maxGap: maxGap, preferMarkers: preferMarkers)
                    try fillFixed(&report, source: source, spec: spec, gridStart: gridStart(raw), intervals: intervals)
                }
            } catch {
                report.error = "\(error)"
            }
            return report
        }
    }

    /// A bare MotionCollector file (either header variant), as `inspect FILE` sees it: read in
    /// blocks of `blockBytes` when it has at least `streamBytes` (by default always), in bounded
    /// memory (`StreamedInspection`), else whole.
    public static func inspect(motionCollectorFile path: String, blockBytes: Int = StreamDefaults.blockBytes) throws -> RecordingReport {
        try inspect(motionCollectorFile: path, streamBytes: 0, blockBytes: blockBytes)
    }

    /// With `streamBytes`, files under that size are read whole: `init`'s small files, and the
    /// whole reading the tests compare the blocks with (`streamBytes: .max`).
    package static func inspect(motionCollectorFile path: String, streamBytes: Int,
                          blockBytes: Int = StreamDefaults.blockBytes) throws -> RecordingReport {
        func empty(_ variant: MotionCollectorFile.Variant) -> RecordingReport {
            RecordingReport(name: PathText.stem(path), subject: nil, files: [path], format: "motioncollector (\(variant.rawValue) header)",
                            rows: 0, rowsDropped: [:], streams: [], labels: [], labelSource: "none", warnings: [], error: nil)
        }
        if PathText.textSize(path, probingUpTo: streamBytes) >= streamBytes {
            var reader: MotionCollectorBlockReader?
            let scan = try StreamedInspection.scan([{
                reader = try MotionCollectorBlockReader(path: path, displayPath: path, units: .si, keep: nil, blockBytes: blockBytes)
                return reader
            }], maxGap: { _ in 0.25 })
            if let variant = reader?.variant {
                var report = empty(variant)
                scan.fill(&report, preferMarkers: variant == .legacy)
                return report
            }
        }
        let mc = try MotionCollectorReader.read(path: path, displayPath: path, units: .si, keep: nil)
        let file = InputFile(inputIndex: 0, path: path, manifestPath: path)
        let raw = RawRecording(raw: [0: mc.streams.map { ($0, file) }], rowLabels: mc.rowLabels, markers: mc.markers,
                               rowsRead: mc.rowsRead, dropped: mc.rowsDropped, warnings: [])
        var report = empty(mc.variant)
        fill(&report, raw, maxGap: { _ in 0.25 }, preferMarkers: mc.variant == .legacy)
        return report
    }

    package static func fill(_ report: inout RecordingReport, _ raw: RawRecording, maxGap: (String) -> Double, preferMarkers: Bool) {
        report.rows = raw.rowsRead
        report.rowsDropped = raw.dropped
        report.warnings = raw.warnings
        for key in raw.raw.keys.sorted() {
            for (stream, _) in raw.raw[key]! { report.streams.append(StreamReport(stream, maxGapS: maxGap(stream.name))) }
        }
        let useMarkers = preferMarkers || (raw.rowLabels.times.isEmpty && !raw.markers.times.isEmpty)
        let events = useMarkers ? raw.markers : raw.rowLabels
        report.labelSource = events.times.isEmpty ? "none" : (useMarkers ? "markers" : "rows")
        report.labels = segments(events.track(), report.streams)
    }

    /// The intervals file of a pipeline with `from: intervals`, else nil.
    package static func loadIntervals(_ spec: PipelineSpec) throws -> IntervalLabels? {
        guard let labels = spec.labels, labels.from == .intervals, let path = labels.path else { return nil }
        return try IntervalLabels.load(path: PathText.join(spec.baseDirectory, path))
    }

    /// The grid start T0 as `clock: recording` counts from: the latest first sample over the streams.
    package static func gridStart(_ raw: RawRecording) -> Double? {
        raw.raw.values.joined().compactMap { $0.stream.times.min() }.max()
    }

    /// `from: intervals` or `from: path`: the labels the pipeline gives the recording, on the input's clock.
    package static func fillFixed(_ report: inout RecordingReport, source: RecordingSource, spec: PipelineSpec, gridStart: Double?,
                          intervals: IntervalLabels?) throws {
        guard let labels = spec.labels, let fixed = try LabelSources.fixedTrack(source, spec: spec, intervals: intervals) else { return }
        report.labelSource = labels.from.rawValue
        report.labelRows = intervals?.rows.filter { $0.recording == source.name } ?? []
        let track = fixed.onGrid(t0: gridStart, clock: labels.clock)
        if labels.from == .path {
            let starts = report.streams.compactMap(\.firstTime), ends = report.streams.compactMap(\.lastTime)
            guard let begin = starts.min(), let end = ends.max(), let name = track.names.first else { report.labels = []; return }
            report.labels = [LabelSegment(start: begin, end: end, label: name)]
        } else {
            report.labels = segments(track, report.streams)
        }
    }

    /// A track as segments over the streams' time span: unlabelled time before the first change, then one per change.
    package static func segments(_ track: LabelTrack, _ streams: [StreamReport]) -> [LabelSegment] {
        let starts = streams.compactMap(\.firstTime), ends = streams.compactMap(\.lastTime)
        guard let begin = starts.min(), let end = ends.max(), !track.times.isEmpty else { return [] }
        var segments: [LabelSegment] = []
        if track.times[0] > begin { segments.append(LabelSegment(start: begin, end: track.times[0], label: nil)) }
        for (i, t) in track.times.enumerated() {
            let next = i + 1 < track.times.count ? track.times[i + 1] : max(end, t)
            let l = track.labels[i]
            segments.append(LabelSegment(start: t, end: next, label: l < 0 ? nil : track.names[Int(l)]))
        }
        return segments
    }
}
