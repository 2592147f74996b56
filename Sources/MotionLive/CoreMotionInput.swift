import MotionCore

// Core Motion's shapes and units (docs/live.md, "Core Motion"), mirrored as plain value types so
// that the same code runs, and is tested, on Linux: an app maps each Core Motion object to one of
// these in a line (the snippet in docs/live.md) and pushes batches as its handlers receive them.

/// Three axes, as `CMAcceleration`, `CMRotationRate` and `CMMagneticField` hold them.
public struct MotionVector: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var z: Double

    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
}

/// `CMAccelerometerData`: `acceleration` in g (Core Motion's unit, as MotionCollector writes it),
/// `timestamp` in seconds since the device booted.
public struct AccelerometerSample: Sendable, Equatable {
    public var timestamp: Double
    public var acceleration: MotionVector
    public init(timestamp: Double, acceleration: MotionVector) {
        self.timestamp = timestamp
        self.acceleration = acceleration
    }
}

/// `CMGyroData`: `rotationRate` in rad/s.
public struct GyroSample: Sendable, Equatable {
    public var timestamp: Double
    public var rotationRate: MotionVector
    public init(timestamp: Double, rotationRate: MotionVector) {
        self.timestamp = timestamp
        self.rotationRate = rotationRate
    }
}

/// `CMMagnetometerData`: `magneticField` in µT.
public struct MagnetometerSample: Sendable, Equatable {
    public var timestamp: Double
    public var magneticField: MotionVector
    public init(timestamp: Double, magneticField: MotionVector) {
        self.timestamp = timestamp
        self.magneticField = magneticField
    }
}

/// `CMDeviceMotion`: `rotationRate` in rad/s, `userAcceleration` in g, and the attitude's pitch,
/// roll and yaw in rad — MotionCollector's `D` rows, in that order (`rot_*`, `uacc_*`, `pitch`,
/// `roll`, `yaw`).
public struct DeviceMotionSample: Sendable, Equatable {
    public var timestamp: Double
    public var rotationRate: MotionVector
    public var userAcceleration: MotionVector
    public var pitch: Double
    public var roll: Double
    public var yaw: Double
    public init(timestamp: Double, rotationRate: MotionVector, userAcceleration: MotionVector, pitch: Double, roll: Double, yaw: Double) {
        self.timestamp = timestamp
        self.rotationRate = rotationRate
        self.userAcceleration = userAcceleration
        self.pitch = pitch
        self.roll = roll
        self.yaw = yaw
    }
}

/// `CMAltitudeData`: `pressure` in kPa, `relativeAltitude` in m.
public struct AltitudeSample: Sendable, Equatable {
    public var timestamp: Double
    public var pressure: Double
    public var relativeAltitude: Double
    public init(timestamp: Double, pressure: Double, relativeAltitude: Double) {
        self.timestamp = timestamp
        self.pressure = pressure
        self.relativeAltitude = relativeAltitude
    }
}

/// Core Motion's timestamps count from boot; a dataset's times are on its recordings' clock
/// (MotionCollector: Unix seconds). The offset between the two is taken once, when recording
/// starts, and added to every timestamp, so that the grid a processor lays is on the clock the
/// dataset's was (docs/live.md, "Core Motion").
public struct DeviceClock: Sendable, Equatable {
    /// Seconds added to a timestamp since boot.
    public var offset: Double

    public init(offset: Double) {
        self.offset = offset
    }

    /// The offset from boot time to Unix time, from one reading of both clocks: in an app,
    /// `DeviceClock(uptime: ProcessInfo.processInfo.systemUptime, unixTime: Date().timeIntervalSince1970)`.
    public init(uptime: Double, unixTime: Double) {
        offset = unixTime - uptime
    }

    /// `timestamp` (since boot) on the recording's clock.
    @inline(__always)
    public func time(_ timestamp: Double) -> Double { timestamp + offset }
}

extension LiveProcessor {
    /// Accelerometer batches (`CMAccelerometerData`, g), for the stream `stream` (MotionCollector's `A`).
    public func push(accelerometer samples: [AccelerometerSample], stream: String = "A", clock: DeviceClock) throws(LiveError) -> [LiveWindow] {
        try pushCoreMotion(stream, units: ["g", "g", "g"], count: samples.count, clock: clock,
                           timestamp: { samples[$0].timestamp }) { i, out in
            let a = samples[i].acceleration
            out.append(a.x); out.append(a.y); out.append(a.z)
        }
    }

    /// Gyroscope batches (`CMGyroData`, rad/s), for `stream` (MotionCollector's `G`).
    public func push(gyro samples: [GyroSample], stream: String = "G", clock: DeviceClock) throws(LiveError) -> [LiveWindow] {
        try pushCoreMotion(stream, units: ["rad/s", "rad/s", "rad/s"], count: samples.count, clock: clock,
                           timestamp: { samples[$0].timestamp }) { i, out in
            let r = samples[i].rotationRate
            out.append(r.x); out.append(r.y); out.append(r.z)
        }
    }

    /// Magnetometer batches (`CMMagnetometerData`, µT), for `stream` (MotionCollector's `M`).
    public func push(magnetometer samples: [MagnetometerSample], stream: String = "M", clock: DeviceClock) throws(LiveError) -> [LiveWindow] {
        try pushCoreMotion(stream, units: ["uT", "uT", "uT"], count: samples.count, clock: clock,
                           timestamp: { samples[$0].timestamp }) { i, out in
            let m = samples[i].magneticField
            out.append(m.x); out.append(m.y); out.append(m.z)
        }
    }

    /// Device-motion batches (`CMDeviceMotion`), for `stream` (MotionCollector's `D`: rotation
    /// rate, user acceleration in g, pitch, roll, yaw).
    public func push(deviceMotion samples: [DeviceMotionSample], stream: String = "D", clock: DeviceClock) throws(LiveError) -> [LiveWindow] {
        try pushCoreMotion(stream, units: ["rad/s", "rad/s", "rad/s", "g", "g", "g", "rad", "rad", "rad"], count: samples.count,
                           clock: clock, timestamp: { samples[$0].timestamp }) { i, out in
            let s = samples[i]
            out.append(s.rotationRate.x); out.append(s.rotationRate.y); out.append(s.rotationRate.z)
            out.append(s.userAcceleration.x); out.append(s.userAcceleration.y); out.append(s.userAcceleration.z)
            out.append(s.pitch); out.append(s.roll); out.append(s.yaw)
        }
    }

    /// Altimeter batches (`CMAltitudeData`: kPa, m), for `stream`, whose channels are the
    /// pressure and the relative altitude, in that order (a csv input with those two channels).
    public func push(altitude samples: [AltitudeSample], stream: String, clock: DeviceClock) throws(LiveError) -> [LiveWindow] {
        try pushCoreMotion(stream, units: ["kPa", "m"], count: samples.count, clock: clock,
                           timestamp: { samples[$0].timestamp }) { i, out in
            out.append(samples[i].pressure); out.append(samples[i].relativeAltitude)
        }
    }

    /// The factor that takes a value in `unit` (Core Motion's) to `datasetUnit`, the unit the
    /// dataset stores the channel in: 1 when they are the same, else the factor of
    /// `PhysicalUnit.conversion` (docs/inputs.md, "Units": the very multiplication the readers do,
    /// so g × 9.80665 here is bit for bit the dataset's m/s² of the same g); nil when neither holds.
    static func factor(from unit: String, to datasetUnit: String) -> Double? {
        if unit == datasetUnit { return 1 }
        let si = PhysicalUnit.conversion(from: unit, to: .si)
        return si.unit == datasetUnit ? si.factor : nil
    }

    private func pushCoreMotion(_ name: String, units: [String], count: Int, clock: DeviceClock,
                                timestamp: (Int) -> Double, values: (Int, inout [Double]) -> Void) throws(LiveError) -> [LiveWindow] {
        guard let s = configuration.streamIndex(name) else {
            throw LiveError("the dataset has no stream `\(name)`; its streams are \(configuration.streams.map { "`\($0.name)`" }.joined(separator: ", "))")
        }
        let stream = configuration.streams[s]
        guard stream.channelNames.count == units.count else {
            throw LiveError("stream `\(name)` of the dataset has \(stream.channelNames.count) channel(s) (\(stream.channelNames.joined(separator: ", "))), but these Core Motion samples give \(units.count)")
        }
        var factors: [Double] = []
        for (k, unit) in units.enumerated() {
            guard let f = Self.factor(from: unit, to: stream.channelUnits[k]) else {
                throw LiveError("channel `\(stream.channelNames[k])` of stream `\(name)` is stored in \(stream.channelUnits[k]), and Core Motion gives \(unit), which does not convert to it")
            }
            factors.append(f)
        }
        var times: [Double] = []
        var flat: [Double] = []
        times.reserveCapacity(count)
        flat.reserveCapacity(count * units.count)
        for i in 0..<count {
            times.append(clock.time(timestamp(i)))
            let start = flat.count
            values(i, &flat)
            for k in 0..<units.count { flat[start + k] *= factors[k] }
        }
        return try push(stream: s, times: times, values: flat)
    }
}
