"""`transforms` (docs/signal.md, "Transforms") against numpy/scipy computed independently.

Random recordings with gaps are written as csv whose samples sit exactly on the 50 Hz grid, so
the resampled grid is the data. Each pipeline runs twice, without and with `transforms`, with
windows whose stride equals their length so that they cover every point of every gap-free
segment. Each segment is rebuilt from its windows, the chain is applied to the untransformed run's
values (float64 of the stored float32) with numpy/scipy, and the transformed run must equal it to
float32 precision, channel by channel, segment by segment (segment edges included). Segments too
short for a zero-phase filter's padding must be dropped and their windows counted as
`short_segment`. The shipped pipelines/uci-har-style.yaml is checked the same way on the sample
data, where windows overlap: every window must equal the chain applied to its segment."""
import json
import math
import re
from pathlib import Path

import h5py
import numpy as np
import pytest
from scipy.ndimage import median_filter
from scipy.signal import butter, sosfilt, sosfilt_zi, sosfiltfilt

import reference as ref
from conftest import motionprep

RATE, L = 50.0, 5
REPO = Path(__file__).resolve().parents[2]
# Samples per stretch of recording; every gap is 30 missing samples. The grid point of the last
# sample before a gap is invalid (its bracket spans the gap), so a stretch of n samples followed
# by a gap gives a segment of n − 1 points: segments of 200, 10, 15 and 100 points.
STRETCHES = [201, 11, 16, 100]
GAP = 30

HEADER = """\
version: 1
name: {name}
inputs:
  - type: csv
    paths: ["data/*.csv"]
    subject: "{{stem}}"
    sensor: imu
    time: {{column: t, unit: s}}
    channels: {{acc_x: ax, acc_y: ay, acc_z: az, gyro_x: gx, gyro_y: gy, gyro_z: gz}}
    units: {{acc_x: m/s^2, acc_y: m/s^2, acc_z: m/s^2, gyro_x: rad/s, gyro_y: rad/s, gyro_z: rad/s}}
resample: {{rate_hz: 50, method: linear, max_gap_s: 0.05, antialias: false}}
window: {{length_samples: {L}, stride_samples: {L}}}
split: {{seed: 3, fractions: {{train: 1, validation: 0, test: 0}}}}
output: {{type: hdf5, path: {name}}}
"""

UCI = """\
transforms:
  - median: {channels: [imu], samples: 3}
  - butterworth: {channels: [acc, gyro], order: 3, cutoff_hz: 20}
  - gravity: {channels: acc, cutoff_hz: 0.3}
  - derivative: {channels: [acc_body, gyro]}
  - magnitude: {channels: [acc_body, acc_gravity, acc_body_jerk, gyro, gyro_jerk]}
"""

OTHERS = """\
magnitude: [acc]
transforms:
  - calibrate: {channels: [acc_x, acc_y, gyro_z], scale: {default: 1.5, acc_y: 0.5}, offset: {acc_x: 0.25}}
  - butterworth: {channels: [gyro], type: highpass, order: 2, cutoff_hz: 0.5, zero_phase: false}
  - butterworth: {channels: [acc_mag, acc_z], type: bandpass, order: 4, cutoff_hz: [0.5, 8]}
  - median: {channels: acc_y, samples: 5}
  - derivative: {channels: [gyro_x]}
  - magnitude: {channels: [imu]}
  - magnitude: {channels: [acc_x, gyro_y, acc_mag], name: mixed}
"""


def median3(x, n):
    return median_filter(x, size=n, mode="nearest")


def derivative(x, rate):
    d = np.diff(x) * rate
    return np.concatenate([d[:1], d]) if len(x) > 1 else np.zeros_like(x)


def zero_phase(sos, x):
    return sosfiltfilt(sos, x)


def causal(sos, x):
    return sosfilt(sos, x, zi=sosfilt_zi(sos) * x[0])[0]


def uci_chain(seg, rate):
    """seg: [n, 6] float64 (acc_x…z, gyro_x…z) → (names, [n, C]) as motionprep lays them out."""
    ch = {n: seg[:, i] for i, n in enumerate(["acc_x", "acc_y", "acc_z", "gyro_x", "gyro_y", "gyro_z"])}
    for n in list(ch):
        ch[n] = median3(ch[n], 3)
    sos = butter(3, 20, "lowpass", fs=rate, output="sos")
    for n in list(ch):
        ch[n] = zero_phase(sos, ch[n])
    g = butter(3, 0.3, "lowpass", fs=rate, output="sos")
    for a in "xyz":
        ch[f"acc_gravity_{a}"] = zero_phase(g, ch[f"acc_{a}"])
    for a in "xyz":
        ch[f"acc_body_{a}"] = ch[f"acc_{a}"] - ch[f"acc_gravity_{a}"]
    for p in ["acc_body", "gyro"]:
        for a in "xyz":
            ch[f"{p}_jerk_{a}"] = derivative(ch[f"{p}_{a}"], rate)
    for p in ["acc_body", "acc_gravity", "acc_body_jerk", "gyro", "gyro_jerk"]:
        ch[f"{p}_mag"] = np.sqrt(sum(ch[f"{p}_{a}"] ** 2 for a in "xyz"))
    names = ([f"acc_{a}" for a in "xyz"] + [f"gyro_{a}" for a in "xyz"] + [f"acc_body_{a}" for a in "xyz"]
             + [f"acc_gravity_{a}" for a in "xyz"] + [f"acc_body_jerk_{a}" for a in "xyz"]
             + [f"gyro_jerk_{a}" for a in "xyz"]
             + [f"{p}_mag" for p in ["acc_body", "acc_gravity", "acc_body_jerk", "gyro", "gyro_jerk"]])
    return names, np.stack([ch[n] for n in names], axis=1)


def others_chain(seg, rate):
    names = ["acc_x", "acc_y", "acc_z", "gyro_x", "gyro_y", "gyro_z", "acc_mag"]
    ch = {n: seg[:, i] for i, n in enumerate(names)}
    ch["acc_x"] = ch["acc_x"] * 1.5 + 0.25
    ch["acc_y"] = ch["acc_y"] * 0.5
    ch["gyro_z"] = ch["gyro_z"] * 1.5
    hp = butter(2, 0.5, "highpass", fs=rate, output="sos")
    for a in "xyz":
        ch[f"gyro_{a}"] = causal(hp, ch[f"gyro_{a}"])
    bp = butter(4, [0.5, 8], "bandpass", fs=rate, output="sos")
    for n in ["acc_mag", "acc_z"]:
        ch[n] = zero_phase(bp, ch[n])
    ch["acc_y"] = median3(ch["acc_y"], 5)
    ch["gyro_jerk_x"] = derivative(ch["gyro_x"], rate)
    ch["imu_mag"] = np.sqrt(sum(ch[n] ** 2 for n in names[:6]))
    ch["mixed"] = np.sqrt(ch["acc_x"] ** 2 + ch["gyro_y"] ** 2 + ch["acc_mag"] ** 2)
    out = names + ["gyro_jerk_x", "imu_mag", "mixed"]
    return out, np.stack([ch[n] for n in out], axis=1)


def write_recordings(root, seed=5):
    rng = np.random.default_rng(seed)
    (root / "data").mkdir(parents=True)
    for rec in range(2):
        rows, k = [], 0
        for s, n in enumerate(STRETCHES):
            for _ in range(n):
                t = k / RATE
                acc = [0.2 * math.sin(2 * math.pi * 1.7 * t + rec) + rng.normal(0, 0.3), 9.8 + rng.normal(0, 0.5),
                       0.3 * t + rng.normal(0, 0.4)]
                gyro = [rng.normal(0, 1.0), math.cos(2 * math.pi * 0.4 * t) + rng.normal(0, 0.2), rng.normal(0.5, 0.3)]
                rows.append([t] + acc + gyro)
                k += 1
            k += GAP
        with open(root / "data" / f"rec{rec}.csv", "w") as f:
            f.write("t,ax,ay,az,gx,gy,gz\n")
            for r in rows:
                f.write(",".join(repr(v) for v in r) + "\n")


def load(out):
    """Every window of the dataset: (recording index, start time, x) sorted by recording and time."""
    xs, rec, start = [], [], []
    for split in ["train", "validation", "test"]:
        p = out / f"{split}.h5"
        if not p.exists():
            continue
        with h5py.File(p, "r") as f:
            if f["x"].shape[0] == 0:
                continue
            xs.append(f["x"][...])
            rec.append(f["recording_index"][...])
            start.append(f["start_time_s"][...])
    x, r, s = np.concatenate(xs), np.concatenate(rec), np.concatenate(start)
    order = np.lexsort((s, r))
    return r[order], s[order], x[order]


def rebuild_segments(rec, start, x, rate):
    """Consecutive windows (stride = length) joined into segments: {(rec, first start): [n, C]}."""
    out, current, key, last = {}, None, None, None
    for r, s, w in zip(rec, start, x):
        if current is not None and r == key[0] and abs(s - last - L / rate) < 1e-6:
            current.append(w)
        else:
            if current is not None:
                out[key] = np.concatenate(current)
            current, key = [w], (int(r), round(float(s), 6))
        last = s
    out[key] = np.concatenate(current)
    return out


def assert_float32_equal(got, want, names, where):
    """Equal to the float32 rounding of the float64 reference, within 2 float32 ulps of each
    channel's largest value (the precision of a stored value at that scale)."""
    want32 = want.astype(np.float32)
    for c, name in enumerate(names):
        scale = np.spacing(np.float32(np.max(np.abs(want[:, c])) or 1.0))
        err = np.max(np.abs(got[:, c].astype(np.float64) - want32[:, c].astype(np.float64)))
        assert err <= 2 * scale, f"{where}: channel {name} differs by {err} (2 ulps = {2 * scale})"


@pytest.mark.parametrize("name,steps,chain,short", [
    ("uci", UCI, uci_chain, {10}),          # zero-phase order 3: pad 12, so the 10-point segment is dropped
    ("others", OTHERS, others_chain, {10, 15}),  # band-pass order 4: pad 27
])
def test_chain_equals_scipy_per_segment(tmp_path, name, steps, chain, short):
    write_recordings(tmp_path)
    plain = HEADER.format(name=f"{name}-plain", L=L) + ("magnitude: [acc]\n" if "magnitude: [acc]" in steps else "")
    (tmp_path / "plain.yaml").write_text(plain)
    (tmp_path / "t.yaml").write_text(HEADER.format(name=name, L=L) + steps)
    motionprep("run", tmp_path / "plain.yaml", "--quiet")
    motionprep("run", tmp_path / "t.yaml", "--quiet")
    r0, s0, x0 = load(tmp_path / f"{name}-plain")
    r1, s1, x1 = load(tmp_path / name)
    before = rebuild_segments(r0, s0, x0, RATE)
    after = rebuild_segments(r1, s1, x1, RATE)
    # The untransformed run covers every segment, short ones included.
    assert sorted(len(v) for v in before.values()) == sorted([200, 10, 15, 100] * 2)
    kept = {k: v for k, v in before.items() if len(v) not in short}
    assert set(after) == set(kept), "the transformed run has exactly the segments long enough for its filters"
    manifest = json.loads((tmp_path / name / "manifest.json").read_text())
    expected_dropped = sum(n // L for n in short) * 2
    assert manifest["counts"]["windows_dropped"].get("short_segment") == expected_dropped
    names = [c["name"] for c in manifest["channels"]]
    for key, seg in kept.items():
        want_names, want = chain(seg.astype(np.float64), RATE)
        assert names == want_names
        assert_float32_equal(after[key], want, names, f"{name} segment {key}")
    # Units of derived channels (docs/signal.md, "Transforms").
    units = {c["name"]: c["unit"] for c in manifest["channels"]}
    if name == "uci":
        assert units["acc_body_x"] == "m/s^2" and units["acc_gravity_mag"] == "m/s^2"
        assert units["acc_body_jerk_z"] == "m/s^2/s" and units["gyro_jerk_mag"] == "rad/s/s"
    # Every step, defaults filled in, in the resolved pipeline.
    resolved = manifest["pipeline"]["resolved"]["transforms"]
    assert [list(s)[0] for s in resolved] == [re.match(r"\s*- (\w+)", l).group(1) for l in steps.splitlines() if l.startswith("  - ")]
    if name == "uci":
        assert resolved[1] == {"butterworth": {"channels": ["acc", "gyro"], "type": "lowpass", "order": 3,
                                               "cutoff_hz": 20.0, "zero_phase": True}}
        assert resolved[2] == {"gravity": {"channels": ["acc"], "cutoff_hz": 0.3, "order": 3, "zero_phase": True}}


def test_shipped_uci_har_style_pipeline(tmp_path):
    """pipelines/uci-har-style.yaml on the sample data: each (overlapping) window equals the chain
    applied to its whole segment, taken from a run of the same pipeline without transforms whose
    one-point windows cover every valid grid point; features cover the derived channels."""
    text = (REPO / "pipelines/uci-har-style.yaml").read_text()
    text = text.replace("../datasets/", f"{REPO}/datasets/").replace("../build/uci-har-style", str(tmp_path / "t"))
    (tmp_path / "t.yaml").write_text(text)
    plain = re.sub(r"transforms:\n(  .*\n)+", "", text)
    plain = re.sub(r"labels:\n(  .*\n)+", "", plain).replace("features:", "#features:")
    plain = plain.replace(str(tmp_path / "t"), str(tmp_path / "p"))
    plain = plain.replace("length_samples: 128", "length_samples: 1").replace("stride_samples: 64", "stride_samples: 1")
    (tmp_path / "p.yaml").write_text(plain)
    motionprep("run", tmp_path / "t.yaml", "--quiet")
    motionprep("run", tmp_path / "p.yaml", "--quiet")
    motionprep("validate", tmp_path / "t")
    manifest = json.loads((tmp_path / "t" / "manifest.json").read_text())
    assert manifest["window_length"] == 128 and manifest["window_stride"] == 64 and manifest["sample_rate_hz"] == 50
    plain_manifest = json.loads((tmp_path / "p" / "manifest.json").read_text())
    assert plain_manifest["recordings"] == manifest["recordings"]
    # Segments of the plain run: runs of one-point windows 1/50 s apart.
    r0, s0, x0 = load(tmp_path / "p")
    windows = {}
    k = 0
    while k < len(r0):
        j = k + 1
        while j < len(r0) and r0[j] == r0[k] and abs(s0[j] - s0[j - 1] - 1 / 50) < 1e-6:
            j += 1
        names, out = uci_chain(x0[k:j, 0, :].astype(np.float64), 50.0)
        for w in range(0, j - k - 128 + 1, 64):
            windows[(int(r0[k]), round(float(s0[k + w]), 4))] = out[w:w + 128]
        k = j
    r1, s1, x1 = load(tmp_path / "t")
    assert len(x1) > 50
    assert [c["name"] for c in manifest["channels"]] == names
    for r, s, w in zip(r1, s1, x1):
        key = (int(r), round(float(s), 4))
        assert key in windows, f"window {key} is not one the chain gives"
        assert_float32_equal(w, windows[key], names, f"window {key}")
    assert len(manifest["feature_names"]) == 6 * len(names)


def run_error(tmp_path, steps):
    write_recordings(tmp_path)
    p = tmp_path / "bad.yaml"
    p.write_text(HEADER.format(name="bad", L=L) + steps)
    return motionprep("validate", p, check=False), p


@pytest.mark.parametrize("steps,step,token,pattern", [
    # (the pipeline's steps, the step (0-based) and the text the report must point at, the message)
    ("transforms:\n  - butterworth: {channels: [acc], cutoff_hz: 25}\n", 0, "25}", r"must be below the Nyquist frequency, 25 Hz"),
    ("transforms:\n  - gravity: {channels: [acc], cutoff_hz: 30}\n", 0, "30}", r"must be below the Nyquist frequency"),
    ("transforms:\n  - butterworth: {channels: [acc], type: bandpass, cutoff_hz: [1, 25]}\n", 0, "25]",
     r"cutoff_hz\[1\]` .*must be below the Nyquist frequency"),
    ("transforms:\n  - gravity: {channels: [accel]}\n", 0, "accel", r"unknown channel `accel`.*did you mean `acc`\?"),
    ("transforms:\n  - derivative: {channels: [acc_body]}\n  - gravity: {channels: [acc]}\n", 0, "acc_body",
     r"`acc_body`, which only transforms\[1\] produces"),
    ("transforms:\n  - derivative: {channels: [acc]}\n  - derivative: {channels: [acc]}\n", 1, "derivative",
     r"produces channels `acc_jerk_x`, `acc_jerk_y`, `acc_jerk_z`, which transforms\[0\] already gives"),
    ("transforms:\n  - derivative: {channels: [gyro]}\n  - derivative: {channels: [gyro_x, gyro_jerk_x]}\n", 1, "derivative",
     r"produces channel `gyro_jerk_x`, which transforms\[0\] already gives"),
    ("transforms:\n  - median: {channels: [acc, acc_x]}\n", 0, "acc_x", r"lists channel `acc_x` twice"),
    ("transforms:\n  - magnitude: {channels: [acc_x]}\n", 0, "acc_x", r"a single channel; a magnitude needs a group"),
    ("transforms:\n  - magnitude: {channels: [acc_x], name: m}\n", 0, "magnitude", r"with `name: m` needs at least two channels"),
    ("transforms:\n  - magnitude: {channels: [acc, gyro], name: acc_y}\n", 0, "magnitude", r"produces channel `acc_y`, which the inputs or `magnitude` already gives"),
    ("transforms:\n  - calibrate: {channels: [acc_x], scale: {acc_y: 2}}\n", 0, "calibrate", r"calibrates channel `acc_y`"),
    ("transforms:\n  - median: {channels: [acc], samples: 4}\n", 0, "4}", r"must be an odd integer"),
    ("transforms:\n  - lowpass: {channels: [acc]}\n", 0, "lowpass", r"unknown step `lowpass`"),
])
def test_impossible_chains_are_reported_at_their_place(tmp_path, steps, step, token, pattern):
    proc, p = run_error(tmp_path, steps)
    assert proc.returncode == 78, proc.stderr
    text = p.read_text().splitlines()
    line = len(HEADER.format(name="bad", L=L).splitlines()) + 2 + step
    col = text[line - 1].index(token) + 1
    assert re.search(rf"{re.escape(str(p))}:{line}:{col}: error: .*{pattern}", proc.stderr, re.S), proc.stderr
