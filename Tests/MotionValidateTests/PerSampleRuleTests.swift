import MotionCore
import MotionDataset
import Testing

/// Rule C8 (docs/validate.md, "Consistency rules"): `y` is what the label policy gives from
/// `y_seq`, on hand-worked windows of T = 6 points and two classes.
@Suite struct PerSampleRuleTests {
    func rule(_ policy: String, _ minFraction: Double = 0.5) -> PerSampleRule {
        PerSampleRule(policy: policy, minFraction: minFraction, classes: 2)
    }

    @Test func valuesOutsideTheClassesAndMinusOne() {
        #expect(rule("majority").badValue([0, 1, -1, 1, 0, 0]) == nil)
        #expect(rule("majority").badValue([0, 1, 2, 1, -2, 0])! == (2, 2))
        #expect(rule("majority").badValue([-2])! == (0, -2))
    }

    @Test func majorityCountsClassesAndBreaksTiesByFirstSeen() {
        let r = rule("majority")
        #expect(r.problem(y: 0, ySeq: [0, 0, 0, 1, 1, -1]) == nil)
        #expect(r.problem(y: 1, ySeq: [0, 0, 0, 1, 1, -1]) != nil)          // 0 has more points
        #expect(r.problem(y: 1, ySeq: [-1, 1, 0, 0, 1, 1]) == nil)          // 1 has 3 of 6: 0.5 reaches 0.5
        #expect(r.problem(y: 0, ySeq: [1, 0, 1, 0, 0, 1]) != nil)           // a tie: 1 is seen first
        #expect(r.problem(y: 1, ySeq: [1, 0, 1, 0, 0, 1]) == nil)
        #expect(rule("majority", 0.8).problem(y: 0, ySeq: [0, 0, 0, 0, -1, 1])!.contains("below `min_fraction` 0.8"))
        #expect(r.problem(y: 1, ySeq: [0, 0, 0, 0, 0, 0])!.contains("no point of its `y_seq` has class 1"))
        // A window kept unlabelled (apply) is not checked: a label outside the classes may have won it.
        #expect(r.problem(y: -1, ySeq: [0, 0, 0, 0, 0, 0]) == nil)
    }

    @Test func centerAndPureAreDecidedByYSeq() {
        #expect(rule("center").problem(y: 1, ySeq: [0, 0, 0, 1, 0, 0]) == nil)          // point 3 of 6
        #expect(rule("center").problem(y: 0, ySeq: [0, 0, 0, 1, 0, 0]) != nil)
        #expect(rule("center").problem(y: -1, ySeq: [0, 0, 0, -1, 0, 0]) == nil)
        #expect(rule("pure").problem(y: 1, ySeq: [1, 1, 1, 1, 1, 1]) == nil)
        #expect(rule("pure").problem(y: 1, ySeq: [1, 1, 1, 1, 1, -1]) != nil)
        #expect(rule("pure").problem(y: -1, ySeq: [1, 1, 1, 1, 1, -1]) == nil)
        #expect(rule("pure").problem(y: -1, ySeq: [0, 0, 0, 0, 0, 0]) != nil)
    }

    @Test func theRuleComesFromTheResolvedPipeline() throws {
        let resolved = try JSONParser.parse(Array(#"{"labels": {"policy": "center", "min_fraction": 0.5, "per_sample": true}}"#.utf8))
        #expect(PerSampleRule(resolved: resolved, classes: 3) == PerSampleRule(policy: "center", minFraction: 0.5, classes: 3))
        let without = try JSONParser.parse(Array(#"{"labels": {"policy": "center", "min_fraction": 0.5}}"#.utf8))
        #expect(PerSampleRule(resolved: without, classes: 3) == nil)
        #expect(PerSampleRule(resolved: .null, classes: 3) == nil)
    }
}
