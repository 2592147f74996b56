"""The live library (docs/live.md) through its example app, examples/live (another Swift package
that depends on the MotionLive product): every recording of a dataset (synthesized here, and the
repository's sample recordings, datasets/walk), replayed sample by sample with no knowledge but the manifest,
in the order a phone delivers them (each sensor in bursts of 1-24 samples, 0-80 ms late, the
sensors interleaved), gives the dataset's windows bit for bit: x, features and start_time_s as
h5py reads them, x_normalized as numpy computes (x - mean) / std from the manifest. Also checks
that MotionLive's dependency closure holds no HDF5, zstd, YAML or libcrypto.
"""
import csv
import json
import os
import subprocess
from pathlib import Path

import h5py
import numpy as np
import pytest

from conftest import motionprep

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "live"
REPLAY = Path(os.environ.get("MOTIONPREP_LIVE_REPLAY") or EXAMPLE / ".build" / "debug" / "live-replay")
G = 9.80665
CHANNELS = {"A": G, "G": 1.0}

WALK = """\
version: 1
name: livetest
inputs:
  - {{type: motioncollector, paths: ["{paths}"], sensors: [A, G]}}
resample: {{rate_hz: 50, method: linear, max_gap_s: 0.2, antialias: true{antialias_from}}}
window: {{length_s: 2.56, stride_s: 1.28}}
labels: {{from: rows, policy: majority, min_fraction: 0.8, map: {{W: walk, T: turn}}, classes: [walk, turn]}}
magnitude: [acc]
features: [mean, std, min, max, rms, dominant_freq_hz]
{transforms}
split: {{by: subject, seed: 15, fractions: {{train: 0.5, validation: 0.25, test: 0.25}}, allocation: exact}}
output: {{type: hdf5, path: out/{name}}}
"""
UCI = """transforms:
  - median: {channels: [A, G], samples: 3}
  - butterworth: {channels: [A, G], type: lowpass, order: 3, cutoff_hz: 20}
  - gravity: {channels: [A], cutoff_hz: 0.3, order: 3}
  - derivative: {channels: [acc_body, gyro]}
  - magnitude: {channels: [acc_body, acc_gravity, acc_body_jerk, gyro, gyro_jerk]}
"""


@pytest.fixture(scope="module")
def replay_bin():
    if not REPLAY.exists():
        subprocess.run(["swift", "build", "--package-path", str(EXAMPLE)], check=True, capture_output=True)
    return REPLAY


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("live")
    motionprep("synth", "--out", root / "data", "--subjects", 4, "--minutes", 1.5, "--seed", 21)
    return root


def run_dataset(root, name, transforms="", paths="data/**/*.csv", antialias_from=""):
    (root / f"{name}.yaml").write_text(WALK.format(name=name, transforms=transforms, paths=paths,
                                                   antialias_from=f", antialias_from: {antialias_from}" if antialias_from else ""))
    motionprep("run", root / f"{name}.yaml", "--quiet")
    return root / "out" / name


def read_samples(path):
    """Each kept sensor's samples in file order (duplicate times included), values converted."""
    streams = {code: [] for code in CHANNELS}
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    for row in rows[1:]:
        code = row[0].strip()
        if code not in CHANNELS:
            continue
        t = float(row[2])
        streams[code].append((t, [float(v) * CHANNELS[code] for v in row[3:6]]))
    return streams


def median_interval(samples):
    """The median interval after the time rules (equal times keep the last sample)."""
    t = np.array([s[0] for s in samples])
    keep = np.ones(len(t), dtype=bool)
    keep[:-1] = t[1:] != t[:-1]
    d = np.sort(np.diff(t[keep]))
    n = len(d)
    return d[n // 2] if n % 2 else (d[n // 2 - 1] + d[n // 2]) / 2


def arrival_order(streams, seed):
    rng = np.random.default_rng(seed)
    events = []
    for code, samples in streams.items():
        j, last = 0, -np.inf
        while j < len(samples):
            end = min(len(samples), j + int(rng.integers(1, 25)))
            last = max(last, samples[end - 1][0] + rng.uniform(0, 0.08))
            events += [(last, len(events), code, k) for k in range(j, end)]
            j = end
    events.sort()
    return [(code, k) for _, _, code, k in events]


def replay(replay_bin, dataset, recording_csv, tmp, seed, intervals=False):
    """Replays a recording with jitter; `intervals` gives the live library each stream's median interval over the
    whole recording (only a dataset of `antialias_from: recording` needs it)."""
    streams = read_samples(recording_csv)
    lines = []
    for code, k in arrival_order(streams, seed):
        t, values = streams[code][k]
        lines.append(",".join([code, repr(t)] + [repr(v) for v in values]))
    samples = tmp / "samples.csv"
    samples.write_text("\n".join(lines) + "\n")
    out = tmp / "windows.bin"
    args = [str(replay_bin), str(dataset), str(samples), str(out)]
    for code, s in streams.items():
        if intervals:
            args += ["--interval", f"{code}={float(median_interval(s))!r}"]
    proc = subprocess.run(args, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout)
    T, C, F = info["window_length"], info["channels"], info["features"]
    fields = [("start", "<f8"), ("x", "<f4", (T, C))]
    if info["x_normalized"]:
        fields.append(("xn", "<f4", (T, C)))
    fields.append(("f", "<f4", (F,)))
    if info["features_normalized"]:
        fields.append(("fn", "<f4", (F,)))
    windows = np.fromfile(out, dtype=np.dtype(fields))
    assert len(windows) == info["windows"]
    return windows, info


def dataset_windows(dataset, manifest):
    """Every window of the dataset: x, features, start_time_s and its recording's name."""
    parts = {k: [] for k in ("x", "features", "start_time_s", "recording")}
    for split in ("train", "validation", "test"):
        with h5py.File(dataset / f"{split}.h5", "r") as f:
            parts["x"].append(f["x"][:])
            parts["features"].append(f["features"][:])
            parts["start_time_s"].append(f["start_time_s"][:])
            parts["recording"] += [manifest["recordings"][i] for i in f["recording_index"][:]]
    return {k: (np.concatenate(v) if k != "recording" else v) for k, v in parts.items()}


@pytest.mark.parametrize("transforms,antialias_from,recordings", [
    ("", "", "synth"), (UCI, "", "synth"), ("", "", "sample"), ("", "recording", "synth")],
    ids=["walk", "uci-har-style", "sample-recordings", "recording-median"])
def test_replaying_every_recording_gives_the_dataset_bit_for_bit(replay_bin, data, tmp_path, transforms, antialias_from,
                                                                 recordings):
    """With no knowledge but the manifest (`antialias_from: leading`, the default: no intervals given), or given the
    recordings' median intervals (a dataset of `antialias_from: recording`). `sample-recordings`: the repository's
    sample recordings (datasets/walk: MotionCollector files at ~100 Hz, synthesized), replayed with jitter."""
    name = "-".join(filter(None, ["uci" if transforms else "walk", antialias_from, recordings]))
    folder = data / "data" if recordings == "synth" else ROOT / "datasets" / "walk"
    dataset = run_dataset(data, name, transforms, paths=f"{folder}/**/*.csv", antialias_from=antialias_from)
    manifest = json.loads((dataset / "manifest.json").read_text())
    assert manifest["chain"]["antialias"] is True
    if antialias_from:
        assert "antialias_from" not in manifest["chain"] and "antialias_from" not in manifest["pipeline"]["resolved"]["resample"]
    else:
        assert manifest["chain"]["antialias_from"] == manifest["pipeline"]["resolved"]["resample"]["antialias_from"] == "leading"
    stored = dataset_windows(dataset, manifest)
    mean = np.array(manifest["normalization"]["x"]["mean"])
    std = np.array(manifest["normalization"]["x"]["std"])
    fmean = np.array(manifest["normalization"]["features"]["mean"])
    fstd = np.array(manifest["normalization"]["features"]["std"])
    emitted, matched = 0, 0
    for r, recording in enumerate(manifest["recordings"]):
        windows, info = replay(replay_bin, dataset, folder / f"{recording}.csv", tmp_path, seed=r,
                               intervals=antialias_from == "recording")
        emitted += len(windows)
        by_start = {w["start"].tobytes(): w for w in windows}
        mine = [i for i, rec in enumerate(stored["recording"]) if rec == recording]
        for i in mine:
            w = by_start.get(stored["start_time_s"][i].tobytes())
            assert w is not None, f"{recording}: the window at {stored['start_time_s'][i]} s was not emitted"
            assert w["x"].tobytes() == stored["x"][i].tobytes(), f"{recording}: x differs at {stored['start_time_s'][i]} s"
            assert w["f"].tobytes() == stored["features"][i].tobytes(), f"{recording}: features differ"
            xn = ((stored["x"][i].astype(np.float64) - mean) / np.where(std == 0, 1, std)).astype(np.float32)
            assert w["xn"].tobytes() == xn.tobytes()
            fn = ((stored["features"][i].astype(np.float64) - fmean) / np.where(fstd == 0, 1, fstd)).astype(np.float32)
            assert w["fn"].tobytes() == fn.tobytes()
            matched += 1
    # The live library emits every window; the dataset keeps those its label policy keeps.
    assert matched == len(stored["x"]) > 20
    dropped = manifest["counts"]["windows_dropped"]
    assert emitted == matched + dropped.get("below_min_fraction", 0) + dropped.get("no_label", 0)


@pytest.mark.parametrize("named", [False, True], ids=["as-shipped", "sensor-named"])
def test_a_recording_of_two_files_and_a_1_hz_stream_bit_for_bit(replay_bin, tmp_path, named):
    """datasets/stairs: each recording is two csv files (Accelerometer.csv at ~100 Hz in g, Barometer.csv at 1 Hz,
    17-18 samples: fewer than the 256 intervals the filter is designed from, so the live library holds it until
    the end), replayed with jitter as two streams of a phone. Every window is the dataset's, bit for bit. The
    pipeline is pipelines/stairs.yaml as shipped, whose streams are named by their files (`{stem}`): every file
    of an input has the same stem, so the chain names each stream by it, with the 1 Hz stream's own `previous`
    and `max_gap_s: 1.5` (docs/dataset-format.md, "The processing chain"); and the same with `sensor:` names."""
    text = (ROOT / "pipelines" / "stairs.yaml").read_text().replace("../datasets/", f"{ROOT}/datasets/")
    if named:
        text = text.replace("    recording:", "    sensor: SENSOR\n    recording:", 2)
        text = text.replace("SENSOR", "Accelerometer", 1).replace("SENSOR", "Barometer", 1)
    (tmp_path / "stairs.yaml").write_text(text)
    dataset = tmp_path / "stairs"
    motionprep("run", tmp_path / "stairs.yaml", "--quiet", "--out", dataset)
    manifest = json.loads((dataset / "manifest.json").read_text())
    assert manifest["chain"]["antialias_from"] == "leading"
    assert [(s["name"], s["method"], s["max_gap_s"]) for s in manifest["chain"]["streams"]] == [
        ("Accelerometer", "linear", 0.2), ("Barometer", "previous", 1.5)]
    stored = dataset_windows(dataset, manifest)
    matched = 0
    for r, recording in enumerate(manifest["recordings"]):
        folder = ROOT / "datasets" / "stairs" / recording
        streams = {}
        for k, (name, factor) in enumerate([("Accelerometer", G), ("Barometer", 1.0)]):
            with open(folder / f"{name}.csv", newline="") as f:
                rows = list(csv.reader(f))[1:]
            streams[name] = [(float(row[0]), [float(v) * factor for v in row[1:-1]]) for row in rows if row]
        assert len(streams["Barometer"]) < 257 < len(streams["Accelerometer"])
        lines = []
        for code, k in arrival_order(streams, r):
            t, values = streams[code][k]
            lines.append(",".join([code, repr(t)] + [repr(v) for v in values]))
        (tmp_path / "samples.csv").write_text("\n".join(lines) + "\n")
        proc = subprocess.run([str(replay_bin), str(dataset), str(tmp_path / "samples.csv"), str(tmp_path / "w.bin")],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        info = json.loads(proc.stdout)
        T, C, F = info["window_length"], info["channels"], info["features"]
        fields = [("start", "<f8"), ("x", "<f4", (T, C))]
        fields += [("xn", "<f4", (T, C))] if info["x_normalized"] else []
        fields += [("f", "<f4", (F,))] + ([("fn", "<f4", (F,))] if info["features_normalized"] else [])
        windows = np.fromfile(tmp_path / "w.bin", dtype=np.dtype(fields))
        assert len(windows) == info["windows"]
        by_start = {w["start"].tobytes(): w for w in windows}
        for i in [i for i, rec in enumerate(stored["recording"]) if rec == recording]:
            w = by_start.get(stored["start_time_s"][i].tobytes())
            assert w is not None, f"{recording}: the window at {stored['start_time_s'][i]} s was not emitted"
            assert w["x"].tobytes() == stored["x"][i].tobytes(), f"{recording}: x differs at {stored['start_time_s'][i]} s"
            matched += 1
    assert matched == len(stored["x"]) > 20


def test_missing_or_needless_interval_is_one_sentence(replay_bin, data, tmp_path):
    """A dataset of `antialias_from: recording` needs each stream's interval; one of `leading` takes none."""
    (tmp_path / "s.csv").write_text("A,0.0,1,2,3\n")
    old = run_dataset(data, "walk2", antialias_from="recording")
    proc = subprocess.run([str(replay_bin), str(old), str(tmp_path / "s.csv"), str(tmp_path / "o.bin")],
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stderr == ("live-replay: the dataset low-passes its streams before resampling (antialias: true) with a "
                           "filter designed from each recording's median sampling interval (it was made before "
                           "antialias_from: leading); give stream `A`'s interval in seconds in sampleIntervals (0.01 for "
                           "100 Hz)\n")
    new = run_dataset(data, "walk3")
    proc = subprocess.run([str(replay_bin), str(new), str(tmp_path / "s.csv"), str(tmp_path / "o.bin"),
                           "--interval", "A=0.01"], capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stderr == ("live-replay: sampleIntervals gives stream `A` an interval, but the dataset designs its "
                           "anti-aliasing filter from each stream's first 256 sampling intervals (antialias_from: "
                           "leading), which the processor measures itself; give no sampleIntervals\n")


def test_the_library_needs_no_hdf5_zstd_yaml_or_libcrypto():
    proc = subprocess.run(["swift", "package", "describe", "--type", "json"], cwd=ROOT, capture_output=True, text=True,
                          check=True)
    targets = {t["name"]: t for t in json.loads(proc.stdout[proc.stdout.index("{"):])["targets"]}
    closure, todo = set(), ["MotionLive"]
    while todo:
        name = todo.pop()
        if name in closure:
            continue
        closure.add(name)
        todo += targets[name].get("target_dependencies", [])
    assert closure == {"MotionLive", "MotionChain", "MotionCore", "MotionResample", "MotionWindowing", "MotionFeatures", "MotionFFT",
                       "CKissFFT"}
    # No target of the package uses unsafe flags (another package could not depend on it).
    assert "unsafeFlags" not in (ROOT / "Package.swift").read_text().replace("no `unsafeFlags`", "")


def test_a_stem_stream_whose_files_get_other_settings_is_warned_about(tmp_path):
    """One `{stem}` stream whose files have two names, one with its own resampling override: the
    dataset resamples each file by its name, but the chain can record one setting per stream, so
    the run says which files the live library would not reproduce, and the chain keeps `{stem}`
    with the default's settings (which `validate` checks against the resolved pipeline)."""
    for rec in ["r1", "r2"]:
        (tmp_path / "data" / rec).mkdir(parents=True)
        for name in ["Slow", "Fast"]:
            rows = "\n".join(f"{i * 0.02:.2f},{i % 7}" for i in range(600))
            (tmp_path / "data" / rec / f"{name}.csv").write_text("t,v\n" + rows + "\n")
    (tmp_path / "p.yaml").write_text("""version: 1
name: stems
inputs:
  - type: csv
    paths: ["data/*/Slow.csv", "data/r1/Fast.csv"]
    time: {column: t, unit: s}
    channels: {v: v}
resample: {rate_hz: 25, method: {default: linear, Slow: previous}}
window: {length_s: 2}
split: {by: recording, fractions: {train: 1, validation: 0, test: 0}}
output: {type: hdf5, path: out}
""")
    proc = motionprep("run", tmp_path / "p.yaml", cwd=tmp_path)
    assert "files named `Slow` of stream `{stem}` (channels v) are resampled with previous" in proc.stderr + proc.stdout
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert [(s["name"], s["method"]) for s in manifest["chain"]["streams"]] == [("{stem}", "linear")]
    assert motionprep("validate", tmp_path / "out").returncode == 0


@pytest.mark.parametrize("transforms", ["", UCI], ids=["walk", "uci-har-style"])
def test_live_vectors_replay_on_the_device_bit_for_bit(replay_bin, data, tmp_path, transforms):
    """`motionprep live-vectors` (docs/live.md, "Test vectors") writes a recording's samples and the
    dataset engine's windows; `LiveVectors.check`, as an app's unit test runs it (examples/live's
    live-check), gets every window bit for bit; a flipped bit, or vectors of another pipeline, fail."""
    check = replay_bin.parent / "live-check"
    dataset = run_dataset(data, "vec-uci" if transforms else "vec", transforms)
    manifest = json.loads((dataset / "manifest.json").read_text())
    recording = manifest["recordings"][0]
    vectors = tmp_path / "v.json"
    out = motionprep("live-vectors", dataset, data / "data" / f"{recording}.csv", "-o", vectors)
    assert out.stdout.startswith(f"wrote {vectors}: recording ")
    doc = json.loads(vectors.read_text())
    assert doc["format"] == "motionprep.live-vectors" and doc["format_version"] == 1
    assert doc["pipeline_sha256"] == manifest["pipeline"]["sha256"]
    # `antialias_from: leading`: the processor measures the intervals; the vectors carry none.
    assert doc["sample_intervals"] == {}
    # The samples are the file's rows, as the dataset reads them (A in m/s² from g), in time order.
    times = [np.frombuffer(bytes.fromhex(s[1]), ">f8")[0] for s in doc["samples"]]
    assert times == sorted(times) and {s[0] for s in doc["samples"]} == {"A", "G"}
    # Its windows are the dataset's windows of that recording that the labels kept, and more.
    stored = dataset_windows(dataset, manifest)
    starts = {np.frombuffer(bytes.fromhex(w["start_time"]), ">f8")[0].tobytes(): w for w in doc["windows"]}
    mine = [i for i, r in enumerate(stored["recording"]) if r == recording]
    assert mine
    for i in mine:
        w = starts[stored["start_time_s"][i].tobytes()]
        assert np.frombuffer(bytes.fromhex(w["x"]), ">f4").astype("<f4").tobytes() == stored["x"][i].tobytes()
    proc = subprocess.run([str(check), str(dataset), str(vectors)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    r = json.loads(proc.stdout)
    assert r["windows_expected"] == r["windows_got"] == r["windows_equal"] == len(doc["windows"]) >= len(mine)
    # The rows the windows are cut from: every window's x is T consecutive rows of them.
    assert r["rows_expected"] == r["rows_got"] == r["rows_equal"] == len(doc["rows"]) > len(doc["windows"])
    T = manifest["window_length"]
    row_at = {np.frombuffer(bytes.fromhex(t), ">f8")[0].tobytes(): i for i, (t, _) in enumerate(doc["rows"])}
    for w in doc["windows"][:20]:
        i = row_at[np.frombuffer(bytes.fromhex(w["start_time"]), ">f8")[0].tobytes()]
        assert "".join(v for _, v in doc["rows"][i:i + T]) == w["x"]
    assert r["first_difference"] is None
    # One flipped bit in a row: the check says which.
    bad_row = json.loads(vectors.read_text())
    t, v = bad_row["rows"][7]
    bad_row["rows"][7] = [t, v[:8] + format(int(v[8:16], 16) ^ 1, "08x") + v[16:]]
    (tmp_path / "bad-row.json").write_text(json.dumps(bad_row))
    proc = subprocess.run([str(check), str(dataset), str(tmp_path / "bad-row.json")], capture_output=True, text=True)
    assert proc.returncode == 1
    r = json.loads(proc.stdout)
    assert r["rows_equal"] == len(doc["rows"]) - 1 and r["first_difference"].startswith("row 7 (at "), r
    assert "value 1 is" in r["first_difference"]
    # One flipped bit in one value of the fifth window: the check says where.
    x = doc["windows"][4]["x"]
    doc["windows"][4]["x"] = x[:8 * 10] + format(int(x[8 * 10:8 * 11], 16) ^ 1, "08x") + x[8 * 11:]
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    proc = subprocess.run([str(check), str(dataset), str(tmp_path / "bad.json")], capture_output=True, text=True)
    assert proc.returncode == 1
    r = json.loads(proc.stdout)
    assert r["windows_equal"] == len(doc["windows"]) - 1 and r["first_difference"].startswith("window 4 (at ")
    assert "value 10 of x" in r["first_difference"]
    # The file is never replaced; vectors of another pipeline are refused.
    again = motionprep("live-vectors", dataset, data / "data" / f"{recording}.csv", "-o", vectors, check=False)
    assert again.returncode == 73 and "something is there already" in again.stderr
    other = run_dataset(data, "vec-other", "" if transforms else UCI)
    proc = subprocess.run([str(check), str(other), str(vectors)], capture_output=True, text=True)
    assert proc.returncode == 2 and "make them again from this dataset" in proc.stderr
