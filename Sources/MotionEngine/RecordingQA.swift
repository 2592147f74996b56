import MotionConfig
import MotionCore
import MotionInputs
import MotionQA

/// A recording's device quality (the pipeline's `qa`, docs/pipeline.md, "qa"), decided from a
/// pass of its own over the recording before its windows are cut: the accelerometer's grid
/// points, as the chain settles them, go into per-epoch statistics (memory O(epochs)); at the
/// pass's end the non-wear runs and the calibration are decided. The main pass then gives each
/// window its `qa` row (non-wear, clipped and imputed fractions) and applies the policy, so that
/// the moments, the record file and `windows_dropped` see only the windows kept.
///
/// Parity (docs/live.md): non-wear looks ahead (a stationary run counts only once it has lasted
/// long enough) and the calibration fit uses the whole recording, so they feed only metadata
/// (`qa`) and the choice of training windows, never `x`.
package struct RecordingQA: Sendable {
    package let spec: QASpec
    /// Columns of `x` of the accelerometer's x, y, z, and the factor to g.
    package let axes: [Int]
    package let toG: Double
    package let epochPoints: Int
    package let rateHz: Double
    /// Whether windows above the thresholds are dropped (`policy: drop`; never in `apply`, which
    /// keeps every window).
    package let drops: Bool
    private(set) var nonwear: [Range<Int>] = []
    private(set) var calibration = Calibration(epochs: 0)
    private(set) var epochs = 0
    /// Grid points seen, and those clipped, over the recording.
    private(set) var points = 0
    private(set) var clippedPoints = 0
    /// The spans of samples the readers added (`IngestBlock.added`: a GT3X file's idle-sleep
    /// fill), in time order, as the main pass reads them.
    package var added: [ClosedRange<Double>] = []

    /// The accelerometer's columns in `layout`, or the pipeline error (78) naming `qa`.
    package init(spec: QASpec, layout: ChannelLayout, rateHz: Double, drops: Bool) throws {
        self.spec = spec
        self.drops = drops
        var axes: [Int] = []
        var units: Set<String> = []
        for axis in ["x", "y", "z"] {
            let name = "\(spec.channels)_\(axis)"
            guard let i = layout.channelNames.firstIndex(of: name) else {
                throw MotionError(.config, "`qa.channels: \(spec.channels)`\(spec.location.map { " at \($0)" } ?? "") needs channels `\(spec.channels)_x`, `\(spec.channels)_y` and `\(spec.channels)_z` in `x`, and `\(name)` is not one of its channels (\(layout.channelNames.map { "`\($0)`" }.joined(separator: ", "))); name the accelerometer's prefix")
            }
            axes.append(i)
            units.insert(layout.channelUnits[i])
        }
        guard units.count == 1, let unit = units.first, unit == "g" || unit == "m/s^2" else {
            throw MotionError(.config, "`qa.channels: \(spec.channels)`\(spec.location.map { " at \($0)" } ?? "") must be an accelerometer in g or m/s^2, and its channels are in \(units.sorted().map { "`\($0)`" }.joined(separator: ", ")); name the accelerometer's prefix")
        }
        self.axes = axes
        toG = unit == "g" ? 1 : 1 / PhysicalUnit.standardGravity
        epochPoints = Swift.max(2, Int((spec.epochS * rateHz).rounded()))
        self.rateHz = rateHz
    }

    /// The pass's statistics, decided (non-wear runs, calibration).
    package mutating func decide(_ stats: QAEpochs, points: Int, clipped: Int) {
        let epochS = Double(epochPoints) / rateHz
        nonwear = stats.nonwearRuns(tolerance: spec.nonwearStdMg / 1000, patienceS: spec.nonwearPatienceMin * 60, epochS: epochS)
        calibration = Calibration.fit(stats.stationaryMeans(tolerance: spec.calibrationStdMg / 1000))
        epochs = stats.epochCount
        self.points = points
        clippedPoints = clipped
    }

    /// Whether one row of `x` (C values) is clipped: an axis within the tolerance of ±range.
    package func isClipped(_ row: UnsafeBufferPointer<Float>, at offset: Int) -> Bool {
        let limit = spec.rangeG - spec.clipToleranceG
        for a in axes where Swift.abs(Double(row[offset + a]) * toG) >= limit { return true }
        return false
    }

    /// The `qa` row of the window at grid point `start` whose values are `window` (T × C);
    /// `time` gives a grid point's time.
    package func row(start: Int, window: ArraySlice<Float>, T: Int, C: Int, time: (Int) -> Double) -> [Float] {
        var clipped = 0
        window.withUnsafeBufferPointer { w in
            for t in 0..<T where isClipped(w, at: t * C) { clipped += 1 }
        }
        return [qaFraction(of: nonwear, start: start, length: T), Float(Double(clipped) / Double(T)),
                Float(Double(imputedPoints(start: start, length: T, time: time)) / Double(T))]
    }

    /// The grid points of `start ..< start + length` whose time lies in a span of added samples.
    private func imputedPoints(start: Int, length: Int, time: (Int) -> Double) -> Int {
        guard !added.isEmpty else { return 0 }
        let first = time(start), last = time(start + length - 1)
        let spans = added.filter { $0.upperBound >= first && $0.lowerBound <= last }
        guard !spans.isEmpty else { return 0 }
        var n = 0
        for k in start..<(start + length) {
            let t = time(k)
            if spans.contains(where: { $0.contains(t) }) { n += 1 }
        }
        return n
    }

    /// The `windows_dropped` reason of a window with `row`, nil when it is kept.
    package func dropReason(_ row: [Float]) -> String? {
        guard drops else { return nil }
        if Double(row[0]) > spec.dropNonwearAbove { return "qa_nonwear" }
        if Double(row[1]) > spec.dropClippedAbove { return "qa_clipped" }
        return nil
    }

    /// The recording's entry in the manifest's `qa.recordings`.
    package func report(recording: String) -> JSONValue {
        func mg(_ v: Double?) -> JSONValue { v.map { .double(($0 * 1000).rounded() / 1000) } ?? .null }
        var cal: [String: JSONValue] = [
            "stationary_epochs": .int(calibration.epochs),
            "error_before_mg": mg(calibration.errorBeforeMg),
            "error_after_mg": mg(calibration.errorAfterMg),
            "ok": .bool(calibration.ok),
            "iterations": .int(calibration.iterations),
            "intercept_g": .array((0..<3).map { .double(calibration.intercept[$0]) }),
            "slope": .array((0..<3).map { .double(calibration.slope[$0]) }),
        ]
        if let note = calibration.note { cal["note"] = .string(note) }
        let nonwearPoints = nonwear.reduce(0) { $0 + $1.count }
        return .object([
            "recording": .string(recording),
            "epochs": .int(epochs),
            "grid_points": .int(points),
            "clipped_points": .int(clippedPoints),
            "nonwear_s": .double(Double(nonwearPoints) / rateHz),
            "nonwear_episodes": .array(nonwear.map { r in
                .object(["start_s": .double(Double(r.lowerBound) / rateHz), "end_s": .double(Double(r.upperBound) / rateHz)])
            }),
            "calibration": .object(cal),
        ])
    }
}

extension StreamingRecording {
    /// The QA pass: the recording streamed without cutting windows (`timeline`), every valid
    /// grid point's acceleration into per-epoch statistics; then decided.
    package func qaPass(_ qa: RecordingQA, isCancelled: () -> Bool) throws -> RecordingQA {
        var qa = qa
        var stats = QAEpochs(epochPoints: qa.epochPoints)
        var points = 0, clipped = 0
        let C = self.C, axes = qa.axes, toG = qa.toG
        let checker = qa
        _ = try timeline(isCancelled: isCancelled) { first, rows, valid in
            for i in 0..<valid.count where valid[i] {
                let o = i * C
                stats.add(point: first + i, Double(rows[o + axes[0]]) * toG, Double(rows[o + axes[1]]) * toG,
                          Double(rows[o + axes[2]]) * toG)
                points += 1
                if checker.isClipped(rows, at: o) { clipped += 1 }
            }
        }
        qa.decide(stats, points: points, clipped: clipped)
        return qa
    }
}
