import MotionCore
import Testing
@testable import MotionLabels
@testable import MotionWindowing

@Suite struct WindowPlanTests {
    @Test func startsInsideEachSegmentWithoutPadding() {
        let plan = WindowPlan(length: 4, stride: 2)
        #expect(plan.starts(in: [0..<10]) == [0, 2, 4, 6])
        #expect(plan.starts(in: [0..<3, 5..<9, 12..<20]) == [5, 12, 14, 16])
        #expect(plan.starts(in: []) == [])
        #expect(plan.starts(in: [0..<4]) == [0])
    }

    @Test(arguments: 1...12)
    func everySegmentLengthGivesTheExpectedCount(_ n: Int) {
        let plan = WindowPlan(length: 3, stride: 2)
        let expected = n < 3 ? 0 : (n - 3) / 2 + 1
        #expect(plan.starts(in: [7..<(7 + n)]).count == expected)
    }

    @Test func secondsRoundToNearestSampleHalvesUp() {
        #expect(WindowSpecAmount.samples(2.56, 50) == 128)
        #expect(WindowSpecAmount.samples(0.05, 10) == 1)     // 0.5 → 1
        #expect(WindowSpecAmount.samples(0.25, 10) == 3)     // 2.5 → 3
        #expect(WindowSpecAmount.samples(0.24, 10) == 2)
    }
}

/// Mirrors `WindowSpec.Amount.samples` (in MotionConfig) without importing it here.
enum WindowSpecAmount {
    static func samples(_ s: Double, _ rate: Double) -> Int { Int((s * rate + 0.5).rounded(.down)) }
}

@Suite struct LabelAlignerTests {
    // Points 0..<8 at 1 Hz; labels W from 0, T from 4 → W W W W T T T T
    let track = LabelTrack(names: ["W", "T"], times: [0, 4], labels: [0, 1])
    let map = [("W", "walk"), ("T", "turn")]

    func run(_ policy: LabelPolicy, minFraction: Double = 0.5, classes: [String] = ["walk", "turn"],
             track: LabelTrack? = nil, starts: [Int], length: Int) -> LabelAligner.Result {
        LabelAligner(policy: policy, minFraction: minFraction, map: map, classes: classes)
            .label(track: track ?? self.track, gridCount: 12, gridTime: { Double($0) }, starts: starts, length: length)
    }

    @Test func majorityTieGoesToTheLabelFirstInTheWindow() {
        let r = run(.majority, starts: [2], length: 4) // W W T T
        #expect(r.classIds == [0])
        let r2 = run(.majority, track: LabelTrack(names: ["W", "T"], times: [0, 2], labels: [1, 0]), starts: [0], length: 4) // T T W W
        #expect(r2.classIds == [1])
    }

    @Test func majorityMinFractionCountsUnlabelledPointsInTheLength() {
        let t = LabelTrack(names: ["W"], times: [2], labels: [0]) // none none W W W W …
        #expect(run(.majority, minFraction: 0.5, track: t, starts: [0], length: 4).classIds == [0])
        let dropped = run(.majority, minFraction: 0.6, track: t, starts: [0], length: 4)
        #expect(dropped.kept.isEmpty && dropped.dropped == ["below_min_fraction": 1])
        let none = run(.majority, track: t, starts: [0], length: 2)
        #expect(none.dropped == ["no_label": 1])
    }

    @Test func labelChangeExactlyOnAWindowBoundary() {
        let r = run(.pure, starts: [0, 4, 2], length: 4)
        #expect(r.kept == [0, 1] && r.classIds == [0, 1] && r.dropped == ["mixed_labels": 1])
    }

    @Test func centerUsesPointFloorHalf() {
        #expect(run(.center, starts: [1], length: 6).classIds == [1]) // points 1…6, center 1+3 = 4 → T
        #expect(run(.center, starts: [1], length: 5).classIds == [0]) // center 1+2 = 3 → W
    }

    @Test func keepUnlabelledKeepsEveryWindowWithMinusOneForTheDropped() {
        // starts 0 (W W W W), 2 (W W T T: mixed), 4 (T T T T), 8 (no label after the track? T continues) and a class outside.
        var aligner = LabelAligner(policy: .pure, minFraction: 0.5, map: map, classes: ["turn"])
        aligner.keepUnlabelled = true
        let r = aligner.label(track: track, gridCount: 12, gridTime: { Double($0) }, starts: [0, 2, 4], length: 4)
        #expect(r.kept == [0, 1, 2] && r.classIds == [-1, -1, 0])
        #expect(r.dropped == ["label_not_in_classes": 1, "mixed_labels": 1])
        // Without it, the same windows are dropped and the labelled ones get the same ids.
        aligner.keepUnlabelled = false
        let plain = aligner.label(track: track, gridCount: 12, gridTime: { Double($0) }, starts: [0, 2, 4], length: 4)
        #expect(plain.kept == [2] && plain.classIds == [0] && plain.dropped == r.dropped)
        var majority = LabelAligner(policy: .majority, minFraction: 0.9, map: map, classes: ["walk", "turn"])
        majority.keepUnlabelled = true
        let empty = LabelTrack(names: [], times: [], labels: [])
        #expect(majority.label(track: empty, gridCount: 12, gridTime: { Double($0) }, starts: [0, 4], length: 4).classIds == [-1, -1])
        #expect(majority.label(track: track, gridCount: 12, gridTime: { Double($0) }, starts: [2], length: 4).dropped == ["below_min_fraction": 1])
    }

    @Test func perSampleGivesEachKeptWindowsPointClassesAsPointClassesDoes() {
        // W W W W T T T T T T T T, classes [turn] only: W's points are −1.
        for policy in LabelPolicy.allCases {
            for keep in [false, true] {
                var aligner = LabelAligner(policy: policy, minFraction: 0.5, map: map, classes: ["turn"])
                aligner.keepUnlabelled = keep
                aligner.perSample = true
                let starts = [0, 2, 4, 6]
                let r = aligner.label(track: track, gridCount: 12, gridTime: { Double($0) }, starts: starts, length: 6)
                let points = aligner.pointClasses(track: track, gridCount: 12, gridTime: { Double($0) })
                #expect(r.pointClassIds.count == r.kept.count * 6)
                for (i, w) in r.kept.enumerated() {
                    #expect(Array(r.pointClassIds[(i * 6)..<((i + 1) * 6)]) == Array(points[starts[w]..<(starts[w] + 6)]))
                }
                // Without perSample nothing else changes.
                aligner.perSample = false
                let plain = aligner.label(track: track, gridCount: 12, gridTime: { Double($0) }, starts: starts, length: 6)
                #expect(plain.kept == r.kept && plain.classIds == r.classIds && plain.dropped == r.dropped && plain.pointClassIds.isEmpty)
            }
        }
        var pure = LabelAligner(policy: .pure, minFraction: 0.5, map: map, classes: ["walk", "turn"])
        pure.perSample = true
        let r = pure.label(track: track, gridCount: 12, gridTime: { Double($0) }, starts: [0, 2, 4], length: 4)
        #expect(r.kept == [0, 2] && r.pointClassIds == [0, 0, 0, 0, 1, 1, 1, 1])
    }

    @Test func labelsOutsideClassesAreDropped() {
        let r = run(.majority, classes: ["walk"], starts: [0, 4], length: 4)
        #expect(r.kept == [0] && r.dropped == ["label_not_in_classes": 1])
    }

    @Test func mapMergesLabelsBeforeCounting() {
        let t = LabelTrack(names: ["W", "X", "T"], times: [0, 1, 2], labels: [0, 1, 2]) // W X T T
        let aligner = LabelAligner(policy: .majority, minFraction: 0.5, map: [("W", "walk"), ("X", "walk"), ("T", "turn")], classes: ["walk", "turn"])
        let r = aligner.label(track: t, gridCount: 4, gridTime: { Double($0) }, starts: [0], length: 4)
        #expect(r.classIds == [0]) // walk 2, turn 2: tie → walk (first)
    }

    @Test func trackFromEventsKeepsLastOfEqualTimesAndSortsStably() {
        let t = LabelTrack.fromEvents(names: ["W", "T"], times: [2, 0, 2, 1], labels: [0, 0, 1, 0])
        #expect(t.times == [0, 2] && t.labels == [0, 1])
        #expect(t.label(at: -1) == -1 && t.label(at: 1.9) == 0 && t.label(at: 2) == 1)
    }
}
