"""The command line: help and version, usage errors (64) with suggestions, and `validate
PIPELINE.yaml` exit codes (0 ok, 78 pipeline problems — all of them — 66 a path matching nothing)."""
import re
import pytest

from conftest import motionprep

COMMANDS = ["run", "apply", "live-vectors", "validate", "inspect", "merge", "synth", "report"]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command):
    p = motionprep(command, "--help")
    assert p.stdout.startswith("usage: motionprep " + command)


def test_version_and_top_level_help():
    assert motionprep("--version").stdout.strip() == "motionprep 0.1.0"
    top = motionprep("--help").stdout
    assert all(c in top for c in COMMANDS)


@pytest.mark.parametrize("args, fragment", [
    (["rn"], "unknown command `rn`\n  did you mean `run`?"),
    (["run"], "needs a pipeline file"),
    (["run", "x.yaml", "--jbos", "2"], "unknown option `--jbos` for `motionprep run`\n  did you mean `--jobs`?"),
    (["run", "x.yaml", "--jobs", "0"], "must be a whole number from 1 to 4096, not `0`"),
    (["run", "x.yaml", "--worker", "3/3"], "must be I/N with 0 ≤ I < N"),
    (["synth", "--out", "x", "--format", "xml"], "must be `motioncollector`, `csv`, `iio`, `sensorlogger`, `phyphox`, `androsensor`, `cwa` or `gt3x`, not `xml`"),
    (["merge", "only-one"], "needs an output folder and at least one part folder"),
])
def test_usage_errors_exit_64(args, fragment):
    p = motionprep(*args, check=False)
    assert p.returncode == 64, p.stderr
    assert fragment in p.stderr
    assert p.stderr.startswith("motionprep: error: ") and p.stderr.count("\n") == 1 + fragment.count("\n")


def test_validate_pipeline_exit_codes(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "a.csv").write_text("Source, Label, When, X, Y, Z\nA,W,0,1,2,3\n")
    good = tmp_path / "good.yaml"
    good.write_text("version: 1\ninputs:\n  - type: motioncollector\n    paths: [data/*.csv]\n"
                    "resample: {rate_hz: 50}\nwindow: {length_s: 1}\noutput: {path: out}\n")
    assert motionprep("validate", good).returncode == 0
    bad = tmp_path / "bad.yaml"
    bad.write_text("version: 1\ninputs:\n  - type: motioncollector\n    paths: [data/*.csv]\n"
                   "resample: {rate_hz: -5}\nwindow: {lenght_s: 1}\noutput: {path: out}\n")
    p = motionprep("validate", bad, check=False)
    assert p.returncode == 78
    assert re.search(r"bad\.yaml:5:\d+: error: `resample\.rate_hz` must be", p.stderr), p.stderr
    assert re.search(r"bad\.yaml:\d+:\d+: error: unknown key `lenght_s` in `window`\n  did you mean `length_s`\?\n", p.stderr), p.stderr
    nomatch = tmp_path / "nomatch.yaml"
    nomatch.write_text(good.read_text().replace("data/*.csv", "missing/*.csv"))
    p = motionprep("validate", nomatch, check=False)
    assert p.returncode == 66 and "`missing/*.csv` in inputs[0]" in p.stderr
    # 78 wins over 66 when several files are checked together.
    assert motionprep("validate", nomatch, bad, check=False).returncode == 78
    assert motionprep("validate", tmp_path / "absent.yaml", check=False).returncode == 66
