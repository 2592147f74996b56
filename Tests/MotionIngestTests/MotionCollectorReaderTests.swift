import MotionCore
import Testing
@testable import MotionIngest

@Suite struct MotionCollectorReaderTests {
    static let current = """
        Source, Label, When, X, Y, Z, UA_X, UA_Y, UA_Z, Pitch, Roll, Yaw
        A, W, 0.01, 1, -0.5, 0.25
        G, W, 0.011, 0.1, 0.2, 0.3
        D, W, 0.012, 1, 2, 3, 0.5, -1, 2, 0.1, 0.2, 0.3
        M,,0.013,10,20,30
        A,T,0.02,0.0,1e-05,-1
        G, T, 0.021, -0.1, -0.2, -0.3

        """

    @Test func currentVariantNativeUnits() throws {
        let file = try readText(Self.current, units: .native)
        #expect(file.variant == .current)
        #expect(file.streams.map(\.name) == ["A", "G", "M", "D"])
        #expect(file.rowsRead == 6)
        #expect(file.rowsDropped.isEmpty)

        let a = try #require(file.stream("A"))
        #expect(a.channelNames == ["acc_x", "acc_y", "acc_z"])
        #expect(a.channelUnits == ["g", "g", "g"])
        #expect(a.times == [0.01, 0.02])
        #expect(a.channels == [[1, 0], [-0.5, 1e-05], [0.25, -1]])
        #expect(a.lines == [2, 6])

        let g = try #require(file.stream("G"))
        #expect(g.channelNames == ["gyro_x", "gyro_y", "gyro_z"])
        #expect(g.channelUnits == ["rad/s", "rad/s", "rad/s"])
        #expect(g.times == [0.011, 0.021])
        #expect(g.channels == [[0.1, -0.1], [0.2, -0.2], [0.3, -0.3]])
        #expect(g.lines == [3, 7])

        let m = try #require(file.stream("M"))
        #expect(m.channelNames == ["mag_x", "mag_y", "mag_z"])
        #expect(m.channelUnits == ["uT", "uT", "uT"])
        #expect(m.channels == [[10], [20], [30]])

        let d = try #require(file.stream("D"))
        #expect(d.channelNames == ["rot_x", "rot_y", "rot_z", "uacc_x", "uacc_y", "uacc_z", "pitch", "roll", "yaw"])
        #expect(d.channelUnits == ["rad/s", "rad/s", "rad/s", "g", "g", "g", "rad", "rad", "rad"])
        #expect(d.times == [0.012])
        #expect(d.channels == [[1], [2], [3], [0.5], [-1], [2], [0.1], [0.2], [0.3]])
        #expect(d.lines == [4])

        // The M row has no label: no event. Names in order of first occurrence.
        #expect(file.rowLabels == LabelEvents(names: ["W", "T"], times: [0.01, 0.011, 0.012, 0.02, 0.021],
                                              labels: [0, 0, 0, 1, 1]))
        #expect(file.markers == LabelEvents())
    }

    @Test func siUnitsConvertGOnly() throws {
        let file = try readText(Self.current, units: .si)
        let a = try #require(file.stream("A"))
        #expect(a.channelUnits == ["m/s^2", "m/s^2", "m/s^2"])
        #expect(a.channels[0] == [9.80665, 0])
        let expectedY: [Double] = [-0.5 * 9.80665, 1e-05 * 9.80665]
        #expect(a.channels[1] == expectedY)
        let d = try #require(file.stream("D"))
        #expect(d.channelUnits == ["rad/s", "rad/s", "rad/s", "m/s^2", "m/s^2", "m/s^2", "rad", "rad", "rad"])
        let g = 9.80665
        let expectedD: [Double] = [1, 2, 3, 0.5 * g, -g, 2 * g, 0.1, 0.2, 0.3]
        #expect(d.channels.map { $0[0] } == expectedD)
        #expect(try #require(file.stream("G")).channels[0] == [0.1, -0.1])
        #expect(try #require(file.stream("M")).channelUnits == ["uT", "uT", "uT"])
    }

    static let legacy = """
        Type, When, X, Y, Z, UA_X, UA_Y, UA_Z, Pitch, Roll, Yaw
        0, 0.5, 1, 2, 3
        4, 0.75
        1, 0.8, 1, 2, 3, 4, 5, 6, 7, 8, 9
        2, 0.9, 0.1, 0.2, 0.3
        5, 1.5,,,
        3, 1.6, 10, 20, 30
        0, 1.7, -1, -2, -3
        4,2.5
        """

    @Test func legacyVariant() throws {
        let file = try readText(Self.legacy, units: .si)
        #expect(file.variant == .legacy)
        #expect(file.streams.map(\.name) == ["A", "G", "M", "D"])
        #expect(file.rowsRead == 8)
        #expect(file.rowsDropped.isEmpty)
        let a = try #require(file.stream("A"))
        #expect(a.times == [0.5, 1.7])
        let g = 9.80665
        let expectedA: [[Double]] = [[g, -g], [2 * g, -2 * g], [3 * g, -3 * g]]
        #expect(a.channels == expectedA)
        #expect(a.lines == [2, 8])
        let d = try #require(file.stream("D"))
        let expectedD: [Double] = [1, 2, 3, 4 * g, 5 * g, 6 * g, 7, 8, 9]
        #expect(d.channels.map { $0[0] } == expectedD)
        #expect(try #require(file.stream("G")).channels == [[0.1], [0.2], [0.3]])
        #expect(try #require(file.stream("M")).times == [1.6])
        #expect(file.markers == LabelEvents(names: ["W", "T"], times: [0.75, 1.5, 2.5], labels: [0, 1, 0]))
        #expect(file.rowLabels == LabelEvents())
    }

    @Test func bomCRLFAndBlankLinesChangeNothing() throws {
        let plain = try readText(Self.current)
        let windows = "\u{FEFF}" + Self.current.replacingOccurrences(of: "\n", with: "\r\n") + "\r\n\n  \n"
        #expect(try readText(windows) == plain)
        let noFinalNewline = String(Self.current.dropLast())
        #expect(try readText(noFinalNewline) == plain)
    }

    @Test func headerVariants() throws {
        for header in ["Source,Label,When,X,Y,Z", "source, label, when, x, y, z, ua_x", "\tSource ,Label,When,X,Y,Z,UA_X,UA_Y,UA_Z,Pitch,Roll,Yaw,"] {
            let file = try readText(header + "\nA,W,1,2,3,4\n")
            #expect(file.variant == .current, "\(header)")
            #expect(file.stream("A")?.channels == [[2], [3], [4]])
        }
        #expect(try readText("Type,When,X,Y,Z\n0,1,2,3,4\n").variant == .legacy)
    }

    @Test func blankLinesInsideAreSkippedButCountForLineNumbers() throws {
        let file = try readText("Source,Label,When,X,Y,Z\n\nA,W,1,2,3,4\n   \nA,W,2,2,3,4\n")
        #expect(file.rowsRead == 2)
        #expect(file.stream("A")?.lines == [3, 5])
    }

    @Test func keepOnlySomeSensors() throws {
        // The A row's values are garbage, but A is not kept: its label still counts.
        let text = """
            Source,Label,When,X,Y,Z
            A,W,0.5,junk,junk,junk
            G,T,0.6,1,2,3
            D,W,0.7,1,2,3,4,5,6,7,8,9

            """
        let file = try readText(text, keep: ["G"])
        #expect(file.streams.map(\.name) == ["G"])
        #expect(file.rowsRead == 3)
        #expect(file.rowLabels == LabelEvents(names: ["W", "T"], times: [0.5, 0.6, 0.7], labels: [0, 1, 0]))
        #expect(try readText(text.replacingOccurrences(of: "junk", with: "1"), keep: []).streams.isEmpty)
    }

    @Test func labelsAreAnyText() throws {
        let file = try readText("Source,Label,When,X,Y,Z\nA, stairs up ,1,0,0,0\nA,Gehen–ä,2,0,0,0\nA,stairs up,3,0,0,0\n")
        #expect(file.rowLabels == LabelEvents(names: ["stairs up", "Gehen–ä"], times: [1, 2, 3], labels: [0, 1, 0]))
    }

    @Test func emptyTrailingFieldsAreTolerated() throws {
        let file = try readText("Source,Label,When,X,Y,Z,UA_X,UA_Y,UA_Z,Pitch,Roll,Yaw\nA,W,1,2,3,4,,,,,,\n")
        #expect(file.stream("A")?.channels == [[2], [3], [4]])
    }

    @Test func sniffRecognisesBothHeaders() {
        #expect(MotionCollectorReader.sniff(Array("\u{FEFF}Source, Label, When, X, Y, Z\r\nA,".utf8)) == .current)
        #expect(MotionCollectorReader.sniff(Array("Type, When, X, Y, Z, UA_X\n0,1".utf8)) == .legacy)
        #expect(MotionCollectorReader.sniff(Array("time,acc_x\n".utf8)) == nil)
        #expect(MotionCollectorReader.sniff([0, 1, 2, 0xFF]) == nil)
        #expect(MotionCollectorReader.sniff([]) == nil)
    }
}

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
