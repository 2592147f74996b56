"""Runs motionprep on generated MotionCollector data and reads the result back with h5py and
numpy, comparing every array with the independent numpy reference in reference.py."""
import hashlib
import json
import subprocess
from pathlib import Path

import h5py
import numpy as np
import pytest

import reference as ref
from conftest import motionprep

RATE, LENGTH, STRIDE, MAX_GAP, MIN_FRACTION = 50.0, 128, 64, 0.2, 0.8
MAP = {"W": "walk", "T": "turn"}
CLASSES = ["walk", "turn"]

PIPELINE = """\
version: 1
name: interop
inputs:
  - type: motioncollector
    paths: ["data/**/*.csv"]
resample: {rate_hz: 50, max_gap_s: 0.2, antialias: false}
window: {length_samples: 128, stride_samples: 64}
labels: {from: rows, policy: majority, min_fraction: 0.8, map: {W: walk, T: turn}, classes: [walk, turn]}
split: {seed: 42, fractions: {train: 0.5, validation: 0.25, test: 0.25}}
output: {type: hdf5, path: out}
"""


@pytest.fixture(scope="module")
def dataset(walk_data):
    (walk_data / "interop.yaml").write_text(PIPELINE)
    motionprep("run", walk_data / "interop.yaml", "--jobs", 2, "--quiet")
    return walk_data / "out"


def reference_windows(data_dir):
    """{(subject, recording): (x [N,T,C] float32, y labels list, start times)} from the raw CSVs."""
    out = {}
    for path in sorted(Path(data_dir).glob("**/*.csv")):
        streams, events = ref.read_motioncollector(path)
        grid, values, valid = ref.resample([streams[c] for c in "AGMD"], RATE, MAX_GAP)
        points = ref.labels_at(events, grid)
        xs, ys, ts = [], [], []
        for s in ref.window_starts(valid, LENGTH, STRIDE):
            label, _ = ref.majority(points[s:s + LENGTH], MIN_FRACTION)
            if label is None or MAP.get(label, label) not in CLASSES:
                continue
            xs.append(values[s:s + LENGTH])
            ys.append(CLASSES.index(MAP.get(label, label)))
            ts.append(grid[s])
        rel = path.relative_to(data_dir).with_suffix("")
        out[(path.parent.name, str(rel))] = (np.array(xs, dtype=np.float32).reshape(-1, LENGTH, 18), ys, ts)
    return out


def test_files_layout_and_checksums(dataset):
    names = sorted(p.name for p in dataset.iterdir())
    assert names == ["SHA256SUMS", "manifest.json", "test.h5", "train.h5", "validation.h5"]
    subprocess.run(["sha256sum", "--quiet", "-c", "SHA256SUMS"], cwd=dataset, check=True)
    assert not Path(str(dataset) + ".partial").exists()


def test_arrays_attributes_and_values_match_numpy_reference(walk_data, dataset):
    expected = reference_windows(walk_data / "data")
    manifest = json.loads((dataset / "manifest.json").read_text())
    subjects = sorted({k[0] for k in expected})
    recordings = sorted(k[1] for k in expected)
    total = 0
    for split in ("train", "validation", "test"):
        with h5py.File(dataset / f"{split}.h5", "r") as f:
            # Attributes come back as Python str (variable-length UTF-8).
            assert f.attrs["format"] == "motionprep.windows" and isinstance(f.attrs["format"], str)
            assert f.attrs["split"] == split
            assert int(f.attrs["format_version"]) == 1
            assert float(f.attrs["sample_rate_hz"]) == RATE
            assert int(f.attrs["window_length"]) == LENGTH and int(f.attrs["window_stride"]) == STRIDE
            assert list(f.attrs["class_names"]) == CLASSES
            assert all(isinstance(s, str) for s in f.attrs["channel_names"])
            assert list(f.attrs["channel_names"])[:3] == ["acc_x", "acc_y", "acc_z"]
            assert list(f.attrs["channel_units"])[:3] == ["m/s^2"] * 3
            assert list(f.attrs["subject_names"]) == subjects
            assert list(f.attrs["recording_names"]) == recordings
            x, y = f["x"], f["y"]
            assert x.dtype == np.float32 and y.dtype == np.int64
            assert f["subject_index"].dtype == np.int32 and f["recording_index"].dtype == np.int32
            assert f["start_time_s"].dtype == np.float64
            assert x.shape[1:] == (LENGTH, 18)
            assert x.compression == "gzip" and x.compression_opts == 4 and x.shuffle and x.fletcher32
            assert 32768 <= x.chunks[0] * LENGTH * 18 * 4 <= 65536 or x.chunks[0] == 1
            n = x.shape[0]
            total += n
            assert manifest["splits"][split]["num_windows"] == n
            xs, ys = x[...], y[...]
            sidx, ridx, starts = f["subject_index"][...], f["recording_index"][...], f["start_time_s"][...]
            # Canonical order: (subject, recording, start time).
            keys = list(zip(sidx, ridx, starts))
            assert keys == sorted(keys)
            for s in set(sidx.tolist()):
                assert ref.split_of(42, subjects[s], (0.5, 0.25, 0.25)) == split
            for r in sorted(set(ridx.tolist())):
                rows = ridx == r
                name = recordings[r]
                exp_x, exp_y, exp_t = expected[(subjects[sidx[rows][0]], name)]
                assert xs[rows].shape == exp_x.shape, name
                np.testing.assert_allclose(xs[rows], exp_x, rtol=2e-6, atol=2e-6)
                assert ys[rows].tolist() == exp_y
                np.testing.assert_array_equal(starts[rows], np.array(exp_t))
            assert manifest["splits"][split]["class_counts"] == [int((ys == c).sum()) for c in range(2)]
    assert total == sum(len(v[1]) for v in expected.values())
    # Every recording with windows appears in exactly one split.
    assert manifest["subjects"] == subjects and manifest["recordings"] == recordings


def test_manifest_contents(walk_data, dataset):
    m = json.loads((dataset / "manifest.json").read_text())
    assert m["format"] == "motionprep.dataset" and m["format_version"] == 2 and m["storage"] == "hdf5"
    assert m["window_length"] == LENGTH and m["window_stride"] == STRIDE and m["sample_rate_hz"] == RATE
    assert [c["name"] for c in m["channels"]][:3] == ["acc_x", "acc_y", "acc_z"]
    assert m["classes"] == CLASSES
    assert m["arrays"]["x"] == {"dtype": "float32", "shape": [None, LENGTH, 18]}
    # Inputs: path relative to the pipeline file, size and sha256.
    for entry in m["inputs"]:
        p = walk_data / entry["path"]
        assert entry["path"].startswith("data/")
        assert entry["bytes"] == p.stat().st_size
        assert entry["sha256"] == hashlib.sha256(p.read_bytes()).hexdigest()
    # Keys sorted at every level; no absolute path anywhere.
    text = (dataset / "manifest.json").read_text()
    def keys_sorted(pairs):
        keys = [k for k, _ in pairs]
        assert keys == sorted(keys, key=lambda k: k.encode()), keys
        return dict(pairs)

    json.loads(text, object_pairs_hook=keys_sorted)
    assert str(walk_data) not in text
    # Normalisation: train x mean/std over every time step of every train window.
    with h5py.File(dataset / "train.h5", "r") as f:
        x = f["x"][...].astype(np.float64).reshape(-1, 18)
    np.testing.assert_allclose(m["normalization"]["x"]["mean"], x.mean(axis=0), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(m["normalization"]["x"]["std"], x.std(axis=0), rtol=1e-9, atol=1e-9)
    counts = m["counts"]
    assert counts["recordings"] == 8 and counts["rows_read"] > 0
    assert set(counts["windows_dropped"]) <= {"no_label", "below_min_fraction", "mixed_labels", "label_not_in_classes"}


def test_same_bytes_for_any_jobs(walk_data, dataset):
    motionprep("run", walk_data / "interop.yaml", "--jobs", 1, "--quiet", "--out", walk_data / "out-j1")
    for name in ["SHA256SUMS", "manifest.json", "train.h5", "validation.h5", "test.h5"]:
        assert (dataset / name).read_bytes() == (walk_data / "out-j1" / name).read_bytes(), name


def test_assign_folds_and_split_by_recording(walk_data):
    """`assign` pins a subject, `folds: k` deals the train subjects to folds by a second hash, and `by: recording`
    hashes recording names — all checked against the independent hash in reference.py."""
    text = PIPELINE.replace("split: {seed: 42, fractions: {train: 0.5, validation: 0.25, test: 0.25}}",
                            "split: {seed: 42, fractions: {train: 0.5, validation: 0.25, test: 0.25}, folds: 4, "
                            "assign: {test: [subject01]}}").replace("path: out}", "path: out-folds}")
    (walk_data / "folds.yaml").write_text(text)
    motionprep("run", walk_data / "folds.yaml", "--quiet")
    seen = set()
    with h5py.File(walk_data / "out-folds" / "train.h5", "r") as f:
        subjects = list(f.attrs["subject_names"])
    train = [s for s in subjects if s != "subject01" and ref.split_of(42, s, (0.5, 0.25, 0.25)) == "train"]
    folds = ref.folds_of(42, train, 4)
    for split in ("train", "validation", "test"):
        with h5py.File(walk_data / "out-folds" / f"{split}.h5", "r") as f:
            subjects = list(f.attrs["subject_names"])
            assert f["fold_index"].dtype == np.int32
            for s, fold in zip(f["subject_index"][...], f["fold_index"][...]):
                name = subjects[s]
                expected = "test" if name == "subject01" else ref.split_of(42, name, (0.5, 0.25, 0.25))
                assert split == expected, name
                assert fold == (folds[name] if split == "train" else -1)
                seen.add(name)
    assert "subject01" in seen
    by_rec = PIPELINE.replace("split: {seed: 42,", "split: {by: recording, seed: 42,").replace("path: out}", "path: out-rec}")
    (walk_data / "byrec.yaml").write_text(by_rec)
    motionprep("run", walk_data / "byrec.yaml", "--quiet")
    for split in ("train", "validation", "test"):
        with h5py.File(walk_data / "out-rec" / f"{split}.h5", "r") as f:
            recordings = list(f.attrs["recording_names"])
            for r in set(f["recording_index"][...].tolist()):
                assert ref.split_of(42, recordings[r], (0.5, 0.25, 0.25)) == split


@pytest.mark.parametrize("level", [1, 9])
def test_deflate_level_changes_only_the_compression(walk_data, dataset, level):
    """`output.deflate_level` (docs/pipeline.md#output): h5py sees the level set, the arrays and
    attributes read back are those of the default level 4, and the key is in the resolved
    pipeline only when set (a pipeline without it keeps its hash)."""
    name = f"deflate{level}"
    text = PIPELINE.replace("path: out}", f"path: out-{name}, deflate_level: {level}}}")
    (walk_data / f"{name}.yaml").write_text(text)
    motionprep("run", walk_data / f"{name}.yaml", "--quiet")
    out = walk_data / f"out-{name}"
    subprocess.run(["sha256sum", "--quiet", "-c", "SHA256SUMS"], cwd=out, check=True)
    for split in ("train", "validation", "test"):
        with h5py.File(dataset / f"{split}.h5", "r") as a, h5py.File(out / f"{split}.h5", "r") as b:
            assert sorted(a.keys()) == sorted(b.keys())
            for key in a.keys():
                assert b[key].compression == "gzip" and b[key].compression_opts == level, key
                assert a[key].compression_opts == 4
                assert b[key].shuffle and b[key].fletcher32
                np.testing.assert_array_equal(a[key][...], b[key][...])
            assert {k: str(v) for k, v in a.attrs.items()} == {k: str(v) for k, v in b.attrs.items()}
    default = json.loads((dataset / "manifest.json").read_text())["pipeline"]["resolved"]
    changed = json.loads((out / "manifest.json").read_text())["pipeline"]["resolved"]
    assert "deflate_level" not in default["output"]
    assert changed["output"]["deflate_level"] == level
    assert default["output"]["compression_level"] == changed["output"]["compression_level"] == 3


def test_deflate_level_is_refused_where_it_does_nothing(walk_data):
    cases = {
        "shards": (PIPELINE.replace("{type: hdf5, path: out}", "{type: shards, path: out-x, deflate_level: 6}"),
                   "is the HDF5 deflate level"),
        "range": (PIPELINE.replace("path: out}", "path: out-x, deflate_level: 10}"), "1 to 9"),
    }
    for name, (text, message) in cases.items():
        (walk_data / f"bad-{name}.yaml").write_text(text)
        proc = motionprep("validate", walk_data / f"bad-{name}.yaml", check=False)
        assert proc.returncode == 78, proc.stderr
        assert f"bad-{name}.yaml:" in proc.stderr and message in proc.stderr, proc.stderr
        assert "output.deflate_level" in proc.stderr
