import Testing
import MotionCore
@testable import MotionConfig

/// The example of docs/pipeline.md, verbatim (comments included).
let specExample = """
version: 1
name: walk
inputs:
  - type: motioncollector          # motioncollector | csv | iio
    paths: ["../datasets/walk/**/*.csv"]
    subject: "{dir}"               # templates: {stem} file name without extension, {dir} parent folder's name,
                                   #   {dir:2} the grandparent's name, {dirpath} parent folder's path relative
                                   #   to the pipeline file ("." beside it)
    sensors: [A, G]                # optional, any input type: the streams to keep; default all
units: si                          # si (default) | native
resample:
  rate_hz: 50
  method: linear                   # linear (default) | nearest | previous
  max_gap_s: 0.2                   # default 0.25; or per sensor: {default: 0.2, Barometer: 2.5}
  # method may also be per sensor:  {default: linear, Barometer: previous}
  antialias: false                 # default true: low-pass a stream before sampling it below its own rate
window:
  length_s: 2.56                   # or length_samples: 128
  stride_s: 1.28                   # or stride_samples: 64
labels:
  from: rows                       # rows | markers | intervals
  policy: majority                 # majority | center | pure
  min_fraction: 0.8                # majority only; default 0.5
  # path: labels.csv               # from: intervals only
  map: {W: walk, T: turn}          # optional renames
  classes: [walk, turn]            # the class ids, in order; default: the sorted values of `map`;
                                   #   one of the two is required when `labels` is given
features: [mean, std, min, max, rms]   # optional; see docs/signal.md
magnitude: [acc]                   # optional: append channel acc_mag = sqrt(acc_x²+acc_y²+acc_z²) to x
split:
  by: subject                      # subject (default) | recording
  seed: 42
  fractions: {train: 0.7, validation: 0.15, test: 0.15}   # the default; must sum to 1 (±1e-9)
  # assign: {test: [subject07]}    # optional: pin subjects to a split
  # folds: 5                       # optional: also write fold_index for k-fold / grouped CV
on_error: fail                     # fail (default) | skip: a recording that cannot be read is skipped, counted and listed
output:
  type: hdf5                       # hdf5 | shards
  path: ../build/walk

"""

@Test func specExampleDecodesToTheExpectedSpec() throws {
    // The original contract's example also sets `windows_per_shard` under `type: hdf5`; that line is checked
    // separately below.
    let spec = try PipelineLoader.load(yaml: specExample, file: "pipelines/walk.yaml", baseDirectory: "pipelines")
    let expected = PipelineSpec(
        file: "pipelines/walk.yaml", baseDirectory: "pipelines", version: 1, name: "walk",
        inputs: [InputSpec(type: .motioncollector, paths: ["../datasets/walk/**/*.csv"], subject: "{dir}",
                           sensors: ["A", "G"],
                           location: SourceLocation(file: "pipelines/walk.yaml", line: 4, column: 5))],
        units: .si,
        resample: ResampleSpec(rateHz: 50, method: PerSensor(.linear), maxGapS: PerSensor(0.2), antialias: false),
        window: WindowSpec(length: .seconds(2.56), stride: .seconds(1.28)),
        labels: LabelsSpec(from: .rows, policy: .majority, minFraction: 0.8, path: nil,
                           map: [KeyValue("W", "walk"), KeyValue("T", "turn")], classes: ["walk", "turn"]),
        features: ["mean", "std", "min", "max", "rms"], magnitude: ["acc"],
        split: SplitSpec(by: .subject, seed: 42, train: 0.7, validation: 0.15, test: 0.15),
        onError: .fail,
        output: OutputSpec(type: .hdf5, path: "../build/walk"))
    #expect(spec == expected)
}

@Test func specExampleWithWindowsPerShardUnderHDF5IsAcceptedAndChecked() throws {
    let text = edited("  path: ../build/walk\n", "  path: ../build/walk\n  windows_per_shard: 8192\n", in: specExample)
    let spec = try PipelineLoader.load(yaml: text, file: "walk.yaml", baseDirectory: ".")
    #expect(spec.output.type == .hdf5 && spec.output.windowsPerShard == 8192)
    let bad = edited("  path: ../build/walk\n", "  path: ../build/walk\n  windows_per_shard: 0\n", in: specExample)
    #expect(messages(bad) == ["`output.windows_per_shard` at walk.yaml:40:22 must be a whole number of at least 1, not `0`"])
}

@Test func minimalPipelineGetsEveryDefault() throws {
    let spec = try load(minimalPipeline, file: "walk.yaml")
    #expect(spec == PipelineSpec(
        file: "walk.yaml", baseDirectory: ".", name: "walk",
        inputs: [InputSpec(type: .motioncollector, paths: ["data/*.csv"], location: SourceLocation(file: "walk.yaml", line: 3, column: 5))],
        resample: ResampleSpec(rateHz: 50),
        window: WindowSpec(length: .seconds(2.56), stride: .seconds(2.56)),
        output: OutputSpec(path: "out")))
    #expect(spec.inputs[0].subject == "{dir}")
    #expect(spec.resample.maxGapS == PerSensor(0.25))
    #expect(spec.resample.method == PerSensor(.linear))
    #expect(spec.resample.antialias)
    #expect(spec.split == SplitSpec(by: .subject, seed: 42, train: 0.7, validation: 0.15, test: 0.15))
    #expect(spec.labels == nil && spec.features.isEmpty && spec.magnitude.isEmpty)
    #expect(spec.onError == .fail && spec.units == .si)
    #expect(spec.output.windowsPerShard == 8192 && spec.output.compressionLevel == 3 && spec.output.type == .hdf5)
}

@Test func perSensorSettingsAndSampleWindows() throws {
    let spec = try load(edited("rate_hz: 50", """
    rate_hz: 100
      method: {Barometer: previous}
      max_gap_s: {default: 0.1, Barometer: 2.5}
    """, in: edited("length_s: 2.56", "length_samples: 128\n  stride_samples: 64")))
    #expect(spec.resample.method == PerSensor(.linear, overrides: [KeyValue("Barometer", .previous)]))
    #expect(spec.resample.maxGapS == PerSensor(0.1, overrides: [KeyValue("Barometer", 2.5)]))
    #expect(spec.resample.maxGapS.value(for: "Barometer") == 2.5)
    #expect(spec.window == WindowSpec(length: .samples(128), stride: .samples(64)))
    // Where the `window` key is, for "the run produced no window" (not part of equality).
    #expect(spec.window.location?.description.hasSuffix(":9:1") == true)
}

@Test func labelClassesDefaultToTheSortedValuesOfMap() throws {
    let spec = try load(minimalPipeline + "labels:\n  map: {W: walk, T: turn, X: walk, S: Stand}\n  policy: pure\n")
    #expect(spec.labels?.classes == ["Stand", "turn", "walk"])
    #expect(spec.labels?.map.map(\.key) == ["W", "T", "X", "S"])
    #expect(spec.labels?.minFraction == 0.5)
}

@Test func splitWithAssignFoldsAndPartialFractions() throws {
    let spec = try load(minimalPipeline + """
    split:
      by: recording
      seed: 7
      fractions: {train: 0.8, test: 0.2}
      assign:
        test: [s07, s08]
        validation: [s01]
      folds: 5

    """)
    #expect(spec.split == SplitSpec(by: .recording, seed: 7, train: 0.8, validation: 0, test: 0.2,
                                    assign: [KeyValue("test", ["s07", "s08"]), KeyValue("validation", ["s01"])], folds: 5))
}

@Test func csvWideAndLongInputs() throws {
    let spec = try load(edited("""
      - type: motioncollector
        paths: ["data/*.csv"]
    """, """
      - type: csv
        paths: "../gait/*.csv"
        delimiter: "\\t"
        time: {column: timestamp, unit: iso8601}
        channels: {acc_x: ankle_fwd, acc_y: ankle_vert}
        label_column: activity
        sensor: ankle
        units: {acc_x: g, acc_y: g}
        sort: true
      - type: csv
        paths: [a.csv, b.csv]
        time: {column: t}
        sensor_column: sensor
        sensor_channels: {A: {acc_x: x}, G: {gyro_x: x}}
        recording: "{dirpath}"
    """))
    #expect(spec.inputs.count == 2)
    #expect(spec.inputs[0].paths == ["../gait/*.csv"])
    #expect(spec.inputs[0].sort && spec.inputs[0].sensor == "ankle")
    #expect(spec.inputs[0].units == [KeyValue("acc_x", "g"), KeyValue("acc_y", "g")])
    var tabbed = CSVOptions(delimiter: UInt8(ascii: "\t"), timeColumn: "timestamp", timeUnit: .iso8601,
                            channels: [KeyValue("acc_x", "ankle_fwd"), KeyValue("acc_y", "ankle_vert")],
                            labelColumn: "activity")
    tabbed.delimiterGiven = true
    #expect(spec.inputs[0].csv == tabbed)
    #expect(spec.inputs[1].csv == CSVOptions(timeColumn: "t", sensorColumn: "sensor",
                                             sensorChannels: [KeyValue("A", [KeyValue("acc_x", "x")]),
                                                              KeyValue("G", [KeyValue("gyro_x", "x")])]))
    #expect(spec.inputs[1].recording == "{dirpath}")
    #expect(spec.inputs[1].location == SourceLocation(file: "walk.yaml", line: 12, column: 5))
}

@Test func iioInputsWithFolderAndInlineLayouts() throws {
    let spec = try load(edited("""
      - type: motioncollector
        paths: ["data/*.csv"]
    """, """
      - type: iio
        paths: ["iio/*.bin"]
        layout: "{dirpath}/sysfs"
        strict: true
      - type: iio
        paths: ["iio2/*.bin"]
        layout:
          channels:
            - {name: in_accel_x, index: 0, type: "le:s16/16>>0", scale: 0.000598}
            - {name: in_accel_y, index: 1, type: "le:s16/16>>0", offset: -3}
          timestamp: {index: 3, type: "le:s64/64>>0"}
          sampling_frequency_hz: 100
    """))
    #expect(spec.inputs[0].iio == IIOOptions(layoutFolder: "{dirpath}/sysfs"))
    #expect(spec.inputs[0].strict)
    #expect(spec.inputs[1].iio == IIOOptions(
        channels: [.init(name: "in_accel_x", index: 0, type: "le:s16/16>>0", scale: 0.000598),
                   .init(name: "in_accel_y", index: 1, type: "le:s16/16>>0", offset: -3)],
        timestampIndex: 3, timestampType: "le:s64/64>>0", samplingFrequencyHz: 100))
}

@Test func templatesAcceptEveryPlaceholder() throws {
    let spec = try load(edited("    paths", "    subject: \"{dir:2}-{dir}\"\n    recording: \"{dirpath}/{stem}\"\n    paths"))
    #expect(spec.inputs[0].subject == "{dir:2}-{dir}")
    #expect(spec.inputs[0].recording == "{dirpath}/{stem}")
}

@Test func everyProblemIsReportedSortedByPosition() {
    let text = """
    version: 1
    inputs:
      - type: motioncollector
        paths: ["data/*.csv"]
        subject: "{who}"
    output:
      path: out
      colour: blue
    resample:
      rate_hz: 0
      method: cubic
    window:
      lenght_s: 2
    features: [mean, avg]

    """
    #expect(messages(text) == [
        "`inputs[0].subject` at walk.yaml:5:14 uses the unknown placeholder `{who}`; templates may use only `{stem}`, `{dir}`, `{dir:N}` or `{dirpath}` (N ≥ 1; in a `type: cwa` input's `subject` and `recording` also `{device_id}` and `{session_id}`)",
        "unknown key `colour` in `output` at walk.yaml:8:3",
        "`resample.rate_hz` at walk.yaml:10:12 must be a number greater than 0, not `0`",
        "`resample.method` at walk.yaml:11:11 must be `linear`, `nearest` or `previous`, not `cubic`",
        "unknown key `lenght_s` in `window` at walk.yaml:13:3; did you mean `length_s`?",
        "missing required key `length_s` or `length_samples` in `window` at walk.yaml:13:3",
        "unknown feature `avg` in `features` at walk.yaml:14:18; the features are `mean`, `std`, `var`, `min`, `max`, `range`, `median`, `iqr`, `rms`, `mad`, `skew`, `kurtosis`, `zero_crossings`, `energy`, `dominant_freq_hz`, `spectral_entropy`, `spectral_centroid_hz` or `corr`",
    ])
}

@Test func fileWideProblemsComeFirst() {
    #expect(messages("window: {length_samples: 0}\nversion: 3\n") == [
        "missing required key `inputs` in the pipeline (walk.yaml)",
        "missing required key `resample` in the pipeline (walk.yaml)",
        "missing required key `output` in the pipeline (walk.yaml)",
        "`window.length_samples` at walk.yaml:1:26 must be a whole number of samples, at least 1, not `0`",
        "`version` at walk.yaml:2:10 must be 1, not `3`",
    ])
}

@Test func strideRoundsHalvesUpToOneSample() throws {
    // 0.01 s at 50 Hz is exactly half a sample: rounds up to 1.
    let spec = try load(edited("length_s: 2.56", "length_s: 2.56\n  stride_s: 0.01"))
    #expect(spec.window.stride.samples(atRateHz: 50) == 1)
    #expect(messages(edited("length_s: 2.56", "length_s: 2.56\n  stride_s: 0.0099")) == [
        "`window.stride_s` at walk.yaml:9:13 must be at least 1 sample at 50 Hz (0.01 s or more), not `0.0099`",
    ])
}
