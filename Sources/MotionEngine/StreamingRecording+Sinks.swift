import MotionChain
import MotionConfig
import MotionCore
import MotionIngest
import MotionLabels
import MotionInputs
import MotionRecords
import MotionSinks

// Where a streamed recording goes: its windows into a record file (`run`: `run` and `apply`),
// or its grid rows to an observer (`timeline`: `report --recordings` and the QA pass), and
// the labelling of the windows between the chain and the output.
extension StreamingRecording {
    /// Streams the recording into a record file at `recordPath`; its inputs are what the
    /// ledger heard (or, without one, the files hashed afterwards).
    /// `bytesRead` hears how many input bytes the main pass has read, after every block.
    /// `keep` grants (or refuses) holding each block of windows in memory for the writer too
    /// (`RecordWriter`): the record's `kept`.
    package func run(recordPath: String, recordFolder: WritableFolder? = nil, pipelineSHA256: String,
                     isCancelled: () -> Bool, bytesRead: (Int) -> Void = { _ in },
                     keep: @escaping (Int) -> Bool = { _ in false }, collectRows: Bool = false) throws -> RecordingRecord {
        try designFilters(isCancelled: isCancelled, bytesRead: bytesRead)
        if (spec.output.type == .createml && aligner != nil) || collectRows { chain.collectRows(true) }
        defer { chain.collectRows(false) }
        let writer = try RecordWriter(path: recordPath, in: recordFolder, keep: keep)
        output.writer = writer
        let dropped = try stream(isCancelled: isCancelled, bytesRead: bytesRead)
        for s in grid.streams.indices {
            if let f = grid.streams[s].filter, f.unfilteredRuns > 0 {
                counts.warnings.append(PipelineSpec.unfilteredWarning(recording: source.name, runs: f.unfilteredRuns,
                                                                      stream: origins[s].name))
            }
        }
        let windows = chain.windows
        if windows.shortSegmentWindows > 0 { counts.windowsDropped["short_segment", default: 0] += windows.shortSegmentWindows }
        let duplicates = grid.streams.reduce(0) { $0 + $1.duplicates }
        if duplicates > 0 { counts.rowsDropped["duplicate_time", default: 0] += duplicates }
        var createml: RowStretches?
        if let collector = rowCollector, let aligner, spec.output.type == .createml {
            if dropped == nil {
                // Each row's class is its grid point's (the label stage's own per-point decision).
                let classes = aligner.pointClasses(track: labels.track, gridCount: grid.nextPoint, gridTime: { self.time($0) })
                createml = RowStretches(gridPoints: collector.points, values: collector.values, channels: C, classes: classes,
                                        minRows: T, time: { self.time($0) })
            } else {
                createml = RowStretches()
            }
        }
        let featureCount = output.featurePlan?.count ?? 0
        var processed = ProcessedRecording(
            source: source, windows: WindowBatch(length: T, channelCount: C, featureCount: featureCount),
            rowsRead: counts.rowsRead, rowsDropped: counts.rowsDropped, windowsDropped: dropped == nil ? counts.windowsDropped : [:],
            recordingDropped: dropped, gaps: dropped == nil ? windows.gaps : 0, invalidPoints: dropped == nil ? windows.invalidPoints : 0,
            warnings: counts.warnings, xMoments: output.xMoments, featureMoments: output.featureMoments,
            longestRun: dropped == nil ? (transforms == nil ? windows.longestRun : windows.longestKeptSegment) : 0,
            labelRowsNoOverlap: intervals.map { intervals in
                LabelSources.noOverlapLines(intervals, recording: source.name, spec: spec,
                                            gridCount: dropped == nil ? grid.nextPoint : 0, time: { self.time($0) })
            } ?? [])
        processed.createml = createml
        if let qa { processed.qa = qa.report(recording: source.name) }
        if collectRows, let collector = rowCollector, dropped == nil {
            processed.rows = RecordingRows(times: collector.points.map { self.time($0) }, values: collector.values)
        }
        let inputs = try (files.ledger ?? InputLedger(baseDirectory: spec.baseDirectory)).inputs(for: source)
        let stored = try writer.finish(processed, inputs: inputs, pipelineSHA256: pipelineSHA256,
                                       length: T, channels: C, featureCount: featureCount)
        return RecordingRecord(processed: processed, inputs: inputs, stored: stored, kept: writer.kept)
    }

    /// The grid of the recording, for `report --recordings` (`RecordingTimeline`) and the QA
    /// pass: no windows are cut; `observe` hears every grid row of `x` (after the transforms)
    /// as it settles, in order, with its validity (a point in a gap, or in a segment too short
    /// for a zero-phase filter, is invalid). Returns the grid's start and length, the readers'
    /// warnings and the recording's label track (nil without `labels`), or throws
    /// `LabelEventOutOfOrder` when the label events are too far out of order to fold in
    /// bounded memory.
    package func timeline(isCancelled: () -> Bool,
                          observe: @escaping (_ first: Int, _ rows: UnsafeBufferPointer<Float>, _ valid: UnsafeBufferPointer<Bool>) -> Void)
        throws -> (t0: Double?, count: Int, tooFewSamples: Bool, warnings: [String], labels: LabelTrack?) {
        chain.windows.observer = observe
        defer { chain.windows.observer = nil }  // `observe` does not outlive this call
        try designFilters(isCancelled: isCancelled, bytesRead: { _ in })
        let dropped = try stream(timeline: true, isCancelled: isCancelled, bytesRead: { _ in })
        let track: LabelTrack?
        switch labels {
        case .fixed(let t), .readFirst(let t): track = t
        case .timeline(let events): track = events.fold.finish()
        case .events(let fold): track = fold.track
        case .none: track = nil
        }
        return (grid.t0, dropped == nil ? grid.nextPoint : 0, dropped != nil, counts.warnings, track)
    }

    /// Labels the first `count` pending windows and moves the kept ones to the output (none
    /// without a record file: a timeline cuts no windows).
    package func label(count: Int) throws {
        guard count > 0 else { return }
        guard output.writer != nil else { return chain.takeReady(count) { _ in } }
        try chain.takeReady(count) { try label(starts: $0) }
    }

    /// Labels the windows at `starts` (the chain's, just taken) and moves the kept ones to the output.
    private func label(starts: [Int]) throws {
        let count = starts.count
        var keptStarts: [Int]
        var classIds: [Int64]
        var pointClassIds: [Int64] = []
        if let aligner {
            let a = starts[0]
            let span = starts[count - 1] + T - a
            let t0 = grid.t0!, rate = self.rate
            let labelled = aligner.label(track: labels.track, gridCount: span, gridTime: { t0 + Double(a + $0) / rate },
                                         starts: starts.map { $0 - a }, length: T)
            keptStarts = labelled.kept.map { starts[$0] }
            classIds = labelled.classIds
            pointClassIds = labelled.pointClassIds
            counts.windowsDropped.add(labelled.dropped)
            if case .events(let fold) = labels {
                fold.labelledThrough = Swift.max(fold.labelledThrough, time(starts[count - 1] + T - 1))
                // Drops label events before the earliest time a window can still cover, except
                // the last of them (the label in force there); the row collector keeps them all.
                if rowCollector == nil { fold.trim(before: time(chain.windows.earliestWindowPoint(nextPoint: grid.nextPoint))) }
            }
        } else {
            keptStarts = starts
            classIds = [Int64](repeating: -1, count: count)
        }
        let T = self.T, C = self.C
        for (w, s) in keptStarts.enumerated() {
            chain.windows.appendWindow(at: s, to: &output.batch.x)
            if let qa {
                let row = qa.row(start: s, window: output.batch.x[(output.batch.x.count - T * C)...], T: T, C: C,
                                 time: { self.time($0) })
                if let reason = qa.dropReason(row) {
                    output.batch.x.removeLast(T * C)
                    counts.windowsDropped[reason, default: 0] += 1
                    continue
                }
                output.batch.qa += row
            }
            output.batch.startTimes.append(time(s))
            output.batch.y.append(classIds[w])
            if !pointClassIds.isEmpty { output.batch.ySeq.append(contentsOf: pointClassIds[(w * T)..<((w + 1) * T)]) }
            if output.batch.count == RecordStore.blockWindows { try output.flush() }
        }
    }

    /// Collected rows are held until the writer takes the recording: they count in its memory
    /// reservation (the run's `MemoryBudget`), in steps of 2^18 values (1 MiB).
    package func reserveRows() throws {
        guard let rows = rowCollector?.values4, rows > reservation.rows else { return }
        try reservation.set(rows: rows + (1 << 18))
    }
}
