import Foundation
import Testing
import MotionCore
@testable import MotionConfig

/// `transforms` (docs/pipeline.md, "Transforms"): decoding with defaults, the messages for bad
/// steps, lookahead, and the canonical JSON, which decodes back to the same steps.

private func withTransforms(_ steps: String) -> String {
    edited("output:", "transforms:\n\(steps)\noutput:")
}

/// The steps without their positions in the file.
private func unplaced(_ steps: [TransformSpec]) -> [TransformSpec] {
    steps.map { var s = $0; s.location = nil; s.channelLocations = []; return s }
}

@Test func stepsDecodeWithDefaultsFilledIn() throws {
    let spec = try load(withTransforms("""
      - median: {channels: [A, G]}
      - butterworth: {channels: acc, cutoff_hz: 20}
      - butterworth: {channels: [gyro], type: bandpass, order: 2, cutoff_hz: [0.5, 8], zero_phase: false}
      - gravity: {channels: [A]}
      - derivative: {channels: [acc_body]}
      - magnitude: {channels: [acc_body, gyro]}
      - magnitude: {channels: [acc_x, gyro_y, acc_mag], name: mixed}
      - calibrate: {channels: [acc_x, acc_y], scale: {default: 2, acc_y: 0.5}}
    """))
    #expect(unplaced(spec.transforms) == [
        TransformSpec(.median(samples: 3), channels: ["A", "G"]),
        TransformSpec(.butterworth(type: .lowpass, order: 3, cutoffHz: [20], zeroPhase: true), channels: ["acc"]),
        TransformSpec(.butterworth(type: .bandpass, order: 2, cutoffHz: [0.5, 8], zeroPhase: false), channels: ["gyro"]),
        TransformSpec(.gravity(order: 3, cutoffHz: 0.3, zeroPhase: true), channels: ["A"]),
        TransformSpec(.derivative, channels: ["acc_body"]),
        TransformSpec(.magnitude(name: nil), channels: ["acc_body", "gyro"]),
        TransformSpec(.magnitude(name: "mixed"), channels: ["acc_x", "gyro_y", "acc_mag"]),
        TransformSpec(.calibrate(scale: PerSensor(2, overrides: [KeyValue("acc_y", 0.5)]), offset: PerSensor(0)),
                      channels: ["acc_x", "acc_y"]),
    ])
    // Each reference keeps its place for messages about channels (resolved later, against the layout).
    #expect(spec.transforms[0].channelLocations.map(\.column) == [25, 28])
    #expect(spec.transforms[0].channelLocations.map(\.line) == [10, 10])
}

@Test func lookaheadOfEachStepAndOfTheChain() throws {
    #expect(TransformSpec(.median(samples: 5), channels: ["A"]).lookahead == .samples(2))
    #expect(TransformSpec(.median(samples: 1), channels: ["A"]).lookahead == .samples(0))
    #expect(TransformSpec(.butterworth(type: .lowpass, order: 3, cutoffHz: [20], zeroPhase: true), channels: ["A"]).lookahead == .segment)
    #expect(TransformSpec(.butterworth(type: .lowpass, order: 3, cutoffHz: [20], zeroPhase: false), channels: ["A"]).lookahead == .samples(0))
    #expect(TransformSpec(.gravity(order: 3, cutoffHz: 0.3, zeroPhase: true), channels: ["A"]).lookahead == .segment)
    #expect(TransformSpec(.derivative, channels: ["A"]).lookahead == .samples(1))
    #expect(TransformSpec(.magnitude(name: nil), channels: ["A"]).lookahead == .samples(0))
    var spec = try load(minimalPipeline)
    #expect(spec.transformsLookahead == .samples(0))
    spec.transforms = [TransformSpec(.median(samples: 3), channels: ["A"]), TransformSpec(.derivative, channels: ["A"])]
    #expect(spec.transformsLookahead == .samples(2))
    spec.transforms.append(TransformSpec(.gravity(order: 3, cutoffHz: 0.3, zeroPhase: true), channels: ["A"]))
    #expect(spec.transformsLookahead == .segment)
    #expect(spec.transformsLookahead.description == "the whole segment")
}

@Test(arguments: [
    ("  - butterworth: {channels: [A], cutoff_hz: 25}",
     "`transforms[0].butterworth.cutoff_hz` at walk.yaml:10:45 must be below the Nyquist frequency, 25 Hz (half of `resample.rate_hz: 50`), not `25`; a filter cannot act at or above it"),
    ("  - butterworth: {channels: [A], type: bandpass, cutoff_hz: [8, 2]}",
     "`transforms[0].butterworth.cutoff_hz` at walk.yaml:10:61 must be two frequencies [low, high] with low below high, not a list"),
    ("  - butterworth: {channels: [A], type: highpass, cutoff_hz: [1, 2]}",
     "`transforms[0].butterworth.cutoff_hz` at walk.yaml:10:61 must be one frequency in Hz for `type: highpass` (two, [low, high], only for `type: bandpass`), not a list"),
    ("  - butterworth: {channels: [A]}",
     "missing required key `cutoff_hz` in `transforms[0].butterworth` at walk.yaml:10:18"),
    ("  - butterworth: {channels: [A], cutoff_hz: 5, order: 17}",
     "`transforms[0].butterworth.order` at walk.yaml:10:55 must be an integer from 1 to 16, not `17`"),
    ("  - butterworth: {channels: [A], cutoff_hz: 5, type: lowpas}",
     "`transforms[0].butterworth.type` at walk.yaml:10:54 must be `lowpass`, `highpass` or `bandpass`, not `lowpas`; did you mean `lowpass`?"),
    ("  - gravity: {channels: [A], cutoff_hz: 0}",
     "`transforms[0].gravity.cutoff_hz` at walk.yaml:10:41 must be a frequency in Hz greater than 0, not `0`"),
    ("  - median: {channels: [A], samples: 2}",
     "`transforms[0].median.samples` at walk.yaml:10:38 must be an odd integer from 1 to 10001, not `2`"),
    ("  - median: {samples: 3}",
     "missing required key `channels` in `transforms[0].median` at walk.yaml:10:13"),
    ("  - median: {channels: [A, A]}",
     "duplicate channel `A` in `transforms[0].median.channels` at walk.yaml:10:28; it is already listed at 10:25"),
    ("  - derivative: {channels: [A], rate: 2}",
     "unknown key `rate` in `transforms[0].derivative` at walk.yaml:10:33"),
    ("  - medain: {channels: [A]}",
     "unknown step `medain` in `transforms[0]` at walk.yaml:10:5; the steps are `median`, `butterworth`, `gravity`, `derivative`, `magnitude` or `calibrate`; did you mean `median`?"),
    ("  - median: {channels: [A]}\n    derivative: {channels: [A]}",
     "`transforms[0]` at walk.yaml:10:5 must be a mapping with one key, the step (`median`, `butterworth`, `gravity`, `derivative`, `magnitude` or `calibrate`), such as `- median: {channels: [A], samples: 3}`, not a mapping"),
    ("  - calibrate: {channels: [A], scale: x}",
     "`transforms[0].calibrate.scale` at walk.yaml:10:39 must be a number, not `x`"),
])
func badStepsAreReportedAtTheirPlace(step: String, message: String) {
    #expect(messages(withTransforms(step)) == [message])
}

@Test func gravityDefaultCutoffAboveNyquistOfALowRate() {
    let yaml = withTransforms("  - gravity: {channels: [A]}").replacing("rate_hz: 50", with: "rate_hz: 0.5")
        .replacing("length_s: 2.56", with: "length_s: 10")
    #expect(messages(yaml) == ["`transforms[0].gravity` at walk.yaml:10:14 uses the default `cutoff_hz: 0.3`, which is not below the Nyquist frequency, 0.25 Hz; give a lower `cutoff_hz`"])
}

@Test func transformsAreNotAList() {
    #expect(messages(edited("output:", "transforms: {median: 3}\noutput:")) == [
        "`transforms` at walk.yaml:9:13 must be a list of steps such as `- median: {channels: [A], samples: 3}`, not a mapping",
    ])
}

@Test func canonicalJSONOfTransformsDecodesBackToTheSameSteps() throws {
    let spec = try load(withTransforms("""
      - median: {channels: [A, G], samples: 5}
      - butterworth: {channels: [gyro], type: bandpass, order: 2, cutoff_hz: [0.5, 8], zero_phase: false}
      - gravity: {channels: A, order: 4}
      - derivative: {channels: [acc_body]}
      - magnitude: {channels: [acc_body]}
      - magnitude: {channels: [acc_x, gyro_y], name: xy_mag}
      - calibrate: {channels: [acc_x], scale: 2, offset: {acc_x: -0.5}}
    """))
    guard case .object(let o) = spec.canonicalValue(), let steps = o["transforms"] else {
        Issue.record("no transforms in the canonical value")
        return
    }
    #expect(steps.compact().hasPrefix(#"[{"median":{"channels":["A","G"],"samples":5}},{"butterworth":{"channels":["gyro"],"cutoff_hz":[0.5,8.0],"order":2,"type":"bandpass","zero_phase":false}},{"gravity":{"channels":["A"],"cutoff_hz":0.3,"order":4,"zero_phase":true}}"#))
    // JSON is YAML: the resolved steps, as a pipeline's `transforms`, give the same steps.
    let again = try load(edited("output:", "transforms: \(steps.compact())\noutput:"))
    #expect(unplaced(again.transforms) == unplaced(spec.transforms))
    #expect(again.canonicalJSON() == spec.canonicalJSON())
}

@Test func aPipelineWithoutTransformsKeepsItsCanonicalJSON() throws {
    // The key is left out when there are no steps, so the SHA-256 of existing pipelines is unchanged.
    #expect(!(try load(minimalPipeline).canonicalJSON().contains("transforms")))
    #expect(try load(edited("output:", "transforms: []\noutput:")).canonicalJSON() == (try load(minimalPipeline).canonicalJSON()))
}
