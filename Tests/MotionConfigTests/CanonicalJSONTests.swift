import Foundation
import Testing
@testable import MotionConfig

@Test func canonicalJSONOfTheMinimalPipeline() throws {
    let spec = try load(minimalPipeline)
    #expect(spec.canonicalJSON() == #"{"features":[],"inputs":[{"paths":["data/*.csv"],"recording":null,"sensors":null,"sort":false,"strict":false,"subject":"{dir}","type":"motioncollector","units":{}}],"labels":null,"magnitude":[],"name":"walk","on_error":"fail","output":{"compression":"zstd","compression_level":3,"type":"hdf5","windows_per_shard":8192},"resample":{"antialias":true,"antialias_from":"leading","max_gap_s":{"default":0.25},"method":{"default":"linear"},"rate_hz":50.0},"split":{"allocation":"hash","assign":{},"by":"subject","folds":null,"fractions":{"test":0.15,"train":0.7,"validation":0.15},"leave_one_out":false,"seed":42},"units":"si","version":1,"window":{"length_s":2.56,"stride_s":2.56}}"#)
}

@Test func equivalentPipelinesHaveEqualCanonicalJSON() throws {
    // Same pipeline: keys reordered, flow vs block style, defaults spelled out, other file name
    // and folder, a different output path, `paths` as a single string.
    let spelledOut = """
    output: {type: hdf5, path: elsewhere/out}
    window:
      stride_s: 2.56
      length_s: 2.56
    resample:
      antialias: true
      max_gap_s: {default: 0.25}
      method: linear
      rate_hz: 50.0
    inputs:
      - paths: data/*.csv
        subject: "{dir}"
        type: motioncollector
        sort: false
    units: si
    on_error: fail
    split: {by: subject, seed: 42, fractions: {train: 0.7, validation: 0.15, test: 0.15}}
    name: walk
    version: 1

    """
    let a = try PipelineLoader.load(yaml: minimalPipeline, file: "walk.yaml", baseDirectory: ".")
    let b = try PipelineLoader.load(yaml: spelledOut, file: "other/walk.yml", baseDirectory: "other")
    #expect(a != b)  // file, folder, locations and output path differ…
    #expect(a.canonicalJSON() == b.canonicalJSON())  // …none of which is in the canonical form.
}

@Test(arguments: [
    ("rate_hz: 50", "rate_hz: 51"),
    ("length_s: 2.56", "length_s: 2.5"),
    ("length_s: 2.56", "length_s: 2.56\n  stride_s: 1.28"),
    ("data/*.csv", "data/**/*.csv"),
    ("  path: out", "  path: out\n  type: shards"),
    ("type: motioncollector", "type: motioncollector\n    sensors: [A]"),
    ("rate_hz: 50", "rate_hz: 50\n  max_gap_s: {default: 0.25, Barometer: 2.5}"),
    ("version: 1", "version: 1\nname: run"),
])
func canonicalJSONChangesWithAnyValue(old: String, new: String) throws {
    let a = try load(minimalPipeline)
    let b = try load(edited(old, new))
    #expect(a.canonicalJSON() != b.canonicalJSON())
}

@Test func orderedMappingsKeepTheirOrder() throws {
    func csv(_ channels: String) throws -> String {
        try load(edited("type: motioncollector", "type: csv\n    time: {column: t}\n    channels: \(channels)")).canonicalJSON()
    }
    let ab = try csv("{acc_x: a, acc_y: b}"), ba = try csv("{acc_y: b, acc_x: a}")
    #expect(ab != ba)  // channel order decides the order of `x`
    #expect(ab.contains(#""channels":[{"acc_x":"a"},{"acc_y":"b"}]"#))
}

@Test func canonicalJSONHasNoLocationOrFile() throws {
    let json = try PipelineLoader.load(yaml: minimalPipeline, file: "secret/folder/walk.yaml", baseDirectory: "secret/folder").canonicalJSON()
    #expect(!json.contains("secret"))
    #expect(!json.contains("\"out\""))
    #expect(!json.contains("\"line\"") && !json.contains("\"file\"") && !json.contains("base"))
}

@Test func labelsClockAndTemplateInCanonicalJSON() throws {
    let a = try load(minimalPipeline + "labels: {from: intervals, path: l.csv, classes: [walk]}\n")
    let b = try load(minimalPipeline + "labels: {from: intervals, path: l.csv, clock: input, classes: [walk]}\n")
    let c = try load(minimalPipeline + "labels: {from: intervals, path: l.csv, clock: recording, classes: [walk]}\n")
    #expect(a.canonicalJSON() == b.canonicalJSON())
    #expect(a.canonicalJSON() != c.canonicalJSON())
    #expect(c.canonicalJSON().contains(#""clock":"recording","from":"intervals""#))
    let d = try load(minimalPipeline + "labels: {from: path, template: \"{dir}\", classes: [walk]}\n")
    let e = try load(minimalPipeline + "labels: {from: path, template: \"{dir:2}\", classes: [walk]}\n")
    #expect(d.labels?.from == .path && d.labels?.template == "{dir}")
    #expect(d.canonicalJSON().contains(#""template":"{dir}""#))
    #expect(d.canonicalJSON() != e.canonicalJSON())
}

@Test func labelsAndSplitAssignInCanonicalJSON() throws {
    let a = try load(minimalPipeline + "labels: {map: {W: walk, T: turn}}\nsplit: {assign: {test: [s2, s1]}}\n")
    let b = try load(minimalPipeline + "labels:\n  classes: [turn, walk]\n  map: {T: turn, W: walk}\n  from: rows\n  min_fraction: 0.5\nsplit: {assign: {test: [s1, s2]}}\n")
    #expect(a.canonicalJSON() == b.canonicalJSON())
    #expect(a.canonicalJSON().contains(#""labels":{"classes":["turn","walk"],"clock":"input","from":"rows","map":{"T":"turn","W":"walk"},"min_fraction":0.5,"path":null,"policy":"majority","template":null}"#))
}

/// An inline IIO layout decides how every byte of a dump is decoded, so each of its values must
/// be in the canonical JSON that `pipeline.sha256` hashes (issue #14: `--resume` and `merge`
/// refuse a changed pipeline by that hash; docs/hardening.md, "Data safety: provenance").
@Test func everyInlineIIOLayoutValueIsInTheCanonicalJSON() throws {
    func pipeline(_ layout: String) -> String {
        """
        version: 1
        name: imu
        inputs:
          - type: iio
            paths: ["dumps/*.bin"]
            layout: \(layout)
        resample: {rate_hz: 50}
        window: {length_s: 1}
        output: {type: hdf5, path: out}

        """
    }
    let base = "{channels: [{name: in_accel_x, index: 0, type: 'le:s16/16>>0', scale: 0.5, offset: 1}], timestamp: {index: 1, type: 'le:s64/64>>0'}, sampling_frequency_hz: 100}"
    let variants = [
        base,
        base.replacingOccurrences(of: "name: in_accel_x", with: "name: in_accel_y"),
        base.replacingOccurrences(of: "index: 0", with: "index: 2"),
        base.replacingOccurrences(of: "le:s16/16>>0", with: "be:s16/16>>0"),
        base.replacingOccurrences(of: "scale: 0.5", with: "scale: 0.25"),
        base.replacingOccurrences(of: "offset: 1", with: "offset: 2"),
        base.replacingOccurrences(of: "timestamp: {index: 1", with: "timestamp: {index: 3"),
        base.replacingOccurrences(of: "le:s64/64>>0", with: "le:u64/64>>0"),
        base.replacingOccurrences(of: "sampling_frequency_hz: 100", with: "sampling_frequency_hz: 200"),
        "\"{dirpath}/sysfs\"",
    ]
    let texts = try variants.map { try load(pipeline($0), file: "imu.yaml").canonicalJSON() }
    #expect(Set(texts).count == variants.count, "two different layouts have one canonical form")
    // Every value field of the options is one of those varied above; a new one must be added
    // to the canonical form (and to this test).
    let fields = Mirror(reflecting: IIOOptions()).children.compactMap(\.label).filter { !$0.lowercased().contains("location") }
    #expect(Set(fields) == ["layoutFolder", "channels", "timestampIndex", "timestampType", "samplingFrequencyHz"])
    let channelFields = Mirror(reflecting: IIOOptions.Channel(name: "a", index: 0, type: "le:s16/16>>0")).children
        .compactMap(\.label).filter { !$0.lowercased().contains("location") }
    #expect(Set(channelFields) == ["name", "index", "type", "scale", "offset"])
}
