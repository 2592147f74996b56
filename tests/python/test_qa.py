"""The pipeline's `qa` section (issue #27 point 4): device quality per window — non-wear and
clipped fractions beside the windows, the accelerometer's calibration error per recording in the
manifest, and a policy that flags or drops windows (docs/pipeline.md, "qa").

The data are csv recordings in g, written here at exactly 10 Hz so that grid points are the
samples: 120 stationary poses in random orientations (10 s each, 3 mg noise) alternating with
movement (clipped at ±8 g), then 20 minutes on a table (non-wear with a 5-minute patience), then
movement; the device has a known offset and gain error on each axis. actipy (PyPI) computes the
calibration (`calibrate_gravity`) and the non-wear episodes (`find_nonwear_segments`) on the same
samples with the same parameters; each window's fractions are computed again with numpy."""
import json
import tarfile
from pathlib import Path

import h5py
import numpy as np
import pytest
import zstandard

from conftest import motionprep
from test_provenance import killed_before_manifest

RATE = 10
EPOCH = 10 * RATE                 # points per 10 s epoch
T = 15 * RATE                     # windows of 15 s, stride 5 s
STRIDE = 5 * RATE
OFFSET = np.array([0.04, -0.03, 0.02])
GAIN = np.array([1.03, 0.97, 1.01])
RANGE_G = 8.0
SUBJECTS = ["p01", "p02", "p03"]

PIPELINE = """\
version: 1
name: qa
inputs:
  - type: csv
    paths: ["data/*/*.csv"]
    time: {{column: t, unit: s}}
    sensor: acc
    channels: {{acc_x: ax, acc_y: ay, acc_z: az}}
    units: {{acc_x: g, acc_y: g, acc_z: g}}
resample: {{rate_hz: 10, max_gap_s: 0.15, antialias: false}}
window: {{length_s: 15, stride_s: 5}}
split: {{assign: {{train: [p01], validation: [p02], test: [p03]}}}}
qa: {{nonwear_patience_min: 5, range_g: 8{qa}}}
output: {output}
"""


def pipeline(output, qa=""):
    return PIPELINE.format(output=output, qa=qa)


def signal_of(seed):
    """The device's samples (g) of one recording, and their true orientation's stationary flags."""
    rng = np.random.default_rng(seed)
    parts = []
    for _ in range(120):
        g = rng.normal(size=3)
        g /= np.linalg.norm(g)
        parts.append(g + rng.normal(scale=0.003, size=(EPOCH, 3)))          # a pose
        parts.append(rng.normal(scale=3.0, size=(EPOCH, 3)))                 # movement, clips at ±8 g
    table = np.array([0.0, 0.0, 1.0])
    parts.append(table + rng.normal(scale=0.002, size=(120 * EPOCH, 3)))    # 20 min on a table
    parts.append(rng.normal(scale=2.0, size=(30 * EPOCH, 3)))
    true = np.concatenate(parts)
    measured = np.clip(true * GAIN + OFFSET, -RANGE_G, RANGE_G)
    return measured


def make_data(root: Path):
    data = {}
    for k, subject in enumerate(SUBJECTS):
        a = signal_of(11 + k)
        t0 = 1_700_000_000.0 + 3600 * k                                # whole seconds: epochs align
        t = t0 + np.arange(len(a)) / RATE
        folder = root / "data" / subject
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / "r.csv", "w") as f:
            f.write("t,ax,ay,az\n")
            for ti, (x, y, z) in zip(t.tolist(), a.tolist()):
                f.write(f"{ti!r},{x!r},{y!r},{z!r}\n")
        data[f"{subject}/r"] = (t, a)
    return data


def tree(root: Path):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    root = tmp_path_factory.mktemp("qa")
    data = make_data(root)
    (root / "h5.yaml").write_text(pipeline("{type: hdf5, path: h5}"))
    (root / "shards.yaml").write_text(pipeline("{type: shards, path: shards, windows_per_shard: 100}"))
    (root / "drop.yaml").write_text(pipeline("{type: hdf5, path: drop}",
                                             ", policy: drop, drop_nonwear_above: 0.5, drop_clipped_above: 0.02"))
    for name in ("h5", "shards", "drop"):
        motionprep("run", root / f"{name}.yaml", "--quiet", "--jobs", 2)
    return root, data


def as_float32(a):
    """The values as motionprep stores them: g → m/s² (units: si), float32, and back to g."""
    return (a * 9.80665).astype(np.float32).astype(np.float64) / 9.80665


def epochs_std(a):
    n = len(a) // EPOCH
    e = a[: n * EPOCH].reshape(n, EPOCH, 3)
    return e.std(axis=1, ddof=1), e.mean(axis=1)


def expected_nonwear_points(a, tol=0.015, patience_s=300):
    """Non-wear per grid point, with numpy: runs of stationary epochs whose (n - 1) epochs last
    longer than the patience (actipy's rule), each covering its epochs' points."""
    std, _ = epochs_std(a)
    stationary = (std < tol).all(axis=1)
    flags = np.zeros(len(a), bool)
    e = 0
    while e < len(stationary):
        if not stationary[e]:
            e += 1
            continue
        end = e
        while end < len(stationary) and stationary[end]:
            end += 1
        if (end - e - 1) * 10 > patience_s:
            flags[e * EPOCH: end * EPOCH] = True
        e = end
    return flags


def windows_of(a):
    starts = np.arange(0, len(a) - T + 1, STRIDE)
    return starts


def test_qa_fractions_in_hdf5_match_numpy(work):
    root, data = work
    manifest = json.loads((root / "h5/manifest.json").read_text())
    assert manifest["arrays"]["qa"] == {"dtype": "float32", "shape": [None, 3]}
    assert manifest["qa"]["columns"] == ["nonwear", "clipped", "imputed"]
    assert manifest["counts"]["windows_dropped"] == {}
    for split, subject in zip(("train", "validation", "test"), SUBJECTS):
        t, a = data[f"{subject}/r"]
        g = as_float32(a)
        nonwear = expected_nonwear_points(g)
        clipped = (np.abs(g) >= RANGE_G - 0.01).any(axis=1)
        starts = windows_of(a)
        with h5py.File(root / f"h5/{split}.h5") as f:
            qa = f["qa"][...]
            assert qa.dtype == np.float32 and qa.shape == (len(starts), 3)
            assert [c.decode() if isinstance(c, bytes) else c for c in f.attrs["qa_columns"]] == ["nonwear", "clipped", "imputed"]
            np.testing.assert_allclose(f["start_time_s"][...], t[starts])
        # Phone-style csv files add no sample: imputed is 0 (the GT3X idle-sleep fill is test_gt3x_interop's).
        want = np.array([[nonwear[s:s + T].mean(), clipped[s:s + T].mean(), 0] for s in starts], np.float32)
        np.testing.assert_array_equal(qa, want)
        assert (qa[:, 0] > 0).any() and (qa[:, 0] == 1).any() and (qa[:, 1] > 0).any()


def test_calibration_and_nonwear_agree_with_actipy(work):
    actipy = pytest.importorskip("actipy")
    import pandas as pd
    from actipy import processing
    root, data = work
    manifest = json.loads((root / "h5/manifest.json").read_text())
    reports = {r["recording"]: r for r in manifest["qa"]["recordings"]}
    assert list(reports) == sorted(reports)
    for name, (t, a) in data.items():
        df = pd.DataFrame(a, columns=["x", "y", "z"], index=pd.to_datetime(np.round(t * 1e9).astype(np.int64), unit="ns"))
        _, info = processing.calibrate_gravity(df, stdtol=0.013)
        cal = reports[name]["calibration"]
        assert cal["ok"] and info["CalibOK"] == 1
        assert cal["stationary_epochs"] == info["CalibNumSamples"]
        # Float32 storage of x moves the epoch means by ~1e-7 g: well inside 0.01 mg.
        assert abs(cal["error_before_mg"] - info["CalibErrorBefore(mg)"]) < 0.01
        assert abs(cal["error_after_mg"] - info["CalibErrorAfter(mg)"]) < 0.01
        assert cal["error_before_mg"] > 20 and cal["error_after_mg"] < 2
        np.testing.assert_allclose(cal["intercept_g"], [info[f"Calib{c}Intercept"] for c in "xyz"], atol=1e-4)
        np.testing.assert_allclose(cal["slope"], [info[f"Calib{c}Slope"] for c in "xyz"], atol=1e-4)
        # The fit undoes the device's error: slope ≈ 1 / gain, intercept ≈ −offset / gain.
        np.testing.assert_allclose(cal["slope"], 1 / GAIN, atol=2e-3)
        np.testing.assert_allclose(cal["intercept_g"], -OFFSET / GAIN, atol=2e-3)
        # Non-wear: actipy's episodes start where ours do; actipy's length is (n − 1) epochs,
        # ours covers all n (docs/pipeline.md, "qa").
        segments = processing.find_nonwear_segments(df, patience="5min", window="10s", stdtol=0.015)
        ours = reports[name]["nonwear_episodes"]
        assert len(ours) == len(segments) == 1
        start = (segments.index[0].value - df.index[0].value) / 1e9
        length = segments.iloc[0].total_seconds()
        assert ours[0]["start_s"] == pytest.approx(start)
        assert ours[0]["end_s"] == pytest.approx(start + length + 10)
        assert reports[name]["nonwear_s"] == pytest.approx(length + 10)


def test_drop_policy_counts_every_dropped_window(work):
    root, data = work
    manifest = json.loads((root / "drop/manifest.json").read_text())
    want_nonwear = want_clipped = kept = 0
    for subject in SUBJECTS:
        _, a = data[f"{subject}/r"]
        g = as_float32(a)
        nonwear = expected_nonwear_points(g)
        clipped = (np.abs(g) >= RANGE_G - 0.01).any(axis=1)
        for s in windows_of(a):
            if nonwear[s:s + T].mean() > 0.5:
                want_nonwear += 1
            elif clipped[s:s + T].mean() > 0.02:
                want_clipped += 1
            else:
                kept += 1
    assert manifest["counts"]["windows_dropped"] == {"qa_nonwear": want_nonwear, "qa_clipped": want_clipped}
    assert sum(manifest["splits"][s]["num_windows"] for s in ("train", "validation", "test")) == kept
    with h5py.File(root / "drop/train.h5") as f:
        qa = f["qa"][...]
    assert (qa[:, 0] <= 0.5).all() and (qa[:, 1] <= 0.02).all()
    motionprep("validate", root / "drop")


def test_shards_json_has_qa_equal_to_hdf5(work):
    root, _ = work
    for split in ("train", "validation", "test"):
        with h5py.File(root / f"h5/{split}.h5") as f:
            want = f["qa"][...]
        got = {}
        for shard in sorted((root / "shards" / split).glob("*.tar.zst")):
            with zstandard.ZstdDecompressor().stream_reader(open(shard, "rb")) as r, tarfile.open(fileobj=r, mode="r|") as tar:
                for m in tar:
                    if m.name.endswith(".json"):
                        meta = json.loads(tar.extractfile(m).read())
                        got[int(m.name.split("-")[1].split(".")[0])] = [meta["qa"]["nonwear"], meta["qa"]["clipped"], meta["qa"]["imputed"]]
        assert len(got) == len(want)
        np.testing.assert_array_equal(np.array([got[k] for k in sorted(got)], np.float32), want)
    motionprep("validate", root / "shards")
    motionprep("validate", root / "h5")


def test_bytes_same_for_jobs_workers_and_resume(work):
    root, _ = work
    one = root / "h5-j1"
    motionprep("run", root / "h5.yaml", "--jobs", 1, "--out", one, "--quiet")
    assert tree(one) == tree(root / "h5")
    parts = []
    for i in range(2):
        part = root / f"h5-w{i}"
        motionprep("run", root / "h5.yaml", "--worker", f"{i}/2", "--out", part, "--quiet")
        parts.append(part)
    motionprep("merge", root / "h5-merged", *parts, "--quiet")
    assert tree(root / "h5-merged") == tree(root / "h5")
    records = sorted((parts[0] / "records").glob("*.mprec"))
    assert records and all(r.read_bytes().startswith(b"MPREC6\n\0") for r in records)
    # Shards: the qa keys of every sample's json through --jobs 1 and two workers merged.
    motionprep("run", root / "shards.yaml", "--jobs", 1, "--out", root / "shards-j1", "--quiet")
    assert tree(root / "shards-j1") == tree(root / "shards")
    parts = []
    for i in range(2):
        part = root / f"shards-w{i}"
        motionprep("run", root / "shards.yaml", "--worker", f"{i}/2", "--out", part, "--quiet")
        parts.append(part)
    motionprep("merge", root / "shards-merged", *parts, "--quiet")
    assert tree(root / "shards-merged") == tree(root / "shards")


def test_python_package_reads_qa(work):
    motionprep_py = pytest.importorskip("motionprep")
    root, _ = work
    with h5py.File(root / "h5/train.h5") as f:
        want = f["qa"][...]
    for name in ("h5", "shards"):
        ds = motionprep_py.open_dataset(root / name)
        assert ds.qa_columns == ("nonwear", "clipped", "imputed")
        assert len(ds.qa_report["recordings"]) == 3
        np.testing.assert_array_equal(ds.arrays("train")["qa"], want)
        first = next(iter(ds.iter_windows("train")))
        assert set(first["meta"]["qa"]) == {"nonwear", "clipped", "imputed"}
        ds.verify()                                    # checksums and the consistency rules, qa_columns included


def test_resume_keeps_qa(work):
    """A run killed once every record is written (before its manifest) is finished by `--resume`
    from the records, which carry the qa rows and reports (record format 6): one run's bytes."""
    root, _ = work
    out = root / "h5-resumed"
    records = killed_before_manifest(work, root / "h5.yaml", out)
    assert len(records) == 3 and all(r.read_bytes().startswith(b"MPREC6\n\0") for r in records)
    p = motionprep("run", root / "h5.yaml", "--out", out, "--resume", "--json")
    assert json.loads(p.stdout)["resumed_recordings"] == 3, p.stderr
    assert tree(out) == tree(root / "h5")


def test_apply_writes_qa_and_keeps_every_window(work, tmp_path):
    """`apply` on a `policy: drop` dataset writes the `qa` columns of the new recordings and keeps
    every window (the policy chooses training windows only)."""
    root, data = work
    motionprep("apply", root / "drop", root / "data" / "p02", "--out", tmp_path / "applied", "--quiet")
    manifest = json.loads((tmp_path / "applied/manifest.json").read_text())
    assert manifest["arrays"]["qa"] == {"dtype": "float32", "shape": [None, 3]}
    _, a = data["p02/r"]
    with h5py.File(tmp_path / "applied/windows.h5") as f:
        qa = f["qa"][...]
    assert len(qa) == len(windows_of(a)) and (qa[:, 0] > 0.5).any()
    with h5py.File(root / "h5/validation.h5") as f:
        np.testing.assert_array_equal(qa, f["qa"][...])
    motionprep("validate", tmp_path / "applied")


def test_without_qa_the_bytes_and_hash_are_as_before(work, tmp_path):
    root, _ = work
    text = (root / "h5.yaml").read_text().replace("qa: {nonwear_patience_min: 5, range_g: 8}\n", "").replace("path: h5}", "path: plain}")
    (root / "plain.yaml").write_text(text)
    motionprep("run", root / "plain.yaml", "--quiet")
    manifest = json.loads((root / "plain/manifest.json").read_text())
    assert "qa" not in manifest and "qa" not in manifest["arrays"] and "qa" not in manifest["pipeline"]["resolved"]
    with h5py.File(root / "plain/train.h5") as f, h5py.File(root / "h5/train.h5") as g:
        assert "qa" not in f and "qa_columns" not in f.attrs
        np.testing.assert_array_equal(f["x"][...], g["x"][...])


@pytest.mark.parametrize("qa, where, words", [
    (", polcy: drop", "polcy", "did you mean `policy`"),
    (", policy: drop, drop_nonwear_above: 2", "drop_nonwear_above", "from 0 to 1"),
    (", drop_clipped_above: 0.1", "drop_clipped_above", "only with `qa.policy: drop`"),
    (", policy: keep", "policy", "`flag` or `drop`"),
    (", epoch_s: 0.1", "epoch_s", "at least 2 grid points"),
])
def test_config_errors_name_file_line_column(work, tmp_path, qa, where, words):
    root, _ = work
    path = tmp_path / "bad.yaml"
    path.write_text(pipeline("{type: hdf5, path: out}", qa))
    p = motionprep("run", path, check=False)
    assert p.returncode == 78, p.stderr
    line = next(i for i, l in enumerate(path.read_text().splitlines(), 1) if l.startswith("qa:"))
    column = path.read_text().splitlines()[line - 1].index(where) + 1
    assert f"bad.yaml:{line}:" in p.stderr and words in p.stderr, p.stderr
    assert f":{line}:{column}" in p.stderr or f":{line}:{column + len(where) + 2}" in p.stderr, p.stderr


def test_qa_channels_that_are_not_an_accelerometer_are_refused(work, tmp_path):
    root, _ = work
    text = pipeline("{type: hdf5, path: out}", ", channels: gyro")
    (root / "gyro.yaml").write_text(text)
    p = motionprep("run", root / "gyro.yaml", check=False)
    assert p.returncode == 78 and "`gyro_x`" in p.stderr and "gyro.yaml:" in p.stderr, p.stderr


def test_qa_refused_with_createml(work, tmp_path):
    root, _ = work
    path = tmp_path / "cml.yaml"
    path.write_text(pipeline("{type: createml, path: out}").replace("split:", "labels: {from: path, template: \"{dir}\", map: {p01: a, p02: b, p03: c}}\nsplit:"))
    p = motionprep("validate", path, check=False)
    assert p.returncode == 78 and "createml" in p.stderr and "cml.yaml:" in p.stderr, p.stderr


def test_validate_fails_a_qa_value_out_of_range(work, tmp_path):
    """A `qa` value outside [0, 1] (NaN included) fails `qa.range`, naming the file, the column,
    the window and the split; the checksums are made to agree so that only the values are wrong."""
    import hashlib
    import shutil
    root, _ = work
    copy = tmp_path / "forged"
    shutil.copytree(root / "h5", copy)
    with h5py.File(copy / "train.h5", "r+") as f:
        qa = f["qa"][...]
        qa[3, 1], qa[7, 0] = 1.5, np.nan
        f["qa"][...] = qa
    data = (copy / "train.h5").read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    manifest = json.loads((copy / "manifest.json").read_text())
    for f in manifest["splits"]["train"]["files"]:
        f["sha256"], f["bytes"] = digest, len(data)
    (copy / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True))
    (copy / "SHA256SUMS").write_text("".join(f"{digest}  train.h5\n" if l.endswith("  train.h5") else l + "\n"
                                             for l in (copy / "SHA256SUMS").read_text().splitlines()))
    report = json.loads(motionprep("validate", copy, "--format", "json", check=False).stdout)
    failed = {c["id"]: [f["message"] for f in c["failures"]] for c in report["checks"] if c["status"] == "failed"}
    assert list(failed) == ["qa.range"], failed
    assert "2 value(s)" in failed["qa.range"][0] and "1.5 in column `clipped` of window 3 of split `train`" in failed["qa.range"][0]


def test_qa_refused_with_partitioned(work, tmp_path):
    root, _ = work
    path = tmp_path / "part.yaml"
    path.write_text(pipeline("{type: hdf5, path: out, partitioned: true}"))
    p = motionprep("validate", path, check=False)
    line = next(i for i, l in enumerate(path.read_text().splitlines(), 1) if l.startswith("qa:"))
    assert p.returncode == 78 and f"part.yaml:{line}:1" in p.stderr and "partitioned" in p.stderr, p.stderr
