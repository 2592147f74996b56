import MotionCore
import MotionIngest
import Testing
@testable import MotionLive

/// Core Motion's shapes and units into the live library (docs/live.md, "Core Motion"): batches of
/// `AccelerometerSample` in g and `GyroSample` in rad/s, with boot-time timestamps and one clock
/// offset, give the dataset's windows bit for bit, because the g are converted by the very
/// multiplication the MotionCollector reader does (checked on the file read in its native units).
@Suite struct CoreMotionInputTests {
    @Test func coreMotionBatchesGiveTheDatasetsWindows() throws {
        let c = try LiveReplayTests.make(LiveReplayTests.walk)
        defer { c.dir.remove() }
        let path = c.source.files[0].path
        let native = try MotionCollectorReader.read(path: path, displayPath: path, units: .native, keep: ["A", "G"])
        let a = try #require(native.streams.first { $0.name == "A" })
        let g = try #require(native.streams.first { $0.name == "G" })
        #expect(a.channelUnits == ["g", "g", "g"] && g.channelUnits == ["rad/s", "rad/s", "rad/s"])
        #expect(c.streams.map(\.name) == ["A", "G"] && a.times == c.streams[0].times && g.times == c.streams[1].times)
        // The clock: one offset from boot time to the recording's clock, read once. Replaying a
        // recording, its own times are the timestamps (offset 0); adding an offset rounds (it is
        // not what this test is about: units and batches are).
        #expect(DeviceClock(uptime: 5, unixTime: 1_700_000_005).offset == 1_700_000_000)
        #expect(DeviceClock(offset: 1_700_000_000).time(0.5) == 1_700_000_000.5)
        let boot = DeviceClock(offset: 0)
        let live = try LiveProcessor(configuration: c.configuration, sampleIntervals: c.intervals)
        var windows: [LiveWindow] = []
        // Bursts as an app's handlers get them: consecutive samples of one stream.
        var pendingA: [AccelerometerSample] = [], pendingG: [GyroSample] = []
        func flush() throws {
            if !pendingA.isEmpty { windows += try live.push(accelerometer: pendingA, clock: boot); pendingA = [] }
            if !pendingG.isEmpty { windows += try live.push(gyro: pendingG, clock: boot); pendingG = [] }
        }
        var previous = -1
        for (s, j) in LiveReplayTests.arrivals(c.streams, seed: 5) {
            if s != previous { try flush(); previous = s }
            let t = (s == 0 ? a : g).times[j]
            if s == 0 {
                pendingA.append(AccelerometerSample(timestamp: t, acceleration: MotionVector(x: a.channels[0][j], y: a.channels[1][j], z: a.channels[2][j])))
            } else {
                pendingG.append(GyroSample(timestamp: t, rotationRate: MotionVector(x: g.channels[0][j], y: g.channels[1][j], z: g.channels[2][j])))
            }
        }
        try flush()
        windows += live.finish()
        LiveReplayTests.check(c, windows)
    }

    @Test func unitsThatDoNotConvertAreRefused() throws {
        let c = try LiveReplayTests.make(LiveReplayTests.walk, minutes: 0.2)
        defer { c.dir.remove() }
        let live = try LiveProcessor(configuration: c.configuration, sampleIntervals: c.intervals)
        let clock = DeviceClock(offset: 0)
        func message(_ body: () throws -> Void) -> String? {
            do { try body(); return nil } catch { return "\(error)" }
        }
        // The accelerometer's stream is A (m/s², converted from g); G is in rad/s.
        #expect(message { _ = try live.push(accelerometer: [AccelerometerSample(timestamp: 1, acceleration: MotionVector(x: 0, y: 0, z: 1))],
                                            stream: "G", clock: clock) }
                == "channel `gyro_x` of stream `G` is stored in rad/s, and Core Motion gives g, which does not convert to it")
        #expect(message { _ = try live.push(magnetometer: [], clock: clock) }
                == "the dataset has no stream `M`; its streams are `A`, `G`")
        #expect(message { _ = try live.push(altitude: [], stream: "A", clock: clock) }
                == "stream `A` of the dataset has 3 channel(s) (acc_x, acc_y, acc_z), but these Core Motion samples give 2")
        #expect(LiveProcessor.factor(from: "g", to: "m/s^2") == PhysicalUnit.standardGravity)
        #expect(LiveProcessor.factor(from: "g", to: "g") == 1)
        #expect(LiveProcessor.factor(from: "kPa", to: "kPa") == 1)
        #expect(LiveProcessor.factor(from: "rad/s", to: "m/s^2") == nil)
    }
}
