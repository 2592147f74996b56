"""Runs motionprep on phone-logger style csv recordings (docs/inputs.md, "Delimited text (csv)" and "Recordings, subjects and channels": one folder per
recording holding Accelerometer.csv and Barometer.csv, grouped with `recording: "{dirpath}"`)
and checks the HDF5 it writes against an independent numpy reference: channel names and units,
g → m/s² conversion, linear resampling for the accelerometer, previous-value for the barometer,
per-sensor max_gap_s, labels from the rows of both files.

The data are written here with Python's csv module (the barometer with its default CRLF line ends
and every text field quoted), and once more by `motionprep synth --format csv`."""
import csv
import json
import math

import h5py
import numpy as np
import pytest

import reference as ref
from conftest import motionprep

RATE, LENGTH, STRIDE, MIN_FRACTION = 50.0, 100, 50, 0.5
MAX_GAP = {"Accelerometer": 0.05, "Barometer": 1.5}
CLASSES = ["walk", "stairs"]
CHANNELS = ["acc_x", "acc_y", "acc_z", "pressure", "relative_altitude"]
UNITS = ["m/s^2"] * 3 + ["kPa", "m"]

PIPELINE = """\
version: 1
name: phone
inputs:
  - type: csv
    paths: ["data/*/*/Accelerometer.csv"]
    recording: "{dirpath}"
    subject: "{dir:2}"
    time: {column: time, unit: s}
    channels: {acc_x: x, acc_y: y, acc_z: z}
    units: {acc_x: g, acc_y: g, acc_z: g}
    label_column: activity
  - type: csv
    paths: ["data/*/*/Barometer.csv"]
    recording: "{dirpath}"
    subject: "{dir:2}"
    time: {column: time}
    channels: {pressure: pressure, relative_altitude: relative_altitude}
    units: {pressure: kPa, relative_altitude: m}
    label_column: activity
resample:
  rate_hz: 50
  method: {default: linear, Barometer: previous}
  max_gap_s: {default: 0.05, Barometer: 1.5}
  antialias: false
window: {length_samples: 100, stride_samples: 50}
labels: {from: rows, policy: majority, min_fraction: 0.5, classes: [walk, stairs]}
split: {seed: 42}
output: {type: hdf5, path: out}
"""


def activity(t):
    if t < 4:
        return ""
    if t < 18:
        return "walk"
    if t < 30:
        return "stairs"
    return "walk"


def write_recording(folder, rng, seconds, missing_at):
    """One phone-logger folder; returns (rows written, rows with a missing value)."""
    folder.mkdir(parents=True)
    rows, missing = 0, 0
    with open(folder / "Accelerometer.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["time", "x", "y", "z", "activity"])
        n = int(seconds * 100)
        times = np.arange(n) / 100 + 0.013 + rng.uniform(-0.0005, 0.0005, n)
        for k, t in enumerate(times):
            x = 0.3 * math.sin(2 * math.pi * 1.8 * t) + rng.normal(0, 0.01)
            y = -0.9 + 0.2 * math.cos(2 * math.pi * 1.8 * t)
            z = 0.1 * math.sin(2 * math.pi * 0.5 * t)
            if k in missing_at:
                w.writerow([repr(float(t)), "", repr(y), repr(z), activity(t)])
                missing += 1
            else:
                w.writerow([repr(float(t)), f"{x:.6f}", repr(y), f"{z:.6e}", activity(t)])
            rows += 1
    with open(folder / "Barometer.csv", "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC)  # CRLF; text quoted, "" for no label
        w.writerow(["time", "pressure", "relative_altitude", "activity"])
        sea = 101.3 + rng.uniform(-1, 1)
        start = None
        for k in range(int(seconds)):
            t = 0.31 + k + rng.uniform(-0.004, 0.004)
            altitude = 0.0 if t < 18 else 0.17 * min(t - 18, 12) * 1.7
            p = round(sea - 0.012 * altitude + rng.normal(0, 0.0006), 6)
            start = p if start is None else start
            w.writerow([float(t), p, round((p - start) / -0.012, 6), activity(t)])
            rows += 1
    return rows, missing


@pytest.fixture(scope="module", params=["python", "synth"])
def phone_data(request, tmp_path_factory):
    root = tmp_path_factory.mktemp(f"phone-{request.param}")
    if request.param == "python":
        rng = np.random.default_rng(5)
        rows = missing = 0
        for s in (1, 2, 3):
            for r in (1, 2):
                n, m = write_recording(root / "data" / f"subject{s:02}" / f"rec-{r:02}", rng, 40 + 3 * s + r,
                                       missing_at={500 + 100 * r, 1701})
                rows, missing = rows + n, missing + m
    else:
        motionprep("synth", "--out", root / "data", "--subjects", 3, "--minutes", 1, "--seed", 11, "--format", "csv")
        rows = missing = None
    (root / "phone.yaml").write_text(PIPELINE)
    proc = motionprep("run", root / "phone.yaml", "--jobs", 2, "--quiet", "--json")
    return root, json.loads(proc.stdout), rows, missing


def read_wide(path, columns, factors):
    """(times, values[n, c]) in file order, rows with a missing value left out; label events."""
    times, values, events = [], [], []
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = [h.strip() for h in rows[0]]
    ti, li = header.index("time"), header.index("activity")
    idx = [header.index(c) for c in columns]
    for row in rows[1:]:
        if not row:
            continue
        t = ref.number(row[ti])
        if t is None:
            continue
        if row[li].strip():
            events.append((t, row[li].strip()))
        vals = [ref.number(row[i]) for i in idx]
        if any(v is None for v in vals):
            continue
        times.append(t)
        values.append([v * k for v, k in zip(vals, factors)])
    return np.array(times), np.array(values).reshape(len(times), len(columns)), events


def reference_windows(data_dir):
    """{recording: (x [N, T, C], y, start times)}, with acc linear and baro previous."""
    out = {}
    for folder in sorted(p for p in data_dir.glob("*/*") if p.is_dir()):
        ta, va, ea = read_wide(folder / "Accelerometer.csv", ["x", "y", "z"], [ref.G] * 3)
        tb, vb, eb = read_wide(folder / "Barometer.csv", ["pressure", "relative_altitude"], [1, 1])
        t0, t1 = max(ta[0], tb[0]), min(ta[-1], tb[-1])
        limit = t1 + 1e-9 * max(1.0, abs(t1))
        grid = t0 + np.arange(int(math.floor((limit - t0) * RATE)) + 3) / RATE
        grid = grid[grid <= limit]
        valid = np.ones(len(grid), dtype=bool)
        for t, gap in ((ta, MAX_GAP["Accelerometer"]), (tb, MAX_GAP["Barometer"])):
            i = np.clip(np.searchsorted(t, grid, side="right") - 1, 0, len(t) - 2)
            valid &= (t[i + 1] - t[i]) <= gap
        acc = np.stack([np.interp(grid, ta, va[:, c]) for c in range(3)], axis=1)
        prev = np.clip(np.searchsorted(tb, grid, side="right") - 1, 0, len(tb) - 1)
        values = np.concatenate([acc, vb[prev]], axis=1).astype(np.float32)
        points = ref.labels_at(ea + eb, grid)
        xs, ys, ts = [], [], []
        for s in ref.window_starts(valid, LENGTH, STRIDE):
            label, _ = ref.majority(points[s:s + LENGTH], MIN_FRACTION)
            if label is None or label not in CLASSES:
                continue
            xs.append(values[s:s + LENGTH])
            ys.append(CLASSES.index(label))
            ts.append(grid[s])
        out[str(folder.relative_to(data_dir))] = (np.array(xs, dtype=np.float32).reshape(-1, LENGTH, 5), ys, ts)
    return out


def test_run_summary_counts_rows_and_missing_values(phone_data):
    root, summary, rows, missing = phone_data
    assert summary["recordings"] == 6
    if rows is not None:
        assert summary["rows_read"] == rows
        assert summary["rows_dropped"] == {"missing_value": missing}


def test_channels_units_and_every_window_match_numpy(phone_data):
    root, _, _, _ = phone_data
    expected = reference_windows(root / "data")
    manifest = json.loads((root / "out" / "manifest.json").read_text())
    assert [c["name"] for c in manifest["channels"]] == CHANNELS
    assert [c["unit"] for c in manifest["channels"]] == UNITS
    assert manifest["recordings"] == sorted(expected)
    total = 0
    for split in ("train", "validation", "test"):
        with h5py.File(root / "out" / f"{split}.h5", "r") as f:
            assert list(f.attrs["channel_names"]) == CHANNELS
            assert list(f.attrs["channel_units"]) == UNITS
            assert list(f.attrs["class_names"]) == CLASSES
            recordings = list(f.attrs["recording_names"])
            x, y = f["x"][...], f["y"][...]
            ridx, starts = f["recording_index"][...], f["start_time_s"][...]
            total += len(y)
            for r in sorted(set(ridx.tolist())):
                rows = ridx == r
                exp_x, exp_y, exp_t = expected[recordings[r]]
                assert x[rows].shape == exp_x.shape, recordings[r]
                np.testing.assert_allclose(x[rows], exp_x, rtol=2e-6, atol=2e-6)
                assert y[rows].tolist() == exp_y
                np.testing.assert_array_equal(starts[rows], np.array(exp_t))
    assert total == sum(len(v[1]) for v in expected.values()) > 0


def test_spot_values_by_hand(phone_data):
    """A few points computed directly: acc at grid point 7 of the first train window is
    np.interp of the file's g values × 9.80665; the barometer holds its previous sample."""
    root, _, _, _ = phone_data
    with h5py.File(root / "out" / "train.h5", "r") as f:
        recordings = list(f.attrs["recording_names"])
        r, t_start, x = int(f["recording_index"][0]), float(f["start_time_s"][0]), f["x"][0]
    folder = root / "data" / recordings[r]
    ta, va, _ = read_wide(folder / "Accelerometer.csv", ["x", "y", "z"], [1, 1, 1])
    tb, vb, _ = read_wide(folder / "Barometer.csv", ["pressure", "relative_altitude"], [1, 1])
    for k in (0, 7, 63):
        t = t_start + k / RATE
        for c in range(3):
            assert x[k, c] == pytest.approx(np.interp(t, ta, va[:, c]) * 9.80665, rel=1e-6, abs=1e-6)
        j = np.searchsorted(tb, t, side="right") - 1
        assert x[k, 3] == np.float32(vb[j, 0]) and x[k, 4] == np.float32(vb[j, 1])


LONG_PIPELINE = """\
version: 1
name: long
inputs:
  - type: csv
    paths: ["long/*.csv"]
    delimiter: ";"
    time: {column: timestamp, unit: iso8601}
    sensor_column: sensor
    sensor_channels: {A: {acc_x: x, acc_y: y, acc_z: z}, G: {gyro_x: x, gyro_y: y, gyro_z: z}}
    units: {acc_x: g, acc_y: g, acc_z: g, gyro_x: deg/s, gyro_y: deg/s, gyro_z: deg/s}
    label_column: activity
    sensors: [G, A]
resample: {rate_hz: 20, max_gap_s: 0.2, antialias: false}
window: {length_samples: 20, stride_samples: 20}
labels: {from: rows, classes: [walk, "stairs; up"]}
output: {type: hdf5, path: out}
"""


def iso(t):
    """Epoch seconds as ISO 8601 at +02:00 with microseconds."""
    from datetime import datetime, timedelta, timezone
    return datetime.fromtimestamp(t, timezone(timedelta(hours=2))).isoformat(timespec="microseconds")


def run_long_format(tmp_path):
    """One long file: A and G rows interleaved (and an unlisted M), `;`-delimited, ISO 8601
    times with a zone, `sensors: [G, A]` ordering the channels, units g and deg/s."""
    (tmp_path / "long").mkdir()
    rng = np.random.default_rng(9)
    t0 = 1_714_566_600.0
    rows = {"A": [], "G": []}
    with open(tmp_path / "long" / "rec.csv", "w", newline="") as f:
        w = csv.writer(f, delimiter=";")
        w.writerow(["sensor", "timestamp", "x", "y", "z", "activity"])
        for k in range(500):
            for code, offset in (("A", 0.0), ("G", 0.004), ("M", 0.007)):
                t = t0 + k * 0.02 + offset
                v = [round(float(a), 6) for a in rng.normal(0, 1, 3)]
                w.writerow([code, iso(t), *v, "walk" if k < 250 else "stairs; up"])
                if code in rows:
                    rows[code].append((round(t, 6), v))
    (tmp_path / "long.yaml").write_text(LONG_PIPELINE)
    motionprep("run", tmp_path / "long.yaml", "--quiet")
    xs, starts = [], []
    for split in ("train", "validation", "test"):
        with h5py.File(tmp_path / "out" / f"{split}.h5", "r") as f:
            assert list(f.attrs["channel_names"]) == ["gyro_x", "gyro_y", "gyro_z", "acc_x", "acc_y", "acc_z"]
            assert list(f.attrs["channel_units"]) == ["rad/s"] * 3 + ["m/s^2"] * 3
            assert list(f.attrs["class_names"]) == ["walk", "stairs; up"]
            xs.append(f["x"][...])
            starts.append(f["start_time_s"][...])
    x, start = np.concatenate(xs), np.concatenate(starts)
    ta = np.array([t for t, _ in rows["A"]])
    va = np.array([v for _, v in rows["A"]]) * ref.G
    tg = np.array([t for t, _ in rows["G"]])
    vg = np.array([v for _, v in rows["G"]]) * (math.pi / 180)
    assert start.min() == pytest.approx(tg[0], abs=1e-6)
    # Windows inside the data.
    t1 = min(ta[-1], tg[-1])
    inside = [w for w in range(len(x)) if start[w] + 19 / 20 <= t1]
    assert len(inside) == 10  # 0.004 s … 9.98 s at 20 Hz: 200 grid points
    for w in inside:
        grid = start[w] + np.arange(20) / 20
        for c in range(3):
            np.testing.assert_allclose(x[w, :, c], np.interp(grid, tg, vg[:, c]), rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(x[w, :, 3 + c], np.interp(grid, ta, va[:, c]), rtol=1e-5, atol=1e-5)
    return x, start, t1


def test_long_format_iso_times_and_sensor_order(tmp_path):
    run_long_format(tmp_path)


def test_grid_does_not_run_past_the_last_sample_on_epoch_times(tmp_path):
    # the original contract's tolerance 1e-9 × max(1, |T1|) would be 1.7 s on an epoch clock; motionprep uses
    # max(1e-9 × max(1, |T1 − T0|), 4 ulp(T1)) (ResampleGrid.swift), so no point is extrapolated.
    x, start, t1 = run_long_format(tmp_path)
    assert start.max() + 19 / 20 <= t1 + 1e-6


def test_bad_number_is_exit_65_with_line_and_column(tmp_path):
    (tmp_path / "long").mkdir()
    (tmp_path / "long" / "rec.csv").write_text(
        "sensor;timestamp;x;y;z;activity\n"
        "A;2024-05-01T12:30:00Z;1;2;3;walk\n"
        "A;\"2024-05-01T12:30:01\nZ\";1;2;3;walk\n")
    (tmp_path / "long.yaml").write_text(LONG_PIPELINE)
    proc = motionprep("run", tmp_path / "long.yaml", "--quiet", check=False)
    assert proc.returncode == 65
    assert "long/rec.csv:3:3: error: `2024-05-01T12:30:01\\u{a}Z` is not a time (expected an ISO 8601 time" in proc.stderr
