import MotionCore
import Testing
@testable import MotionConfig

/// An `iio` input's inline `layout:` is checked when the pipeline is loaded: its problems are
/// pipeline problems (78) at the `line:column` of the offending value, reported with the rest.
/// Lines of `iioPipeline`: 5 `layout:`, 6 `channels:` (the layout mapping, column 7), 7 and 8
/// the channels (`index` value at column 37, `type` value at column 46), 9 `timestamp` (`index`
/// value at column 26, `type` value at column 35).
let iioPipeline = """
version: 1
inputs:
  - type: iio
    paths: ["data/*.bin"]
    layout:
      channels:
        - {name: in_accel_x, index: 0, type: "le:s16/16>>0", scale: 0.01}
        - {name: in_accel_y, index: 1, type: "le:s16/16>>0", scale: 0.01}
      timestamp: {index: 2, type: "le:s64/64>>0"}
resample:
  rate_hz: 50
window:
  length_s: 2.56
output:
  path: out

"""

func iioEdited(_ old: String, _ new: String) -> String { edited(old, new, in: iioPipeline) }

let typeForm = "expected `[be|le]:[s|u]realbits/storagebits[Xrepeat][>>shift]` with storagebits 8, 16, 32 or 64, such as `le:s16/16>>0`"

let badInlineLayouts: [BadPipeline] = [
    BadPipeline("realbits above storagebits", iioEdited("index: 0, type: \"le:s16/16>>0\"", "index: 0, type: \"le:s17/16>>0\""),
                "walk.yaml:7:46: `in_accel_x` has type `le:s17/16>>0`: realbits 17 is not between 1 and the storagebits 16 (E_REALBITS; \(typeForm))"),
    BadPipeline("type that does not parse", iioEdited("index: 1, type: \"le:s16/16>>0\"", "index: 1, type: \"xx:q16\""),
                "walk.yaml:8:46: `in_accel_y` has type `xx:q16`: it does not follow the grammar (E_TYPE_MALFORMED; \(typeForm))"),
    BadPipeline("storagebits 12", iioEdited("index: 1, type: \"le:s16/16>>0\"", "index: 1, type: \"le:s12/12>>0\""),
                "walk.yaml:8:46: `in_accel_y` has type `le:s12/12>>0`: storagebits 12 is not 8, 16, 32 or 64 (E_STORAGEBITS; \(typeForm))"),
    BadPipeline("timestamp type", iioEdited("type: \"le:s64/64>>0\"", "type: \"le:s64/32>>0\""),
                "walk.yaml:9:35: `in_timestamp` has type `le:s64/32>>0`: realbits 64 is not between 1 and the storagebits 32 (E_REALBITS; \(typeForm))"),
    BadPipeline("two channels share an index", iioEdited("index: 1", "index: 0"),
                "walk.yaml:8:37: `in_accel_x` and `in_accel_y` are both enabled with scan index 0 (each enabled channel needs its own index) (E_DUP_INDEX)"),
    BadPipeline("the timestamp shares a channel's index", iioEdited("timestamp: {index: 2", "timestamp: {index: 1"),
                "walk.yaml:9:26: `in_accel_y` and `in_timestamp` are both enabled with scan index 1 (each enabled channel needs its own index) (E_DUP_INDEX)"),
    BadPipeline("no time source", iioEdited("      timestamp: {index: 2, type: \"le:s64/64>>0\"}\n", ""),
                "walk.yaml:6:7: `in_timestamp` is not enabled and there is no sampling frequency, so scan times are unknown (enable the timestamp, or give `sampling_frequency` in the layout folder or `sampling_frequency_hz` inline) (E_NO_TIME)"),
    BadPipeline("more than 4096 channels", iioEdited("index: 0, type: \"le:s16/16>>0\"", "index: 0, type: \"le:s16/16X8192>>0\""),
                "walk.yaml:6:7: the layout has more than 4096 channels or a scan over 1048576 bytes (at `in_accel_x`), more than motionprep accepts (E_LIMIT)"),
    BadPipeline("units naming no channel", iioEdited("    layout:", "    units: {acc_x: g, acc_q: g}\n    layout:"),
                "unknown channel `acc_q` in `inputs[0].units` at walk.yaml:5:23; the channels of this iio input are `acc_x`, `acc_y`; did you mean `acc_x`?"),
    BadPipeline("units by sysfs name", iioEdited("    layout:", "    units: {in_accel_x: g}\n    layout:"),
                "unknown channel `in_accel_x` in `inputs[0].units` at walk.yaml:5:13; the channels of this iio input are `acc_x`, `acc_y`"),
    // Reported with the file's other problems, in position order.
    BadPipeline("with other problems", iioEdited("index: 0, type: \"le:s16/16>>0\"", "index: 0, type: \"le:s17/16>>0\"")
                    .replacing("rate_hz: 50", with: "rate_hz: 0"),
                "walk.yaml:7:46: `in_accel_x` has type `le:s17/16>>0`: realbits 17 is not between 1 and the storagebits 16 (E_REALBITS; \(typeForm))",
                "`resample.rate_hz` at walk.yaml:11:12 must be a number greater than 0, not `0`"),
]

@Test(arguments: badInlineLayouts)
func inlineLayoutProblemsAreReportedAtTheirPosition(_ bad: BadPipeline) {
    #expect(messages(bad.yaml) == bad.expected)
}

@Test func inlineLayoutProblemsAreLocated() throws {
    do {
        _ = try load(iioEdited("index: 1, type: \"le:s16/16>>0\"", "index: 1, type: \"xx:q16\""))
        Issue.record("the pipeline loaded")
    } catch let error as PipelineFileError {
        #expect(error.exitStatus == .config)
        #expect(error.issues.map(\.location) == [SourceLocation(file: "walk.yaml", line: 8, column: 46)])
    }
}

@Test func inlineLayoutPositionsAreRecorded() throws {
    let spec = try load(iioEdited("    layout:", "    units: {acc_y: g}\n    layout:"))
    let iio = try #require(spec.inputs[0].iio)
    let at = { (line: Int, column: Int) in SourceLocation(file: "walk.yaml", line: line, column: column) }
    #expect(iio.location == at(7, 7))
    #expect(iio.channels.map(\.indexLocation) == [at(8, 37), at(9, 37)])
    #expect(iio.channels.map(\.typeLocation) == [at(8, 46), at(9, 46)])
    #expect(iio.timestampIndexLocation == at(10, 26))
    #expect(iio.timestampTypeLocation == at(10, 35))
    #expect(spec.inputs[0].units == [KeyValue("acc_y", "g")])
    #expect(spec.inputs[0].unitLocations == [at(5, 13)])
    // Positions are not part of the value.
    #expect(iio == IIOOptions(channels: [.init(name: "in_accel_x", index: 0, type: "le:s16/16>>0", scale: 0.01),
                                         .init(name: "in_accel_y", index: 1, type: "le:s16/16>>0", scale: 0.01)],
                              timestampIndex: 2, timestampType: "le:s64/64>>0"))
}

@Test func layoutWarningsNameTheirPosition() throws {
    let spec = try load(iioEdited("index: 1, type: \"le:s16/16>>0\"", "index: 1, type: \"le:s16/16\""))
    let layout = try spec.inputs[0].iio!.inlineLayout(file: spec.file, key: "inputs[0].layout")
    #expect(layout.warnings.map(\.message) == [
        "walk.yaml:8:46: `in_accel_y` has type `le:s16/16` without `>>shift` (the kernel always prints one); using shift 0 (W_TYPE_NO_SHIFT)",
    ])
}

@Test func folderLayoutsAndTheirUnitsAreCheckedWhenTheFolderIsRead() throws {
    // Channel names are unknown until the folder is read, so any `units` key loads.
    let spec = try load(edited("  - type: motioncollector\n    paths: [\"data/*.csv\"]",
                               "  - type: iio\n    paths: [\"data/*.bin\"]\n    layout: \"{dirpath}/sysfs\"\n    units: {anything: g}"))
    #expect(spec.inputs[0].units == [KeyValue("anything", "g")])
    let issues = spec.inputs[0].unitIssues(channels: ["acc_x", "acc_y", "acc_z"], file: spec.file, index: 0)
    #expect(issues.map(\.message) == [
        "unknown channel `anything` in `inputs[0].units` at walk.yaml:6:13; the channels of this iio input are `acc_x`, `acc_y`, `acc_z`",
    ])
}
