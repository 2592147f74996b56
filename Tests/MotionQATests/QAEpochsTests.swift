import Foundation
import Testing
@testable import MotionQA

/// Hand-worked cases of the per-epoch statistics, the non-wear rule (actipy's
/// `find_nonwear_segments`: n stationary epochs are non-wear when (n − 1) epochs outlast the
/// patience), the window fractions and the calibration fit (tests/python/test_qa.py compares
/// the fit with actipy itself).
@Suite struct QAEpochsTests {
    /// Epochs of 4 points: `still` epochs hold 1, 1, 1, 1 (std 0), others 0, 2, 0, 2 (std 1.155).
    func epochs(_ pattern: [Bool]) -> QAEpochs {
        var e = QAEpochs(epochPoints: 4)
        for (i, still) in pattern.enumerated() {
            for k in 0..<4 {
                let v = still ? 1.0 : Double(k % 2 * 2)
                e.add(point: i * 4 + k, v, v, v)
            }
        }
        return e
    }

    @Test func stdIsTheSampleStandardDeviation() {
        let e = epochs([false, true])
        #expect(abs(e.std(0, 0) - (4.0 / 3.0).squareRoot()) < 1e-12)   // values 0 2 0 2: var = 4 / 3 (ddof 1)
        #expect(e.std(1, 2) == 0)
        #expect(e.mean(0, 1) == 1)
        #expect(!e.isStationary(0, tolerance: 0.015) && e.isStationary(1, tolerance: 0.015))
    }

    @Test func anEpochWithOnePointOrNaNsIsNeverStationary() {
        var e = QAEpochs(epochPoints: 4)
        e.add(point: 0, 1, 1, 1)
        e.add(point: 1, .nan, 1, 1)                                         // not counted
        #expect(e.counts == [1] && !e.isStationary(0, tolerance: 1))
        #expect(e.std(0, 0).isNaN)
    }

    @Test func nonwearNeedsNMinusOneEpochsBeyondThePatience() {
        // Epochs of 10 s; patience 20 s: a run of 3 epochs lasts (3 − 1) × 10 = 20 s, not beyond.
        let e = epochs([false, true, true, true, false, true, true, true, true, false])
        #expect(e.nonwearRuns(tolerance: 0.015, patienceS: 20, epochS: 10) == [20..<36])
        #expect(e.nonwearRuns(tolerance: 0.015, patienceS: 19.9, epochS: 10) == [4..<16, 20..<36])
        // A run reaching the recording's end counts as well.
        #expect(epochs([false, true, true, true]).nonwearRuns(tolerance: 0.015, patienceS: 10, epochS: 10) == [4..<16])
        #expect(QAEpochs(epochPoints: 4).nonwearRuns(tolerance: 0.015, patienceS: 0, epochS: 10) == [])
    }

    @Test func fractionsCountThePointsInsideTheRuns() {
        let runs = [4..<16, 20..<36]
        #expect(qaFraction(of: runs, start: 0, length: 4) == 0)
        #expect(qaFraction(of: runs, start: 2, length: 4) == 0.5)
        #expect(qaFraction(of: runs, start: 14, length: 8) == 0.5)            // 14, 15 and 20, 21
        #expect(qaFraction(of: runs, start: 22, length: 10) == 1)
        #expect(qaFraction(of: [], start: 0, length: 10) == 0)
        #expect(qaFraction(of: runs, start: 0, length: 0) == 0)
    }

    @Test func quantileIsNumpysLinear() {
        // numpy.quantile([1, 2, 3, 4], 0.995) = 3 + 0.985 = 3.985
        #expect(abs(Calibration.quantile([4, 1, 3, 2], 0.995) - 3.985) < 1e-12)
        #expect(Calibration.quantile([7], 0.995) == 7)
    }

    @Test func calibrationUndoesAnOffsetAndGain() {
        // 60 orientations spread over the sphere, measured with a gain and an offset per axis.
        var points: [SIMD3<Double>] = []
        for i in 0..<60 {
            let z = -1 + (2 * Double(i) + 1) / 60, r = (1 - z * z).squareRoot(), a = Double(i) * 2.399963
            let g = SIMD3(r * cos(a), r * sin(a), z)
            points.append(g * SIMD3(1.04, 0.97, 1.02) + SIMD3(0.03, -0.02, 0.05))
        }
        let c = Calibration.fit(points)
        #expect(c.ok && c.epochs == 60)
        #expect(c.errorBeforeMg! > 20 && c.errorAfterMg! < 1)
        #expect(abs(c.slope.x - 1 / 1.04) < 1e-3 && abs(c.intercept.z + 0.05 / 1.02) < 1e-3)
    }

    @Test func calibrationRefusesTooFewOrTooNarrowEpochs() {
        let few = Calibration.fit([SIMD3<Double>](repeating: SIMD3(0, 0, 1), count: 49))
        #expect(!few.ok && few.errorBeforeMg == nil && few.note != nil)
        let flat = Calibration.fit([SIMD3<Double>](repeating: SIMD3(0, 0, 1.1), count: 50))
        #expect(!flat.ok && abs(flat.errorAfterMg! - 100) < 1e-9 && flat.note!.contains("0.3 g"))
    }
}
