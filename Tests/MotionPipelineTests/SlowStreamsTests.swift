import Testing
@testable import MotionInspect
@testable import MotionDraft
@testable import MotionJob

/// The slow-stream rule (docs/signal.md, "Gaps and segments"): a stream of which more than half
/// the intervals exceed `max_gap_s` is slow; 2.5 median intervals, rounded up, would work.
@Suite struct SlowStreamsTests {
    @Test("the max_gap_s that works: 2.5 intervals, rounded up to 0.1 s (0.001 s below 0.1 s)", arguments: [
        (0.5, 1.3),      // AndroSensor at 2 Hz
        (1.0, 2.5),      // a 1 Hz barometer
        (1.02, 2.6),
        (0.2, 0.5),      // phyphox pressure at 5 Hz
        (0.01, 0.025),   // 100 Hz
        (0.0001, 0.001), // never below 1 ms
    ])
    func suggested(median: Double, expected: Double) {
        #expect(abs(SlowStreams.suggestedMaxGap(medianIntervalS: median) - expected) < 1e-12)
    }

    @Test("slow when more than half the intervals exceed the limit; equal times and decreasing ones are not intervals")
    func tally() {
        var t = SlowStreams.Tally(maxGapS: 0.25)
        t.add([0, 0.5, 1.0])
        t.add([1.5, 1.5, 1.4, 1.6])   // across blocks: 1.0→1.5 counts, 1.5→1.5 and 1.5→1.4 do not, 1.4→1.6 does
        #expect(t.intervals == 4 && t.overLimit == 3 && t.isSlow)
        #expect(t.median == 0.5)
        var half = SlowStreams.Tally(maxGapS: 0.25)
        half.add([0, 0.1, 0.6, 0.7, 1.2])   // 2 of 4 over: not more than half
        #expect(!half.isSlow)
        var none = SlowStreams.Tally(maxGapS: 0.25)
        none.add([3])
        #expect(!none.isSlow && none.median == nil)
    }
}

/// How init reads a recording folder's name (docs/commands.md, "init", Labels).
@Suite struct ActivityNameTests {
    @Test("the activity of a folder name: without digits and separators at its ends", arguments: [
        ("Squats", "Squats"), ("Squats_2", "Squats"), ("Squats-2024-05-01", "Squats"), ("2024-05-01 Walking", "Walking"),
        ("rec-01", "rec"), ("Step2Up", "Step2Up"), ("(3) Sit", "Sit"), ("2024-05-01_10-00-00", ""),
    ])
    func activity(name: String, expected: String) {
        #expect(PipelineDraft.activityName(name) == expected)
    }

    @Test("activity words start a word; names of people do not hold one", arguments: [
        ("Walking", true), ("WalkingUpstairs", true), ("sit_down", true), ("Squats", true), ("LYING", true),
        ("alice", false), ("Bruno", false), ("Stephen", false), ("Deadlift", true), ("Bench", false), ("rec", false),
    ])
    func words(name: String, expected: Bool) {
        #expect(PipelineDraft.hasActivityWord(name) == expected)
    }
}
