"""Label sources and policies end to end (docs/signal.md, "Windows and labels"): legacy MotionCollector markers, an intervals
file, and the center and pure policies, against labels computed independently in Python."""
import h5py
import numpy as np
import pytest

import reference as ref
from conftest import motionprep

RATE, LENGTH, STRIDE = 50.0, 100, 50


def windows(out):
    rows = []
    for split in ("train", "validation", "test"):
        with h5py.File(out / f"{split}.h5", "r") as f:
            names = list(f.attrs["recording_names"])
            classes = list(f.attrs["class_names"])
            for r, t, y in zip(f["recording_index"][...], f["start_time_s"][...], f["y"][...]):
                rows.append((names[r], float(t), classes[y]))
    return sorted(rows)


def grid_of(path):
    streams, _ = ref.read_motioncollector(path)
    return ref.resample([streams["A"]], RATE, 0.25)


@pytest.fixture(scope="module")
def legacy(tmp_path_factory):
    root = tmp_path_factory.mktemp("legacy")
    motionprep("synth", "--out", root / "data", "--subjects", 2, "--recordings", 1, "--minutes", 1,
               "--seed", 5, "--legacy", "--sensors", "A")
    return root


def legacy_markers(path):
    events = []
    for line in open(path).read().splitlines()[1:]:
        f = line.split(",")
        if f[0].strip() in ("4", "5"):
            events.append((float(f[1]), "W" if f[0].strip() == "4" else "T"))
    return events


def read_legacy(path):
    t, v = [], []
    for line in open(path).read().splitlines()[1:]:
        f = [x.strip() for x in line.split(",")]
        if f[0] == "0":
            t.append(float(f[1]))
            v.append([float(x) * ref.G for x in f[2:5]])
    t, v = np.array(t), np.array(v)
    keep = np.r_[t[1:] != t[:-1], True]
    return t[keep], v[keep]


@pytest.mark.parametrize("policy", ["majority", "center", "pure"])
def test_markers_with_every_policy(legacy, policy):
    yaml = legacy / f"m-{policy}.yaml"
    yaml.write_text(f"""version: 1
inputs:
  - type: motioncollector
    paths: ["data/**/*.csv"]
    sensors: [A]
resample: {{rate_hz: {RATE}, antialias: false}}
window: {{length_samples: {LENGTH}, stride_samples: {STRIDE}}}
labels: {{from: markers, policy: {policy}, {"min_fraction: 0.6, " if policy == "majority" else ""}map: {{W: walk, T: turn}}}}
split: {{fractions: {{train: 1.0, validation: 0, test: 0}}}}
output: {{path: out-{policy}}}
""")
    motionprep("run", yaml, "--quiet")
    got = windows(legacy / f"out-{policy}")
    expected = []
    for path in sorted((legacy / "data").glob("**/*.csv")):
        grid, values, valid = ref.resample([read_legacy(path)], RATE, 0.25)
        points = ref.labels_at(legacy_markers(path), grid)
        for s in ref.window_starts(valid, LENGTH, STRIDE):
            w = points[s:s + LENGTH]
            if policy == "majority":
                label, _ = ref.majority(w, 0.6)
            elif policy == "center":
                label = w[LENGTH // 2]
            else:
                label = w[0] if all(p == w[0] for p in w) else None
            if label is not None:
                name = str(path.relative_to(legacy / "data").with_suffix(""))
                expected.append((name, float(grid[s]), {"W": "walk", "T": "turn"}[label]))
    assert got == sorted(expected)
    assert {c for _, _, c in got} == {"walk", "turn"}


def test_intervals_file(walk_data, tmp_path):
    paths = sorted((walk_data / "data").glob("**/*.csv"))[:2]
    # Recording names are relative to the longest common folder of the matched files (docs/inputs.md, "Recordings, subjects and channels").
    names = [p.stem for p in paths]
    rows = ["recording,start_s,end_s,label", f"{names[0]},5.0,20.0,walk", f"{names[0]},20.0,31.5,run",
            f"{names[1]},12.25,40,run"]
    (walk_data / "intervals.csv").write_text("\n".join(rows) + "\n")
    yaml = walk_data / "intervals.yaml"
    yaml.write_text(f"""version: 1
inputs:
  - type: motioncollector
    paths: ["data/subject01/*.csv"]
    sensors: [A]
resample: {{rate_hz: {RATE}, antialias: false}}
window: {{length_samples: {LENGTH}, stride_samples: {STRIDE}}}
labels: {{from: intervals, path: intervals.csv, policy: pure, classes: [walk, run]}}
split: {{fractions: {{train: 1.0, validation: 0, test: 0}}}}
output: {{path: out-intervals}}
""")
    motionprep("run", yaml, "--quiet")
    got = windows(walk_data / "out-intervals")
    spans = {names[0]: [(5.0, 20.0, "walk"), (20.0, 31.5, "run")], names[1]: [(12.25, 40.0, "run")]}
    expected = []
    for path, name in zip(paths, names):
        grid, _, valid = grid_of(path)
        def label(t):
            for a, b, l in spans[name]:
                if a <= t < b:      # start inclusive, end exclusive
                    return l
            return None
        for s in ref.window_starts(valid, LENGTH, STRIDE):
            w = [label(t) for t in grid[s:s + LENGTH]]
            if w[0] is not None and all(p == w[0] for p in w):
                expected.append((name, float(grid[s]), w[0]))
    assert got == sorted(expected) and len(got) > 5
    # Overlapping intervals are an error naming the line.
    (walk_data / "intervals.csv").write_text("\n".join(rows + [f"{names[1]},39,41,walk"]) + "\n")
    p = motionprep("run", yaml, "--quiet", check=False)
    assert p.returncode == 65 and "intervals.csv:5" in p.stderr and "overlaps" in p.stderr
