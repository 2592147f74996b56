// Test hooks: `package` so MotionSynthTests can check files against what was intended
// without widening the public API.

/// One decoded IIO scan: raw counts and the timestamp in nanoseconds.
package struct IIOScan: Sendable, Equatable {
    package var x: Int16, y: Int16, z: Int16, timestampNanos: Int64

    package init(x: Int16, y: Int16, z: Int16, timestampNanos: Int64) {
        self.x = x
        self.y = y
        self.z = z
        self.timestampNanos = timestampNanos
    }
}

extension Synth {
    /// The first `count` scans `Synth.write` puts into `subjectNN/rec-NN.bin` for `options`.
    package static func intendedIIOScans(_ options: SynthOptions, subject: Int, recording: Int, count: Int) -> [IIOScan] {
        let plan = RecordingPlan(options: options, subject: subject, recording: recording, scenario: .walkAndTurn)
        var scans = IIOCaptureWriter.Scans(plan: plan, options: options)
        var result: [IIOScan] = []
        while result.count < count, let s = scans.next() {
            result.append(IIOScan(x: s.x, y: s.y, z: s.z, timestampNanos: s.timestampNanos))
        }
        return result
    }

    /// The noise-free motion of a recording at `time` (seconds on its clock).
    package static func intendedMotion(_ options: SynthOptions, subject: Int, recording: Int,
                                       scenario: RecordingPlan.Scenario, at time: Double) -> MotionSample {
        let plan = RecordingPlan(options: options, subject: subject, recording: recording, scenario: scenario)
        return MotionModel(plan: plan).sample(at: time)
    }

    /// Nanoseconds added to an IIO recording's clock to make its timestamps.
    package static func iioBootOffsetNanos(_ options: SynthOptions, subject: Int, recording: Int) -> Int64 {
        IIOCaptureWriter.bootOffsetNanos(RecordingPlan(options: options, subject: subject, recording: recording,
                                                       scenario: .walkAndTurn))
    }

    /// The text `appendFixed6` writes for `value`.
    package static func fixed6Text(_ value: Double) -> String {
        var buffer: [UInt8] = []
        buffer.append(addingCapacity: maxNumberBytes) { $0.appendFixed6(value) }
        return String(decoding: buffer, as: UTF8.self)
    }

    /// The text written for a time of `micros` microseconds (`When`, `time`).
    package static func secondsText(micros: Int64) -> String {
        var buffer: [UInt8] = []
        buffer.append(addingCapacity: 64) { $0.appendSeconds(micros: micros) }
        return String(decoding: buffer, as: UTF8.self)
    }

    /// The IIO scale, raw count of an acceleration, and the gravity constant used.
    package static let iioScale = IIOCaptureWriter.scale
    package static let standardGravity = MotionModel.standardGravity
}

extension Synth {
    /// The text `appendSignificant17` writes for `value` (`SynthPrecision.full`).
    package static func significant17Text(_ value: Double) -> String {
        var buffer: [UInt8] = []
        buffer.append(addingCapacity: maxSignificant17Bytes) { $0.appendSignificant17(value) }
        return String(decoding: buffer, as: UTF8.self)
    }
}
