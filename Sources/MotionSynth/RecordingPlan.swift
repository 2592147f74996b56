import Foundation

/// What a subject does during one recording, when the app paused, and the recording's
/// environment: the part of a synthetic recording that every sensor shares.
package struct RecordingPlan: Sendable {
    /// The activities a recording alternates between.
    package enum Scenario: Sendable {
        /// Walking and turning (MotionCollector, IIO): labels W and T.
        case walkAndTurn
        /// Walking on the flat and on stairs (phone-logger CSV): labels walk and stairs.
        case walkAndStairs
    }

    /// One stretch of a single activity.
    package struct Segment: Sendable {
        package enum Activity: Sendable { case standing, walking, turning, stairs }

        /// Start time in seconds on the recording clock (the first segment starts at 0).
        package var start: Double
        /// End time (exclusive); the last segment ends at +∞.
        package var end: Double
        package var activity: Activity
        /// Gait amplitude factor: 0 standing, 1 walking, 0.6 turning, 1.15 on stairs.
        var amplitude: Double
        /// Steps per second in this segment, reached `MotionModel.blendSeconds` after `start`;
        /// the cadence changes smoothly from `previousCadenceHz`.
        package var cadenceHz: Double
        var previousCadenceHz: Double
        /// Gait phase (radians) at `start`; the phase is continuous across segments.
        var phaseAtStart: Double
        /// Walking direction (radians, counter-clockwise from east) at `start`.
        var headingAtStart: Double
        /// Turning only: the sustained signed yaw rate (rad/s) and its ramp-in/out time (s).
        var turnRate: Double, turnRampSeconds: Double
        /// Height (m) at `start` relative to the recording's start, and the climb rate (m/s).
        var altitudeAtStart: Double, climbRate: Double
    }

    /// An app pause: no sensor delivers a sample in [start, end) (seconds).
    package struct Gap: Sendable {
        package var start: Double, end: Double
    }

    /// Metres climbed per stair step.
    static let stepRiseMeters = 0.17

    package var profile: SubjectProfile
    package var scenario: Scenario
    /// Earliest sample time (s): a realistic non-zero offset, 0.0102–0.0302 s.
    package var startTime: Double
    /// Latest sample time (s): the recording's length.
    package var endTime: Double
    /// Activity segments in time order, covering [0, +∞).
    package var segments: [Segment]
    /// App pauses in time order, not overlapping.
    package var gaps: [Gap]
    /// Earth's magnetic field in the world frame (x east, y north, z up), µT.
    var magneticField: SIMD3<Double>
    /// Seed for this recording's sample clocks and sensor noise.
    let streamSeed: UInt64

    /// The plan of recording `recording` (1-based) of subject `subject` (1-based).
    package init(options: SynthOptions, subject: Int, recording: Int, scenario: Scenario) {
        profile = SubjectProfile(seed: options.seed, subject: subject)
        self.scenario = scenario
        let tags = [UInt64(subject), UInt64(recording)]
        var rng = SeededGenerator(seed: SeededGenerator.derive(options.seed, [2] + tags))
        streamSeed = SeededGenerator.derive(options.seed, [3] + tags)
        startTime = 0.0102 + (rng.uniform(0, 0.02) * 1e6).rounded() / 1e6
        endTime = Swift.max(startTime, options.minutes * 60)
        let inclination = rng.uniform(55, 70) * .pi / 180
        let strength = rng.uniform(44, 50)
        magneticField = [0, strength * cos(inclination), -strength * sin(inclination)]
        segments = Self.makeSegments(profile: profile, scenario: scenario, until: endTime, rng: &rng)
        gaps = Self.makeGaps(perMinute: options.gapsPerMinute, from: startTime, until: endTime, rng: &rng)
    }

    private static func makeSegments(profile: SubjectProfile, scenario: Scenario, until endTime: Double,
                                     rng: inout SeededGenerator) -> [Segment] {
        var segments: [Segment] = []
        var time = 0.0
        var phase = rng.uniform(0, 2 * .pi)
        var heading = rng.uniform(-.pi, .pi)
        var altitude = 0.0
        var activity = Segment.Activity.standing
        while time < endTime {
            var segment = Segment(start: time, end: 0, activity: activity, amplitude: 0,
                                  cadenceHz: profile.cadenceHz, previousCadenceHz: segments.last?.cadenceHz ?? profile.cadenceHz,
                                  phaseAtStart: phase, headingAtStart: heading,
                                  turnRate: 0, turnRampSeconds: 0, altitudeAtStart: altitude, climbRate: 0)
            let duration: Double
            switch activity {
            case .standing:
                duration = rng.uniform(2, 5)
            case .walking:
                duration = rng.uniform(8, 20)
                segment.amplitude = 1
            case .turning:
                duration = rng.uniform(2, 5)
                segment.amplitude = 0.6
                segment.cadenceHz *= 0.95
                segment.turnRate = rng.sign() * rng.uniform(1.2, 1.8)
                segment.turnRampSeconds = Swift.min(0.4, duration / 2)
            case .stairs:
                duration = rng.uniform(6, 14)
                segment.amplitude = 1.15
                segment.cadenceHz *= 0.85
                // Mostly alternate floors up and down so the altitude stays bounded.
                let up = altitude <= 0 ? true : (altitude > 6 ? false : rng.chance(0.5))
                segment.climbRate = (up ? 1 : -1) * stepRiseMeters * segment.cadenceHz
            }
            segment.end = time + duration
            // Modulo 4π, not 2π: stride-frequency terms use φ/2, which must not jump by π.
            phase = (phase + segment.phaseAdvance(after: duration)).truncatingRemainder(dividingBy: 4 * .pi)
            heading += segment.turnRate * (duration - segment.turnRampSeconds)
            altitude += segment.climbRate * duration
            segments.append(segment)
            time = segment.end
            switch (activity, scenario) {
            case (.walking, .walkAndTurn): activity = .turning
            case (.walking, .walkAndStairs): activity = .stairs
            default: activity = .walking
            }
        }
        if segments.isEmpty {
            segments.append(Segment(start: 0, end: 0, activity: .standing, amplitude: 0,
                                    cadenceHz: profile.cadenceHz, previousCadenceHz: profile.cadenceHz,
                                    phaseAtStart: phase, headingAtStart: heading,
                                    turnRate: 0, turnRampSeconds: 0, altitudeAtStart: 0, climbRate: 0))
        }
        segments[segments.count - 1].end = .infinity
        return segments
    }

    private static func makeGaps(perMinute: Double, from startTime: Double, until endTime: Double,
                                 rng: inout SeededGenerator) -> [Gap] {
        guard perMinute > 0, perMinute.isFinite else { return [] }
        let spacing = 60 / perMinute
        var gaps: [Gap] = []
        var time = startTime + 5 + rng.uniform(0, 1) * spacing
        while time < endTime {
            let end = time + rng.uniform(0.3, 1.5)
            gaps.append(Gap(start: time, end: end))
            time = end + rng.uniform(0.5, 1.5) * spacing
        }
        return gaps
    }

    /// Index of the segment in force at `time` (the first one before 0).
    package func segmentIndex(at time: Double) -> Int {
        var low = 0, high = segments.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if segments[mid].start <= time { low = mid } else { high = mid - 1 }
        }
        return low
    }
}

extension RecordingPlan.Segment {
    /// Gait phase gained `u` seconds into the segment, and the angular step frequency then
    /// (rad/s): the cadence moves from `previousCadenceHz` to `cadenceHz` along a smoothstep
    /// over the first `MotionModel.blendSeconds`.
    @inline(__always)
    func phaseAdvance(after u: Double) -> Double {
        let blend = MotionModel.blendSeconds
        let change = cadenceHz - previousCadenceHz
        // ∫₀ˣ (3s² − 2s³) ds = x³ − x⁴/2, which is ½ at x = 1.
        let x = Swift.min(u / blend, 1)
        let extra = u < blend ? blend * (x * x * x - 0.5 * x * x * x * x) : 0.5 * blend + (u - blend)
        return 2 * .pi * (previousCadenceHz * u + change * extra)
    }

    /// The angular step frequency (rad/s) `u` seconds into the segment.
    @inline(__always)
    func stepAngularFrequency(after u: Double) -> Double {
        let x = Swift.min(Swift.max(u / MotionModel.blendSeconds, 0), 1)
        return 2 * .pi * (previousCadenceHz + (cadenceHz - previousCadenceHz) * x * x * (3 - 2 * x))
    }
}
