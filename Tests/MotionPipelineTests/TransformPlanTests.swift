import MotionConfig
import MotionCore
import MotionReference
import MotionResample
import Testing
@testable import MotionInputs
@testable import MotionJob

/// `transforms` resolved against the channels and applied per gap-free segment (docs/signal.md,
/// "Transforms"). The values are checked against `SignalFilters` (itself checked against scipy in
/// MotionResampleTests) called on each segment alone; tests/python/test_transforms.py checks the
/// whole run against scipy.
@Suite struct TransformPlanTests {
    static func spec(_ transforms: String, magnitude: String? = nil) throws -> PipelineSpec {
        try PipelineLoader.load(yaml: """
            version: 1
            inputs:
              - {type: motioncollector, paths: [a/*.csv], sensors: [A, G]}
            resample: {rate_hz: 50}
            window: {length_samples: 4}
            \(magnitude.map { "magnitude: \($0)" } ?? "")
            transforms:
            \(transforms)
            output: {path: out}

            """, file: "p.yaml", baseDirectory: "/tmp")
    }

    static let uci = """
          - median: {channels: [A, G], samples: 3}
          - butterworth: {channels: [A, G], order: 3, cutoff_hz: 20}
          - gravity: {channels: [A]}
          - derivative: {channels: [acc_body, gyro]}
          - magnitude: {channels: [acc_body, acc_gravity, acc_body_jerk, gyro, gyro_jerk]}
        """

    @Test func derivedChannelsAreAppendedInTheDocumentedOrderWithUnits() throws {
        let layout = try ChannelLayout.make(Self.spec(Self.uci))
        let xyz = ["x", "y", "z"]
        #expect(layout.channelNames == ["acc_x", "acc_y", "acc_z", "gyro_x", "gyro_y", "gyro_z"]
            + xyz.map { "acc_body_\($0)" } + xyz.map { "acc_gravity_\($0)" }
            + xyz.map { "acc_body_jerk_\($0)" } + xyz.map { "gyro_jerk_\($0)" }
            + ["acc_body_mag", "acc_gravity_mag", "acc_body_jerk_mag", "gyro_mag", "gyro_jerk_mag"])
        #expect(layout.channelUnits == Array(repeating: "m/s^2", count: 3) + Array(repeating: "rad/s", count: 3)
            + Array(repeating: "m/s^2", count: 6) + Array(repeating: "m/s^2/s", count: 3) + Array(repeating: "rad/s/s", count: 3)
            + ["m/s^2", "m/s^2", "m/s^2/s", "rad/s", "rad/s/s"])
        #expect(layout.resampledChannelNames.count == 6)
        let plan = try #require(layout.transforms)
        #expect(plan.steps.map(\.minimumSegment) == [1, 13, 13, 1, 1])
        #expect(plan.minimumSegment == 13)
    }

    @Test func withoutTransformsThereIsNoPlan() throws {
        let spec = try PipelineLoader.load(yaml: "version: 1\ninputs: [{type: motioncollector, paths: [a/*.csv]}]\nresample: {rate_hz: 50}\nwindow: {length_samples: 4}\noutput: {path: out}\n",
                                           file: "p.yaml", baseDirectory: "/tmp")
        #expect(try ChannelLayout.make(spec).transforms == nil)
        #expect(spec.transformsLookahead != .segment)
        #expect(try Self.spec(Self.uci).transformsLookahead == .segment, "the UCI chain's zero-phase filters hold whole segments")
    }

    /// A signal of `channels` channels whose invalid points split it into segments of these lengths.
    static func signal(segments: [Int], gap: Int, channels: Int) -> ResampledSignal {
        var valid: [Bool] = []
        for (i, n) in segments.enumerated() {
            if i > 0 { valid += Array(repeating: false, count: gap) }
            valid += Array(repeating: true, count: n)
        }
        var values = [Float](repeating: 0, count: valid.count * channels)
        var state: UInt64 = 12345
        for i in values.indices {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            values[i] = Float(Double(state >> 11) / Double(1 << 53) * 4 - 2) + Float(i % channels) * 3
        }
        return ResampledSignal(grid: ResampleGrid(t0: 0, rateHz: 50, count: valid.count), channelCount: channels, values: values, valid: valid)
    }

    @Test func eachSegmentIsTransformedAloneAndShortOnesAreDropped() throws {
        let layout = try ChannelLayout.make(Self.spec(Self.uci))
        let plan = try #require(layout.transforms)
        let input = Self.signal(segments: [40, 12, 13, 1, 30], gap: 3, channels: 6)
        let (out, dropped) = plan.apply(input, rateHz: 50)
        #expect(out.channelCount == 23)
        #expect(dropped == [43..<55, 74..<75])  // 12 ≤ the pad length 12, and 1
        #expect(out.segments == [0..<40, 58..<71, 78..<108])
        for k in dropped.joined() {
            #expect(!out.valid[k])
            for c in 0..<6 { #expect(out.values[k * 23 + c] == input.values[k * 6 + c]) }
            for c in 6..<23 { #expect(out.values[k * 23 + c] == 0) }
        }
        let lowpass = SignalFilters.butter(order: 3, cutoffHz: [20], type: .lowpass, rateHz: 50)
        let gravity = SignalFilters.butter(order: 3, cutoffHz: [0.3], type: .lowpass, rateHz: 50)
        for segment in out.segments {
            func column(_ c: Int) -> [Double] { segment.map { Double(input.values[$0 * 6 + c]) } }
            let filtered = (0..<6).map { SignalFilters.filtfilt(lowpass, SignalFilters.median(column($0), size: 3))! }
            let g = (0..<3).map { SignalFilters.filtfilt(gravity, filtered[$0])! }
            let body = (0..<3).map { a in zip(filtered[a], g[a]).map { $0 - $1 } }
            let jerk = (body + Array(filtered[3...])).map { SignalFilters.derivative($0, rateHz: 50) }
            func mag(_ axes: [[Double]]) -> [Double] { (0..<segment.count).map { k in axes.reduce(0) { $0 + $1[k] * $1[k] }.squareRoot() } }
            let expected = filtered + body + g + jerk
                + [mag(body), mag(g), mag(Array(jerk[0..<3])), mag(Array(filtered[3...])), mag(Array(jerk[3...]))]
            for (c, column) in expected.enumerated() {
                let got = segment.map { out.values[$0 * 23 + c] }
                #expect(got == column.map { Float($0) }, "channel \(layout.channelNames[c]) of segment \(segment)")
            }
        }
    }

    @Test func causalFiltersNeedNoPaddingAndCalibrateIsPerChannel() throws {
        let layout = try ChannelLayout.make(Self.spec("""
              - butterworth: {channels: [gyro_x], type: highpass, order: 2, cutoff_hz: 1, zero_phase: false}
              - calibrate: {channels: [A], scale: {default: 2, acc_z: -1}, offset: {acc_y: 0.5}}
            """))
        let plan = try #require(layout.transforms)
        #expect(plan.minimumSegment == 1)
        let input = Self.signal(segments: [5, 1, 20], gap: 2, channels: 6)
        let (out, dropped) = plan.apply(input, rateHz: 50)
        #expect(dropped.isEmpty)
        #expect(out.valid == input.valid)
        let hp = SignalFilters.butter(order: 2, cutoffHz: [1], type: .highpass, rateHz: 50)
        for segment in input.segments {
            let x = segment.map { Double(input.values[$0 * 6 + 3]) }
            #expect(segment.map { out.values[$0 * 6 + 3] } == SignalFilters.causal(hp, x).map { Float($0) })
            for k in segment {
                #expect(out.values[k * 6 + 0] == Float(Double(input.values[k * 6 + 0]) * 2))
                #expect(out.values[k * 6 + 1] == Float(Double(input.values[k * 6 + 1]) * 2 + 0.5))
                #expect(out.values[k * 6 + 2] == Float(-Double(input.values[k * 6 + 2])))
                #expect(out.values[k * 6 + 4] == input.values[k * 6 + 4])
            }
        }
    }

    @Test func transformsReadTheTopLevelMagnitude() throws {
        let layout = try ChannelLayout.make(Self.spec("  - derivative: {channels: [acc_mag]}", magnitude: "[acc]"))
        #expect(layout.channelNames.suffix(2) == ["acc_mag", "acc_mag_jerk"])
        #expect(layout.channelUnits.last == "m/s^2/s")
    }

    /// A spec built in code (or read back from a manifest) has not been through the decoder's checks.
    @Test func stepsThatCannotBeDesignedAreRefusedNotCrashed() throws {
        var spec = try Self.spec("  - derivative: {channels: [A]}")
        spec.transforms = [
            TransformSpec(.butterworth(type: .lowpass, order: 3, cutoffHz: [25], zeroPhase: true), channels: ["A"]),
            TransformSpec(.butterworth(type: .bandpass, order: 0, cutoffHz: [2, 1], zeroPhase: true), channels: ["A"]),
            TransformSpec(.gravity(order: 3, cutoffHz: 0, zeroPhase: true), channels: ["A"]),
            TransformSpec(.median(samples: 4), channels: ["A"]),
        ]
        do {
            _ = try ChannelLayout.make(spec)
            Issue.record("no error")
        } catch let e as PipelineFileError {
            #expect(e.issues.map(\.message) == [
                "`transforms[0].butterworth` in p.yaml cannot be designed: it needs an order from 1 to 16 and a cutoff above 0 and below the Nyquist frequency, 25 Hz, not order 3 and cutoff_hz 25",
                "`transforms[1].butterworth` in p.yaml cannot be designed: it needs an order from 1 to 16 and two cutoffs, low below high, above 0 and below the Nyquist frequency, 25 Hz, not order 0 and cutoff_hz 2, 1",
                "`transforms[2].gravity` in p.yaml cannot be designed: it needs an order from 1 to 16 and a cutoff above 0 and below the Nyquist frequency, 25 Hz, not order 3 and cutoff_hz 0",
                "`transforms[3].median.samples` in p.yaml must be an odd integer from 1 to 10001, not 4",
            ])
        }
    }

    @Test func unknownChannelsAreReportedAtTheirPlace() throws {
        do {
            _ = try ChannelLayout.make(Self.spec("  - gravity: {channels: [acc, gyr]}\n  - derivative: {channels: [acc_bdy]}"))
            Issue.record("no error")
        } catch let e as PipelineFileError {
            #expect(e.exitStatus == .config)
            #expect(e.issues.map(\.location) == [SourceLocation(file: "p.yaml", line: 8, column: 31),
                                                 SourceLocation(file: "p.yaml", line: 9, column: 29)])
            #expect(e.issues[0].message.hasPrefix("unknown channel `gyr` in `transforms[0].gravity.channels` at p.yaml:8:31; a reference is a channel, a sensor (`A`, `G`)"))
            #expect(e.issues[0].message.hasSuffix("did you mean `gyro`?"))
            #expect(e.issues[1].message.contains("did you mean `acc_body`?"))
        }
    }
}
