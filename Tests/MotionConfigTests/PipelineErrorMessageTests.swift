import Testing
@testable import MotionConfig

struct BadPipeline: Sendable, CustomTestStringConvertible {
    let name: String
    let yaml: String
    let expected: [String]
    init(_ name: String, _ yaml: String, _ expected: String...) {
        self.name = name
        self.yaml = yaml
        self.expected = expected
    }
    var testDescription: String { name }
}

let badPipelines: [BadPipeline] = [
    // Unknown keys.
    BadPipeline("unknown top-level key with suggestion", minimalPipeline + "nmae: x\n",
                "unknown key `nmae` in the pipeline at walk.yaml:11:1; did you mean `name`?"),
    BadPipeline("unknown top-level key without suggestion", minimalPipeline + "colour: red\n",
                "unknown key `colour` in the pipeline at walk.yaml:11:1"),
    BadPipeline("unknown nested key with suggestion", edited("length_s: 2.56", "length_s: 2.56\n  stirde_s: 1"),
                "unknown key `stirde_s` in `window` at walk.yaml:9:3; did you mean `stride_s`?"),
    BadPipeline("unknown nested key without suggestion", edited("rate_hz: 50", "rate_hz: 50\n  interpolation: linear"),
                "unknown key `interpolation` in `resample` at walk.yaml:7:3"),
    BadPipeline("unknown key in an input entry", edited("    paths", "    subjet: \"{dir}\"\n    paths"),
                "unknown key `subjet` in `inputs[0]` at walk.yaml:4:5; did you mean `subject`?"),
    BadPipeline("unknown key in split.fractions", minimalPipeline + "split:\n  fractions: {train: 0.7, valid: 0.3}\n",
                "unknown key `valid` in `split.fractions` at walk.yaml:12:27; did you mean `validation`?"),
    // Wrong types.
    BadPipeline("negative rate", edited("rate_hz: 50", "rate_hz: -50"),
                "`resample.rate_hz` at walk.yaml:6:12 must be a number greater than 0, not `-50`"),
    BadPipeline("quoted number is a string", edited("rate_hz: 50", "rate_hz: \"50\""),
                "`resample.rate_hz` at walk.yaml:6:12 must be a number greater than 0, not the string `\"50\"`"),
    BadPipeline("rate as a list", edited("rate_hz: 50", "rate_hz: [50]"),
                "`resample.rate_hz` at walk.yaml:6:12 must be a number greater than 0, not a list"),
    BadPipeline("rate missing its value", edited("rate_hz: 50", "rate_hz:"),
                "`resample.rate_hz` at walk.yaml:6:11 must be a number greater than 0, not an empty value"),
    BadPipeline("bool spelled yes", edited("rate_hz: 50", "rate_hz: 50\n  antialias: yes"),
                "`resample.antialias` at walk.yaml:7:14 must be `true` or `false`, not `yes`"),
    BadPipeline("window is a string", edited("window:\n  length_s: 2.56", "window: 2.56"),
                "`window` at walk.yaml:7:9 must be a mapping, not `2.56`"),
    BadPipeline("root is a list", "- version: 1\n",
                "the pipeline at walk.yaml:1:1 must be a mapping of keys such as `version` and `inputs`, not a list"),
    BadPipeline("empty paths", edited("paths: [\"data/*.csv\"]", "paths: []"),
                "`inputs[0].paths` at walk.yaml:4:12 must be a non-empty list of strings, not an empty list"),
    BadPipeline("per-sensor max gap as a list", edited("rate_hz: 50", "rate_hz: 50\n  max_gap_s: [1]"),
                "`resample.max_gap_s` at walk.yaml:7:14 must be a number greater than 0, or a mapping from sensor names to such values, not a list"),
    // Out of range.
    BadPipeline("rate above the limit", edited("rate_hz: 50", "rate_hz: 2e6"),
                "`resample.rate_hz` at walk.yaml:6:12 must be at most 1000000, not `2e6`"),
    // Issue 14 §8: 1 / 1e-320 is infinite, so no grid time could be computed.
    BadPipeline("rate whose period overflows", edited("rate_hz: 50", "rate_hz: 1e-320"),
                "`resample.rate_hz` at walk.yaml:6:12 must be a number whose period 1 / rate_hz is finite (at least 2.2250738585072014e-308 Hz), not `1e-320`"),
    BadPipeline("per-sensor max gap of zero", edited("rate_hz: 50", "rate_hz: 50\n  max_gap_s: {default: 0.2, Barometer: 0}"),
                "`resample.max_gap_s.Barometer` at walk.yaml:7:40 must be a number greater than 0, not `0`"),
    BadPipeline("version 2", edited("version: 1", "version: 2"),
                "`version` at walk.yaml:1:10 must be 1, not `2`"),
    BadPipeline("window shorter than a sample", edited("length_s: 2.56", "length_s: 0.001"),
                "`window.length_s` at walk.yaml:8:13 must be at least 1 sample at 50 Hz (0.01 s or more), not `0.001`"),
    BadPipeline("window beyond the resource limit", edited("length_s: 2.56", "length_samples: 20000000"),
                "`window.length_samples` at walk.yaml:8:19 must be at most 10000000 samples (a resource limit), not `20000000`"),
    BadPipeline("window in seconds beyond the resource limit", edited("length_s: 2.56", "length_s: 1e9"),
                "`window.length_s` at walk.yaml:8:13 must be at most 10000000 samples at 50 Hz (200000 s, a resource limit), not `1e9`"),
    BadPipeline("fractional samples", edited("length_s: 2.56", "length_samples: 1.5"),
                "`window.length_samples` at walk.yaml:8:19 must be a whole number of samples, at least 1, not `1.5`"),
    BadPipeline("min_fraction above 1", minimalPipeline + "labels:\n  classes: [walk]\n  min_fraction: 1.5\n",
                "`labels.min_fraction` at walk.yaml:13:17 must be a number from 0 to 1, not `1.5`"),
    BadPipeline("compression level 22", edited("  path: out", "  path: out\n  type: shards\n  compression_level: 22"),
                "`output.compression_level` at walk.yaml:12:22 must be a whole number from 1 to 19, not `22`"),
    BadPipeline("misspelt compression", edited("  path: out", "  path: out\n  type: shards\n  compression: zstdd"),
                "`output.compression` at walk.yaml:12:16 must be `zstd` or `none`, not `zstdd`; did you mean `zstd`?"),
    BadPipeline("negative seed and one fold", minimalPipeline + "split:\n  seed: -1\n  folds: 1\n",
                "`split.seed` at walk.yaml:12:9 must be a whole number from 0 to 9223372036854775807, not `-1`",
                "`split.folds` at walk.yaml:13:10 must be a whole number from 2 to 1000, not `1`"),
    // Missing required keys.
    BadPipeline("missing window", edited("window:\n  length_s: 2.56\n", ""),
                "missing required key `window` in the pipeline (walk.yaml)"),
    BadPipeline("missing nested key", edited("rate_hz: 50", "method: linear"),
                "missing required key `rate_hz` in `resample` at walk.yaml:6:3"),
    BadPipeline("missing input type", edited("  - type: motioncollector\n    paths", "  - paths"),
                "missing required key `type` in `inputs[0]` at walk.yaml:3:5"),
    BadPipeline("neither length key", edited("length_s: 2.56", "stride_s: 1"),
                "missing required key `length_s` or `length_samples` in `window` at walk.yaml:8:3"),
    BadPipeline("intervals without a path", minimalPipeline + "labels:\n  from: intervals\n  classes: [walk]\n",
                "missing required key `path` in `labels` at walk.yaml:12:3 (the intervals file `from: intervals` reads)"),
    BadPipeline("path labels without a template", minimalPipeline + "labels:\n  from: path\n  classes: [walk]\n",
                "missing required key `template` in `labels` at walk.yaml:12:3 (the path template, such as `\"{dir}\"`, whose value labels each recording with `from: path`)"),
    BadPipeline("path labels with an intervals path", minimalPipeline + "labels:\n  from: path\n  path: x.csv\n  template: \"{dir}\"\n  classes: [walk]\n",
                "key `path` in `labels` at walk.yaml:13:3 applies only to `from: intervals` (`from: path` names recordings' labels with `template`, e.g. `template: \"{dir}\"`)"),
    BadPipeline("template with intervals", minimalPipeline + "labels:\n  from: intervals\n  path: x.csv\n  template: \"{dir}\"\n  classes: [walk]\n",
                "key `template` in `labels` at walk.yaml:14:3 applies only to `from: path`"),
    BadPipeline("template with an unknown placeholder", minimalPipeline + "labels:\n  from: path\n  template: \"{folder}\"\n  classes: [walk]\n",
                "`labels.template` at walk.yaml:13:13 uses the unknown placeholder `{folder}`; templates may use only `{stem}`, `{dir}`, `{dir:N}` or `{dirpath}` (N ≥ 1; in a `type: cwa` input's `subject` and `recording` also `{device_id}` and `{session_id}`)"),
    BadPipeline("clock with rows", minimalPipeline + "labels:\n  clock: recording\n  classes: [walk]\n",
                "key `clock` in `labels` at walk.yaml:12:3 applies only to `from: intervals` (the other sources' times are the input's own)"),
    BadPipeline("unknown clock", minimalPipeline + "labels:\n  from: intervals\n  path: x.csv\n  clock: sample\n  classes: [walk]\n",
                "`labels.clock` at walk.yaml:14:10 must be `input` or `recording`, not `sample`"),
    BadPipeline("labels without classes or map", minimalPipeline + "labels:\n  policy: pure\n",
                "missing required key `classes` or `map` in `labels` at walk.yaml:12:3; `classes` lists the class names in order"),
    // Conflicting keys.
    BadPipeline("both length_s and length_samples", edited("length_s: 2.56", "length_s: 2.56\n  length_samples: 128"),
                "both `window.length_s` and `window.length_samples` are given in `window` at walk.yaml:9:3; give only one"),
    BadPipeline("min_fraction with policy center", minimalPipeline + "labels:\n  policy: center\n  min_fraction: 0.3\n  classes: [walk]\n",
                "key `min_fraction` in `labels` at walk.yaml:13:3 applies only to `policy: majority`, not `policy: center`"),
    BadPipeline("csv key on a motioncollector input", edited("    paths", "    delimiter: \";\"\n    paths"),
                "key `delimiter` in `inputs[0]` at walk.yaml:4:5 applies only to `type: csv`"),
    BadPipeline("sensor on a motioncollector input", edited("    paths", "    sensor: A\n    paths"),
                "key `sensor` in `inputs[0]` at walk.yaml:4:5 applies only to `type: csv` or `type: iio`"),
    // Enumerations.
    BadPipeline("bad method", edited("rate_hz: 50", "rate_hz: 50\n  method: cubic"),
                "`resample.method` at walk.yaml:7:11 must be `linear`, `nearest` or `previous`, not `cubic`"),
    BadPipeline("misspelt method", edited("rate_hz: 50", "rate_hz: 50\n  method: {default: lineer}"),
                "`resample.method.default` at walk.yaml:7:21 must be `linear`, `nearest` or `previous`, not `lineer`; did you mean `linear`?"),
    BadPipeline("bad input type", edited("type: motioncollector", "type: parquet"),
                "`inputs[0].type` at walk.yaml:3:11 must be `motioncollector`, `csv`, `iio`, `cwa`, `gt3x`, `sensorlogger`, `phyphox` or `androsensor`, not `parquet`"),
    BadPipeline("bad on_error", minimalPipeline + "on_error: ignore\n",
                "`on_error` at walk.yaml:11:11 must be `fail` or `skip`, not `ignore`"),
    // Templates.
    BadPipeline("unknown placeholder", edited("    paths", "    subject: \"{user}/{stem}\"\n    paths"),
                "`inputs[0].subject` at walk.yaml:4:14 uses the unknown placeholder `{user}`; templates may use only `{stem}`, `{dir}`, `{dir:N}` or `{dirpath}` (N ≥ 1; in a `type: cwa` input's `subject` and `recording` also `{device_id}` and `{session_id}`)"),
    BadPipeline("misspelt placeholder", edited("    paths", "    recording: \"{dirpth}\"\n    paths"),
                "`inputs[0].recording` at walk.yaml:4:16 uses the unknown placeholder `{dirpth}`; templates may use only `{stem}`, `{dir}`, `{dir:N}` or `{dirpath}` (N ≥ 1; in a `type: cwa` input's `subject` and `recording` also `{device_id}` and `{session_id}`); did you mean `{dirpath}`?"),
    BadPipeline("unclosed placeholder", edited("    paths", "    subject: \"{dir\"\n    paths"),
                "`inputs[0].subject` at walk.yaml:4:14 uses an unmatched `{dir`; templates may use only `{stem}`, `{dir}`, `{dir:N}` or `{dirpath}` (N ≥ 1; in a `type: cwa` input's `subject` and `recording` also `{device_id}` and `{session_id}`); did you mean `{dir}`?"),
    // Sums, units, lists.
    BadPipeline("fractions not adding up", minimalPipeline + "split:\n  fractions: {train: 0.7, validation: 0.1, test: 0.1}\n",
                "`split.fractions` at walk.yaml:12:14 must add up to 1, not 0.9 (train 0.7 + validation 0.1 + test 0.1)"),
    BadPipeline("bad unit", edited("    paths", "    units: {acc_x: G, acc_y: furlong}\n    paths"),
                "`inputs[0].units.acc_x` at walk.yaml:4:20 must be `g`, `m/s^2`, `rad/s`, `deg/s`, `uT`, `gauss`, `kPa`, `hPa`, `Pa`, `m`, `degC`, `mdegC`, `rad`, `%` or `1`, not `G`; did you mean `g`?",
                "`inputs[0].units.acc_y` at walk.yaml:4:30 must be `g`, `m/s^2`, `rad/s`, `deg/s`, `uT`, `gauss`, `kPa`, `hPa`, `Pa`, `m`, `degC`, `mdegC`, `rad`, `%` or `1`, not `furlong`"),
    BadPipeline("unknown and duplicate features", minimalPipeline + "features: [mean, meen, mean]\n",
                "unknown feature `meen` in `features` at walk.yaml:11:18; did you mean `mean`?",
                "duplicate feature `mean` in `features` at walk.yaml:11:24; it is already listed at 11:12"),
    BadPipeline("subject pinned twice", minimalPipeline + "split:\n  assign: {test: [s1, s2], train: [s2]}\n",
                "`s2` in `split.assign.train` at walk.yaml:12:36 is already assigned to `test` at 12:23; a name may be pinned to one split only"),
    BadPipeline("duplicate class", minimalPipeline + "labels:\n  classes: [walk, turn, walk]\n",
                "duplicate class `walk` in `labels.classes` at walk.yaml:12:25; it is already listed at 12:13"),
    // Cross-checks.
    BadPipeline("markers from a csv input", edited("type: motioncollector", "type: csv\n    time: {column: t}\n    channels: {acc_x: ax}")
                    + "labels:\n  from: markers\n  classes: [W]\n",
                "`labels.from: markers` at walk.yaml:14:9 needs motioncollector inputs, which alone carry markers, but `inputs[0]` is not; use `from: rows` or `from: intervals`"),
    BadPipeline("row labels without a label column", edited("type: motioncollector", "type: csv\n    time: {column: t}\n    channels: {acc_x: ax}")
                    + "labels:\n  classes: [W]\n",
                "`labels` (`from: rows` by default) at walk.yaml:14:3 needs an input with row labels (a motioncollector input, or a csv input with `label_column`), but no input has them; use `from: intervals` with a labels file, or `from: path` to label recordings by their folder"),
    // YAML-level problems.
    BadPipeline("YAML syntax error", "version: [1\ninputs: []\n",
                "invalid YAML at walk.yaml:2:7: did not find expected ',' or ']' while parsing a flow sequence that starts at 1:10"),
    BadPipeline("tab indentation", "version: 1\nresample:\n\trate_hz: 50\n",
                "invalid YAML at walk.yaml:3:1: a tab is used for indentation; indent with spaces, not tabs"),
    BadPipeline("alias", "version: 1\ninputs: &x []\nresample: *x\n",
                "YAML aliases are not supported: `*x` at walk.yaml:3:11; write the value out in full"),
    BadPipeline("duplicate key", edited("rate_hz: 50", "rate_hz: 50\n  rate_hz: 100"),
                "duplicate key `rate_hz` at walk.yaml:7:3; it is already set at 6:3"),
    BadPipeline("empty file", "",
                "the pipeline file `walk.yaml` is empty; it needs at least `version`, `inputs`, `resample`, `window` and `output`"),
    BadPipeline("only comments", "# nothing yet\n\n",
                "the pipeline file `walk.yaml` is empty; it needs at least `version`, `inputs`, `resample`, `window` and `output`"),
]

@Test(arguments: badPipelines)
func badPipelineMessage(_ c: BadPipeline) {
    #expect(messages(c.yaml) == c.expected)
}

@Test func pipelineFileErrorMapsToExitStatus78() {
    do {
        _ = try load("")
        Issue.record("an empty file loaded")
    } catch let error as PipelineFileError {
        #expect(error.exitStatus == .config)
        #expect(error.file == "walk.yaml")
        #expect(error.issues.first?.location == SourceLocationFixture.file("walk.yaml"))
    } catch {
        Issue.record("unexpected \(error)")
    }
}
