"""`motionprep init DATA_DIR` (issue 17 point 2; docs/commands.md, "init"): the drafted pipeline validates and
runs as written, for MotionCollector files in subject folders, phone-logger folders of several csv files (one
recording per folder, a slow barometer), and csv files in activity folders (labels from the path); init never
replaces a file and says why it cannot draft."""
import json
import os

import h5py
import numpy as np

from conftest import motionprep


def init_and_run(tmp_path, data, name="p.yaml"):
    p = motionprep("init", data, "-o", name, cwd=tmp_path)
    assert f"wrote {name}:" in p.stdout, p.stdout
    yaml = (tmp_path / name).read_text()
    assert motionprep("validate", name, cwd=tmp_path).stdout.strip() == f"{name}: ok", yaml
    motionprep("run", name, "--quiet", cwd=tmp_path)
    stem = name.rsplit(".", 1)[0]
    out = tmp_path / "build" / stem
    assert "ok" in motionprep("validate", out).stdout
    return yaml, out, json.loads((out / "manifest.json").read_text())


def test_motioncollector_files_in_subject_folders(tmp_path):
    motionprep("synth", "--out", tmp_path / "data", "--subjects", 4, "--minutes", 0.5, "--seed", 3)
    yaml, out, manifest = init_and_run(tmp_path, "data")
    assert "  - type: motioncollector\n    paths: [\"data/**/*.csv\"]\n" in yaml
    assert 'subject: "{dir}"' in yaml and "from: rows" in yaml
    assert sorted(manifest["subjects"]) == ["subject01", "subject02", "subject03", "subject04"]
    # Four subjects: fractions that give every split one with `allocation: exact`.
    per_split = {}
    for split in ("train", "validation", "test"):
        with h5py.File(out / f"{split}.h5") as f:
            per_split[split] = len(set(f["subject_index"][:].tolist()))
    assert per_split == {"train": 2, "validation": 1, "test": 1}
    assert manifest["sample_rate_hz"] == 100


def test_phone_logger_folders_make_one_recording_each(tmp_path):
    motionprep("synth", "--format", "csv", "--out", tmp_path / "data", "--subjects", 3, "--minutes", 1, "--seed", 5)
    yaml, out, manifest = init_and_run(tmp_path, "data")
    assert yaml.count('recording: "{dirpath}"') == 2 and yaml.count('subject: "{dir:2}"') == 2
    assert "max_gap_s: {default: 0.2, Barometer: " in yaml
    assert [c["name"] for c in manifest["channels"]] == ["acc_x", "acc_y", "acc_z", "baro_pressure", "baro_relative_altitude"]
    folders = sorted({os.path.dirname(os.path.relpath(p, tmp_path / "data")) for p in
                      map(str, (tmp_path / "data").rglob("*.csv"))})
    assert sorted(manifest["recordings"]) == folders
    assert manifest["classes"] == ["stairs", "walk"]


def test_activity_folders_label_their_recordings(tmp_path):
    rng = np.random.default_rng(1)
    data = tmp_path / "data"
    for act in ["Walking", "Squats"]:
        for subj in ["p1", "p2", "p3"]:
            d = data / act / subj
            d.mkdir(parents=True)
            t = np.arange(400) * 20
            rows = "\n".join(f"{t[i]},{rng.normal():.4f},{rng.normal():.4f}" for i in range(400))
            (d / "acc.csv").write_text("timestamp_ms,ax,ay\n" + rows + "\n")
    yaml, out, manifest = init_and_run(tmp_path, "data")
    assert "  from: path\n  template: \"{dir:2}\"\n  classes: [Squats, Walking]\n" in yaml
    assert "time: {column: timestamp_ms, unit: ms}" in yaml
    assert manifest["sample_rate_hz"] == 50
    # Every window's class is its recording's folder.
    for split in ("train", "validation", "test"):
        with h5py.File(out / f"{split}.h5") as f:
            for y, r in zip(f["y"][:], f["recording_index"][:]):
                assert manifest["classes"][y] == manifest["recordings"][r].split("/")[0]


def test_init_never_replaces_a_file_and_says_why_it_cannot_draft(tmp_path):
    (tmp_path / "p.yaml").write_text("mine\n")
    (tmp_path / "data").mkdir()
    p = motionprep("init", "data", "-o", "p.yaml", cwd=tmp_path, check=False)
    assert p.returncode == 73 and "refusing to replace `p.yaml`" in p.stderr and "--force" in p.stderr, p.stderr
    assert (tmp_path / "p.yaml").read_text() == "mine\n"
    p = motionprep("init", "data", "-o", "q.yaml", cwd=tmp_path, check=False)
    assert p.returncode == 66 and "data: the folder holds no files" in p.stderr, p.stderr
    p = motionprep("init", "missing", "-o", "q.yaml", cwd=tmp_path, check=False)
    assert p.returncode == 66 and "motionprep: error: missing: no such folder" in p.stderr
    (tmp_path / "data" / "notes.md").write_text("hello\n")
    (tmp_path / "data" / "blob.csv").write_bytes(b"\x00\x01")
    p = motionprep("init", "data", "-o", "q.yaml", cwd=tmp_path, check=False)
    assert p.returncode == 66 and "no recording motionprep can read was found among 2 file(s)" in p.stderr, p.stderr
    assert not (tmp_path / "q.yaml").exists()
    p = motionprep("init", "data", "-o", "q.txt", cwd=tmp_path, check=False)
    assert p.returncode == 64


import pytest


@pytest.mark.parametrize("app", ["sensorlogger", "phyphox", "androsensor"])
def test_phone_app_exports_get_their_preset(tmp_path, app):
    motionprep("synth", "--format", app, "--out", tmp_path / "data", "--subjects", 3, "--minutes", 0.5, "--seed", 2)
    yaml, out, manifest = init_and_run(tmp_path, "data")
    assert f"  - type: {app}\n" in yaml
    # The app's other files (Sensor Logger's Metadata/Annotation, phyphox's meta/) are not inputs.
    assert yaml.count("  - type: ") == 1, yaml
    assert "    sensors: [Accelerometer, Gyroscope]" in yaml
    assert sorted(manifest["subjects"]) == ["subject01", "subject02", "subject03"]
    assert len(manifest["recordings"]) == 6


def test_sensor_logger_exports_in_activity_folders_are_labelled_by_them(tmp_path):
    """The README's session: exports in Activity/person/ folders."""
    motionprep("synth", "--format", "sensorlogger", "--out", tmp_path / "raw", "--subjects", 3, "--minutes", 0.5, "--seed", 4)
    for export in sorted((tmp_path / "raw").glob("*/*")):
        activity = "Walking" if export.name.endswith("1") else "Sitting"
        person = {"subject01": "alice", "subject02": "bob", "subject03": "carol"}[export.parent.name]
        dest = tmp_path / "data" / activity / person / export.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        export.rename(dest)
    yaml, out, manifest = init_and_run(tmp_path, "data")
    assert "labels:   # from the folder each recording sits in\n  from: path\n  template: \"{dir:3}\"\n  classes: [Sitting, Walking]\n" in yaml
    assert 'subject: "{dir:2}"' in yaml
    assert manifest["classes"] == ["Sitting", "Walking"]
    assert sorted(manifest["subjects"]) == ["alice", "bob", "carol"]
    for split in ("train", "validation", "test"):
        with h5py.File(out / f"{split}.h5") as f:
            for y, r in zip(f["y"][:], f["recording_index"][:]):
                assert manifest["classes"][y] == manifest["recordings"][r].split("/")[0]


def test_iio_dumps_with_a_copied_sysfs_folder(tmp_path):
    motionprep("synth", "--format", "iio", "--out", tmp_path / "data", "--subjects", 3, "--minutes", 0.5, "--seed", 1)
    yaml, out, manifest = init_and_run(tmp_path, "data")
    assert '  - type: iio\n    paths: ["data/**/*.bin"]\n    layout: "{dirpath}/sysfs"\n' in yaml
    assert "~100.0 Hz" in yaml and "rate_hz: 100" in yaml
    assert sorted(manifest["subjects"]) == ["subject01", "subject02", "subject03"]


def test_init_replaces_only_its_own_unchanged_pipeline_and_never_writes_into_the_data(tmp_path):
    """docs/hardening.md, "One output policy": the pipeline's last line seals the bytes above it."""
    motionprep("synth", "--out", tmp_path / "data", "--subjects", 2, "--minutes", 0.2)
    p = motionprep("init", "data", "-o", "p.yaml", cwd=tmp_path)
    first = (tmp_path / "p.yaml").read_text()
    assert first.splitlines()[-1].startswith("# motionprep: sha256 of the bytes above: ")
    motionprep("validate", tmp_path / "p.yaml")
    motionprep("init", "data", "-o", "p.yaml", cwd=tmp_path)           # its own, unchanged
    assert (tmp_path / "p.yaml").read_text() == first
    (tmp_path / "p.yaml").write_text(first.replace("version: 1", "version: 1  # edited", 1))
    edited = (tmp_path / "p.yaml").read_text()
    p = motionprep("init", "data", "-o", "p.yaml", cwd=tmp_path, check=False)
    assert p.returncode == 73 and (tmp_path / "p.yaml").read_text() == edited, p.stderr
    motionprep("init", "data", "-o", "p.yaml", "--force", cwd=tmp_path)
    assert (tmp_path / "p.yaml").read_text() == first
    p = motionprep("init", "data", "-o", "data/p.yaml", cwd=tmp_path, check=False)
    assert p.returncode == 73 and "data folder" in p.stderr, p.stderr
    assert not (tmp_path / "data/p.yaml").exists()
