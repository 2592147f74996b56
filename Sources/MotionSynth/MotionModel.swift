import Foundation

/// The noise-free motion of the phone at one instant, in Core Motion's conventions.
package struct MotionSample: Sendable {
    /// Device-to-world rotation (world: x east, y north, z up).
    var attitude: Rotation
    /// Gravity in the device frame, g (magnitude 1; (0, 0, −1) lying face up).
    package var gravity: SIMD3<Double>
    /// User acceleration in the device frame, g (Core Motion's sign: total = gravity + user).
    package var userAcceleration: SIMD3<Double>
    /// Angular velocity in the device frame, rad/s (without sensor bias).
    package var rotationRate: SIMD3<Double>
    /// Height relative to the start of the recording, m.
    package var altitude: Double
    /// What the subject is doing.
    package var activity: RecordingPlan.Segment.Activity

    /// What the accelerometer measures before noise: gravity + user acceleration, g.
    package var acceleration: SIMD3<Double> { gravity + userAcceleration }
}

/// Evaluates a recording's plan at any time: gait harmonics scaled by the activity's envelope,
/// body rocking, turning and climbing, seen through the subject's phone orientation.
///
/// Walker frame: x forward, y left, z up. The device attitude is
/// `Rz(heading) · rocking · phoneInBody`; gyroscope and Device Motion rates are the angular
/// velocity of that attitude (to first order in the small rocking angles), so integrating the
/// gyroscope reproduces the heading and Device Motion's angles.
package struct MotionModel: Sendable {
    package let plan: RecordingPlan
    /// Seconds over which the gait amplitude blends into a new segment's.
    static let blendSeconds = 0.8
    /// Walking speed while turning (m/s), for the centripetal acceleration.
    static let turningSpeed = 0.8
    static let standardGravity = 9.80665

    // Phase offsets as (cos, sin) pairs, precomputed.
    private let v2: SIMD2<Double>, v3: SIMD2<Double>, f1: SIMD2<Double>, f2: SIMD2<Double>
    private let l1: SIMD2<Double>, l2: SIMD2<Double>, rx: SIMD2<Double>, ry: SIMD2<Double>, rz: SIMD2<Double>

    package init(plan: RecordingPlan) {
        self.plan = plan
        let p = plan.profile
        func pair(_ a: Double) -> SIMD2<Double> { [cos(a), sin(a)] }
        v2 = pair(p.verticalPhases.x); v3 = pair(p.verticalPhases.y)
        f1 = pair(p.forwardPhases.x); f2 = pair(p.forwardPhases.y)
        l1 = pair(p.lateralPhases.x); l2 = pair(p.lateralPhases.y)
        rx = pair(p.rockingPhases.x); ry = pair(p.rockingPhases.y); rz = pair(p.rockingPhases.z)
    }

    /// sin(x + p) from sin x, cos x and p as (cos p, sin p).
    @inline(__always)
    private static func sinShifted(_ s: Double, _ c: Double, _ p: SIMD2<Double>) -> Double {
        s * p.x + c * p.y
    }

    /// cos(x + p).
    @inline(__always)
    private static func cosShifted(_ s: Double, _ c: Double, _ p: SIMD2<Double>) -> Double {
        c * p.x - s * p.y
    }

    /// The segment in force at `time` (seconds).
    package func segment(at time: Double) -> RecordingPlan.Segment {
        plan.segments[plan.segmentIndex(at: time)]
    }

    /// The phone's motion at `time` (seconds on the recording clock).
    package func sample(at time: Double) -> MotionSample {
        let index = plan.segmentIndex(at: time)
        let segment = plan.segments[index]
        let p = plan.profile
        let u = Swift.max(0, time - segment.start)

        // Gait envelope, blended from the previous segment's with a smoothstep.
        var envelope = segment.amplitude
        if index > 0, u < Self.blendSeconds {
            let previous = plan.segments[index - 1].amplitude
            let x = u / Self.blendSeconds
            envelope = previous + (segment.amplitude - previous) * x * x * (3 - 2 * x)
        }

        // Heading and its rate.
        var heading = segment.headingAtStart
        var headingRate = 0.0
        if segment.activity == .turning {
            let (angle, rate) = Self.turn(u: u, duration: segment.end - segment.start,
                                          ramp: segment.turnRampSeconds)
            heading += segment.turnRate * angle
            headingRate = segment.turnRate * rate
        }

        // Gait phase φ (one cycle per step) and ψ = φ/2 (one cycle per stride).
        let omega = segment.stepAngularFrequency(after: u)
        let phi = segment.phaseAtStart + segment.phaseAdvance(after: u)
        let psi = 0.5 * phi
        let sPsi = sin(psi), cPsi = cos(psi)
        let s1 = 2 * sPsi * cPsi, c1 = cPsi * cPsi - sPsi * sPsi
        let s2 = 2 * s1 * c1, c2 = c1 * c1 - s1 * s1
        let s3 = s1 * c2 + c1 * s2, c3 = c1 * c2 - s1 * s2
        let s3h = sPsi * c1 + cPsi * s1, c3h = cPsi * c1 - sPsi * s1

        let up = p.vertical.x * s1 + p.vertical.y * Self.sinShifted(s2, c2, v2) + p.vertical.z * Self.sinShifted(s3, c3, v3)
        let forward = p.forward.x * Self.sinShifted(s1, c1, f1) + p.forward.y * Self.sinShifted(s2, c2, f2)
        let lateral = p.lateral.x * Self.sinShifted(sPsi, cPsi, l1) + p.lateral.y * Self.sinShifted(s3h, c3h, l2)
        let centripetal = Self.turningSpeed * headingRate / Self.standardGravity
        // Core Motion reports the negative of the kinematic acceleration as user acceleration.
        let userInBody = SIMD3(-envelope * forward, -envelope * lateral - centripetal, -envelope * up)

        // Body rocking: roll at the stride, pitch at the step, yaw at the stride frequency.
        let angleX = envelope * p.rocking.x * Self.sinShifted(sPsi, cPsi, rx)
        let angleY = envelope * p.rocking.y * Self.sinShifted(s1, c1, ry)
        let angleZ = envelope * p.rocking.z * Self.sinShifted(sPsi, cPsi, rz)
        let rateInBody = SIMD3(envelope * p.rocking.x * 0.5 * omega * Self.cosShifted(sPsi, cPsi, rx),
                               envelope * p.rocking.y * omega * Self.cosShifted(s1, c1, ry),
                               envelope * p.rocking.z * 0.5 * omega * Self.cosShifted(sPsi, cPsi, rz))

        let yaw = Rotation.aboutZ(heading)
        let bodyInWorld = yaw * Rotation.small(x: angleX, y: angleY, z: angleZ)
        let attitude = bodyInWorld * p.phoneInBody
        let rateInWorld = SIMD3<Double>(0, 0, headingRate) + yaw.apply(rateInBody)

        return MotionSample(attitude: attitude,
                            gravity: -attitude.r2,
                            userAcceleration: attitude.applyTransposed(yaw.apply(userInBody)),
                            rotationRate: attitude.applyTransposed(rateInWorld),
                            altitude: segment.altitudeAtStart + segment.climbRate * u,
                            activity: segment.activity)
    }

    /// Earth's field in the device frame (µT), before the phone's offset and noise.
    func magneticField(_ sample: MotionSample) -> SIMD3<Double> {
        sample.attitude.applyTransposed(plan.magneticField)
    }

    /// Fraction of a turn's full rate reached at `u` seconds into it, and the angle turned so far
    /// per unit of rate: raised-cosine ramps of `ramp` seconds at both ends, flat in between.
    /// Over the whole turn the angle is `duration − ramp`.
    static func turn(u: Double, duration: Double, ramp: Double) -> (angle: Double, rate: Double) {
        guard ramp > 0 else { return (Swift.min(u, duration), u < duration ? 1 : 0) }
        func rampUp(_ x: Double) -> (Double, Double) {  // ∫₀ˣ ½(1 − cos πs/τ) ds, and the integrand
            (0.5 * x - ramp / (2 * .pi) * sin(.pi * x / ramp), 0.5 * (1 - cos(.pi * x / ramp)))
        }
        if u <= ramp { return rampUp(u) }
        if u < duration - ramp { return (0.5 * ramp + (u - ramp), 1) }
        let w = Swift.max(0, duration - u)
        let (tail, rate) = rampUp(w)
        return (duration - ramp - tail, rate)
    }
}
