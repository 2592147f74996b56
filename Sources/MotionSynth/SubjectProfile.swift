/// Everything about a subject that stays the same across their recordings: gait and phone.
///
/// Drawn from the seed and the subject number only, so `subject02` walks the same way in every
/// recording and every format written with the same seed.
package struct SubjectProfile: Sendable {
    /// Steps per second while walking on the flat, 1.6–2.1 Hz. The vertical acceleration's
    /// fundamental is at this frequency; lateral sway is at half of it (the stride).
    package var cadenceHz: Double
    /// Vertical user-acceleration amplitudes in g of the 1st, 2nd and 3rd step harmonics.
    var vertical: SIMD3<Double>
    /// Phases (radians) of the vertical 2nd and 3rd harmonics.
    var verticalPhases: SIMD2<Double>
    /// Forward amplitudes (g) at the step frequency and its 2nd harmonic, and their phases.
    var forward: SIMD2<Double>, forwardPhases: SIMD2<Double>
    /// Lateral amplitudes (g) at the stride frequency (½ step) and 3/2 step, and their phases.
    var lateral: SIMD2<Double>, lateralPhases: SIMD2<Double>
    /// Peak body rocking angles (radians) about the walker's forward (stride frequency), left
    /// (step frequency) and up (stride frequency) axes, and their phases.
    var rocking: SIMD3<Double>, rockingPhases: SIMD3<Double>
    /// The phone's fixed orientation relative to the walker frame (x forward, y left, z up).
    var phoneInBody: Rotation
    /// Angles that built `phoneInBody` (Core Motion convention), for documentation and tests.
    package var phonePitch: Double, phoneRoll: Double, phoneYaw: Double
    /// Constant gyroscope bias of the subject's phone (rad/s, device frame).
    var gyroBias: SIMD3<Double>
    /// Magnetometer hard-iron offset of the subject's phone (µT, device frame).
    var magnetometerOffset: SIMD3<Double>

    /// The profile of subject `subject` (1-based) for `seed`.
    package init(seed: UInt64, subject: Int) {
        var rng = SeededGenerator(seed: seed, tags: 1, UInt64(subject))
        cadenceHz = rng.uniform(1.6, 2.1)
        let v1 = rng.uniform(0.2, 0.35)
        vertical = [v1, v1 * rng.uniform(0.3, 0.5), v1 * rng.uniform(0.1, 0.2)]
        verticalPhases = [rng.uniform(-0.6, 0.6), rng.uniform(-0.6, 0.6)]
        let f1 = rng.uniform(0.08, 0.15)
        forward = [f1, f1 * rng.uniform(0.3, 0.5)]
        forwardPhases = [rng.uniform(1.2, 1.9), rng.uniform(-0.5, 0.5)]
        let l1 = rng.uniform(0.05, 0.1)
        lateral = [l1, l1 * rng.uniform(0.2, 0.4)]
        lateralPhases = [rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5)]
        rocking = [rng.uniform(0.04, 0.08), rng.uniform(0.02, 0.04), rng.uniform(0.02, 0.04)]
        rockingPhases = [rng.uniform(0, 6.28), rng.uniform(0, 6.28), rng.uniform(0, 6.28)]
        // A phone held in front or carried upright in a pocket: tilted 30–85° from flat, a little
        // rolled, facing any way relative to the walking direction.
        phonePitch = rng.uniform(30, 85) * .pi / 180
        phoneRoll = rng.uniform(-25, 25) * .pi / 180
        phoneYaw = rng.uniform(-180, 180) * .pi / 180
        phoneInBody = .attitude(pitch: phonePitch, roll: phoneRoll, yaw: phoneYaw)
        gyroBias = [rng.gaussian(sigma: 0.003), rng.gaussian(sigma: 0.003), rng.gaussian(sigma: 0.003)]
        magnetometerOffset = [rng.uniform(-6, 6), rng.uniform(-6, 6), rng.uniform(-6, 6)]
    }
}
