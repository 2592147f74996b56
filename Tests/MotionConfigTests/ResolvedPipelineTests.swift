import Foundation
import MotionCore
import MotionYAML
import Testing
@testable import MotionConfig

/// `motionprep apply` rebuilds a dataset's pipeline from its manifest's `pipeline.resolved` (the
/// canonical JSON) with the pipeline files' own decoder in resolved mode: every pipeline must
/// come back with the same canonical JSON (so the same hash), and reading-relevant details the
/// canonical form does not spell out must come back as the run used them.

/// Pipelines that together use every key of docs/pipeline.md.
let resolvedRoundTripPipelines: [String] = [
    minimalPipeline,
    // csv, wide: ordered channels (not alphabetical), units, label column, wall-clock time, preamble, `;`.
    """
    version: 1
    name: phone
    inputs:
      - type: csv
        paths: ["data/*/Accelerometer.csv", "more/*.txt"]
        subject: "{dir:2}"
        recording: "{dirpath}"
        sensor: Acc
        delimiter: ";"
        skip_lines: 3
        time: {column: "Time stamp", format: "%Y-%m-%d %H:%M:%S.%f"}
        channels: {acc_z: "Z [g]", acc_x: "X [g]", acc_y: "Y [g]"}
        units: {acc_z: g, acc_x: g, acc_y: g}
        label_column: activity
        sort: true
    units: native
    resample: {rate_hz: 25.5, method: {default: nearest, Acc: previous}, max_gap_s: {default: 0.5, Acc: 1.5}, antialias: false}
    window: {length_samples: 64, stride_samples: 16}
    labels: {from: rows, policy: pure, classes: [walk, sit]}
    features: [mean, corr, spectral_entropy]
    magnitude: [acc]
    split: {by: recording, seed: 7, fractions: {train: 0.6, validation: 0.2, test: 0.2}, folds: 5, allocation: exact,
            assign: {test: [s2, s1], train: [s9]}}
    on_error: skip
    output: {type: shards, path: out, windows_per_shard: 100, compression: none, compression_level: 9}

    """,
    // csv, long: sensor_column with channels per sensor; tab delimiter; intervals with the recording clock.
    """
    version: 1
    inputs:
      - type: csv
        paths: ["data/*.tsv"]
        delimiter: "\\t"
        time: {column: t, unit: ms}
        sensor_column: kind
        sensor_channels: {gyro: {gyro_z: gz, gyro_x: gx}, acc: {acc_x: ax}}
        units: {gyro_z: deg/s, gyro_x: deg/s}
    resample: {rate_hz: 100}
    window: {length_s: 1}
    labels: {from: intervals, path: labels.csv, clock: recording, policy: center, map: {W: walk}, classes: [walk]}
    split: {leave_one_out: true}
    output: {path: out}

    """,
    // iio, inline layout (a scale, no offset, a timestamp, a rate) and iio with a layout folder; path labels.
    """
    version: 1
    inputs:
      - type: iio
        paths: ["data/*.bin"]
        strict: true
        layout:
          channels:
            - {name: in_accel_x, index: 0, type: "le:s16/16>>0", scale: 0.01}
            - {name: in_accel_y, index: 1, type: "le:s16/16>>0", offset: -3}
          timestamp: {index: 2, type: "le:s64/64>>0"}
          sampling_frequency_hz: 200
      - type: iio
        paths: ["other/*.bin"]
        sensor: Gyro
        layout: "{dirpath}/sysfs"
    resample: {rate_hz: 50}
    window: {length_s: 2.56}
    labels: {from: path, template: "{dir}", classes: [a, b]}
    output: {path: out}

    """,
    // markers, sensors kept in a given order.
    """
    version: 1
    inputs:
      - type: motioncollector
        paths: ["data/**/*.csv"]
        sensors: [G, A]
    resample: {rate_hz: 50}
    window: {length_s: 2.56, stride_s: 0.64}
    labels: {from: markers, policy: majority, min_fraction: 0.25, classes: [x]}
    output: {path: out}

    """,
]

/// Decodes `json` (a pretty-printed canonical pipeline) as `SourceDataset` does.
func decodeResolved(_ json: String, file: String = "ds/manifest.json") throws -> PipelineSpec {
    let root = try YAMLParser.parse(json, file: file)
    let decoder = SpecDecoder(file: file, baseDirectory: ".", resolved: true)
    guard let spec = decoder.decodePipeline(root), decoder.issues.isEmpty else {
        throw PipelineFileError(file: file, issues: decoder.sortedIssues())
    }
    return spec
}

@Test(arguments: resolvedRoundTripPipelines.indices)
func resolvedPipelineDecodesToTheSameCanonicalJSON(index: Int) throws {
    let spec = try load(resolvedRoundTripPipelines[index])
    for text in [spec.canonicalValue().pretty(), spec.canonicalJSON()] {
        let back = try decodeResolved(text)
        #expect(back.canonicalJSON() == spec.canonicalJSON())
        // `split.assign` and `units` are objects in the canonical form (their order means nothing); the rest must be equal.
        #expect(back.name == spec.name && back.labels == spec.labels && back.output.type == spec.output.type)
        for (a, b) in zip(back.inputs, spec.inputs) {
            #expect(a.csv?.timeFormat == b.csv?.timeFormat && a.csv?.channels == b.csv?.channels
                     && a.csv?.sensorChannels == b.csv?.sensorChannels && a.iio == b.iio)
            #expect(Dictionary(uniqueKeysWithValues: a.units.map { ($0.key, $0.value) }) == Dictionary(uniqueKeysWithValues: b.units.map { ($0.key, $0.value) }))
            // A delimiter the pipeline gave stays binding against a file's `sep=` line; the default `,` does not.
            #expect(a.csv?.delimiterGiven == (b.csv.map { $0.delimiter != UInt8(ascii: ",") }))
        }
    }
}

@Test func aPipelineFileCannotUseTheResolvedForms() {
    // Ordered pairs as a list and null values are manifest forms only.
    let listChannels = edited("type: motioncollector", "type: csv\n    time: {column: t}\n    channels: [{acc_x: x}]")
    #expect(messages(listChannels).contains { $0.contains("`inputs[0].channels` at walk.yaml:5:15 must be a non-empty mapping of names to strings") })
    #expect(!messages(edited("  path: out", "  path: out\nlabels: null")).isEmpty)
}

@Test func aBadResolvedValueIsReportedAtItsPlaceInTheManifest() throws {
    let spec = try load(minimalPipeline)
    let text = spec.canonicalValue().pretty().replacing("\"rate_hz\": 50.0", with: "\"rate_hz\": -50.0")
    do {
        _ = try decodeResolved(text)
        Issue.record("a negative rate decoded")
    } catch let e as PipelineFileError {
        let line = text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("rate_hz") }! + 1
        #expect(e.message.hasPrefix("`resample.rate_hz` at ds/manifest.json:\(line):"))
        #expect(e.exitStatus == .config)
    }
}

/// `resample.antialias_from` (docs/pipeline.md): a pipeline file without it designs the filter
/// from the leading intervals and its canonical form says so; a resolved pipeline without it
/// (a manifest written before the key) is `recording`, with the hash it had.
@Test func antialiasFromDefaultsAndOldManifests() throws {
    let leading = try load(minimalPipeline)
    #expect(leading.resample.antialias && leading.resample.antialiasFrom == .leading)
    #expect(leading.canonicalJSON().contains(#""antialias":true,"antialias_from":"leading","max_gap_s""#))
    let back = try decodeResolved(leading.canonicalJSON())
    #expect(back.resample.antialiasFrom == .leading && back.canonicalJSON() == leading.canonicalJSON())

    // The canonical form of `antialias_from: recording` is the form written before the key
    // existed: old manifests keep their pipeline.sha256 (this is walk.yaml's of 2026-12-06).
    let recording = try load(edited("rate_hz: 50", "rate_hz: 50\n  antialias_from: recording"))
    #expect(recording.resample.antialiasFrom == .recording)
    let old = leading.canonicalJSON().replacingOccurrences(of: #","antialias_from":"leading""#, with: "")
    #expect(recording.canonicalJSON() == old)
    let decodedOld = try decodeResolved(old)
    #expect(decodedOld.resample.antialiasFrom == .recording)
    #expect(decodedOld.canonicalJSON() == old)

    // Without the filter the choice means nothing: no key, and `leading` both ways.
    let off = try load(edited("rate_hz: 50", "rate_hz: 50\n  antialias: false\n  antialias_from: recording"))
    #expect(!off.canonicalJSON().contains("antialias_from"))
    let offBack = try decodeResolved(off.canonicalJSON())
    #expect(off.resample.antialiasFrom == .leading && offBack.resample == off.resample)
}

@Test func antialiasFromMustBeLeadingOrRecording() {
    #expect(throws: PipelineFileError.self) { try load(edited("rate_hz: 50", "rate_hz: 50\n  antialias_from: whole")) }
    do {
        _ = try load(edited("rate_hz: 50", "rate_hz: 50\n  antialias_from: whole"))
    } catch {
        #expect("\(error)".contains("`resample.antialias_from` at walk.yaml:7:19 must be `leading` or `recording`, not `whole`"))
    }
}
