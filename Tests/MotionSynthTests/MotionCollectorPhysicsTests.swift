import Foundation
import Testing
import MotionSynth

@Suite struct MotionCollectorPhysicsTests {
    let file = ThreeMinuteRecording.file
    let cadenceHz = SubjectProfile(seed: ThreeMinuteRecording.options.seed, subject: 1).cadenceHz

    /// Mean accelerometer direction: gravity in the device frame.
    var gravityDirection: Vector {
        let sum = file.rows(of: "A").reduce(Vector()) { $0 + vector($1.values) }
        return sum / norm(sum)
    }

    @Test func accelerationMagnitudeAveragesOneG() {
        let magnitudes = file.rows(of: "A").map { norm(vector($0.values)) }
        let mean = magnitudes.reduce(0, +) / Double(magnitudes.count)
        #expect(abs(mean - 1) < 0.03, "mean |acc| = \(mean) g")
        // Standing still: only sensor noise (σ 0.01 g per axis).
        let standing = file.rows(of: "A").filter { $0.label.isEmpty }.map { norm(vector($0.values)) }
        #expect(standing.allSatisfy { abs($0 - 1) < 0.06 })
    }

    @Test func walkingVerticalAccelerationPeaksAtTheCadence() {
        #expect(cadenceHz >= 1.6 && cadenceHz <= 2.1)
        // The longest walking stretch, skipping its first second (blend from turning).
        let rows = file.rows(of: "A")
        var best = 0..<0, start = 0
        for i in 1...rows.count where i == rows.count || rows[i].label != rows[start].label {
            if rows[start].label == "W", i - start > best.count { best = start..<i }
            start = i
        }
        let walk = rows[best].drop { $0.time < rows[best.lowerBound].time + 1 }
        #expect(walk.count > 500)
        let up = -gravityDirection
        let vertical = walk.map { (vector($0.values) * up).sum() }
        let f = dominantFrequency(times: walk.map(\.time), values: vertical, lowHz: 0.5, highHz: 4, stepHz: 0.01)
        #expect(abs(f - cadenceHz) <= 0.1, "dominant \(f) Hz, cadence \(cadenceHz) Hz")
        // 0.2–0.35 g fundamental plus harmonics: the vertical sd is well above the noise.
        let mean = vertical.reduce(0, +) / Double(vertical.count)
        let sd = (vertical.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(vertical.count)).squareRoot()
        #expect(sd > 0.13 && sd < 0.35, "vertical sd \(sd) g")
    }

    @Test func turningIsASustainedYawRateAboutGravity() {
        let up = -gravityDirection
        func yawRates(_ label: String) -> [Double] {
            file.rows(of: "G").filter { $0.label == label }.map { (vector($0.values) * up).sum() }
        }
        let walking = yawRates("W"), turning = yawRates("T")
        let walkingMean = walking.reduce(0, +) / Double(walking.count)
        let turningMeanAbs = turning.map(abs).reduce(0, +) / Double(turning.count)
        #expect(abs(walkingMean) < 0.05)
        #expect(turningMeanAbs > 1.0 && turningMeanAbs < 1.9, "mean |yaw rate| while turning \(turningMeanAbs)")
    }

    @Test func deviceMotionIsConsistentWithTheRawSensors() {
        let d = file.rows(of: "D")
        let a = file.rows(of: "A")
        // Gravity from pitch and roll (Core Motion: (cosθ sinφ, −sinθ, −cosθ cosφ)) matches the
        // accelerometer while standing, and total − user acceleration is that gravity.
        let standingD = d.filter { $0.label.isEmpty }
        let standingA = a.filter { $0.label.isEmpty }
        let meanA = standingA.reduce(Vector()) { $0 + vector($1.values) } / Double(standingA.count)
        for row in standingD {
            let pitch = row.values[6], roll = row.values[7]
            let gravity = Vector(cos(pitch) * sin(roll), -sin(pitch), -cos(pitch) * cos(roll))
            #expect(norm(gravity - meanA) < 0.02)
        }
        // User acceleration ≈ accelerometer − gravity at nearly the same time, while walking.
        var j = 0, checked = 0
        for row in d where row.label == "W" {
            while j + 1 < a.count, a[j + 1].time <= row.time { j += 1 }
            guard abs(a[j].time - row.time) < 0.002 else { continue }
            let pitch = row.values[6], roll = row.values[7]
            let gravity = Vector(cos(pitch) * sin(roll), -sin(pitch), -cos(pitch) * cos(roll))
            let user = vector(row.values, from: 3)
            #expect(norm(vector(a[j].values) - gravity - user) < 0.12)
            checked += 1
        }
        #expect(checked > 1000)
        // Integrating the rotation rate about vertical follows the yaw angle. With Core Motion's
        // Euler angles (R = Rz(yaw) Rx(pitch) Ry(roll)) the world-vertical rate is
        // yaw' + roll' sin(pitch), and vertical is −gravity from pitch and roll.
        var integrated = 0.0, yawChange = 0.0
        for (next, row) in zip(d.dropFirst(), d) where next.time - row.time < 0.05 {  // not across pauses
            let pitch = row.values[6], roll = row.values[7]
            let up = -Vector(cos(pitch) * sin(roll), -sin(pitch), -cos(pitch) * cos(roll))
            integrated += (vector(row.values) * up).sum() * (next.time - row.time)
            var step = next.values[8] - row.values[8]
            step -= 2 * .pi * (step / (2 * .pi)).rounded()
            yawChange += step + (next.values[7] - row.values[7]) * sin(pitch)
        }
        #expect(abs(yawChange) > 1)
        #expect(abs(integrated - yawChange) < 0.05 + 0.02 * abs(yawChange), "∫ω \(integrated) vs Δyaw \(yawChange)")
    }

    @Test func magnetometerSeesEarthsField() {
        let m = file.rows(of: "M").map { norm(vector($0.values)) }
        let mean = m.reduce(0, +) / Double(m.count)
        #expect(mean > 35 && mean < 60, "mean |B| \(mean) µT")
        // The horizontal field rotates with the heading: while turning the direction changes.
        let turning = file.rows(of: "M").filter { $0.label == "T" }
        let spread = turning.map { $0.values[0] }.max()! - turning.map { $0.values[0] }.min()!
        #expect(spread > 5)
    }
}
