import Foundation
import Testing
import MotionSynth

/// One 3-minute recording with default realism settings, parsed back once for every test.
enum ThreeMinuteRecording {
    static let options = SynthOptions(outDirectory: "", subjects: 1, minutes: 3, seed: 42, recordingsPerSubject: 1)
    static let file: CollectorFile = {
        try! withTemporaryDirectory { dir in
            var options = ThreeMinuteRecording.options
            options.outDirectory = dir
            let summary = try Synth.write(options)
            precondition(summary.files == ["subject01/rec-01.csv"])
            return CollectorFile(text: try readText(dir + "/subject01/rec-01.csv"))
        }
    }()
}

@Suite struct MotionCollectorFormatTests {
    let file = ThreeMinuteRecording.file

    @Test func headerIsTheCurrentVariant() {
        #expect(file.header == "Source, Label, When, X, Y, Z, UA_X, UA_Y, UA_Z, Pitch, Roll, Yaw")
    }

    @Test func fieldCountsPerSource() {
        let counts = Dictionary(grouping: file.rows, by: \.source).mapValues { Set($0.map(\.fieldCount)) }
        #expect(counts == ["A": [6], "G": [6], "M": [6], "D": [12]])
    }

    @Test func timesArePrintedAsDoubleDescriptions() {
        for row in file.rows {
            #expect(row.time.description == row.timeText)
        }
        let first = file.rows[0].time
        #expect(first > 0.0102 && first < 0.1, "starts at a small non-zero offset")
        #expect(file.rows.last!.time <= 180)
    }

    @Test func rowsAreInterleavedInTimeOrder() {
        #expect(zip(file.rows.dropFirst(), file.rows).allSatisfy { $0.time >= $1.time })
        // Sensors alternate: the first 40 rows contain every sensor.
        #expect(Set(file.rows.prefix(40).map(\.source)) == ["A", "G", "M", "D"])
    }

    @Test(arguments: [("A", 0.010), ("G", 0.010), ("D", 0.010), ("M", 0.020)])
    func ratesJitterDropsAndGaps(source: String, intervalS: Double) {
        let times = file.rows(of: source).map(\.time)
        let steps = differences(times)
        #expect(steps.allSatisfy { $0 > 0 }, "times strictly increase within \(source)")
        #expect(abs(median(steps) - intervalS) < 0.001)
        // Jitter: intervals are not all equal; σ ≈ 0.5 ms per timestamp.
        let regular = steps.filter { $0 < intervalS * 1.5 }
        let mean = regular.reduce(0, +) / Double(regular.count)
        let sd = (regular.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(regular.count)).squareRoot()
        #expect(sd > 0.0004 && sd < 0.001, "interval sd \(sd)")
        // Drops (~0.5 %): some single missing samples, about 1/200 of the intervals.
        let singleDrops = steps.filter { $0 > intervalS * 1.6 && $0 < intervalS * 2.5 }.count
        #expect(singleDrops >= 1 && Double(singleDrops) < 0.02 * Double(steps.count), "\(singleDrops) drops")
        // App pauses hit every sensor.
        #expect(steps.contains { $0 > 0.25 }, "at least one gap > 0.25 s")
        #expect(steps.allSatisfy { $0 < 1.6 })
        let expected = 180 / intervalS
        #expect(Double(times.count) > 0.97 * expected && Double(times.count) < 1.002 * expected)
    }

    @Test func labelsStartEmptyThenWalkAndTurn() {
        let labels = file.rows.map(\.label)
        #expect(Set(labels) == ["", "W", "T"])
        let firstLabelled = labels.firstIndex { !$0.isEmpty }!
        #expect(firstLabelled > 100, "unlabelled rows while standing before the start")
        #expect(!labels[firstLabelled...].contains(""), "no unlabelled row after the first labelled one")
        #expect(labels[firstLabelled] == "W")
        // Segments: walking lasts longer than turning.
        var segments: [(label: String, start: Double, end: Double)] = []
        for row in file.rows where !row.label.isEmpty {
            if segments.last?.label == row.label { segments[segments.count - 1].end = row.time }
            else { segments.append((row.label, row.time, row.time)) }
        }
        let walking = segments.dropLast().filter { $0.label == "W" }.map { $0.end - $0.start }
        let turning = segments.dropLast().filter { $0.label == "T" }.map { $0.end - $0.start }
        #expect(walking.count >= 4 && turning.count >= 4)
        #expect(walking.allSatisfy { $0 > 7 && $0 < 21 })
        #expect(turning.allSatisfy { $0 > 1.5 && $0 < 5.5 })
    }
}
