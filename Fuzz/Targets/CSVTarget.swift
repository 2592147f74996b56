// libFuzzer target: CSVReader (docs/inputs.md, "Delimited text (csv)" and "Bad rows and time order") then TimeOrder, on arbitrary bytes.
// The first bytes pick the dialect (delimiter, time unit, wide or long, units, sort, chunking);
// the rest is the file. Header names are fixed (`t,x,y,z,label,sensor`) so that the seed corpus
// reaches the row parser.
import MotionCore
import MotionIngest

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCSV(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let control = input.byte()
    let unitByte = input.byte()
    let chunkSeed = input.byte()
    let delimiter: UInt8 = [UInt8(ascii: ","), UInt8(ascii: ";"), 0x09][Int(control % 3)]
    let timeUnit = CSVFormat.TimeUnit.allCases[Int(unitByte) % CSVFormat.TimeUnit.allCases.count]
    let long = control & 0x04 != 0
    let labels = control & 0x08 != 0
    let format: CSVFormat
    if long {
        format = CSVFormat(delimiter: delimiter, timeColumn: "t", timeUnit: timeUnit,
                           labelColumn: labels ? "label" : nil, sensorColumn: "sensor",
                           sensorGroups: [
                               .init(sensor: "A", channels: [.init(name: "acc_x", column: "x"), .init(name: "acc_y", column: "y")]),
                               .init(sensor: "G", channels: [.init(name: "gyro_x", column: "x"), .init(name: "gyro_z", column: "z")]),
                           ])
    } else {
        format = CSVFormat(delimiter: delimiter, timeColumn: "t", timeUnit: timeUnit,
                           channels: [.init(name: "acc_x", column: "x"), .init(name: "acc_y", column: "y"), .init(name: "acc_z", column: "z")],
                           labelColumn: labels ? "label" : nil)
    }
    let units = control & 0x10 != 0 ? ["acc_x": "g", "acc_y": "hPa", "gyro_z": "deg/s"] : [:]
    let system: UnitSystem = control & 0x20 != 0 ? .native : .si
    let keep: Set<String>? = control & 0x40 != 0 ? ["G"] : nil
    do {
        let file = try CSVReader.read(chunks: FuzzInput.chunks(input.rest, seed: chunkSeed), displayPath: "fuzz.csv",
                                      format: format, units: units, unitSystem: system, wideSensorName: "imu", keep: keep)
        for raw in file.streams {
            precondition(raw.channels.allSatisfy { $0.count == raw.count }, "fuzz: ragged stream")
            _ = try TimeOrder.finalize(raw, sort: control & 0x80 != 0, displayPath: "fuzz.csv")
        }
        _ = file.rowLabels.track()
    } catch {
        requireUserFacing(error)
    }
    return 0
}
