import MotionCore
import Testing
@testable import MotionIngest

@Suite struct TimeOrderTests {
    static func raw(_ times: [Double], _ values: [Double], lines: [Int32]? = nil) -> RawStream {
        RawStream(name: "A", channelNames: ["acc_x"], channelUnits: ["g"], times: times, channels: [values],
                  lines: lines ?? times.indices.map { Int32($0 + 2) })
    }

    @Test func decreasingTimeIsAnErrorNamingTheLine() {
        let got = ingestErrorMessage {
            _ = try TimeOrder.finalize(Self.raw([0, 1, 1.5, 0.5, 0.2], [1, 2, 3, 4, 5], lines: [2, 5, 8, 11, 12]),
                                       sort: false, displayPath: "rec.csv")
        }
        #expect(got?.message == "rec.csv:11: `A` time 0.5 is earlier than the previous `A` sample's 1.5 at line 8 "
            + "(times in a stream must not decrease; `sort: true` on the input sorts them)")
        #expect(got?.status == .dataError)
    }

    @Test func decreasingTimeFromAFile() throws {
        let file = try readText("Source,Label,When,X,Y,Z\nA,W,1,0,0,0\nG,W,0.5,0,0,0\nA,W,2,0,0,0\nG,W,0.7,0,0,0\nA,W,1.5,0,0,0\n")
        #expect(throws: Never.self) { try TimeOrder.finalize(file.stream("G")!, sort: false, displayPath: "rec.csv") }
        let got = ingestErrorMessage { _ = try TimeOrder.finalize(file.stream("A")!, sort: false, displayPath: "rec.csv") }
        #expect(got?.message == "rec.csv:6: `A` time 1.5 is earlier than the previous `A` sample's 2.0 at line 4 "
            + "(times in a stream must not decrease; `sort: true` on the input sorts them)")
    }

    @Test func sortIsStableAndEqualTimesKeepTheLast() throws {
        let (stream, duplicates) = try TimeOrder.finalize(Self.raw([2, 1, 3, 1, 2, 0], [10, 11, 12, 13, 14, 15]),
                                                          sort: true, displayPath: "rec.csv")
        // Stable order: 0(15) 1(11) 1(13) 2(10) 2(14) 3(12); equal times keep the last.
        #expect(stream.times == [0, 1, 2, 3])
        #expect(stream.channels == [[15, 13, 14, 12]])
        #expect(duplicates == 2)
        #expect(stream.name == "A" && stream.channelNames == ["acc_x"] && stream.channelUnits == ["g"])
    }

    @Test func duplicatesWithoutSortKeepTheLast() throws {
        let (stream, duplicates) = try TimeOrder.finalize(Self.raw([0, 1, 1, 1, 2], [10, 11, 12, 13, 14]),
                                                          sort: false, displayPath: "rec.csv")
        #expect(stream.times == [0, 1, 2])
        #expect(stream.channels == [[10, 13, 14]])
        #expect(duplicates == 2)
    }

    @Test func orderedStreamPassesThrough() throws {
        let raw = Self.raw([0, 0.5, 1], [1, 2, 3])
        for sort in [false, true] {
            let (stream, duplicates) = try TimeOrder.finalize(raw, sort: sort, displayPath: "rec.csv")
            #expect(stream.times == raw.times && stream.channels == raw.channels)
            #expect(duplicates == 0)
        }
    }

    @Test(arguments: [[Double](), [4.25]])
    func emptyAndOneSampleStreams(_ times: [Double]) throws {
        for sort in [false, true] {
            let (stream, duplicates) = try TimeOrder.finalize(Self.raw(times, times.map { $0 * 2 }), sort: sort, displayPath: "x")
            #expect(stream.times == times)
            #expect(stream.channels == [times.map { $0 * 2 }])
            #expect(duplicates == 0)
        }
    }

    @Test func everyChannelIsPermutedTogether() throws {
        let raw = RawStream(name: "G", channelNames: ["gyro_x", "gyro_y"], channelUnits: ["rad/s", "rad/s"],
                            times: [3, 1, 2], channels: [[30, 10, 20], [-3, -1, -2]], lines: [2, 3, 4])
        let (stream, _) = try TimeOrder.finalize(raw, sort: true, displayPath: "x")
        #expect(stream.channels == [[10, 20, 30], [-1, -2, -3]])
    }
}
