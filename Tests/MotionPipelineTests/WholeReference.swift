import MotionConfig
import MotionCore
import MotionFeatures
import MotionIngest
import MotionLabels
import MotionReference
import MotionResample
import MotionWindowing
@testable import MotionInputs
@testable import MotionRecords
@testable import MotionEngine
@testable import MotionJob

/// The test oracle of the engine (docs/streaming.md, "One path"): a recording processed whole,
/// in memory, by the kernels of each stage applied to whole streams (`RecordingLoader.loadRaw`,
/// `TimeOrder.finalize`, `Antialias.apply`, `Resampler.resample`, the whole-signal transforms,
/// `LabelAligner` over every window at once). It was motionprep's first engine; no command uses
/// it now. The differential tests check that `StreamingRecording`, at any block size, gives the
/// same record as this independent composition of the stages.
enum WholeReference {
    /// The recording's streams after the time rules, and its label track.
    static func load(_ source: RecordingSource, spec: PipelineSpec, layout: ChannelLayout,
                     intervals: IntervalLabels?, gridLimit: Int = ResourceLimits.maxGridValues) throws -> Recording {
        let r = try RecordingLoader.loadRaw(source, spec: spec, layout: layout, checkOrder: true)
        var dropped = r.dropped
        let raw = r.raw
        let warnings = r.warnings
        let rowsRead = r.rowsRead
        var streams: [SensorStream] = []
        var extents: [ResourceLimits.Extent] = []
        for sensor in layout.sensors {
            let candidates = sensor.sources.flatMap { src in
                (raw[src.inputIndex] ?? []).filter { src.name == "{stem}" || $0.stream.name == src.name }
            }
            guard let first = candidates.first else { throw RecordingLoader.noStream(sensor, source: source, spec: spec) }
            if candidates.count > 1 {
                throw MotionError(.dataError, "recording `\(source.name)` has stream `\(sensor.name)` in both \(candidates[0].file.path) and \(candidates[1].file.path); a channel may occur only once per recording")
            }
            let (stream, duplicates) = try TimeOrder.finalize(first.stream, sort: spec.inputs[first.file.inputIndex].sort,
                                                              displayPath: first.file.path)
            if duplicates > 0 { dropped["duplicate_time", default: 0] += duplicates }
            streams.append(stream)
            if let e = ResourceLimits.Extent(first.stream, path: first.file.path,
                                             isIIO: spec.inputs[first.file.inputIndex].type == .iio) { extents.append(e) }
        }
        try ResourceLimits.checkGrid(recording: source.name, extents: extents, rateHz: spec.resample.rateHz,
                                     channels: layout.channelNames.count, limit: gridLimit)
        try ResourceLimits.checkResolution(recording: source.name, extents: extents, rateHz: spec.resample.rateHz)
        var track: LabelTrack?
        if let labels = spec.labels {
            switch labels.from {
            case .rows: track = r.rowLabels.track()
            case .markers: track = r.markers.track()
            case .intervals, .path:
                let t0 = streams.compactMap { $0.times.first }.max()
                track = try LabelSources.fixedTrack(source, spec: spec, intervals: intervals)?.onGrid(t0: t0, clock: labels.clock)
            }
        }
        return Recording(name: source.name, subject: source.subject, streams: streams, labels: track,
                         rowsRead: rowsRead, rowsDropped: dropped, warnings: warnings)
    }

    /// Processes `source` whole, as `RecordingProcessor` did before the one engine.
    static func process(_ source: RecordingSource, spec: PipelineSpec, layout: ChannelLayout, isTrain: Bool,
                        intervals: IntervalLabels?, keepUnlabelled: Bool = false,
                        valueLimit: Int = ResourceLimits.maxGridValues) throws -> ProcessedRecording {
        let processor = RecordingProcessor(spec: spec, layout: layout, valueLimit: valueLimit, keepUnlabelled: keepUnlabelled)
        let windowPlan = processor.windowPlan, aligner = processor.aligner, featurePlan = processor.featurePlan
        let recording = try load(source, spec: spec, layout: layout, intervals: intervals, gridLimit: valueLimit)
        let T = windowPlan.length
        let C = layout.channelNames.count
        var result = ProcessedRecording(source: source,
                                        windows: WindowBatch(length: T, channelCount: C, featureCount: featurePlan?.count ?? 0),
                                        rowsRead: recording.rowsRead, rowsDropped: recording.rowsDropped, windowsDropped: [:],
                                        recordingDropped: nil, gaps: 0, invalidPoints: 0, warnings: recording.warnings)
        let rate = spec.resample.rateHz
        var inputs = spec.resampleInputs(recording.streams)
        result.warnings += try spec.antialias(&inputs, recording: source.name)
        guard var signal = Resampler.resample(inputs, rateHz: rate, magnitudes: layout.magnitudes.map(\.axes)) else {
            result.recordingDropped = "too_few_samples"
            result.longestRun = 0
            if let intervals {
                result.labelRowsNoOverlap = LabelSources.noOverlapLines(intervals, recording: source.name, spec: spec,
                                                                        gridCount: 0, time: { _ in 0 })
            }
            return result
        }
        if let intervals {
            result.labelRowsNoOverlap = LabelSources.noOverlapLines(intervals, recording: source.name, spec: spec,
                                                                    gridCount: signal.grid.count, time: signal.grid.time)
        }
        let gapStats = signal.gapStatistics
        result.gaps = gapStats.gaps
        result.invalidPoints = gapStats.invalidPoints
        if layout.transforms != nil {
            // Segments too short for a zero-phase filter are dropped, and the windows they would
            // have given counted (docs/signal.md, "Transforms").
            let transformed = layout.transformed(signal, rateHz: rate)
            signal = transformed.signal
            let lost = transformed.dropped.reduce(0) { $0 + ($1.count >= T ? ($1.count - T) / windowPlan.stride + 1 : 0) }
            if lost > 0 { result.windowsDropped["short_segment", default: 0] += lost }
        }
        let segments = signal.segments
        result.longestRun = segments.map(\.count).max() ?? 0
        // Counted before the starts are listed: the list itself (8 bytes a window) could be large.
        let windowCount = segments.reduce(0) { $0 + ($1.count >= T ? ($1.count - T) / windowPlan.stride + 1 : 0) }
        try ResourceLimits.checkWindows(recording: source.name, files: source.files.map(\.path).joined(separator: ", "),
                                        windows: windowCount, length: T, channels: C, limit: valueLimit)
        let starts = windowPlan.starts(in: segments)
        var keptStarts: [Int]
        var classIds: [Int64]
        if let aligner {
            let labelled = aligner.label(track: recording.labels ?? .empty, gridCount: signal.grid.count,
                                         gridTime: signal.grid.time, starts: starts, length: T)
            keptStarts = labelled.kept.map { starts[$0] }
            classIds = labelled.classIds
            result.windowsDropped.add(labelled.dropped)
        } else {
            keptStarts = starts
            classIds = [Int64](repeating: -1, count: starts.count)
        }
        var batch = result.windows
        batch.x.reserveCapacity(keptStarts.count * T * C)
        for s in keptStarts {
            batch.x.append(contentsOf: signal.values[(s * C)..<((s + T) * C)])
            batch.startTimes.append(signal.grid.time(s))
        }
        batch.y = classIds
        if let featurePlan {
            let extractor = FeatureExtractor(plan: featurePlan)
            let F = featurePlan.count
            batch.features = [Float](repeating: 0, count: keptStarts.count * F)
            batch.x.withUnsafeBufferPointer { x in
                batch.features.withUnsafeMutableBufferPointer { out in
                    extractor.extract(windows: x, count: keptStarts.count, into: out)
                }
            }
        }
        if isTrain && batch.count > 0 {
            // Per block of `RecordStore.blockWindows` windows, combined in order: what a streamed
            // recording computes, so both give the same bits.
            let n = RecordStore.blockWindows
            result.xMoments = RunningMoments.of(batch.x, columns: C, rowsPerBlock: n * T)
            if featurePlan != nil {
                result.featureMoments = RunningMoments.of(batch.features, columns: batch.featureCount, rowsPerBlock: n)
            }
        }
        result.windows = batch
        return result
    }
}

extension PipelineSpec {
    /// The streams of a recording with their settings.
    func resampleInputs(_ streams: [SensorStream]) -> [ResampleInput] {
        streams.map { ResampleInput(stream: $0, method: resampleMethod(for: $0.name), maxGapS: maxGapS(for: $0.name)) }
    }

    /// With `antialias`, low-passes each input in place (docs/signal.md, "Resampling and gaps") and returns the warning for
    /// every stream that had runs too short to filter, in stream order.
    func antialias(_ inputs: inout [ResampleInput], recording: String) throws -> [String] {
        guard resample.antialias else { return [] }
        var warnings: [String] = []
        for i in inputs.indices {
            let filtered = try Antialias.apply(inputs[i].stream, rateHz: resample.rateHz, maxGapS: inputs[i].maxGapS,
                                               leading: resample.antialiasFrom == .leading)
            inputs[i].stream = filtered.stream
            if filtered.unfilteredRuns > 0 {
                warnings.append(Self.unfilteredWarning(recording: recording, runs: filtered.unfilteredRuns, stream: inputs[i].stream.name))
            }
        }
        return warnings
    }
}

extension ChannelLayout {
    /// The resampled signal with `transforms` applied (itself without them), and the segments
    /// dropped as too short for a zero-phase filter (docs/signal.md, "Transforms").
    func transformed(_ signal: ResampledSignal, rateHz: Double) -> (signal: ResampledSignal, dropped: [Range<Int>]) {
        guard let transforms else { return (signal, []) }
        return transforms.apply(signal, rateHz: rateHz)
    }
}
