"""`motionprep inspect`: statistics against numpy on a crafted file (duplicates, out-of-order
rows, a gap, missing values), and `--samples` against the raw CSV parsed by Python."""
import csv
import json

import numpy as np

from conftest import motionprep

G = 9.80665


def crafted(tmp_path):
    rows = ["Source, Label, When, X, Y, Z, UA_X, UA_Y, UA_Z, Pitch, Roll, Yaw"]
    t = 0.0
    for i in range(300):
        t = 1.0 + i * 0.01 + (0.0004 if i % 7 == 0 else 0.0)
        if 150 <= i < 180:
            continue  # a 0.3 s gap in A
        label = "" if i < 50 else ("W" if i < 200 else "T")
        rows.append(f"A,{label},{t!r},{0.1 * i},{-0.5},{1e-3 * i}")
        if i % 2 == 0:
            rows.append(f"G,{label},{t + 0.001!r},{0.01 * i},0.2,0.3")
    rows.append("A,T,2.5,1,2,3")          # out of order (earlier than the previous A)
    rows.append("A,T,3.99,1,2,3")
    rows.append("A,T,3.99,4,5,6")          # duplicate time
    rows.append("A,T,4.0,nan,2,3")         # missing value: left out
    p = tmp_path / "crafted.csv"
    p.write_text("\n".join(rows) + "\n")
    return p


def test_inspect_json_statistics_match_numpy(tmp_path):
    path = crafted(tmp_path)
    report = json.loads(motionprep("inspect", path, "--json").stdout)[0]
    assert report["format"] == "motioncollector (current header)"
    assert report["rows_dropped"] == {"missing_value": 1}
    with open(path) as f:
        body = [r for r in csv.reader(f)][1:]
    a_times = [float(r[2]) for r in body if r[0] == "A" and r[3] != "nan"]
    a = next(s for s in report["streams"] if s["sensor"] == "A")
    assert a["samples"] == len(a_times)
    t = np.array(a_times)
    assert a["out_of_order"] == int((np.diff(t) < 0).sum()) == 1
    s = np.sort(t)
    d = np.diff(s)
    assert a["duplicate_times"] == int((d == 0).sum()) >= 1
    pos = d[d > 0]
    for k, q in (("p50", 50), ("p95", 95), ("p99", 99)):
        assert abs(a["interval_s"][k] - np.percentile(pos, q)) < 1e-12
    assert a["gaps"]["count"] == int((pos > 0.25).sum()) and a["gaps"]["count"] >= 1
    assert abs(a["effective_rate_hz"] - (len(s) - 1 - int((d == 0).sum())) / (s[-1] - s[0])) < 1e-9
    labels = report["labels"]
    assert labels["source"] == "rows"
    # The out-of-order `T` row at 2.5 s interrupts walking: labels are a step function of time.
    assert [seg["label"] for seg in labels["segments"]] == [None, "W", "T", "W", "T"]
    assert labels["segments"][1]["start_s"] == a_times[50] and labels["segments"][2]["start_s"] == 2.5


def test_samples_are_the_parsed_rows_in_file_order(tmp_path):
    path = crafted(tmp_path)
    (tmp_path / "data").mkdir()
    path.rename(tmp_path / "data" / "crafted.csv")
    (tmp_path / "p.yaml").write_text(
        "version: 1\ninputs:\n  - type: motioncollector\n    paths: [data/crafted.csv]\n    sensors: [A, G]\n    sort: true\n"
        "resample: {rate_hz: 50}\nwindow: {length_samples: 8}\nlabels: {classes: [W, T]}\noutput: {path: out}\n")
    motionprep("inspect", tmp_path / "p.yaml", "--samples", tmp_path / "samples")
    with open(tmp_path / "data" / "crafted.csv") as f:
        body = [r for r in csv.reader(f)][1:]
    expected = [(float(r[2]), *(float(v) * G for v in r[3:6])) for r in body if r[0] == "A" and r[3] != "nan"]
    with open(tmp_path / "samples" / "crafted" / "A.csv") as f:
        got = list(csv.reader(f))
    assert got[0] == ["time_s", "acc_x", "acc_y", "acc_z"]
    assert [tuple(float(v) for v in r) for r in got[1:]] == expected   # exact: shortest round-trip text
    with open(tmp_path / "samples" / "crafted" / "labels.csv") as f:
        lab = list(csv.reader(f))
    assert lab[0] == ["time_s", "label"] and [r[1] for r in lab[1:]] == ["W", "T", "W", "T"]  # the out-of-order T row at 2.5 s


def test_inspect_never_fails_on_a_bad_recording_in_a_pipeline(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "good.csv").write_text("Source, Label, When, X, Y, Z\nA,W,0.0,1,2,3\nA,W,0.01,1,2,3\n")
    (tmp_path / "data" / "bad.csv").write_text("Source, Label, When, X, Y, Z\nA,W,0.0,1.2.3,2,3\n")
    (tmp_path / "p.yaml").write_text(
        "version: 1\ninputs:\n  - type: motioncollector\n    paths: [data/*.csv]\n    sensors: [A]\n"
        "resample: {rate_hz: 50}\nwindow: {length_samples: 8}\noutput: {path: out}\n")
    reports = json.loads(motionprep("inspect", tmp_path / "p.yaml", "--json").stdout)["recordings"]
    bad = next(r for r in reports if r["recording"] == "bad")
    assert "1.2.3" in bad["error"] and "bad.csv:2" in bad["error"]
    assert next(r for r in reports if r["recording"] == "good")["error"] is None


def test_inspect_dataset_shows_the_processing_chain(tmp_path):
    """`inspect DATASET` lists the manifest's `chain`: streams, anti-aliasing, magnitudes, transforms."""
    import os
    root = os.path.join(os.path.dirname(__file__), "..", "..", "pipelines")
    out = tmp_path / "uci"
    motionprep("run", os.path.join(root, "uci-har-style.yaml"), "--quiet", "--out", out)
    text = motionprep("inspect", out).stdout
    assert "  streams: A (acc_x…z; linear, max gap 0.2 s), G (gyro_x…z; linear, max gap 0.2 s)" in text
    assert "  anti-aliasing: on (filter from each stream's first 256 intervals)" in text
    assert "    1. median 3: acc_x…z, gyro_x…z, in place" in text
    assert "    3. gravity (zero phase): acc_x…z → acc_body_x…z, acc_gravity_x…z" in text
    assert "    5. magnitude: " in text and "→ acc_body_mag, acc_gravity_mag, acc_body_jerk_mag, gyro_mag, gyro_jerk_mag" in text
    walk = tmp_path / "walk"
    motionprep("run", os.path.join(root, "walk.yaml"), "--quiet", "--out", walk)
    text = motionprep("inspect", walk).stdout
    assert "  magnitudes: acc_mag of acc_x…z" in text and "transforms:" not in text
