"""`motionprep apply DATASET_DIR INPUT... --out DIR` (docs/commands.md, "apply"): new recordings
processed exactly as the dataset's, with x_normalized / features_normalized from the dataset's
train statistics.

Checked against an independent reading of the files (h5py, tarfile + zstandard + numpy):
applying a dataset to its own recordings gives every window the dataset has, bit for bit
(x, features, start_time_s, y), whole and streamed, HDF5 and shards; x_normalized is numpy's
(x - mean) / std in float64 cast to float32; unlabelled inputs give y = -1; every refusal has
its exit code and one sentence; the output folder follows run's safety rules.
"""
import hashlib
import io
import json
import os
import shutil
import tarfile
from pathlib import Path

import h5py
import numpy as np
import pytest
import zstandard

from conftest import motionprep

PIPELINE = """\
version: 1
name: applytest
inputs:
  - type: motioncollector
    paths: ["data/**/*.csv"]
    sensors: [A, G]
resample: {{rate_hz: 50, max_gap_s: 0.2}}
window: {{length_s: 2.56, stride_s: 1.28}}
{labels}
features: [mean, std, min, max, rms, dominant_freq_hz]
magnitude: [acc]
split: {{by: subject, seed: 15, fractions: {{train: 0.5, validation: 0.25, test: 0.25}}, allocation: exact}}
output: {{type: {type}, path: out/dataset, windows_per_shard: 40}}
"""
LABELS = "labels: {from: rows, policy: majority, min_fraction: 0.8, map: {W: walk, T: turn}, classes: [walk, turn]}"


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("apply")
    motionprep("synth", "--out", root / "data", "--subjects", 4, "--minutes", 1, "--seed", 11)
    return root


def make_dataset(root, storage="hdf5", labels=LABELS, name="dataset"):
    (root / f"{name}.yaml").write_text(PIPELINE.format(labels=labels, type=storage).replace("out/dataset", f"out/{name}"))
    motionprep("run", root / f"{name}.yaml", "--quiet")
    return root / "out" / name


def read_windows(folder, manifest=None):
    """Every window of a dataset or applied output as a dict of arrays (rows gathered from all
    files, in canonical order per split), plus the manifest."""
    manifest = manifest or json.loads((folder / "manifest.json").read_text())
    out = {}
    for split, entry in sorted(manifest["splits"].items()):
        for f in entry["files"]:
            path = folder / f["path"]
            if path.suffix == ".h5":
                with h5py.File(path) as h:
                    rec_names = [n.decode() if isinstance(n, bytes) else n for n in h.attrs["recording_names"]]
                    arrays = {k: h[k][...] for k in h.keys()}
                    arrays["recording"] = np.array([rec_names[i] for i in arrays["recording_index"]], dtype=object)
            else:
                arrays = read_shard(path)
            for k, v in arrays.items():
                out.setdefault(k, []).append(v)
    return {k: np.concatenate(v) for k, v in out.items()}, manifest


def read_shard(path):
    data = path.read_bytes()
    if path.suffix == ".zst":
        data = zstandard.ZstdDecompressor().decompress(data)
    samples = {}
    with tarfile.open(fileobj=io.BytesIO(data)) as t:
        for m in t.getmembers():
            key, member = m.name.split(".", 1)
            body = t.extractfile(m).read()
            if member.endswith(".npy"):
                value = np.load(io.BytesIO(body))
            elif member == "y.cls":
                value = int(body)
            else:
                value = json.loads(body)
            samples.setdefault(key, {})[member] = value
    keys = sorted(samples)  # canonical order (apply writes them unshuffled; the dataset's are sorted here)
    arrays = {
        "x": np.stack([samples[k]["x.npy"] for k in keys]),
        "y": np.array([samples[k]["y.cls"] for k in keys], dtype=np.int64),
        "start_time_s": np.array([samples[k]["json"]["start_time_s"] for k in keys], dtype=np.float64),
        "recording": np.array([samples[k]["json"]["recording"] for k in keys], dtype=object),
        "key": np.array(keys, dtype=object),
    }
    for name in ("features", "x_normalized", "features_normalized"):
        if name + ".npy" in samples[keys[0]]:
            arrays[name] = np.stack([samples[k][name + ".npy"] for k in keys])
    return arrays


def one_error(stderr):
    """One diagnostic (docs/commands.md, "Messages"): `WHERE: error: sentence`, then only indented hints."""
    import re
    lines = stderr.splitlines()
    return bool(lines) and re.match(r"^\S+?: error: \S", lines[0]) is not None and all(l.startswith("  ") for l in lines[1:])


def same_bits(a, b):
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def expected_normalized(x, stats):
    mean = np.array(stats["mean"], dtype=np.float64)
    std = np.array(stats["std"], dtype=np.float64)
    return ((x.astype(np.float64) - mean) / np.where(std == 0, 1.0, std)).astype(np.float32)


def check_reproduces(dataset, applied, labelled):
    ds, ds_manifest = read_windows(dataset)
    ap, ap_manifest = read_windows(applied)
    assert ap_manifest["format"] == "motionprep.applied"
    assert ap_manifest["source_dataset"]["manifest_sha256"] == hashlib.sha256((dataset / "manifest.json").read_bytes()).hexdigest()
    assert ap_manifest["normalization"] == ds_manifest["normalization"]
    assert ap_manifest["channels"] == ds_manifest["channels"] and ap_manifest["feature_names"] == ds_manifest["feature_names"]
    assert sorted(set(ap["recording"])) == sorted(set(ds["recording"]) | set(ap["recording"]))
    for rec in sorted(set(ap["recording"])):
        d = ds["recording"] == rec
        a = ap["recording"] == rec
        if labelled:
            a = a & (ap["y"] >= 0)  # the windows the dataset kept; the others are kept by apply with y = -1
        order_d = np.argsort(ds["start_time_s"][d], kind="stable")
        for name in ("x", "features", "start_time_s", "y"):
            assert same_bits(ds[name][d][order_d], ap[name][a]), (rec, name)
    assert len(ds["y"]) > 0 and ((ap["y"] >= 0).sum() if labelled else len(ap["y"])) == len(ds["y"])
    if not labelled:
        assert (ap["y"] == -1).all() and len(ap["y"]) == len(ds["y"])
    assert same_bits(ap["x_normalized"], expected_normalized(ap["x"], ds_manifest["normalization"]["x"]))
    assert same_bits(ap["features_normalized"], expected_normalized(ap["features"], ds_manifest["normalization"]["features"]))
    return ap, ap_manifest


@pytest.mark.parametrize("storage", ["hdf5", "shards"])
@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_applying_to_its_own_recordings_reproduces_the_dataset(data, tmp_path, storage, streamed):
    dataset = make_dataset(data, storage=storage, name=f"ds-{storage}")
    env = dict(os.environ, MOTIONPREP_STREAM_BLOCK_BYTES="5000") if streamed \
        else dict(os.environ, MOTIONPREP_STREAM_BLOCK_BYTES=str(1 << 40))   # each file in one block
    out = tmp_path / "applied"
    p = run_apply(dataset, data / "data", "--out", out, "--jobs", 2, "--json", env=env, cwd=data)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["streamed_recordings"] == 8
    ap, manifest = check_reproduces(dataset, out, labelled=True)
    # Windows the labels policy dropped are kept unlabelled and counted.
    ds_manifest = json.loads((dataset / "manifest.json").read_text())
    assert manifest["counts"]["windows_unlabelled"] == ds_manifest["counts"]["windows_dropped"]
    assert (ap["y"] == -1).sum() == sum(ds_manifest["counts"]["windows_dropped"].values())
    assert manifest["splits"]["windows"]["num_windows"] == len(ap["y"])
    if storage == "shards":
        # Unshuffled: keys in canonical order, shard by shard.
        assert list(ap["key"]) == [f"windows-{i:09d}" for i in range(len(ap["key"]))]
        assert all(f["path"].startswith("windows/windows-") for f in manifest["splits"]["windows"]["files"])
        shard = motionprep("inspect", out / manifest["splits"]["windows"]["files"][0]["path"])
        assert "x_normalized" in shard.stdout and "features_normalized" in shard.stdout
    else:
        assert [f["path"] for f in manifest["splits"]["windows"]["files"]] == ["windows.h5"]
    sums = (out / "SHA256SUMS").read_text().split("\n")
    for line in filter(None, sums):
        digest, path = line.split("  ")
        assert hashlib.sha256((out / path).read_bytes()).hexdigest() == digest


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_a_dataset_of_the_whole_recording_median_is_reproduced(data, tmp_path, streamed):
    """A manifest written before `resample.antialias_from` existed has no key in `pipeline.resolved` or `chain`;
    `antialias_from: recording` writes exactly that form (docs/pipeline.md). `apply` reads it as `recording` (the
    filter from the whole recording's median) and reproduces the dataset bit for bit; read as `leading` (the
    default of a pipeline file) it would not: the two datasets differ."""
    (data / "old.yaml").write_text(PIPELINE.format(labels=LABELS, type="hdf5")
                                   .replace("max_gap_s: 0.2}", "max_gap_s: 0.2, antialias_from: recording}")
                                   .replace("out/dataset", "out/old"))
    motionprep("run", data / "old.yaml", "--quiet")
    old = data / "out" / "old"
    manifest = json.loads((old / "manifest.json").read_text())
    assert manifest["pipeline"]["resolved"]["resample"] == {
        "antialias": True, "max_gap_s": {"default": 0.2}, "method": {"default": "linear"}, "rate_hz": 50.0}
    assert manifest["chain"]["antialias"] is True and "antialias_from" not in manifest["chain"]
    env = dict(os.environ, MOTIONPREP_STREAM_BLOCK_BYTES="5000" if streamed else str(1 << 40))
    p = run_apply(old, data / "data", "--out", tmp_path / "applied", "--json", env=env, cwd=data)
    assert p.returncode == 0, p.stderr
    check_reproduces(old, tmp_path / "applied", labelled=True)
    new = make_dataset(data, name="new-default")
    new_manifest = json.loads((new / "manifest.json").read_text())
    assert new_manifest["pipeline"]["resolved"]["resample"]["antialias_from"] == "leading"
    assert new_manifest["chain"]["antialias_from"] == "leading"
    assert new_manifest["pipeline"]["sha256"] != manifest["pipeline"]["sha256"]
    a, _ = read_windows(old)
    b, _ = read_windows(new)
    assert a["x"].shape == b["x"].shape and not same_bits(a["x"], b["x"])


def run_apply(*args, env=None, cwd=None):
    import subprocess
    from conftest import BIN
    return subprocess.run([BIN, "apply", *map(str, args)], capture_output=True, text=True, env=env, cwd=cwd)


def test_unlabelled_pipeline_reproduces_every_window_and_same_bytes_for_any_jobs(data, tmp_path):
    dataset = make_dataset(data, labels="", name="ds-nolabels")
    a1, a2 = tmp_path / "a1", tmp_path / "a2"
    assert run_apply(dataset, data / "data", "--out", a1, "--jobs", 1, "--quiet").returncode == 0
    assert run_apply(dataset, data / "data", "--out", a2, "--jobs", 2, "--quiet").returncode == 0
    check_reproduces(dataset, a1, labelled=False)
    for f in ("windows.h5", "SHA256SUMS", "manifest.json"):
        assert (a1 / f).read_bytes() == (a2 / f).read_bytes(), f


def test_inputs_without_labels_give_y_minus_one(data, tmp_path):
    dataset = make_dataset(data, name="ds-labels")
    new = tmp_path / "new" / "person"
    new.mkdir(parents=True)
    src = data / "data" / "subject02" / "rec-01.csv"
    lines = src.read_text().splitlines()
    blank = [lines[0]] + [",".join([r.split(",")[0], ""] + r.split(",")[2:]) for r in lines[1:]]
    (new / "walk.csv").write_text("\n".join(blank) + "\n")
    out = tmp_path / "applied"
    p = run_apply(dataset, new / "walk.csv", "--out", out, "--json")
    assert p.returncode == 0, p.stderr
    summary = json.loads(p.stdout)
    ap, manifest = read_windows(out)
    assert len(ap["y"]) > 0 and (ap["y"] == -1).all()
    assert manifest["recordings"] == ["walk"] and manifest["subjects"] == ["person"]
    assert summary["windows"] == {"windows": len(ap["y"])} and summary["windows_unlabelled"] == {"no_label": len(ap["y"])}
    # The same samples as the dataset's recording (labels do not change x).
    ds, _ = read_windows(dataset)
    d = ds["recording"] == "subject02/rec-01"
    keep = np.isin(ap["start_time_s"], ds["start_time_s"][d])
    order = np.argsort(ds["start_time_s"][d], kind="stable")
    assert same_bits(ap["x"][keep], ds["x"][d][order])
    assert manifest["inputs"] == [{"bytes": (new / "walk.csv").stat().st_size, "path": os.path.relpath(new / "walk.csv"),
                                   "role": "recording", "sha256": hashlib.sha256((new / "walk.csv").read_bytes()).hexdigest()}]


def edited(dataset, tmp_path, edit):
    copy = tmp_path / "edited"
    shutil.copytree(dataset, copy)
    m = json.loads((copy / "manifest.json").read_text())
    edit(m)
    (copy / "manifest.json").write_text(json.dumps(m, indent=2, sort_keys=True) + "\n")
    return copy


def test_refusals_of_the_dataset(data, tmp_path):
    dataset = make_dataset(data, name="ds-refusals")
    rec = data / "data" / "subject01" / "rec-01.csv"

    def refused(source, code, *fragments, args=()):
        out = tmp_path / "never"
        p = run_apply(source, rec, "--out", out, *args)
        assert p.returncode == code, p.stderr
        assert one_error(p.stderr), p.stderr
        for f in fragments:
            assert f in p.stderr, p.stderr
        assert not out.exists() and not Path(str(out) + ".partial").exists()

    refused(tmp_path / "absent", 66, "no such folder")
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "notes.txt").write_text("x")
    refused(tmp_path / "plain", 78, "is not a motionprep dataset: it has no manifest.json")
    refused(edited(dataset, tmp_path / "v1", lambda m: m.update(format_version=1)), 78, "older motionprep (format_version 1)")
    refused(edited(dataset, tmp_path / "v9", lambda m: m.update(format_version=9)), 78, "format_version 9")
    refused(edited(dataset, tmp_path / "fmt", lambda m: m.update(format="other")), 78, "its `format` is `other`")
    refused(edited(dataset, tmp_path / "rate", lambda m: m["pipeline"]["resolved"]["resample"].update(rate_hz=100.0)), 78,
            "`pipeline.resolved` does not give the manifest's `pipeline.sha256`")
    refused(edited(dataset, tmp_path / "badkey", lambda m: m["pipeline"]["resolved"]["window"].update(lenght_s=1.0)), 78,
            "error: unknown key `lenght_s` in `window`", "did you mean `length_s`?")
    refused(edited(dataset, tmp_path / "nonorm", lambda m: m["normalization"].update(x=None)), 78,
            "has no train statistics", "normalization.x")
    # Made by stage code this build does not implement (docs/dataset-format.md, "Implementation
    # versions"): refused first, naming the stage and both versions.
    assert json.loads((dataset / "manifest.json").read_text())["chain"]["implementation"]["antialias"] == 1
    refused(edited(dataset, tmp_path / "impl", lambda m: m["chain"]["implementation"].update(antialias=2)), 78,
            "`apply` cannot reproduce this dataset's processing: it was made by antialias version 2, "
            "and this build implements antialias version 1 only")
    refused(edited(dataset, tmp_path / "stage", lambda m: m["chain"]["implementation"].update(qa=1)), 78,
            "it was made with a stage `qa` (version 1) that this build does not have")
    # A malformed record is rule C3 (validate's sentence).
    refused(edited(dataset, tmp_path / "implbad", lambda m: m["chain"]["implementation"].update(features="1")), 78,
            "`chain.implementation` `features` must be a whole number of at least 1")
    # A manifest from before versions were recorded (no record): every stage at version 1, applied.
    old = edited(dataset, tmp_path / "noimpl", lambda m: m["chain"].pop("implementation"))
    p = run_apply(old, rec, "--out", tmp_path / "applied-old")
    assert p.returncode == 0, p.stderr
    applied = tmp_path / "applied"
    assert run_apply(dataset, rec, "--out", applied).returncode == 0
    refused(applied, 78, "is the output of `motionprep apply`, not a dataset")


def test_refusals_of_the_inputs(data, tmp_path):
    dataset = make_dataset(data, name="ds-inputs")
    src = data / "data" / "subject01" / "rec-01.csv"
    no_gyro = tmp_path / "s" / "no-gyro.csv"
    no_gyro.parent.mkdir()
    no_gyro.write_text("".join(l for l in src.read_text().splitlines(True) if not l.startswith("G,")))
    for args, code, fragments in [
        ([no_gyro], 65, [str(no_gyro), "G"]),
        ([tmp_path / "missing.csv"], 66, ["missing.csv", "no such file"]),
        ([src, "--input", "3"], 64, ["`--input`", "0 to 0"]),
        ([tmp_path / "empty-folder"], 66, ["holds no file the dataset's inputs read"]),
    ]:
        (tmp_path / "empty-folder").mkdir(exist_ok=True)
        out = tmp_path / "never"
        p = run_apply(dataset, *args, "--out", out)
        assert p.returncode == code, (args, p.stderr)
        assert one_error(p.stderr), p.stderr
        for f in fragments:
            assert f in p.stderr, p.stderr
        assert not out.exists() and not Path(str(out) + ".partial").exists()
    p = run_apply(dataset, src)
    assert p.returncode == 64 and "needs `--out DIR`" in p.stderr
    p = run_apply(dataset, "--out", tmp_path / "x")
    assert p.returncode == 64 and "needs at least one recording" in p.stderr


def snapshot(root):
    return {str(p.relative_to(root)): (p.is_symlink(), p.stat().st_mode if not p.is_symlink() else 0,
                                       p.read_bytes() if p.is_file() and not p.is_symlink() else None)
            for p in sorted(root.rglob("*"))}


def test_output_safety(data, tmp_path):
    dataset = make_dataset(data, name="ds-safety")
    rec = data / "data" / "subject03" / "rec-02.csv"
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("precious")
    before = snapshot(foreign)
    p = run_apply(dataset, rec, "--out", foreign)
    assert p.returncode == 73 and "refusing to replace" in p.stderr and "thesis.tex" in p.stderr
    assert snapshot(foreign) == before
    ds_before = snapshot(dataset)
    for out, fragment in [(dataset, "it is the source dataset"), (dataset / "applied", "inside the source dataset"),
                          (data / "data", "input file")]:
        p = run_apply(dataset, rec, "--out", out)
        assert p.returncode == 73 and fragment in p.stderr, p.stderr
    assert snapshot(dataset) == ds_before
    # An own applied output is replaced; the lock and staging folder are gone afterwards.
    out = tmp_path / "applied"
    assert run_apply(dataset, rec, "--out", out).returncode == 0
    assert run_apply(dataset, data / "data" / "subject01", "--out", out).returncode == 0
    assert json.loads((out / "manifest.json").read_text())["recordings"] == ["rec-01", "rec-02"]
    assert not Path(str(out) + ".partial").exists() and not Path(str(out) + ".lock").exists()
    assert motionprep("validate", dataset).returncode == 0


CSV_PIPELINE = """\
version: 1
name: phones
inputs:
  - type: csv
    paths: ["csvdata/*/*/Accelerometer.csv"]
    recording: "{dirpath}"
    subject: "{dir:2}"
    time: {column: time, unit: s}
    channels: {acc_z: z, acc_x: x, acc_y: y}
    units: {acc_x: g, acc_y: g, acc_z: g}
    label_column: activity
  - type: csv
    paths: ["csvdata/*/*/Barometer.csv"]
    recording: "{dirpath}"
    subject: "{dir:2}"
    time: {column: time, unit: s}
    channels: {pressure: pressure, relative_altitude: relative_altitude}
    units: {pressure: kPa, relative_altitude: m}
    label_column: activity
resample: {rate_hz: 50, method: {default: linear, Barometer: previous}, max_gap_s: {default: 0.2, Barometer: 1.5}}
window: {length_s: 2.0, stride_s: 1.0}
labels: {from: rows, min_fraction: 0.7, classes: [walk, stairs]}
features: [mean, std, range]
split: {seed: 15, fractions: {train: 0.5, validation: 0.25, test: 0.25}, allocation: exact}
output: {type: hdf5, path: out/phones}
"""


@pytest.fixture(scope="module")
def phones(tmp_path_factory):
    root = tmp_path_factory.mktemp("phones")
    motionprep("synth", "--format", "csv", "--out", root / "csvdata", "--subjects", 4, "--minutes", 1, "--seed", 5)
    (root / "phones.yaml").write_text(CSV_PIPELINE)
    motionprep("run", root / "phones.yaml", "--quiet")
    return root


def test_two_csv_inputs_files_go_to_the_input_their_name_matches(phones, tmp_path):
    out = tmp_path / "applied"
    p = run_apply(phones / "out" / "phones", phones / "csvdata", "--out", out, cwd=phones)
    assert p.returncode == 0, p.stderr
    ap, manifest = check_reproduces(phones / "out" / "phones", out, labelled=True)
    assert [c["name"] for c in manifest["channels"]] == ["acc_z", "acc_x", "acc_y", "pressure", "relative_altitude"]
    ds_inputs = json.loads((phones / "out" / "phones" / "manifest.json").read_text())["inputs"]
    assert [(i["sha256"], i["bytes"]) for i in manifest["inputs"]] == [(i["sha256"], i["bytes"]) for i in ds_inputs]
    assert len(manifest["inputs"]) == 16


def test_a_csv_file_without_the_label_column_is_unlabelled(phones, tmp_path):
    rec = tmp_path / "new" / "someone" / "morning"
    rec.mkdir(parents=True)
    for name in ("Accelerometer.csv", "Barometer.csv"):
        rows = (phones / "csvdata" / "subject02" / "rec-01" / name).read_text().splitlines()
        (rec / name).write_text("\n".join(",".join(r.split(",")[:-1]) for r in rows) + "\n")  # drop `activity`
    out = tmp_path / "applied"
    p = run_apply(phones / "out" / "phones", rec / "Accelerometer.csv", rec / "Barometer.csv", "--out", out)
    assert p.returncode == 0, p.stderr
    ap, manifest = read_windows(out)
    assert len(ap["y"]) > 0 and (ap["y"] == -1).all()
    assert manifest["recordings"] == ["morning"] and manifest["subjects"] == ["someone"]


def test_csv_refusals(phones, tmp_path):
    dataset = phones / "out" / "phones"
    rec = tmp_path / "s" / "r"
    rec.mkdir(parents=True)
    rows = (phones / "csvdata" / "subject01" / "rec-01" / "Accelerometer.csv").read_text().splitlines()
    (rec / "Accelerometer.csv").write_text("\n".join(",".join(f for i, f in enumerate(r.split(",")) if i != 3) for r in rows) + "\n")
    shutil.copy(phones / "csvdata" / "subject01" / "rec-01" / "Barometer.csv", rec / "Barometer.csv")
    (rec / "Gyroscope.csv").write_text("time,x\n0,1\n")
    for args, code, fragments in [
        ([rec / "Accelerometer.csv", rec / "Barometer.csv"], 65, [str(rec / "Accelerometer.csv"), "`z`"]),
        ([rec / "Gyroscope.csv"], 64, ["matches none of the dataset's inputs", "inputs[0] (`Accelerometer.csv`)",
                                       "inputs[1] (`Barometer.csv`)", "--input N"]),
        ([rec / "Barometer.csv", "--input", "2"], 64, ["0 to 1, not 2"]),
    ]:
        out = tmp_path / "never"
        p = run_apply(dataset, *args, "--out", out)
        assert p.returncode == code, (args, p.stderr)
        assert one_error(p.stderr), p.stderr
        for f in fragments:
            assert f in p.stderr, p.stderr
        assert not out.exists() and not Path(str(out) + ".partial").exists()


def test_validate_checks_an_applied_output(data, tmp_path):
    # An applied output is a dataset of the same model (test_applied_dataset.py checks it in depth).
    dataset = make_dataset(data, name="ds-validate")
    out = tmp_path / "applied"
    assert run_apply(dataset, data / "data" / "subject04", "--out", out).returncode == 0
    p = motionprep("validate", out, check=False)
    assert p.returncode == 0, p.stdout + p.stderr
    assert ": ok: " in p.stdout and " 0 failed" in p.stdout, p.stdout


IIO_PIPELINE = """\
version: 1
name: iio
inputs:
  - type: iio
    paths: ["iiodata/**/*.bin"]
    layout: "{dirpath}/sysfs"
    sensor: imu
resample: {rate_hz: 50, max_gap_s: 0.2}
window: {length_samples: 128, stride_samples: 64}
features: [mean, std]
split: {seed: 42, fractions: {train: 0.5, validation: 0.25, test: 0.25}, allocation: exact}
output: {type: shards, path: out/iio, compression: none}
"""


def test_iio_layout_folders_of_new_recordings(tmp_path):
    motionprep("synth", "--out", tmp_path / "iiodata", "--format", "iio", "--subjects", 3, "--minutes", 1, "--seed", 3)
    (tmp_path / "iio.yaml").write_text(IIO_PIPELINE)
    motionprep("run", tmp_path / "iio.yaml", "--quiet")
    dataset = tmp_path / "out" / "iio"
    out = tmp_path / "applied"
    p = run_apply(dataset, tmp_path / "iiodata", "--out", out, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    check_reproduces(dataset, out, labelled=False)
    assert any(i["role"] == "iio_layout" for i in json.loads((out / "manifest.json").read_text())["inputs"])
    # A new recording whose layout folder lacks a channel of the dataset is refused, naming both.
    new = tmp_path / "new" / "person"
    shutil.copytree(tmp_path / "iiodata" / "subject01", new)
    (new / "sysfs" / "scan_elements" / "in_accel_z_en").write_text("0\n")
    p = run_apply(dataset, new / "rec-01.bin", "--out", tmp_path / "never")
    assert p.returncode == 65, p.stderr
    assert "acc_z" in p.stderr and str(new) in p.stderr and p.stderr.count("\n") == 1, p.stderr
    assert not (tmp_path / "never").exists()


def test_one_writer_at_a_time_and_a_killed_apply_leaves_the_previous_output(data, tmp_path):
    import signal
    import subprocess
    import time
    from conftest import BIN
    dataset = make_dataset(data, name="ds-lock")
    out = tmp_path / "applied"
    assert run_apply(dataset, data / "data" / "subject02", "--out", out, "--quiet").returncode == 0
    before = snapshot(out)
    env = dict(os.environ, MOTIONPREP_TEST_PAUSE_AT="before-commit")
    first = subprocess.Popen([BIN, "apply", dataset, data / "data" / "subject03", "--out", out, "--quiet"], env=env,
                             stderr=subprocess.PIPE, text=True)
    line = first.stderr.readline()
    assert "test hook: paused at before-commit" in line, line
    # A second writer (apply or run) is refused, naming the holder.
    second = run_apply(dataset, data / "data" / "subject04", "--out", out)
    assert second.returncode == 73 and f"in use by process {first.pid}" in second.stderr, second.stderr
    first.send_signal(signal.SIGKILL)
    first.wait()
    # The previous applied output is intact; the next apply takes the stale lock over and replaces it.
    assert snapshot(out) == before
    p = run_apply(dataset, data / "data" / "subject04", "--out", out)
    assert p.returncode == 0 and f"was left by process {first.pid}" in p.stderr, p.stderr
    assert json.loads((out / "manifest.json").read_text())["subjects"] == ["subject04"]
    assert not Path(f"{out}.partial").exists() and not Path(f"{out}.lock").exists()


def test_more_refusals_of_the_dataset_and_a_run_without_windows(data, tmp_path):
    dataset = make_dataset(data, name="ds-more")
    rec = data / "data" / "subject01" / "rec-01.csv"

    def refused(source, code, *fragments, inputs=(rec,)):
        out = tmp_path / "never"
        p = run_apply(source, *inputs, "--out", out)
        assert p.returncode == code, p.stderr
        assert one_error(p.stderr), p.stderr
        for f in fragments:
            assert f in p.stderr, p.stderr
        assert not out.exists() and not Path(str(out) + ".partial").exists()

    refused(rec, 78, "is not a dataset folder")
    fifo = tmp_path / "fifo-ds"
    fifo.mkdir()
    os.mkfifo(fifo / "manifest.json")
    refused(fifo, 78, "is not a regular file, so it is not opened")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "manifest.json").write_text('{"format": "motionprep.dataset", ')
    refused(broken, 78, "does not parse as JSON")
    refused(edited(dataset, tmp_path / "nochannels", lambda m: m.pop("channels")), 78, "manifest.json: error: missing key `channels` in the manifest")
    refused(edited(dataset, tmp_path / "shortstd", lambda m: m["normalization"]["x"]["std"].pop()), 78,
            "manifest.json: error: `normalization.x.std` must hold 7 numbers (one per column), not 6")
    refused(edited(dataset, tmp_path / "negstd", lambda m: m["normalization"]["x"]["std"].__setitem__(0, -1.0)), 78,
            "`normalization.x.std[0]` must be a standard deviation of at least 0, not -1.0")
    refused(edited(dataset, tmp_path / "nofeat", lambda m: m["normalization"].update(features=None)), 78,
            "no train statistics for its features")
    refused(edited(dataset, tmp_path / "rate", lambda m: m.update(sample_rate_hz=100.0)), 78,
            "does not agree with its own `pipeline.resolved`")
    short = tmp_path / "short" / "p"
    short.mkdir(parents=True)
    (short / "tiny.csv").write_text("".join(rec.read_text().splitlines(True)[:60]))
    refused(dataset, 65, "no window to apply the dataset to", "one window is 128 samples", inputs=(short / "tiny.csv",))


@pytest.mark.parametrize("app", ["sensorlogger", "androsensor"])
def test_a_phone_preset_dataset_applies_to_its_own_exports(tmp_path, app):
    """A preset's inputs come back from `pipeline.resolved` (with their `preset` record), so the
    pipeline hashes as it did and the exports give the dataset's windows bit for bit."""
    motionprep("synth", "--format", app, "--out", tmp_path / "data", "--subjects", 3, "--minutes", 0.5, "--seed", 3)
    paths = '"data/*/*"' if app == "sensorlogger" else '"data/**/*.csv"'
    (tmp_path / "p.yaml").write_text(
        f"version: 1\ninputs:\n  - type: {app}\n    paths: [{paths}]\nresample: {{rate_hz: 50}}\nwindow: {{length_s: 2}}\n"
        "features: [mean, std]\nsplit: {allocation: exact, fractions: {train: 0.34, validation: 0.33, test: 0.33}}\n"
        "output: {type: hdf5, path: ds}\n")
    motionprep("run", tmp_path / "p.yaml", "--quiet")
    p = run_apply(tmp_path / "ds", tmp_path / "data", "--out", tmp_path / "applied", "--quiet")
    assert p.returncode == 0, p.stderr
    check_reproduces(tmp_path / "ds", tmp_path / "applied", labelled=False)


def test_the_uci_har_style_transforms_apply_bit_for_bit(tmp_path):
    """`transforms:` come back from `pipeline.resolved` with every default, so applying the shipped
    UCI-style pipeline's dataset to its own recordings gives its windows, derived channels included."""
    import shutil
    root = Path(__file__).resolve().parents[2]
    text = (root / "pipelines" / "uci-har-style.yaml").read_text()
    data = tmp_path / "datasets" / "walk"
    shutil.copytree(root / "datasets" / "walk", data)
    (tmp_path / "pipelines").mkdir()
    (tmp_path / "pipelines" / "uci.yaml").write_text(text.replace("path: ../build/uci-har-style", "path: ../ds"))
    motionprep("run", tmp_path / "pipelines" / "uci.yaml", "--quiet")
    p = run_apply(tmp_path / "ds", data, "--out", tmp_path / "applied", "--quiet")
    assert p.returncode == 0, p.stderr
    ap, manifest = check_reproduces(tmp_path / "ds", tmp_path / "applied", labelled=True)
    assert len(manifest["channels"]) == 6 + 6 + 6 + 5


def test_refusals_of_a_dataset_apply_cannot_trust(data, tmp_path):
    """Before `apply` trusts the manifest's train statistics it checks the manifest against its own
    pipeline (rules C1–C3, docs/validate.md, "Consistency rules": 78) and that the data files the
    statistics were computed from are there as listed, with SHA256SUMS agreeing (65); nothing is
    written, and the one error names the file."""
    dataset = make_dataset(data, name="ds-trust")
    rec = data / "data" / "subject01" / "rec-01.csv"
    m = json.loads((dataset / "manifest.json").read_text())
    train = m["splits"]["train"]["files"][0]

    def refused(source, code, line):
        out = tmp_path / "never"
        p = run_apply(source, rec, "--out", out)
        assert p.returncode == code, p.stderr
        assert one_error(p.stderr), p.stderr
        assert p.stderr.splitlines()[0] == line, p.stderr
        assert not out.exists() and not Path(str(out) + ".partial").exists()

    def copy_of(name):
        target = tmp_path / name
        shutil.copytree(dataset, target)
        return target

    # C1: split_policy not the pipeline's (pipeline.resolved and its hash untouched).
    c = edited(dataset, tmp_path / "seed", lambda m: m["split_policy"].update(seed=16))
    refused(c, 78, f"{c}/manifest.json: error: `split_policy.seed` is 16, but `pipeline.resolved.split.seed` is 15: the "
                   "split policy must be the pipeline's (docs/validate.md, \"Consistency rules\"); the manifest was edited, "
                   "so `apply` does not trust its normalization")
    # C2: classes not the pipeline's.
    c = edited(dataset, tmp_path / "classes", lambda m: m.update(classes=["turn", "walk"]))
    refused(c, 78, f"{c}/manifest.json: error: `classes` is [\"turn\", \"walk\"], but `pipeline.resolved.labels.classes` is "
                   "[\"walk\", \"turn\"]: the classes must be the pipeline's, in its order (docs/validate.md, \"Consistency "
                   "rules\"); the manifest was edited, so `apply` does not trust its normalization")
    # C3: chain not the pipeline's.
    c = edited(dataset, tmp_path / "chain", lambda m: m["chain"].update(antialias=False))
    refused(c, 78, f"{c}/manifest.json: error: `chain.antialias` is false, but `pipeline.resolved.resample.antialias` is "
                   "true: the chain must be the pipeline's (docs/validate.md, \"Consistency rules\"); the manifest was "
                   "edited, so `apply` does not trust its normalization")
    # A manifest the decoder `validate` uses refuses.
    c = edited(dataset, tmp_path / "schema", lambda m: m["splits"]["train"]["files"][0].update(bytes=-3))
    p = run_apply(c, rec, "--out", tmp_path / "never")
    assert p.returncode == 78 and one_error(p.stderr), p.stderr
    assert p.stderr.startswith(f"{c}/manifest.json: error: `splits.train.files[0].bytes` must be"), p.stderr

    # A manifest-only folder: manifest.json copied alone.
    lone = tmp_path / "lone"
    lone.mkdir()
    shutil.copy(dataset / "manifest.json", lone / "manifest.json")
    first = m["splits"]["train"]["files"][0]
    refused(lone, 65, f"{lone}/{first['path']}: error: does not exist, but {lone}/manifest.json lists it "
                      f"({first['bytes']} bytes, split `train`): {lone} is not a complete dataset (a manifest without its "
                      "data files), so `apply` does not trust its normalization; give the folder `motionprep run` wrote")
    # A data file of another size (truncated).
    c = copy_of("truncated")
    with open(c / train["path"], "r+b") as f:
        f.truncate(train["bytes"] - 1)
    refused(c, 65, f"{c}/{train['path']}: error: has {train['bytes'] - 1} bytes, but {c}/manifest.json lists "
                   f"{train['bytes']}: the file has changed since the dataset was written, so `apply` does not trust its "
                   f"normalization (`motionprep validate {c}` checks it)")
    # A data file replaced by a symbolic link to itself elsewhere: not followed.
    c = copy_of("linked")
    (c / train["path"]).unlink()
    (c / train["path"]).symlink_to(dataset / train["path"])
    refused(c, 65, f"{c}/{train['path']}: error: is a symbolic link, not a regular file, so it is not opened "
                   f"({c}/manifest.json lists it): {c} is not the dataset `motionprep run` wrote")
    # SHA256SUMS missing, disagreeing with the manifest, or listing another file.
    c = copy_of("nosums")
    (c / "SHA256SUMS").unlink()
    refused(c, 65, f"{c}/SHA256SUMS: error: is missing (`run` writes it beside manifest.json): the dataset is not "
                   "complete, so `apply` does not trust its normalization")
    c = copy_of("othersum")
    sums = (c / "SHA256SUMS").read_text()
    (c / "SHA256SUMS").write_text(sums.replace(train["sha256"], "0" * 64))
    refused(c, 65, f"{c}/SHA256SUMS: error: gives `{train['path']}` the digest {'0' * 64}, but {c}/manifest.json lists "
                   f"{train['sha256']}: the checksums are not the manifest's, so `apply` does not trust its normalization")
    c = copy_of("extrasum")
    (c / "SHA256SUMS").write_text(sums + f"{'a' * 64}  extra.h5\n")
    refused(c, 65, f"{c}/SHA256SUMS: error: lists `extra.h5`, which {c}/manifest.json does not: the checksums are not "
                   "the manifest's, so `apply` does not trust its normalization")
    c = copy_of("badsums")
    (c / "SHA256SUMS").write_text(sums + "not a checksum line\n")
    refused(c, 65, f"{c}/SHA256SUMS:{len(sums.splitlines()) + 1}: error: the line is not `<64 hex digits>  <path>`, so "
                   "the dataset's checksums cannot be read: not a dataset `motionprep run` wrote")
    # The untouched dataset still applies.
    assert run_apply(dataset, rec, "--out", tmp_path / "applied").returncode == 0


@pytest.mark.parametrize("storage", ["hdf5", "shards"])
def test_an_edited_train_statistic_is_refused(data, tmp_path, storage):
    """`apply` recomputes `normalization.x` and `.features` from the train split (float64, the
    population std, relative tolerance 1e-6 of |mean| + std: `validate`'s `normalization.stats`)
    before it standardises with them. The manifest is not in SHA256SUMS, so an edited statistic,
    with nothing else recomputed, passes every other check: it is refused with 65, one sentence
    naming the key, the stored and the recomputed value; the untouched dataset still applies."""
    dataset = make_dataset(data, storage=storage, name=f"ds-stats-{storage}")
    rec = data / "data" / "subject01" / "rec-01.csv"
    m = json.loads((dataset / "manifest.json").read_text())
    mean0 = m["normalization"]["x"]["mean"][0]
    std2 = m["normalization"]["features"]["std"][2]
    channel, feature = m["channels"][0]["name"], m["feature_names"][2]
    for key, edit, shown in [
        ("x.mean[0]", lambda m: m["normalization"]["x"]["mean"].__setitem__(0, mean0 + 0.5),
         f"(channel `{channel}`) is {mean0 + 0.5!r}, but the train split gives "),
        ("features.std[2]", lambda m: m["normalization"]["features"]["std"].__setitem__(2, std2 * 1.001),
         f"(feature `{feature}`) is {std2 * 1.001!r}, but the train split gives "),
    ]:
        c = edited(dataset, tmp_path / key, edit)
        out = tmp_path / "never"
        p = run_apply(c, rec, "--out", out)
        assert p.returncode == 65, p.stderr
        assert one_error(p.stderr), p.stderr
        line = p.stderr.splitlines()[0]
        assert line.startswith(f"{c}/manifest.json: error: `normalization.{key}` {shown}"), line
        assert line.endswith("the statistics were edited, so `apply` does not trust its normalization"), line
        assert not out.exists() and not Path(str(out) + ".partial").exists()
    out = tmp_path / "applied"
    p = run_apply(dataset, rec, "--out", out, "--quiet")
    assert p.returncode == 0, p.stderr
