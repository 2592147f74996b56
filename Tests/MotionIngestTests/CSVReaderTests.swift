import Foundation
import MotionCore
import Testing
@testable import MotionIngest

@Suite struct CSVReaderTests {
    static let wide = """
        time,x,y,z,activity
        0.01,1,-0.5,0.25,walk
        0.02, 0 ,1e-05,-1,walk
        0.03,NA,1,1,stairs
        ,1,2,3,walk
        0.05,2,4,8,

        0.06,1e999,0,0,stairs

        """

    @Test func wideValuesUnitsLabelsAndMissingRows() throws {
        let file = try readCSV(Self.wide, units: ["acc_x": "g", "acc_y": "g", "acc_z": "g"], unitSystem: .native)
        #expect(file.streams.map(\.name) == ["Accelerometer"])
        let s = try #require(file.stream("Accelerometer"))
        #expect(s.channelNames == ["acc_x", "acc_y", "acc_z"])
        #expect(s.channelUnits == ["g", "g", "g"])
        #expect(s.times == [0.01, 0.02, 0.05])
        #expect(s.channels == [[1, 0, 2], [-0.5, 1e-05, 4], [0.25, -1, 8]])
        #expect(s.lines == [2, 3, 6])
        // Blank lines are not rows; the NA row, the empty-time row and the 1e999 row are missing.
        #expect(file.rowsRead == 6)
        #expect(file.rowsDropped == ["missing_value": 3])
        // Every row with a label and a time, missing values or not; the empty-time row has none.
        #expect(file.rowLabels == LabelEvents(names: ["walk", "stairs"], times: [0.01, 0.02, 0.03, 0.06],
                                              labels: [0, 0, 1, 1]))
    }

    @Test func siConvertsDeclaredUnitsAndLeavesUndeclaredAsOne() throws {
        let text = "t,ax,p,alt,temp\n1,0.5,1013.25,12.5,2500\n"
        let format = CSVFormat(timeColumn: "t", channels: [.init(name: "acc_x", column: "ax"), .init(name: "pressure", column: "p"),
                                                           .init(name: "altitude", column: "alt"), .init(name: "temp", column: "temp")])
        let units = ["acc_x": "g", "pressure": "hPa", "temp": "mdegC"]
        let si = try #require(try readCSV(text, format: format, units: units, unitSystem: .si).streams.first)
        #expect(si.channelUnits == ["m/s^2", "kPa", "1", "degC"])
        #expect(si.channels == [[0.5 * 9.80665], [1013.25 * 0.1], [12.5], [2500 * 0.001]])
        let native = try #require(try readCSV(text, format: format, units: units, unitSystem: .native).streams.first)
        #expect(native.channelUnits == ["g", "hPa", "1", "mdegC"])
        #expect(native.channels == [[0.5], [1013.25], [12.5], [2500]])
        // The units agree with PhysicalUnit, which ChannelLayout uses too.
        for (name, unit) in zip(si.channelNames, si.channelUnits) {
            #expect(unit == PhysicalUnit.conversion(from: units[name] ?? "1", to: .si).unit)
        }
    }

    static let long = """
        sensor,time,x,y,z,label
        A,0.01,1,2,3,W
        G,0.011,90,180,-90,W
        B,0.012,9,9,9,T
        A,0.02,4,5,6,T
        M,0.021,junk,1,1,T
        G,0.03,NA,0,0,
        A,0.04,7,8,9,

        """

    static let longFormat = CSVFormat(
        timeColumn: "time", labelColumn: "label", sensorColumn: "sensor",
        sensorGroups: [.init(sensor: "A", channels: xyz("acc")), .init(sensor: "G", channels: xyz("gyro")),
                       .init(sensor: "M", channels: xyz("mag")), .init(sensor: "Q", channels: xyz("q"))])

    @Test func longStreamsPerSensorInMappingOrder() throws {
        let file = try readCSV(Self.long, format: Self.longFormat, units: ["gyro_x": "deg/s", "gyro_y": "deg/s", "gyro_z": "deg/s"],
                               unitSystem: .si, keep: ["G", "A", "Q"])
        // Q is kept but has no rows; M is listed but not kept (its junk is never parsed); B is not listed.
        #expect(file.streams.map(\.name) == ["A", "G"])
        let a = try #require(file.stream("A"))
        #expect(a.channelNames == ["acc_x", "acc_y", "acc_z"])
        #expect(a.channelUnits == ["1", "1", "1"])
        #expect(a.times == [0.01, 0.02, 0.04])
        #expect(a.channels == [[1, 4, 7], [2, 5, 8], [3, 6, 9]])
        #expect(a.lines == [2, 5, 8])
        let g = try #require(file.stream("G"))
        #expect(g.channelUnits == ["rad/s", "rad/s", "rad/s"])
        #expect(g.times == [0.011])
        #expect(g.channels == [[90 * Double.pi / 180], [180 * Double.pi / 180], [-90 * Double.pi / 180]])
        #expect(file.rowsRead == 7)
        #expect(file.rowsDropped == ["missing_value": 1])
        #expect(file.rowLabels == LabelEvents(names: ["W", "T"], times: [0.01, 0.011, 0.012, 0.02, 0.021],
                                              labels: [0, 0, 1, 1, 1]))
    }

    @Test func longKeepsEverySensorWithoutKeep() throws {
        let text = Self.long.replacingOccurrences(of: "junk", with: "1")
        let file = try readCSV(text, format: Self.longFormat)
        #expect(file.streams.map(\.name) == ["A", "G", "M"])
        #expect(file.stream("M")?.channels == [[1], [1], [1]])
    }

    @Test func wideStreamIsKeptEvenWhenEveryRowIsMissing() throws {
        let file = try readCSV("time,x,y,z\n1,NA,1,1\n2,,,\n", format: CSVFormat(timeColumn: "time", channels: xyz("acc")))
        #expect(file.streams.count == 1)
        #expect(file.streams[0].count == 0)
        #expect(file.rowsDropped == ["missing_value": 2])
        #expect(file.rowLabels == LabelEvents())
    }

    @Test func columnsInAnyOrderHeaderNamesTrimmedUnreadColumnsIgnored() throws {
        let text = " z , extra ,time, x,y ,activity\n3,whatever,0.5,1,2,run\n"
        let file = try readCSV(text)
        #expect(file.streams[0].channels == [[1], [2], [3]])
        #expect(file.streams[0].times == [0.5])
        #expect(file.rowLabels.names == ["run"])
    }

    @Test func trailingEmptyFieldsAndShortRowsWithoutReadColumns() throws {
        // A row may end early when the columns it lacks are not read; extra fields must be empty.
        let file = try readCSV("time,x,y,z,activity,notes\n1,1,2,3,walk\n2,1,2,3,walk,n,,\n3,1,2,3,walk,,,  \n")
        #expect(file.streams[0].times == [1, 2, 3])
    }

    @Test func labelsAreTrimmedTextInFirstSeenOrder() throws {
        let file = try readCSV("time,x,y,z,activity\n1,0,0,0, stairs up \n2,0,0,0,Gehen–ä\n3,0,0,0,stairs up\n")
        #expect(file.rowLabels == LabelEvents(names: ["stairs up", "Gehen–ä"], times: [1, 2, 3], labels: [0, 1, 0]))
    }

    @Test func fileOnDiskGivesTheSameAsChunks() throws {
        // Several MiB, so `read(path:)` crosses its 1 MiB read boundaries mid-record.
        var text = "time,x,y,z,activity\n"
        var generator = SeededGenerator(seed: 11)
        for i in 0..<120_000 {
            let v = Double(Int(generator.next() % 2_000_001) - 1_000_000) / 1e4
            text += "\(Double(i) / 100),\(v),\"\(v / 2)\",\(-v),\(i % 700 < 350 ? "walk" : "\"stairs, up\"")\n"
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("csv-reader-\(UUID().uuidString).csv").path
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fromDisk = try CSVReader.read(path: path, displayPath: "disk.csv", format: wideFormat, units: ["acc_x": "g"],
                                          unitSystem: .si, wideSensorName: "Accelerometer", keep: nil)
        let fromChunks = try readCSV(text, units: ["acc_x": "g"], unitSystem: .si, path: "disk.csv")
        #expect(fromDisk == fromChunks)
        #expect(fromDisk.streams[0].count == 120_000)
        #expect(fromDisk.rowLabels.names == ["walk", "stairs, up"])
    }

    @Test func missingFileIsNoInput() {
        let result = ingestErrorMessage {
            _ = try CSVReader.read(path: "/nonexistent/rec.csv", displayPath: "rec.csv", format: wideFormat, units: [:],
                                   unitSystem: .si, wideSensorName: "A", keep: nil)
        }
        #expect(result?.message == "rec.csv: cannot open the file: No such file or directory")
        #expect(result?.status == .noInput)
    }
}
