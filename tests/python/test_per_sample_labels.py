"""`labels.per_sample: true` (issue #27 point 5): each window also gets `y_seq`, the class of each of
its T grid points (−1 where a point has no label or a label outside `classes`), beside `y`
(docs/pipeline.md, "labels"; docs/dataset-format.md).

The data are csv recordings written here at exactly 50 Hz (one with a gap), labelled by an
intervals file whose boundaries fall half a sample between grid points, so each point's label is
known without rounding doubt. `y_seq` is checked against an independent numpy lookup of each
window's point times (`start_time_s + j / rate`) in the intervals, in HDF5 (h5py) and in shards
(tarfile + numpy); `y` against the majority rule applied to `y_seq`; `--jobs 1/2`, `--worker` +
`merge` and `--partitions` give the bytes of one run; `validate` passes, and fails a forged `y_seq`
(out of range, inconsistent with `y`, wrong shape) naming the file, the split and the window; the
Python package, `apply` and the pipeline checks."""
import hashlib
import io
import json
import shutil
import tarfile
from pathlib import Path

import h5py
import numpy as np
import pytest
import zstandard

from conftest import motionprep
from test_provenance import killed_before_manifest

RATE = 50.0
T = 50
CLASSES = ["walk", "run"]
SUBJECTS = ["p01", "p02", "p03", "p04"]

PIPELINE = """\
version: 1
name: per-sample
inputs:
  - type: csv
    paths: ["data/*/*.csv"]
    time: {{column: t, unit: s}}
    sensor: imu
    channels: {{acc_x: ax, acc_y: ay, acc_z: az}}
resample: {{rate_hz: 50, max_gap_s: 0.1, antialias: false}}
window: {{length_samples: 50, stride_samples: 25}}
labels: {{from: intervals, path: intervals.csv, policy: {policy}, {extra}map: {{W: walk, R: run}}, classes: [walk, run]{per_sample}}}
split: {{seed: 3, assign: {{train: [p01, p02], validation: [p03], test: [p04]}}}}
output: {output}
"""


def pipeline(output, policy="majority", per_sample=True, extra="min_fraction: 0.6, "):
    return PIPELINE.format(output=output, policy=policy, extra=extra if policy == "majority" else "",
                           per_sample=", per_sample: true" if per_sample else "")


def make_data(root: Path):
    """8 recordings of 40 s (one with a 1 s gap) and an intervals file: walk (W), run (R), sit
    (not a class) and unlabelled stretches, boundaries half a sample off the grid."""
    rng = np.random.default_rng(5)
    rows = ["recording,start_s,end_s,label"]
    intervals = {}
    for s, subject in enumerate(SUBJECTS):
        for r in range(2):
            name = f"{subject}/r{r}"
            t0 = 1000.0 + 100 * s + 10 * r
            n = 2000
            t = t0 + np.arange(n) / RATE
            if (s, r) == (1, 0):
                t = np.concatenate([t[:700], t[750:]])      # a 1 s gap: two segments
            x = rng.normal(size=(len(t), 3)).astype(np.float32)
            folder = root / "data" / subject
            folder.mkdir(parents=True, exist_ok=True)
            lines = ["t,ax,ay,az"] + [f"{ti!r},{a!r},{b!r},{c!r}" for ti, (a, b, c) in zip(t.tolist(), x.tolist())]
            (folder / f"r{r}.csv").write_text("\n".join(lines) + "\n")
            # Intervals: random lengths of 10..120 samples, labels W, R, S or none.
            k, mine = 3, []
            while k < n:
                length = int(rng.integers(10, 120))
                label = ["W", "R", "S", None][int(rng.integers(0, 4))]
                if label is not None:
                    start, end = t0 + (k - 0.5) / RATE, t0 + (k + length - 0.5) / RATE
                    rows.append(f"{name},{start!r},{end!r},{label}")
                    mine.append((start, end, label))
                k += length
            intervals[name] = mine
    (root / "intervals.csv").write_text("\n".join(rows) + "\n")
    return intervals


def expected_y_seq(intervals, recording, start):
    """Each point's class id from the intervals file, by numpy: the interval holding the point's
    time t = start + j / rate (start inclusive, end exclusive), renamed W → walk, R → run, looked up
    in the classes; −1 for no interval and for `S` (not a class)."""
    times = start + np.arange(T) / RATE
    out = np.full(T, -1, np.int64)
    ids = {"W": 0, "R": 1}
    for lo, hi, label in intervals[recording]:
        inside = (times >= lo) & (times < hi)
        out[inside] = ids.get(label, -1)
    return out


def majority(seq, min_fraction):
    """The majority policy from `y_seq` alone: the class with the most points, a tie to the one
    seen first; None when no class reaches min_fraction of T."""
    best = None
    for c in range(len(CLASSES)):
        n = int((seq == c).sum())
        if n == 0:
            continue
        first = int(np.argmax(seq == c))
        if best is None or n > best[1] or (n == best[1] and first < best[2]):
            best = (c, n, first)
    if best is None or best[1] / T < min_fraction:
        return None
    return best[0]


def tree(root: Path):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def shard_samples(root: Path, split: str):
    """{window number: (y, y_seq, json)} from a split's shards, with tarfile and numpy."""
    out = {}
    for path in sorted((root / split).glob("*.tar*")):
        data = path.read_bytes()
        if path.name.endswith(".zst"):
            data = zstandard.ZstdDecompressor().decompress(data)
        members = {}
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            names = tar.getnames()
            for m in tar.getmembers():
                members[m.name] = tar.extractfile(m).read()
        keys = []
        for name in names:
            key = name.split(".", 1)[0]
            if key not in keys:
                keys.append(key)
        for key in keys:
            # The members, in the documented order.
            assert [n for n in names if n.split(".", 1)[0] == key] == [
                f"{key}.x.npy", f"{key}.y.cls", f"{key}.y_seq.npy", f"{key}.json"]
            seq = np.load(io.BytesIO(members[f"{key}.y_seq.npy"]), allow_pickle=False)
            assert seq.dtype == np.dtype("<i8") and seq.shape == (T,)
            out[int(key.rsplit("-", 1)[1])] = (int(members[f"{key}.y.cls"]), seq, json.loads(members[f"{key}.json"]))
    return out


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    root = tmp_path_factory.mktemp("per-sample")
    intervals = make_data(root)
    (root / "h5.yaml").write_text(pipeline("{type: hdf5, path: h5}"))
    (root / "shards.yaml").write_text(pipeline("{type: shards, path: shards, windows_per_shard: 64}"))
    (root / "plain.yaml").write_text(pipeline("{type: hdf5, path: plain}", per_sample=False))
    (root / "h5p.yaml").write_text(pipeline("{type: hdf5, path: h5p, partitioned: true}"))
    motionprep("run", root / "h5.yaml", "--jobs", 2, "--quiet")
    motionprep("run", root / "shards.yaml", "--jobs", 2, "--quiet")
    motionprep("run", root / "plain.yaml", "--quiet")
    return root, intervals


def test_y_seq_in_hdf5_is_each_points_class_from_the_intervals(work):
    root, intervals = work
    manifest = json.loads((root / "h5/manifest.json").read_text())
    assert manifest["arrays"]["y_seq"] == {"dtype": "int64", "shape": [None, T]}
    assert manifest["pipeline"]["resolved"]["labels"]["per_sample"] is True
    recordings = manifest["recordings"]
    seen_unlabelled = seen_mixed = 0
    total = 0
    for split in ("train", "validation", "test"):
        with h5py.File(root / "h5" / f"{split}.h5") as f:
            ys, y = f["y_seq"], f["y"][...]
            assert ys.dtype == np.int64 and ys.shape == (len(y), T)
            # Stored like `y`: chunked, shuffle + deflate + Fletcher-32.
            assert ys.chunks is not None and ys.compression == "gzip" and ys.shuffle and ys.fletcher32
            seqs = ys[...]
            starts, rec = f["start_time_s"][...], f["recording_index"][...]
        for i in range(len(y)):
            expected = expected_y_seq(intervals, recordings[rec[i]], starts[i])
            np.testing.assert_array_equal(seqs[i], expected, err_msg=f"{split} window {i}")
            assert majority(seqs[i], 0.6) == y[i], f"{split} window {i}: y {y[i]} but y_seq {seqs[i]}"
            seen_unlabelled += int((seqs[i] == -1).any())
            seen_mixed += int(len(set(seqs[i].tolist())) > 1)
        total += len(y)
    assert total > 100 and seen_unlabelled > 0 and seen_mixed > 0


def test_y_and_x_are_as_without_per_sample(work):
    """per_sample adds `y_seq` and nothing else: the other arrays are the same windows."""
    root, _ = work
    for split in ("train", "validation", "test"):
        with h5py.File(root / "h5" / f"{split}.h5") as a, h5py.File(root / "plain" / f"{split}.h5") as b:
            assert sorted(set(a.keys()) - set(b.keys())) == ["y_seq"]
            for name in b.keys():
                np.testing.assert_array_equal(a[name][...], b[name][...])
    plain = json.loads((root / "plain/manifest.json").read_text())
    assert "per_sample" not in plain["pipeline"]["resolved"]["labels"] and "y_seq" not in plain["arrays"]


def test_shards_hold_y_seq_npy_equal_to_the_hdf5_rows(work):
    root, _ = work
    for split in ("train", "validation", "test"):
        samples = shard_samples(root / "shards", split)
        with h5py.File(root / "h5" / f"{split}.h5") as f:
            seqs, y = f["y_seq"][...], f["y"][...]
        assert sorted(samples) == list(range(len(y)))
        for w, (cls, seq, meta) in samples.items():
            assert cls == y[w] and meta["label"] == CLASSES[cls]
            np.testing.assert_array_equal(seq, seqs[w])


def test_inspect_and_report_read_a_dataset_with_y_seq(work, tmp_path):
    root, _ = work
    for name in ("h5", "shards"):
        motionprep("inspect", root / name)
        motionprep("report", root / name, "-o", tmp_path / f"{name}.html")
    shard = sorted((root / "shards/train").glob("*.tar.zst"))[0]
    assert "y_seq" in motionprep("inspect", shard).stdout


def test_validate_passes_and_the_check_is_reported(work):
    root, _ = work
    for name in ("h5", "shards"):
        report = json.loads(motionprep("validate", root / name, "--format", "json").stdout)
        status = {c["id"]: c["status"] for c in report["checks"]}
        assert status["labels.per_sample"] == "passed"
    plain = json.loads(motionprep("validate", root / "plain", "--format", "json").stdout)
    assert "labels.per_sample" not in {c["id"] for c in plain["checks"]}


def test_jobs_workers_merge_and_partitions_give_the_same_bytes(work):
    root, _ = work
    for name in ("h5", "shards"):
        one = root / f"{name}-j1"
        motionprep("run", root / f"{name}.yaml", "--jobs", 1, "--out", one, "--quiet")
        assert tree(one) == tree(root / name)
        parts = []
        for i in range(2):
            part = root / f"{name}-w{i}"
            motionprep("run", root / f"{name}.yaml", "--worker", f"{i}/2", "--out", part, "--quiet")
            parts.append(part)
        merged = root / f"{name}-merged"
        motionprep("merge", merged, *parts, "--quiet")
        assert tree(merged) == tree(root / name)
    # The partitioned layout: two workers merged give what `--partitions 2` gives, y_seq and all.
    parts = []
    for i in range(2):
        part = root / f"h5p-w{i}"
        motionprep("run", root / "h5p.yaml", "--worker", f"{i}/2", "--out", part, "--quiet")
        parts.append(part)
    motionprep("merge", root / "h5p-merged", *parts, "--quiet")
    motionprep("run", root / "h5p.yaml", "--partitions", 2, "--out", root / "h5p-one", "--quiet")
    assert tree(root / "h5p-merged") == tree(root / "h5p-one")
    motionprep("validate", root / "h5p-one")
    with h5py.File(root / "h5/train.h5") as f:
        whole = f["y_seq"][...]
    files = sorted((root / "h5p-one/train").glob("part-*.h5"))
    parted = np.concatenate([h5py.File(p)["y_seq"][...] for p in files])
    assert sorted(map(bytes, parted)) == sorted(map(bytes, whole))


def test_resume_keeps_y_seq(work):
    """A run killed once every record is written (before its manifest) is finished by `--resume`
    from the records, which carry `y_seq` (record format 5, now 6): the bytes of one run."""
    root, _ = work
    out = root / "h5-resumed"
    records = killed_before_manifest(work, root / "h5.yaml", out)
    assert len(records) == 8 and all(r.read_bytes().startswith(b"MPREC6\n\0") for r in records)
    p = motionprep("run", root / "h5.yaml", "--out", out, "--resume", "--json")
    assert json.loads(p.stdout)["resumed_recordings"] == 8, p.stderr
    assert tree(out) == tree(root / "h5")


def test_python_package_reads_y_seq(work):
    motionprep_py = pytest.importorskip("motionprep")
    root, _ = work
    for name in ("h5", "shards"):
        ds = motionprep_py.open_dataset(root / name)
        assert ds.has_y_seq
        a = ds.arrays("train")
        with h5py.File(root / "h5/train.h5") as f:
            np.testing.assert_array_equal(a["y_seq"], f["y_seq"][...])
        for s in ds.iter_windows("validation"):
            assert s["y_seq"].shape == (T,) and s["y_seq"].dtype == np.int64
        ds.verify()                                    # checksums and C1, C2, C4-C6 with y_seq in the files
    torch = pytest.importorskip("torch")
    ds = motionprep_py.open_dataset(root / "h5")
    x, y = ds.torch_dataset("train", y_seq=True)[0]
    assert y.dtype == torch.int64 and tuple(y.shape) == (T,)
    np.testing.assert_array_equal(y.numpy(), ds.arrays("train")["y_seq"][0])
    with pytest.raises(ValueError, match="y_seq"):
        motionprep_py.open_dataset(root / "plain").torch_dataset("train", y_seq=True)


# ----- validate on forged datasets


def fix_checksums(root, name):
    data = (root / name).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    manifest = json.loads((root / "manifest.json").read_text())
    for split in manifest["splits"].values():
        for f in split["files"]:
            if f["path"] == name:
                f["sha256"], f["bytes"] = digest, len(data)
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True))
    lines = [f"{digest}  {name}" if line.endswith("  " + name) else line
             for line in (root / "SHA256SUMS").read_text().splitlines()]
    (root / "SHA256SUMS").write_text("\n".join(lines) + "\n")


def failed(root):
    report = json.loads(motionprep("validate", root, "--format", "json", check=False).stdout)
    return {c["id"]: [f["message"] for f in c["failures"]] for c in report["checks"] if c["status"] == "failed"}


def forge_h5(work, tmp_path, edit):
    root, _ = work
    copy = tmp_path / "forged"
    shutil.copytree(root / "h5", copy)
    with h5py.File(copy / "train.h5", "r+") as f:
        edit(f)
    fix_checksums(copy, "train.h5")
    return copy


def test_validate_fails_a_y_seq_value_out_of_range(work, tmp_path):
    def edit(f):
        s = f["y_seq"][3]
        s[7] = 5
        f["y_seq"][3] = s
    bad = failed(forge_h5(work, tmp_path, edit))
    assert list(bad) == ["labels.per_sample"], bad
    [message] = bad["labels.per_sample"]
    assert "`y_seq` holds 1 invalid value(s)" in message and "first: 5 at window 3 of split `train`, time step 7" in message


def test_validate_fails_a_y_seq_inconsistent_with_y(work, tmp_path):
    def edit(f):
        y = int(f["y"][4])
        f["y_seq"][4] = np.full(T, 1 - y, np.int64)     # every point the other class
    bad = failed(forge_h5(work, tmp_path, edit))
    assert list(bad) == ["labels.per_sample"], bad
    [message] = bad["labels.per_sample"]
    assert message.startswith("window 4 of split `train`: `y` is ") and "rule C8" in message


def test_python_verify_checks_rule_c8(work, tmp_path):
    motionprep_py = pytest.importorskip("motionprep")

    def edit(f):
        y = int(f["y"][4])
        f["y_seq"][4] = np.full(T, 1 - y, np.int64)
    copy = forge_h5(work, tmp_path, edit)
    with pytest.raises(motionprep_py.ConsistencyError, match=r"train\.h5: rule C8 .*window 4: `y` is \d, but `policy: majority`"):
        motionprep_py.open_dataset(copy, verify=True)


def test_validate_fails_a_y_seq_of_the_wrong_shape(work, tmp_path):
    def edit(f):
        old = f["y_seq"][...]
        del f["y_seq"]
        f.create_dataset("y_seq", data=old[:, :-1], chunks=True, maxshape=(None, T - 1), shuffle=True,
                         compression=4, fletcher32=True, track_times=False)
    bad = failed(forge_h5(work, tmp_path, edit))
    assert "arrays.shape" in bad and any("`y_seq` has shape" in m for m in bad["arrays.shape"]), bad


def test_validate_fails_a_forged_y_seq_npy_in_a_shard(work, tmp_path):
    root, _ = work
    copy = tmp_path / "forged-shards"
    shutil.copytree(root / "shards", copy)
    path = sorted((copy / "train").glob("*.tar.zst"))[0]
    data = zstandard.ZstdDecompressor().decompress(path.read_bytes())
    out = io.BytesIO()
    forged_key = None
    with tarfile.open(fileobj=io.BytesIO(data)) as src, tarfile.open(fileobj=out, mode="w", format=tarfile.USTAR_FORMAT) as dst:
        for m in src.getmembers():
            content = src.extractfile(m).read()
            if forged_key is None and m.name.endswith(".y_seq.npy"):
                forged_key = m.name.split(".", 1)[0]
                seq = np.load(io.BytesIO(content))
                seq[:] = 9
                buf = io.BytesIO()
                np.save(buf, seq)
                content = buf.getvalue()
                m.size = len(content)
            dst.addfile(m, io.BytesIO(content))
    path.write_bytes(zstandard.ZstdCompressor(write_checksum=True, write_content_size=True).compress(out.getvalue()))
    fix_checksums(copy, path.relative_to(copy).as_posix())
    bad = failed(copy)
    assert "labels.per_sample" in bad, bad
    number = int(forged_key.rsplit("-", 1)[1])
    assert any(f"first: 9 at window {number} (sample `{forged_key}`) of split `train`, time step 0" in m
               for m in bad["labels.per_sample"]), bad


# ----- apply


def test_apply_writes_y_seq(work, tmp_path):
    """`apply` reads no intervals file (it is the dataset's recordings'): every window's `y` and
    every point of its `y_seq` are −1, and the output validates."""
    root, _ = work
    out = tmp_path / "applied"
    motionprep("apply", root / "h5", root / "data/p01/r0.csv", "--out", out, "--quiet")
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["arrays"]["y_seq"] == {"dtype": "int64", "shape": [None, T]}
    with h5py.File(out / "windows.h5") as f:
        assert f["y_seq"].shape == (len(f["y"]), T)
        assert (f["y_seq"][...] == -1).all() and (f["y"][...] == -1).all()
    motionprep("validate", out)


# ----- pipeline checks


@pytest.mark.parametrize("policy", ["center", "pure"])
def test_other_policies_agree_with_y_seq(work, tmp_path, policy):
    root, intervals = work
    (root / f"{policy}.yaml").write_text(pipeline(f"{{type: hdf5, path: {policy}}}", policy=policy))
    motionprep("run", root / f"{policy}.yaml", "--quiet")
    with h5py.File(root / policy / "train.h5") as f:
        seqs, y = f["y_seq"][...], f["y"][...]
    assert len(y) > 0
    for s, c in zip(seqs, y):
        if policy == "center":
            assert s[T // 2] == c
        else:
            assert (s == c).all()
    motionprep("validate", root / policy)


def test_per_sample_must_be_a_boolean_and_is_refused_with_createml(work, tmp_path):
    root, _ = work
    (root / "bad.yaml").write_text(pipeline("{type: hdf5, path: bad}").replace("per_sample: true", "per_sample: 3"))
    p = motionprep("validate", root / "bad.yaml", check=False)
    assert p.returncode == 78 and "bad.yaml:11:" in p.stderr and "labels.per_sample" in p.stderr, p.stderr
    (root / "cml.yaml").write_text(pipeline("{type: createml, path: cml}"))
    p = motionprep("run", root / "cml.yaml", check=False)
    assert p.returncode == 78 and "`labels.per_sample: true`" in p.stderr and "createml" in p.stderr, p.stderr
