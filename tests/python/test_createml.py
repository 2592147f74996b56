"""`output: {type: createml}` on the shipped sample (datasets/walk, pipelines/walk.yaml), checked
by the format Apple documents for Create ML's activity classifier, not by Create ML (which does not
run here; docs/dataset-format.md, "Create ML folders"):

- `MLActivityClassifier.DataSource.labeledDirectories(at:)`: a folder of folders, each named with
  an activity label, holding that activity's sensor data files (one CSV per labelled, gap-free
  stretch here), for `train/`, `validation/` and `test/`;
- `directoryWithDataAndAnnotation(at:annotationFileName:timeStampColumn:labelStartTimeColumn:
  labelEndTimeColumn:)`: the same files with one annotation file per split;
- the feature columns are the channels of `x`, the time column is seconds.

The rows are checked against the HDF5 dataset of the same pipeline: every row of every window that
a CSV holds is that window's row of `x`, bit for bit as float32; each stretch is one class; the
counts add up; `validate` passes (and fails on a changed value); `--jobs 1` and `--jobs 2` give the
same bytes."""
import csv
import hashlib
import json
from pathlib import Path

import h5py
import numpy as np
import pytest

from conftest import motionprep

REPO = Path(__file__).resolve().parents[2]
SPLITS = ("train", "validation", "test")


def pipeline(output):
    text = (REPO / "pipelines/walk.yaml").read_text()
    text = text.replace('"../datasets/walk/**/*.csv"', json.dumps(str(REPO / "datasets/walk") + "/**/*.csv"))
    head, _, _ = text.partition("output:")
    return head + "output: " + output + "\n"


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    root = tmp_path_factory.mktemp("createml")
    (root / "h5.yaml").write_text(pipeline("{type: hdf5, path: h5}"))
    (root / "cml.yaml").write_text(pipeline("{type: createml, path: cml}"))
    motionprep("run", root / "h5.yaml", "--jobs", 2, "--quiet")
    motionprep("run", root / "cml.yaml", "--jobs", 2, "--quiet")
    motionprep("run", root / "cml.yaml", "--jobs", 1, "--quiet", "--out", root / "cml-j1")
    # A Create ML folder is motionprep's own: a rerun replaces it (class folders and all).
    motionprep("run", root / "cml.yaml", "--jobs", 2, "--quiet")
    return root


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def tree(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_jobs_give_the_same_bytes(outputs):
    a, b = tree(outputs / "cml"), tree(outputs / "cml-j1")
    assert a.keys() == b.keys()
    assert [k for k in a if a[k] != b[k]] == []


def test_layout_is_create_mls(outputs):
    out = outputs / "cml"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["storage"] == "createml"
    classes, channels = manifest["classes"], [c["name"] for c in manifest["channels"]]
    T, rate = manifest["window_length"], manifest["sample_rate_hz"]
    cml = manifest["createml"]
    assert cml["feature_columns"] == channels and cml["time_column"] == "time"
    assert cml["prediction_window_size"] == T == 128
    assert cml["annotation_columns"] == ["file", "label", "start_time", "end_time"]
    # Rows are not normalised: no statistics.
    assert manifest["normalization"] == {"features": None, "x": None}
    top = sorted(p.name for p in out.iterdir())
    assert top == ["SHA256SUMS", "manifest.json", "test", "train", "validation"]
    listed = {f["path"]: f for f in cml["files"]}
    seen = 0
    for split in SPLITS:
        folder = out / split
        entries = sorted(p.name for p in folder.iterdir())
        # labeledDirectories: one folder per activity label (beside the annotation file).
        assert set(entries) - {"annotations.csv"} <= set(classes)
        header, annotations = read_csv(folder / "annotations.csv")
        assert header == ["file", "label", "start_time", "end_time"]
        files = sorted(p for p in folder.rglob("*.csv") if p.name != "annotations.csv")
        assert len(annotations) == len(files) == cml["splits"][split]["stretches"]
        by_file = {a[0]: a for a in annotations}
        for p in files:
            seen += 1
            rel = p.relative_to(out).as_posix()
            label = p.parent.name
            assert p.parent.parent == folder and label in classes
            head, rows = read_csv(p)
            assert head == ["time"] + channels
            assert len(rows) >= T == cml["prediction_window_size"]
            t = np.array([float(r[0]) for r in rows])
            assert np.all(np.diff(t) > 0) and np.allclose(np.diff(t), 1 / rate, rtol=0, atol=1e-6)
            x = np.array([[np.float32(v) for v in r[1:]] for r in rows], dtype=np.float32)
            assert np.isfinite(x).all()
            # Each value is the shortest decimal of its float32 (numpy's `unique` one), so it
            # reads back as that float32 however it is parsed (directly, or through a double).
            for r in rows[:200]:
                for text in r[1:]:
                    v = np.float32(text)
                    assert np.float32(float(text)) == v
                    assert float(np.format_float_positional(v, unique=True)) == float(text)
            entry = listed[rel]
            assert (entry["label"], entry["rows"], entry["start_time"]) == (label, len(rows), t[0])
            # The annotation: the file relative to the split folder, its label, [start, end).
            ann = by_file[p.relative_to(folder).as_posix()]
            assert ann[1] == label and float(ann[2]) == t[0]
            assert float(ann[3]) == entry["end_time"] and abs(float(ann[3]) - t[-1] - 1 / rate) < 1e-6
    assert seen == cml["counts"]["stretches"] == len(listed)
    assert sum(f["rows"] for f in listed.values()) == cml["counts"]["rows"]
    counts = cml["counts"]
    assert counts["rows_unlabelled"] > 0 and counts["stretches_too_short"] >= 0
    # SHA256SUMS: every file, each digest as the manifest has it.
    sums = dict(reversed(line.split("  ", 1)) for line in (out / "SHA256SUMS").read_text().splitlines())
    files = [f for s in SPLITS for f in manifest["splits"][s]["files"]]
    assert sorted(sums) == sorted(f["path"] for f in files)
    for f in files:
        data = (out / f["path"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == sums[f["path"]] == f["sha256"] and len(data) == f["bytes"]


def test_rows_are_the_windows_rows(outputs):
    """Every CSV row that falls in an HDF5 window is that window's row of x, bit for bit; windows
    whose rows all lie in one stretch have that stretch's class."""
    manifest = json.loads((outputs / "cml" / "manifest.json").read_text())
    rate, T = manifest["sample_rate_hz"], manifest["window_length"]
    classes = manifest["classes"]
    by_recording = {}
    for f in manifest["createml"]["files"]:
        _, rows = read_csv(outputs / "cml" / f["path"])
        t = np.array([float(r[0]) for r in rows])
        x = np.array([[float(v) for v in r[1:]] for r in rows]).astype(np.float32)
        by_recording.setdefault(f["recording"], []).append((t, x, f["label"]))
    compared = whole = 0
    for split in SPLITS:
        with h5py.File(outputs / "h5" / f"{split}.h5") as h:
            xs, starts, recs, ys = h["x"][...], h["start_time_s"][...], h["recording_index"][...], h["y"][...]
            names = [n.decode() if isinstance(n, bytes) else n for n in h.attrs["recording_names"]]
        for w in range(len(xs)):
            stretches = by_recording.get(names[recs[w]], [])
            found = 0
            for t, x, label in stretches:
                k = np.rint((t - starts[w]) * rate).astype(np.int64)
                inside = (k >= 0) & (k < T) & (np.abs(t - starts[w] - k / rate) < 1e-6)
                if not inside.any():
                    continue
                assert np.array_equal(x[inside].view(np.uint32), xs[w][k[inside]].view(np.uint32))
                found += int(inside.sum())
                compared += int(inside.sum())
                if inside.sum() == T:
                    whole += 1
                    assert classes[ys[w]] == label
            assert found <= T
    assert compared > 10000 and whole > 50


def test_validate_passes_and_catches_a_changed_value(outputs, tmp_path):
    proc = motionprep("validate", outputs / "cml", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    broken = tmp_path / "broken"
    for rel, data in tree(outputs / "cml").items():
        (broken / rel).parent.mkdir(parents=True, exist_ok=True)
        (broken / rel).write_bytes(data)
    manifest = json.loads((broken / "manifest.json").read_text())
    victim = broken / manifest["createml"]["files"][0]["path"]
    lines = victim.read_text().splitlines(keepends=True)
    del lines[-1]  # one row fewer than the manifest says
    victim.write_text("".join(lines))
    proc = motionprep("validate", broken, check=False)
    assert proc.returncode == 1
    assert "counts.file" in proc.stdout and "files.sha256" in proc.stdout


def test_refusals(outputs, tmp_path):
    text = pipeline("{type: createml, path: nolabels}")
    head, _, rest = text.partition("labels:")
    (tmp_path / "nolabels.yaml").write_text(head + "features:" + rest.partition("features:")[2])
    proc = motionprep("run", tmp_path / "nolabels.yaml", check=False)
    assert proc.returncode == 78 and "no `labels`" in proc.stderr
    proc = motionprep("apply", outputs / "cml", REPO / "datasets/walk/subject01/rec-01.csv", "--out", tmp_path / "applied", check=False)
    assert proc.returncode == 78 and "Create ML folder" in proc.stderr


def test_labels_from_path_give_whole_segments(tmp_path):
    """`labels.from: path`: the whole recording has one class, so a stretch is a gap-free segment
    at least a window long; recordings whose label is not in `classes` give no file (counted)."""
    text = pipeline("{type: createml, path: out}")
    head, _, rest = text.partition("labels:")
    labels = "labels: {from: path, template: \"{dir}\", classes: [subject01, subject02]}\n"
    (tmp_path / "p.yaml").write_text(head + labels + "features:" + rest.partition("features:")[2])
    motionprep("run", tmp_path / "p.yaml", "--quiet")
    manifest = json.loads((tmp_path / "out/manifest.json").read_text())
    files = manifest["createml"]["files"]
    assert files and all(f["label"] == f["recording"].split("/")[0] for f in files)
    assert {f["label"] for f in files} == {"subject01", "subject02"}
    assert manifest["createml"]["counts"]["rows_unlabelled"] > 6 * 60 * 50  # six other subjects' rows
    # One stretch per gap-free segment: consecutive files of a recording are split by a gap.
    rate = manifest["sample_rate_hz"]
    by_recording = {}
    for f in files:
        by_recording.setdefault(f["recording"], []).append(f)
    for fs in by_recording.values():
        for a, b in zip(fs, fs[1:]):
            # a's end is the grid point after its last row, an invalid one; b starts after it.
            assert b["start_time"] > a["end_time"] + 0.5 / rate
    assert motionprep("validate", tmp_path / "out", check=False).returncode == 0


def test_workers_merged_equal_one_run_byte_for_byte(outputs, tmp_path):
    """`run --worker I/3` writes its recordings' CSVs into its part; `merge` moves them into the
    dataset, writes each split's annotation file in canonical order and the manifest: every file
    (CSVs, annotations.csv, manifest.json, SHA256SUMS) equals the single run's, byte for byte. A
    missing part, or a part's CSV cut short, is refused and nothing is moved."""
    import subprocess
    parts = [tmp_path / f"part-{i}" for i in range(3)]
    for i, part in enumerate(parts):
        motionprep("run", outputs / "cml.yaml", "--worker", f"{i}/3", "--jobs", 2, "--out", part, "--quiet")
        summary = json.loads((part / "part.json").read_text())["partition_summary"]
        for f in summary["files"]:
            data = (part / f["path"]).read_bytes()
            assert len(data) == f["bytes"] and hashlib.sha256(data).hexdigest() == f["sha256"]
        assert not list(part.rglob("annotations.csv"))
    # A part is motionprep's own: rerunning its worker replaces it, a split folder with no CSV too
    # (worker 0 of 2 holds no recording of the test split).
    two = tmp_path / "part-0-of-2"
    for _ in range(2):
        motionprep("run", outputs / "cml.yaml", "--worker", "0/2", "--out", two, "--quiet")
    assert (two / "test").is_dir() and not list((two / "test").iterdir())
    before = {p: tree(p) for p in parts}
    out = tmp_path / "merged"
    proc = motionprep("merge", out, parts[0], parts[2], check=False)
    assert proc.returncode == 66 and "worker(s) 1/3" in proc.stderr
    victim = next(p for p in sorted(parts[1].rglob("*.csv")))
    saved = victim.read_bytes()
    victim.write_bytes(saved[:-1])
    proc = motionprep("merge", out, *parts, check=False)
    assert proc.returncode == 65 and "rerun worker 1/3" in proc.stderr, proc.stderr
    assert not out.exists() and not Path(str(out) + ".partial").exists()
    victim.write_bytes(saved)
    assert {p: tree(p) for p in parts} == before
    motionprep("merge", out, *parts, "--quiet")
    a, b = tree(outputs / "cml"), tree(out)
    assert a.keys() == b.keys()
    assert [k for k in a if a[k] != b[k]] == []
    assert len([k for k in a if k.endswith(".csv")]) > 20
    subprocess.run(["sha256sum", "--check", "--quiet", "SHA256SUMS"], cwd=out, check=True)
    proc = motionprep("validate", out, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # The parts let go of their CSVs; each keeps its part.json.
    assert all(not list(p.rglob("*.csv")) and (p / "part.json").exists() for p in parts)


def test_resume_is_refused(outputs, tmp_path):
    proc = motionprep("run", outputs / "cml.yaml", "--resume", "--out", tmp_path / "r", check=False)
    assert proc.returncode == 64 and "`--resume` cannot be used with `output.type: createml`" in proc.stderr


def test_the_python_package_refuses_it_saying_why(outputs):
    """`open_dataset` reads windows: it names a Create ML folder for what it is (the package from
    this checkout, python/src)."""
    import os
    import subprocess
    import sys
    code = ("import motionprep, sys\n"
            "try:\n    motionprep.open_dataset(sys.argv[1])\n"
            "except motionprep.NotADatasetError as e:\n    print(e)\n")
    env = dict(os.environ, PYTHONPATH=str(REPO / "python/src"))
    out = subprocess.run([sys.executable, "-c", code, str(outputs / "cml")], env=env, capture_output=True, text=True, check=True)
    assert "a Create ML folder (storage 'createml')" in out.stdout


def test_collected_rows_count_in_the_memory_budget(outputs, tmp_path):
    """A createml recording holds its rows until the writer takes them (a week of a wrist device
    at 100 Hz is over a gigabyte), so they are reserved in the run's memory budget
    (docs/hardening.md §3): with one job and a budget larger than any recording, the peak
    reservation of the createml run exceeds the hdf5 run's by at least the rows it wrote
    (a CSV row is C values and its grid point two), and the bytes do not change."""
    import os
    import re
    import subprocess
    from conftest import BIN
    peaks = {}
    for name in ("h5", "cml"):
        env = {**os.environ, "MOTIONPREP_TEST_MEMORY_BUDGET": str(1 << 30)}
        p = subprocess.run([BIN, "run", outputs / f"{name}.yaml", "--jobs", "1", "--quiet", "--out", tmp_path / name],
                           capture_output=True, text=True, env=env)
        assert p.returncode == 0, p.stderr
        peaks[name] = int(re.search(r"test hook: memory budget peak (\d+) of", p.stderr).group(1))
    assert tree(tmp_path / "cml") == tree(outputs / "cml")
    # The largest recording's rows: its CSVs, over every split and class.
    rows_by_recording = {}
    for f in (outputs / "cml").glob("*/*/*.csv"):
        header, rows = read_csv(f)
        recording = f.stem.rsplit("__", 1)[0]
        rows_by_recording[recording] = rows_by_recording.get(recording, 0) + len(rows)
        C = len(header) - 1
    most = max(rows_by_recording.values())
    assert peaks["cml"] - peaks["h5"] >= most * (C + 2), (peaks, most)
