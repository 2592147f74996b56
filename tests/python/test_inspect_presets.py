"""`inspect FILE` and `init` know the phone apps alike (issue #29 point 6; docs/commands.md,
"inspect"): one recogniser (the one `init` sorts files with) serves both, and both read a
phone app's file as its preset will, so the samples, rate, channels and units they print are
those `run` reads. Checked with numpy on the files themselves: an AndroSensor file at 2 Hz whose
location columns are mostly empty (a generic csv guess took every column and dropped the rows
without a fix), and a Sensor Logger file, whose `seconds_elapsed` is not a channel."""
import csv
import json
import re
from pathlib import Path

import numpy as np
import pytest

from conftest import motionprep

ANDRO_ACC = ["ACCELEROMETER X (m/s²)", "ACCELEROMETER Y (m/s²)", "ACCELEROMETER Z (m/s²)"]


@pytest.fixture(scope="module")
def andro(tmp_path_factory):
    """An AndroSensor file as the app logs at 2 Hz: every 25th row of a 50 Hz synth file, and the
    location fields empty but in every 8th row (no GPS fix)."""
    root = tmp_path_factory.mktemp("andro")
    motionprep("synth", "--out", root / "synth", "--format", "androsensor", "--subjects", 1, "--recordings", 1,
               "--minutes", 2, "--seed", 4)
    src = next((root / "synth").glob("*/*.csv"))
    lines = src.read_text().split("\n")
    sep, header, rows = lines[0], lines[1], [l for l in lines[2:] if l]
    names = header.split(";")
    loc = [i for i, n in enumerate(names) if n.startswith("LOCATION") or n.startswith("Satellites")]
    kept = []
    for k, row in enumerate(rows[::25]):
        fields = row.split(";")
        if k % 8:
            for i in loc:
                fields[i] = ""
        kept.append(";".join(fields))
    out = root / "data" / "alice" / src.name
    out.parent.mkdir(parents=True)
    out.write_text("\n".join([sep, header, *kept]) + "\n")
    return out


@pytest.fixture(scope="module")
def sensorlogger(tmp_path_factory):
    root = tmp_path_factory.mktemp("slog")
    motionprep("synth", "--out", root / "data", "--format", "sensorlogger", "--subjects", 1, "--recordings", 1,
               "--minutes", 1, "--seed", 4)
    return next((root / "data").glob("*/*/Accelerometer.csv"))


def columns(path, skip, delimiter):
    with open(path, newline="") as f:
        rows = list(csv.reader(f, delimiter=delimiter))[skip:]
    return {name: [r[i] for r in rows[1:]] for i, name in enumerate(rows[0])}


def test_androsensor_file_is_read_as_the_preset_reads_it(andro):
    cols = columns(andro, 1, ";")
    n = len(cols["Time since start in ms "])
    stream, = json.loads(motionprep("inspect", andro, "--json").stdout)["streams"]
    doc = json.loads(motionprep("inspect", andro, "--json").stdout)
    assert doc["preset"]["type"] == "androsensor"
    assert doc["rows_dropped"] == {} and stream["samples"] == n  # the location columns are not read
    assert not any(c.startswith("loc") or "lat" in c for c in stream["channels"])
    assert stream["channels"][:3] == ["acc_x", "acc_y", "acc_z"] and stream["units"][:3] == ["m/s^2"] * 3
    t = np.array(cols["Time since start in ms "], float) / 1000
    assert stream["effective_rate_hz"] == pytest.approx(1 / np.median(np.diff(t)), rel=0.02)
    assert stream["effective_rate_hz"] == pytest.approx(2.0, rel=0.05)
    for k, name in enumerate(ANDRO_ACC):
        v = np.array(cols[name], float)
        assert stream["min"][k] == v.min() and stream["max"][k] == v.max(), name
    # The pressure is read as the preset reads it: hPa converted to kPa.
    p = stream["channels"].index("pressure")
    hpa = np.array(cols["ATMOSPHERIC PRESSURE (hPa)"], float)
    assert stream["units"][p] == "kPa" and stream["min"][p] == pytest.approx(hpa.min() / 10, rel=1e-12)


def test_init_reports_what_the_preset_reads(andro):
    n = len(columns(andro, 1, ";")["Time since start in ms "])
    stream, = json.loads(motionprep("inspect", andro, "--json").stdout)["streams"]
    data = andro.parent.parent
    out = motionprep("init", data, "-o", data.parent / "a.yaml").stdout
    line = next(l for l in out.split("\n") if l.strip().startswith("AndroSensor "))
    assert f"{n} samples, {len(stream['channels'])} channel(s)" in line, out
    assert re.search(r"AndroSensor 2\.0 Hz", line), out


def test_sensorlogger_file_is_read_as_the_preset_reads_it(sensorlogger):
    cols = columns(sensorlogger, 0, ",")
    text = motionprep("inspect", sensorlogger).stdout
    assert "Sensor Logger export (`type: sensorlogger`), Accelerometer" in text.split("\n")[0]
    doc = json.loads(motionprep("inspect", sensorlogger, "--json").stdout)
    stream, = doc["streams"]
    assert "seconds_elapsed" not in stream["channels"] and len(stream["channels"]) == 3
    assert stream["units"] == ["m/s^2"] * 3 and stream["samples"] == len(cols["time"])
    for axis in "xyz":
        k = stream["channels"].index(f"uacc_{axis}")
        v = np.array(cols[axis], float)
        assert stream["min"][k] == v.min() and stream["max"][k] == v.max()
    out = motionprep("init", sensorlogger.parent.parent.parent, "-o", sensorlogger.parent.parent.parent.parent / "s.yaml").stdout
    line = next(l for l in out.split("\n") if l.strip().startswith("Accelerometer "))
    assert f"{len(cols['time'])} samples, 3 channel(s)" in line, out


def test_the_printed_input_reads_the_file(andro, sensorlogger, tmp_path):
    """The entry `inspect` prints goes into a pipeline as it is, next to the file's folder."""
    for path, base in ((andro, andro.parent), (sensorlogger, sensorlogger.parent.parent)):
        entry = json.loads(motionprep("inspect", path, "--json").stdout)["preset"]["input"]
        pipeline = base / "p.yaml"
        pipeline.write_text("version: 1\nname: p\ninputs:\n" + entry +
                            "resample: {rate_hz: 2, max_gap_s: 2}\nwindow: {length_samples: 4, stride_samples: 4}\n"
                            "output: {path: out}\n")
        motionprep("validate", pipeline)
        text = motionprep("inspect", path).stdout
        assert entry.strip().split("\n")[0] in text
