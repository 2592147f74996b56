import Foundation
import Testing
import MotionSynth

@Suite struct PhoneLoggerTests {
    struct Table {
        var header: String
        var rows: [[Substring]]
        func column(_ i: Int) -> [Double] { rows.map { Double($0[i])! } }
    }

    func table(_ path: String) throws -> Table {
        let all = lines(try readText(path))
        return Table(header: String(all[0]),
                     rows: all.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) })
    }

    @Test func accelerometerAndBarometerFiles() throws {
        try withTemporaryDirectory { dir in
            let summary = try Synth.write(SynthOptions(outDirectory: dir, subjects: 1, minutes: 3, seed: 3,
                                                       format: .csv, recordingsPerSubject: 1))
            #expect(summary.files == ["subject01/rec-01/Accelerometer.csv", "subject01/rec-01/Barometer.csv"])
            let acc = try table(dir + "/subject01/rec-01/Accelerometer.csv")
            let baro = try table(dir + "/subject01/rec-01/Barometer.csv")
            #expect(acc.header == "time,x,y,z,activity")
            #expect(baro.header == "time,pressure,relative_altitude,activity")
            #expect(acc.rows.allSatisfy { $0.count == 5 })
            #expect(baro.rows.allSatisfy { $0.count == 4 })

            let accTimes = acc.column(0), baroTimes = baro.column(0)
            #expect(differences(accTimes).allSatisfy { $0 > 0 })
            #expect(differences(baroTimes).allSatisfy { $0 > 0 })
            #expect(abs(median(differences(accTimes)) - 0.01) < 0.001)
            #expect(abs(median(differences(baroTimes)) - 1) < 0.01)
            #expect(baro.rows.count > 170 && baro.rows.count <= 180)
            // One clock: both files cover the same span.
            #expect(abs(accTimes.first! - baroTimes.first!) < 1.01 && abs(accTimes.last! - baroTimes.last!) < 1.01)

            for t in [acc, baro] {
                let activities = t.rows.map { String($0[t.rows[0].count - 1]) }
                #expect(Set(activities) == ["", "walk", "stairs"])
                #expect(activities.first == "")
            }

            // Acceleration in g: magnitude near 1.
            let magnitudes = acc.rows.map { norm(Vector(Double($0[1])!, Double($0[2])!, Double($0[3])!)) }
            #expect(abs(magnitudes.reduce(0, +) / Double(magnitudes.count) - 1) < 0.03)

            // Pressure in kPa near sea level, relative altitude derived at −0.012 kPa/m, 0 at first.
            let pressure = baro.column(1), altitude = baro.column(2)
            #expect(pressure.allSatisfy { $0 > 99 && $0 < 103.5 })
            #expect(altitude[0] == 0)
            for (p, h) in zip(pressure, altitude) {
                #expect(abs((p - pressure[0]) - (-0.012 * h)) < 2e-6)
            }
            // Flat while walking, ~0.17 m per step on stairs: compare the altitude change per
            // second by activity.
            var flat: [Double] = [], climbing: [Double] = []
            for i in 1..<baro.rows.count where baro.rows[i][3] == baro.rows[i - 1][3] {
                let rate = abs(altitude[i] - altitude[i - 1]) / (baroTimes[i] - baroTimes[i - 1])
                if baro.rows[i][3] == "walk" { flat.append(rate) }
                if baro.rows[i][3] == "stairs" { climbing.append(rate) }
            }
            #expect(median(flat) < 0.1, "walking on the flat: \(median(flat)) m/s")
            let cadence = SubjectProfile(seed: 3, subject: 1).cadenceHz * 0.85
            #expect(abs(median(climbing) - 0.17 * cadence) < 0.08, "stairs: \(median(climbing)) m/s")
        }
    }
}
