import Testing
@testable import MotionIngest

@Suite struct MissingValueTests {
    @Test func missingValuesDropTheRowButKeepItsLabel() throws {
        let text = """
            Source,Label,When,X,Y,Z
            A,W,1.0,,0,0
            A,W,1.1,NA,0,0
            A,T,1.2,0,nan,0
            A,T,1.3,0,0,inf
            A,W,1.4,1e999,0,0
            A,W,1.45,0, -Infinity ,0
            A,W,,1,2,3
            A,T,1.6,1,2,3
            G,W,1.7,1,null,3

            """
        let file = try readText(text)
        #expect(file.rowsRead == 9)
        #expect(file.rowsDropped == ["missing_value": 8])
        let a = try #require(file.stream("A"))
        #expect(a.times == [1.6])
        #expect(a.channels == [[1], [2], [3]])
        #expect(a.lines == [9])
        // G is present, with no samples.
        #expect(file.stream("G")?.count == 0)
        // Every row with a label and a time gives an event, missing values or not.
        #expect(file.rowLabels.times == [1.0, 1.1, 1.2, 1.3, 1.4, 1.45, 1.6, 1.7])
        #expect(file.rowLabels.labels == [0, 0, 1, 1, 0, 0, 1, 0])
    }

    @Test func rowsOfSensorsNotKeptAreNotCounted() throws {
        let file = try readText("Source,Label,When,X,Y,Z\nA,W,1,,0,0\nG,W,1,,0,0\n", keep: ["G"])
        #expect(file.rowsDropped == ["missing_value": 1])
    }

    @Test func legacyMarkerWithoutTimeIsDropped() throws {
        let file = try readText("Type,When,X,Y,Z\n4,\n0,1,2,3,4\n5, 2\n")
        #expect(file.markers == LabelEvents(names: ["T"], times: [2], labels: [0]))
        #expect(file.rowsDropped == ["missing_value": 1])
        #expect(file.rowsRead == 3)
    }
}
