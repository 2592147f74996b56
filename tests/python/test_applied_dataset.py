"""The output of `motionprep apply` is a dataset of the same model (docs/dataset-format.md,
"Applied windows"): `validate`, `inspect`, `report` and the Python package read it.

Checked independently: the normalised arrays against numpy's (x - mean) / std in float64 cast
to float32, files read back with h5py and tarfile; `validate` must fail a forged
`x_normalized` with `normalization.applied` even when the digests are rewritten to match; and
docs/python.md's "Serving a model" code runs as written on HDF5 and shards.
"""
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest

import motionprep as mp
from conftest import motionprep

ROOT = Path(__file__).resolve().parents[2]

PIPELINE = """\
version: 1
name: servetest
inputs:
  - type: motioncollector
    paths: ["data/**/*.csv"]
    sensors: [A, G]
resample: {{rate_hz: 50, max_gap_s: 0.2}}
window: {{length_s: 2.56, stride_s: 1.28}}
labels: {{from: rows, policy: majority, min_fraction: 0.8, map: {{W: walk, T: turn}}, classes: [walk, turn]}}
features: [mean, std, rms]
split: {{by: subject, seed: 15, fractions: {{train: 0.5, validation: 0.25, test: 0.25}}, allocation: exact}}
output: {{type: {storage}, path: build/walk, windows_per_shard: 40}}
"""


@pytest.fixture(scope="module", params=["hdf5", "shards"])
def served(request, tmp_path_factory):
    """A dataset at build/walk and the output of `apply` on one new subject at applied/."""
    root = tmp_path_factory.mktemp(f"serve-{request.param}")
    motionprep("synth", "--out", root / "data", "--subjects", 4, "--minutes", 1, "--seed", 11)
    (root / "walk.yaml").write_text(PIPELINE.format(storage=request.param))
    motionprep("run", "walk.yaml", "--quiet", cwd=root)
    motionprep("apply", "build/walk", "data/subject04", "--out", "applied", "--quiet", cwd=root)
    return root, request.param


def validate_json(folder):
    p = subprocess.run([*motionprep_cmd(), "validate", str(folder), "--format", "json"], capture_output=True, text=True)
    return p.returncode, json.loads(p.stdout)


def motionprep_cmd():
    from conftest import BIN
    return [BIN]


def status(report, check):
    return {c["id"]: c["status"] for c in report["checks"]}[check]


def test_validate_passes_an_applied_output_and_checks_its_normalised_arrays(served):
    root, _ = served
    code, report = validate_json(root / "applied")
    assert code == 0, report
    assert status(report, "normalization.applied") == "passed"
    assert status(report, "normalization.stats") == "skipped"
    assert status(report, "features.recomputed") == "passed"
    assert status(report, "manifest.schema") == "passed"
    # a dataset has no such check
    _, dataset_report = validate_json(root / "build/walk")
    assert "normalization.applied" not in {c["id"] for c in dataset_report["checks"]}


def reseal(folder, changed):
    """Rewrites the manifest's and SHA256SUMS's digests of `changed` so that only the data is wrong."""
    data = (folder / changed).read_bytes()
    digest, size = hashlib.sha256(data).hexdigest(), len(data)
    m = json.loads((folder / "manifest.json").read_text())
    for f in m["splits"]["windows"]["files"]:
        if f["path"] == changed:
            f["sha256"], f["bytes"] = digest, size
    (folder / "manifest.json").write_text(json.dumps(m, indent=2, sort_keys=True) + "\n")
    lines = []
    for line in (folder / "SHA256SUMS").read_text().splitlines():
        d, _, p = line.partition("  ")
        lines.append(f"{digest if p == changed else d}  {p}")
    (folder / "SHA256SUMS").write_text("\n".join(lines) + "\n")


def test_a_forged_x_normalized_fails_normalization_applied(served, tmp_path):
    root, storage = served
    if storage != "hdf5":
        pytest.skip("forged with h5py in the HDF5 file")
    forged = tmp_path / "forged"
    subprocess.run(["cp", "-r", str(root / "applied"), str(forged)], check=True)
    with h5py.File(forged / "windows.h5", "r+") as h:
        v = h["x_normalized"][7]
        v[3, 1] = np.float32(v[3, 1]) + np.float32(0.25)
        h["x_normalized"][7] = v
    reseal(forged, "windows.h5")
    code, report = validate_json(forged)
    assert code == 1
    assert status(report, "files.sha256") == "passed"
    failures = [f for c in report["checks"] if c["id"] == "normalization.applied" for f in c["failures"]]
    assert len(failures) == 1, report
    assert "`x_normalized` differs" in failures[0]["message"] and "window 7" in failures[0]["message"], failures


def test_validate_refuses_an_applied_manifest_with_a_split_policy_or_a_dataset_split(served, tmp_path):
    root, _ = served
    for edit, fragment in [
        (lambda m: m.__setitem__("split_policy", {"by": "subject"}), "unknown key `split_policy`"),
        (lambda m: m["splits"].__setitem__("train", m["splits"]["windows"]), "unknown key `train` in `splits`"),
        (lambda m: m.pop("source_dataset"), "missing key `source_dataset`"),
        (lambda m: m.__setitem__("format_version", 2), "`format_version` is 2"),
    ]:
        folder = tmp_path / f"edit{len(list(tmp_path.iterdir()))}"
        subprocess.run(["cp", "-r", str(root / "applied"), str(folder)], check=True)
        m = json.loads((folder / "manifest.json").read_text())
        edit(m)
        (folder / "manifest.json").write_text(json.dumps(m))
        code, report = validate_json(folder)
        assert code == 1
        messages = [f["message"] for c in report["checks"] for f in c["failures"]]
        assert any(fragment in msg for msg in messages), (fragment, messages)


def test_unlabelled_windows_are_valid_in_an_applied_output(served):
    root, _ = served
    m = json.loads((root / "applied/manifest.json").read_text())
    split = m["splits"]["windows"]
    assert sum(split["class_counts"]) < split["num_windows"], "the fixture must hold windows with y = -1"
    ds = mp.open_dataset(root / "applied")
    assert (ds.arrays("windows")["y"] == -1).sum() == split["num_windows"] - sum(split["class_counts"])


def test_python_opens_an_applied_output_with_the_dataset_api(served):
    root, storage = served
    ds = mp.open_dataset(root / "applied", verify=True)
    source = mp.open_dataset(root / "build/walk")
    assert ds.is_applied and not source.is_applied
    assert ds.splits == ("windows",) and ds.storage == storage and ds.num_folds is None
    assert ds.source_dataset["pipeline_sha256"] == source.manifest["pipeline"]["sha256"]
    assert ds.source_dataset["manifest_sha256"] == hashlib.sha256((root / "build/walk/manifest.json").read_bytes()).hexdigest()
    a = ds.arrays("windows")
    n = ds.num_windows("windows")
    assert a["x"].shape[0] == n and a["x_normalized"].shape == a["x"].shape and a["x_normalized"].dtype == np.float32
    assert a["features_normalized"].shape == a["features"].shape
    # independent: numpy's standardisation with the source dataset's train statistics
    norm = source.manifest["normalization"]
    for name, key in [("x", "x"), ("features", "features")]:
        mean, std = np.asarray(norm[key]["mean"]), np.asarray(norm[key]["std"])
        expected = ((a[name].astype(np.float64) - mean) / np.where(std == 0, 1, std)).astype(np.float32)
        assert np.array_equal(expected.view(np.uint32), a[f"{name}_normalized"].view(np.uint32)), name
    # normalize=True gives the stored values
    assert np.array_equal(ds.arrays("windows", normalize=True)["x"], a["x_normalized"])
    # every window, one at a time, carries its normalised arrays (iter_shard for shards)
    seen = 0
    for s in ds.iter_windows("windows"):
        assert np.array_equal(s["x_normalized"], a["x_normalized"][s["window"]])
        assert np.array_equal(s["features_normalized"], a["features_normalized"][s["window"]])
        seen += 1
    assert seen == n
    assert ds.class_counts().tolist() == json.loads((root / "applied/manifest.json").read_text())["splits"]["windows"]["class_counts"]


def test_inspect_and_report_read_an_applied_output(served, tmp_path):
    root, _ = served
    p = motionprep("inspect", root / "applied")
    assert "output of `motionprep apply` with dataset servetest's pipeline" in p.stdout
    assert re.search(r"windows: \d+ windows", p.stdout), p.stdout
    p = motionprep("report", root / "applied", "-o", tmp_path / "r.html")
    assert "in 1 split," in p.stdout
    page = (tmp_path / "r.html").read_text()
    assert "Value distributions (windows)" in page and "<code>motionprep apply</code>" in page


def serving_code():
    text = (ROOT / "docs/python.md").read_text()
    section = text.split("## Serving a model", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1
    return blocks[0]


def test_the_serving_section_of_docs_python_runs_as_written(served):
    root, _ = served
    p = subprocess.run([sys.executable, "-c", serving_code()], cwd=root, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == 5, p.stdout
    ds = mp.open_dataset(root / "build/walk")
    for line in lines:
        subject, recording, seconds, unit, label = line.split(" ")
        assert subject == "subject04" and recording.startswith("rec-") and unit == "s" and label in ds.classes, line
        float(seconds)
