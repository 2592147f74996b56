import MotionConfig
import MotionCore
import MotionDataset
import Testing
@testable import MotionInputs
@testable import MotionJob

/// `split.stratify: label` (docs/pipeline.md, "Splits and folds"): each class's keys, ordered by
/// u, get that class's largest-remainder quotas.
@Suite struct StratifiedSplitTests {
    func assigner(_ f: (Double, Double, Double), seed: UInt64 = 42, stratify: Bool = true) -> SplitAssigner {
        var spec = SplitSpec(by: .recording, seed: seed, train: f.0, validation: f.1, test: f.2)
        spec.allocation = .exact
        spec.stratify = stratify ? .label : nil
        return SplitAssigner(spec)
    }

    /// `n` keys per class, named `class-i`.
    func keys(_ perClass: [String: Int]) -> (keys: [String], strata: [String: String]) {
        var keys: [String] = [], strata: [String: String] = [:]
        for (c, n) in perClass.sorted(by: { $0.key < $1.key }) {
            for i in 0..<n { keys.append("\(c)-\(i)"); strata["\(c)-\(i)"] = c }
        }
        return (keys, strata)
    }

    func counts(_ a: SplitAssigner.Assignment, _ strata: [String: String], _ c: String) -> [Int] {
        SplitName.datasetSplits.map { s in a.split.filter { strata[$0.key] == c && $0.value == s }.count }
    }

    @Test("one recording of a class goes to train, whatever the seed")
    func singleRecordingClass() {
        for seed in UInt64(0)..<20 {
            let (k, strata) = keys(["walk": 1, "squat": 5])
            let a = assigner((0.7, 0.15, 0.15), seed: seed).assign(k, strata: strata)
            #expect(counts(a, strata, "walk") == [1, 0, 0], "seed \(seed)")
            // 5 × (0.7, 0.15, 0.15) = 3.5, 0.75, 0.75: 3/0/0, then the two largest remainders (0.75, 0.75).
            #expect(counts(a, strata, "squat") == [3, 1, 1], "seed \(seed)")
        }
    }

    @Test("a split with a fraction of 0 gets nothing from any class")
    func zeroShareSplit() {
        let (k, strata) = keys(["a": 3, "b": 4, "c": 1])
        let a = assigner((0.5, 0, 0.5)).assign(k, strata: strata)
        // a: 1.5/0/1.5 → 1/0/1 + 1 to the earlier tie (train); b: 2/0/2; c: 0.5/0/0.5 → train.
        #expect(counts(a, strata, "a") == [2, 0, 1])
        #expect(counts(a, strata, "b") == [2, 0, 2])
        #expect(counts(a, strata, "c") == [1, 0, 0])
        #expect(!a.split.values.contains(.validation))
    }

    @Test("equal remainders go to the earlier split", arguments: [
        (2, (0.34, 0.33, 0.33), [1, 1, 0]),
        (3, (0.34, 0.33, 0.33), [1, 1, 1]),
        (1, (0.34, 0.33, 0.33), [1, 0, 0]),
        (4, (0.25, 0.25, 0.5), [1, 1, 2]),
        (2, (0.2, 0.4, 0.4), [0, 1, 1]),
        (0, (0.7, 0.15, 0.15), [0, 0, 0]),
    ])
    func ties(n: Int, f: (Double, Double, Double), expected: [Int]) {
        let (k, strata) = keys(["x": n])
        #expect(counts(assigner(f).assign(k, strata: strata), strata, "x") == expected)
    }

    @Test("every class gets exactly its own quotas, for every small class size")
    func exactPerClass() {
        let f = (0.6, 0.2, 0.2)
        for a in 0...7 { for b in 0...7 { for c in 0...3 {
            let (k, strata) = keys(["a": a, "b": b, "c": c])
            let got = assigner(f).assign(k, strata: strata)
            for (name, n) in [("a", a), ("b", b), ("c", c)] {
                #expect(counts(got, strata, name) == SplitAssigner.quotas(count: n, fractions: [0.6, 0.2, 0.2]), "a=\(a) b=\(b) c=\(c) class \(name)")
            }
            #expect(got.split.count == a + b + c)
        } } }
    }

    @Test("within a class the keys go by u: the lowest to train")
    func orderByUnit() {
        let (k, strata) = keys(["a": 6])
        let s = assigner((0.5, 0.25, 0.25))
        let got = s.assign(k, strata: strata)
        let byU = k.sorted { s.unit($0) < s.unit($1) }
        #expect(byU.map { got.split[$0]! } == [.train, .train, .train, .validation, .validation, .test])
    }

    @Test("deterministic from the seed: the same seed, the same assignment; another, the same counts")
    func determinism() {
        let (k, strata) = keys(["a": 5, "b": 7, "c": 3])
        let one = assigner((0.6, 0.2, 0.2), seed: 7).assign(k, strata: strata)
        let again = assigner((0.6, 0.2, 0.2), seed: 7).assign(k.reversed(), strata: strata)
        #expect(one == again)
        var differs = false
        for seed in UInt64(8)..<16 {
            let other = assigner((0.6, 0.2, 0.2), seed: seed).assign(k, strata: strata)
            for c in ["a", "b", "c"] { #expect(counts(other, strata, c) == counts(one, strata, c)) }
            differs = differs || other.split != one.split
        }
        #expect(differs)
    }

    @Test("keys of no stratum share one; without stratify the strata are ignored")
    func missingStratumAndOff() {
        let (k, strata) = keys(["a": 3])
        let unlabelled = ["u-0", "u-1", "u-2"]
        let got = assigner((0.34, 0.33, 0.33)).assign(k + unlabelled, strata: strata)
        #expect(SplitName.datasetSplits.map { s in unlabelled.filter { got.split[$0] == s }.count } == [1, 1, 1])
        let plain = assigner((0.34, 0.33, 0.33), stratify: false)
        #expect(plain.assign(k + unlabelled, strata: strata) == plain.assign(k + unlabelled))
    }

    @Test("pinned keys stay where `assign` puts them and are not counted in their class")
    func pinned() {
        var spec = SplitSpec(by: .recording, train: 0.34, validation: 0.33, test: 0.33, assign: [KeyValue("test", ["a-0"])])
        spec.allocation = .exact
        spec.stratify = .label
        let (k, strata) = keys(["a": 4])
        let got = SplitAssigner(spec).assign(k, strata: strata)
        #expect(got.split["a-0"] == .test)
        // The 3 free ones: 1/1/1.
        #expect(SplitName.datasetSplits.map { s in ["a-1", "a-2", "a-3"].filter { got.split[$0] == s }.count } == [1, 1, 1])
    }

    /// init's fractions for a smallest class of m recordings (validation and test ⌊100/m⌋
    /// hundredths each) give every class of at least m recordings one in each split.
    @Test("init's fractions give every split every class of at least m recordings")
    func initFractions() {
        for m in 3..<10 {
            let h = Double(100 / m) / 100
            let f = [1 - 2 * h, h, h]
            for c in m...60 {
                let q = SplitAssigner.quotas(count: c, fractions: f)
                #expect(q.allSatisfy { $0 >= 1 }, "m=\(m) c=\(c): \(q)")
            }
        }
    }
}
