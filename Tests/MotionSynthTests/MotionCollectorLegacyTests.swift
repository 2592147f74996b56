import Foundation
import Testing
import MotionSynth

@Suite struct MotionCollectorLegacyTests {
    @Test func legacyVariantHasNumericSourcesAndMarkers() throws {
        try withTemporaryDirectory { dir in
            let current = SynthOptions(outDirectory: dir + "/current", subjects: 1, minutes: 1.5, seed: 5,
                                       recordingsPerSubject: 1)
            var legacy = current
            legacy.outDirectory = dir + "/legacy"
            legacy.legacy = true
            _ = try Synth.write(current)
            _ = try Synth.write(legacy)
            let legacyLines = lines(try readText(dir + "/legacy/subject01/rec-01.csv"))
            #expect(legacyLines[0] == "Type, When, X, Y, Z, UA_X, UA_Y, UA_Z, Pitch, Roll, Yaw")
            let rows = legacyLines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
            let fieldCounts = Dictionary(grouping: rows, by: { String($0[0]) }).mapValues { Set($0.map(\.count)) }
            #expect(fieldCounts == ["0": [5], "1": [11], "2": [5], "3": [5], "4": [2], "5": [2]])
            let times = rows.map { Double($0[1])! }
            #expect(zip(times.dropFirst(), times).allSatisfy { $0 >= $1 }, "rows in time order")

            // Markers alternate, walking first, at the label changes of the current variant.
            let markers = rows.filter { $0[0] == "4" || $0[0] == "5" }
            #expect(markers.map { String($0[0]) } == (0..<markers.count).map { $0 % 2 == 0 ? "4" : "5" })
            let currentFile = CollectorFile(text: try readText(dir + "/current/subject01/rec-01.csv"))
            var changes: [(String, Double)] = []
            var previous = ""
            for row in currentFile.rows where row.label != previous {
                changes.append((row.label, row.time))
                previous = row.label
            }
            #expect(changes.count == markers.count)
            for ((label, firstRowTime), marker) in zip(changes, markers) {
                #expect(label == (marker[0] == "4" ? "W" : "T"))
                let markerTime = Double(marker[1])!
                #expect(markerTime <= firstRowTime && firstRowTime - markerTime < 1.6)
            }

            // Apart from the layout, the data are the same as the current variant's.
            let sensorRows = rows.filter { $0[0] != "4" && $0[0] != "5" }
            #expect(sensorRows.count == currentFile.rows.count)
            let code = ["A": "0", "D": "1", "G": "2", "M": "3"]
            for (old, new) in zip(sensorRows, currentFile.rows) {
                #expect(String(old[0]) == code[new.source])
                #expect(String(old[1]) == new.timeText)
                #expect(old.dropFirst(2).map { Double($0)! } == new.values)
            }
        }
    }
}
