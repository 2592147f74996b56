"""The first ten minutes (issue 17 points 3 and 4; docs/commands.md, "inspect", "validate" and "Messages"):

- `inspect FILE.csv` sniffs any delimited file (delimiter, header, time column and unit, each with its
  reason), reads it as a csv input would and reports per-column ranges, rate and jitter — checked against
  numpy on the file itself — and prints an input entry that a pipeline can use as is;
- `validate PIPELINE.yaml` (and `inspect PIPELINE.yaml`) read each input's first file with the input's
  settings and check the labels found against `labels.map` and `labels.classes`, with `--format json`;
- every diagnostic is `FILE:LINE:COL: error|warning|note: sentence` (or `FILE:` / `motionprep:`), hints
  indented below; warnings that can be intended say how to silence them, and `ignore_warnings` does."""
import csv
import json
import re

import numpy as np
import pytest

from conftest import motionprep

DIAG = re.compile(r"^(\S+?): (error|warning|note): \S")


def assert_diagnostics(stderr):
    """Every line is a diagnostic or an indented hint."""
    lines = stderr.splitlines()
    assert lines, "no diagnostics"
    for line in lines:
        assert DIAG.match(line) or line.startswith("  "), f"not a diagnostic line: {line!r}\n{stderr}"


def write_logger(path, rate=100.0, n=500, jitter=0.0004, seed=3):
    """A wide csv as phone loggers write it: time in seconds, three axes, an activity column."""
    rng = np.random.default_rng(seed)
    t = 0.5 + np.arange(n) / rate + rng.uniform(-jitter, jitter, n)
    xyz = rng.normal(0, 1, (n, 3))
    acts = np.where(np.arange(n) < n // 2, "walk", "stairs")
    with open(path, "w") as f:
        f.write("time,x,y,z,activity\n")
        for i in range(n):
            f.write(f"{t[i]:.6f},{xyz[i, 0]:.6f},{xyz[i, 1]:.6f},{xyz[i, 2]:.6f},{acts[i]}\n")
    return path


def test_inspect_sniffs_a_plain_csv_and_its_numbers_match_numpy(tmp_path):
    path = write_logger(tmp_path / "Accelerometer.csv")
    r = json.loads(motionprep("inspect", path, "--json").stdout)
    assert (r["delimiter"], r["header_line"], r["sep_line"], r["skip_lines"]) == (",", 1, False, 0)
    assert r["time"] == {"column": "time", "unit": "s", "reason": r["time"]["reason"]}
    assert re.match(r"decimals 0\.01\d* apart: (99\.\d+|100) Hz in seconds$", r["time"]["reason"]), r["time"]["reason"]
    assert [c["kind"] for c in r["columns"]] == ["number", "number", "number", "number", "text"]
    assert r["label_column"] == "activity" and r["columns"][4]["examples"] == ["walk", "stairs"]
    data = np.loadtxt(path, delimiter=",", skiprows=1, usecols=(0, 1, 2, 3))
    stream = r["recording"]["streams"][0]
    assert stream["samples"] == len(data)
    for c in range(3):
        assert stream["min"][c] == data[:, c + 1].min() and stream["max"][c] == data[:, c + 1].max()
    d = np.diff(np.sort(data[:, 0]))
    d = d[d > 0]
    assert stream["interval_s"]["p50"] == pytest.approx(np.percentile(d, 50), abs=1e-12)
    assert stream["interval_s"]["std"] == pytest.approx(d.std(), rel=1e-9)
    assert stream["effective_rate_hz"] == pytest.approx((len(data) - 1) / (data[-1, 0] - data[0, 0]), rel=1e-12)
    assert [s["label"] for s in r["recording"]["labels"]["segments"]] == ["walk", "stairs"]

    text = motionprep("inspect", path).stdout
    assert "time: column `time`, unit s (decimals 0.01" in text
    assert "column `activity`: text (labels), values such as `walk`, `stairs`" in text
    assert "interval jitter (std)" in text


def test_the_printed_input_entry_runs_as_is(tmp_path):
    (tmp_path / "rec").mkdir()
    path = write_logger(tmp_path / "rec" / "Accelerometer.csv", n=1000)
    entry = json.loads(motionprep("inspect", path, "--json").stdout)["input"]
    entry = entry.replace("paths: [Accelerometer.csv]", 'paths: ["rec/Accelerometer.csv"]')
    yaml = tmp_path / "p.yaml"
    yaml.write_text("version: 1\ninputs:\n" + "\n".join("  " + l for l in entry.splitlines())
                    + "\n    label_column: activity\nresample: {rate_hz: 50}\nwindow: {length_s: 1}\n"
                    + "labels: {classes: [walk, stairs]}\noutput: {type: hdf5, path: out}\n")
    p = motionprep("validate", yaml)
    assert p.stdout.strip().endswith("p.yaml: ok"), p.stdout + p.stderr
    motionprep("run", yaml, "--quiet")
    assert (tmp_path / "out" / "manifest.json").exists()


@pytest.mark.parametrize("text,delimiter,column,unit,header_line", [
    # AndroSensor: Excel's sep=; line, a trailing space in the time header, milliseconds.
    ("sep=;\nACCELEROMETER X (m/s²);ACCELEROMETER Y (m/s²);Time since start in ms \n0.1;9.8;0\n0.2;9.7;20\n0.3;9.9;40\n",
     ";", "Time since start in ms", "ms", 2),
    # phyphox: quoted headers with units, tab separated.
    ('"Time (s)"\t"Acceleration x (m/s^2)"\n1.0E-2\t0.5\n2.0E-2\t0.6\n3.0E-2\t0.6\n', "\\t", "Time (s)", "s", 1),
    # Sensor Logger: epoch nanoseconds first, seconds_elapsed next.
    ("time,seconds_elapsed,z,y,x\n1700000000000000000,0,1,2,3\n1700000000010000000,0.01,1,2,3\n", ",", "time", "ns", 1),
])
def test_inspect_guesses_phone_logger_layouts(tmp_path, text, delimiter, column, unit, header_line):
    path = tmp_path / "f.csv"
    path.write_text(text)
    r = json.loads(motionprep("inspect", path, "--json").stdout)
    assert (r["delimiter"], r["time"]["column"], r["time"]["unit"], r["header_line"]) == (delimiter, column, unit, header_line)
    assert r["error"] is None and r["recording"]["streams"][0]["samples"] == text.count("\n") - header_line


def test_inspect_refuses_what_is_not_delimited_text(tmp_path):
    path = tmp_path / "blob.csv"
    path.write_bytes(b"\x00\x01\x02binary")
    p = motionprep("inspect", path, check=False)
    assert p.returncode == 65
    assert_diagnostics(p.stderr)
    assert f"{path}: error: not a format `inspect` recognises: it holds NUL bytes" in p.stderr


LABELLED = """\
version: 1
inputs:
  - type: csv
    paths: ["rec*/Accelerometer.csv"]
    time: {{column: time}}
    channels: {{acc_x: x, acc_y: y, acc_z: {zcol}}}
    label_column: activity
resample: {{rate_hz: 50}}
window: {{length_s: 1}}
labels:
  map: {{walk: walking}}
  classes: {classes}
output: {{type: hdf5, path: out}}
{extra}"""


def labelled(tmp_path, zcol="z", classes="[walking, stairs]", extra=""):
    for i in range(2):
        (tmp_path / f"rec{i}").mkdir(exist_ok=True)
        write_logger(tmp_path / f"rec{i}" / "Accelerometer.csv", seed=i)
    yaml = tmp_path / "p.yaml"
    yaml.write_text(LABELLED.format(zcol=zcol, classes=classes, extra=extra))
    return yaml


def test_validate_finds_a_column_missing_from_the_data(tmp_path):
    yaml = labelled(tmp_path, zcol="zz")
    p = motionprep("validate", yaml, check=False)
    assert p.returncode == 65, p.stderr
    assert_diagnostics(p.stderr)
    first = tmp_path / "rec0" / "Accelerometer.csv"
    assert f"{first}:1: error: no column `zz` (named by `channels.acc_z`) in the header\n  did you mean `z`?" in p.stderr
    # The same check from inspect, which still describes and exits 0.
    p = motionprep("inspect", yaml)
    assert "error: no column `zz`" in p.stderr


def test_validate_checks_labels_against_map_and_classes(tmp_path):
    yaml = labelled(tmp_path, classes="[walking, stair]")
    p = motionprep("validate", yaml)
    assert p.stdout.strip() == f"{yaml}: ok (1 warning)"
    assert_diagnostics(p.stderr)
    assert re.search(r"p\.yaml:11:3: warning: label\(s\) `stairs` found in \S+ are not in `labels.classes` after `labels.map`", p.stderr)
    assert "  did you mean `stair` for `stairs`? (rename it with `map: {stairs: stair}`)" in p.stderr
    assert "  if this is intended, add `unclassified_labels` to `ignore_warnings` in the pipeline to silence it" in p.stderr

    yaml = labelled(tmp_path, classes="[walking, stair]", extra="ignore_warnings: [unclassified_labels]\n")
    p = motionprep("validate", yaml)
    assert p.stdout.strip() == f"{yaml}: ok" and p.stderr == ""

    yaml = labelled(tmp_path, classes="[jog]")
    p = motionprep("validate", yaml, "--format", "json", check=False)
    assert p.returncode == 65
    doc = json.loads(p.stdout)
    assert doc["ok"] is False
    (d,) = doc["pipelines"][0]["diagnostics"]
    assert (d["severity"], d["file"], d["line"], d["column"]) == ("error", str(yaml), 11, 3)
    assert d["message"].startswith("none of the labels found in") and "so every window would be dropped" in d["message"]
    assert d["hints"][0] == "classes: `jog`"


def test_ignore_warnings_names_are_checked(tmp_path):
    yaml = labelled(tmp_path, extra="ignore_warnings: [split_shares]\n")
    p = motionprep("validate", yaml, check=False)
    assert p.returncode == 78
    assert_diagnostics(p.stderr)
    assert re.search(r"p\.yaml:14:\d+: error: `ignore_warnings\[0\]` must be .*`split_share`.*, not `split_shares`\n  did you mean `split_share`\?", p.stderr), p.stderr


def test_run_warnings_say_how_to_silence_them(tmp_path):
    # Two recordings and three splits: the shares cannot match the fractions.
    yaml = labelled(tmp_path, extra="split: {by: recording, allocation: exact}\n")
    p = motionprep("run", yaml)
    assert_diagnostics("\n".join(l for l in p.stderr.splitlines() if not l.startswith(("wrote ", "read ", "jobs: "))))
    assert re.search(r"^motionprep: warning: split `\w+` (is empty|holds)", p.stderr, re.M), p.stderr
    assert "  if this is intended, add `split_share` to `ignore_warnings` in the pipeline to silence it" in p.stderr
    yaml = labelled(tmp_path, extra="split: {by: recording, allocation: exact}\nignore_warnings: [split_share]\n")
    (tmp_path / "out").rename(tmp_path / "out-1")
    p = motionprep("run", yaml)
    assert "split_share" not in p.stderr and "warning: split" not in p.stderr
    # The silenced warning changes nothing in the dataset.
    a = json.loads((tmp_path / "out-1" / "manifest.json").read_text())
    b = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert a["splits"] == b["splits"] and a["pipeline"]["resolved"] == b["pipeline"]["resolved"]


@pytest.mark.parametrize("args,pattern", [
    (["run", "missing.yaml"], r"^motionprep: error: "),
    (["validate", "bad.yaml"], r"^bad\.yaml:3:1: error: unknown key `input` in the pipeline\n  did you mean `inputs`\?$"),
    (["rn"], r"^motionprep: error: unknown command `rn`\n  did you mean `run`\?$"),
])
def test_messages_have_the_form_tools_read(tmp_path, args, pattern):
    (tmp_path / "bad.yaml").write_text("version: 1\nname: x\ninput: []\n")
    p = motionprep(*args, cwd=tmp_path, check=False)
    assert p.returncode != 0
    assert_diagnostics(p.stderr)
    assert re.search(pattern, p.stderr, re.M), p.stderr
