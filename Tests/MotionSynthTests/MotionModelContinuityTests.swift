import Testing
import MotionSynth

@Suite struct MotionModelContinuityTests {
    /// No jumps where one activity segment hands over to the next: gait phase, heading, envelope
    /// cadence, envelope and altitude are continuous, so the noise-free sensors are too.
    @Test(arguments: [RecordingPlan.Scenario.walkAndTurn, .walkAndStairs])
    func sensorsAreContinuousAcrossSegmentBoundaries(scenario: RecordingPlan.Scenario) {
        for subject in 1...3 {
            let options = SynthOptions(outDirectory: "", minutes: 4, seed: 9)
            let plan = RecordingPlan(options: options, subject: subject, recording: 1, scenario: scenario)
            let model = MotionModel(plan: plan)
            #expect(plan.segments.count > 10)
            for segment in plan.segments.dropFirst() {
                let before = model.sample(at: segment.start - 1e-7), after = model.sample(at: segment.start + 1e-7)
                #expect(norm(before.acceleration - after.acceleration) < 0.005, "acc at \(segment.start)")
                #expect(norm(before.gravity - after.gravity) < 0.001, "gravity at \(segment.start)")
                #expect(norm(before.rotationRate - after.rotationRate) < 0.005, "rate at \(segment.start)")
                #expect(abs(before.altitude - after.altitude) < 1e-6)
            }
        }
    }
}
