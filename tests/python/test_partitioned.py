"""The partitioned layout (`output.partitioned: true`, docs/scale.md, "The partitioned layout"):
`--worker I/N` parts that hold their partition's data files, a `merge` that moves them instead of
rewriting them, and `run --partitions N`, which writes the same bytes on one machine. Checked
against the default layout of the same pipeline (the same windows, numpy's statistics), h5py,
webdataset-style tar reading and Hugging Face `load_dataset`."""
import hashlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import BIN, motionprep
from reference import stable_hash

BASE = """\
version: 1
name: parted
inputs:
  - type: motioncollector
    paths: ["data/**/*.csv"]
resample: {{rate_hz: 50, max_gap_s: 0.2}}
window: {{length_s: 2.56, stride_s: 1.28}}
labels: {{map: {{W: walk, T: turn}}, min_fraction: 0.8}}
features: [mean, std]
split: {{fractions: {{train: 0.5, validation: 0.25, test: 0.25}}, folds: 3}}
output: {{type: {type}, path: out{extra}}}
"""

LAYOUTS = {
    "hdf5": "",
    "shards": ", windows_per_shard: 16, compression: none",
}


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    root = tmp_path_factory.mktemp("partitioned")
    motionprep("synth", "--out", root / "data", "--subjects", 6, "--recordings", 3, "--minutes", 1, "--seed", 5)
    for kind, extra in LAYOUTS.items():
        (root / f"{kind}.yaml").write_text(BASE.format(type=kind, extra=extra))
        (root / f"{kind}-p.yaml").write_text(BASE.format(type=kind, extra=extra + ", partitioned: true"))
        motionprep("run", root / f"{kind}.yaml", "--quiet", "--out", root / f"{kind}-reference")
    return root


def tree(root: Path):
    """Every regular file under root: relative path -> bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def workers(work, kind, n, name="parts"):
    parts = []
    for i in range(n):
        out = work / f"{kind}-{name}" / f"p{i}"
        motionprep("run", work / f"{kind}-p.yaml", "--worker", f"{i}/{n}", "--out", out, "--quiet")
        parts.append(out)
    return parts


def by_window(arrays):
    """Rows sorted by (recording, start time): the same multiset whatever the storage order."""
    order = np.lexsort((arrays["start_time_s"], arrays["recording_index"]))
    return {k: v[order] for k, v in arrays.items() if k != "window"}


@pytest.mark.parametrize("kind", ["hdf5", "shards"])
def test_parts_merged_equal_one_machine_and_hold_the_default_layouts_windows(work, kind):
    parts = workers(work, kind, 3)
    for i, part in enumerate(parts):
        # A part holds its partition's finished files and no records.
        assert not (part / "records").exists()
        names = {p.name for p in (part / "train").iterdir()}
        assert names and all(n.startswith(f"part-{i:05d}-of-00003") for n in names)
        summary = json.loads((part / "part.json").read_text())["partition_summary"]
        for f in summary["files"]:
            data = (part / f["path"]).read_bytes()
            assert len(data) == f["bytes"] and hashlib.sha256(data).hexdigest() == f["sha256"]
    one = work / f"{kind}-one"
    motionprep("run", work / f"{kind}-p.yaml", "--partitions", 3, "--out", one, "--quiet")
    merged = work / f"{kind}-merged"
    p = motionprep("merge", merged, *parts)
    said = " ".join(p.stderr.split())
    assert "moved" in said and "0 copied from another filesystem" in said, said
    a, b = tree(one), tree(merged)
    assert sorted(a) == sorted(b)
    for name in a:
        assert a[name] == b[name], name
    # The parts let go of their data files: what is left is part.json and its checksum.
    for part in parts:
        assert sorted(p.name for p in part.iterdir()) == ["part.json", "part.json.sha256"]
    # Every file is listed in partition order, with its partition.
    manifest = json.loads((merged / "manifest.json").read_text())
    assert manifest["partitions"] == 3
    assert manifest["pipeline"]["resolved"]["output"]["partitioned"] is True
    for split in ("train", "validation", "test"):
        files = manifest["splits"][split]["files"]
        assert [f["partition"] for f in files] == sorted(f["partition"] for f in files)
        assert {f["partition"] for f in files} == {0, 1, 2}
        for f in files:
            assert f["path"].startswith(f"{split}/part-{f['partition']:05d}-of-00003")
    subprocess.run(["sha256sum", "--check", "--quiet", "SHA256SUMS"], cwd=merged, check=True)
    v = motionprep("validate", merged, check=False)
    assert v.returncode == 0, v.stdout + v.stderr
    r = motionprep("report", merged, "-o", work / f"{kind}-report.html", check=False)
    assert r.returncode == 0, r.stderr

    # The same windows as the default layout of the same pipeline, split by split.
    import motionprep as mp
    ref, got = mp.open_dataset(work / f"{kind}-reference"), mp.open_dataset(merged, verify=True)
    assert got.partitions == 3
    for split in ("train", "validation", "test"):
        ra, ga = by_window(ref.arrays(split)), by_window(got.arrays(split))
        assert sorted(ra) == sorted(ga)
        for k in ra:
            assert ra[k].tobytes() == ga[k].tobytes(), (split, k)
        # iter_windows gives each window once, numbered 0 … N-1 within the split.
        numbers = sorted(s["window"] for s in got.iter_windows(split))
        assert numbers == list(range(got.num_windows(split)))
    # Normalisation: numpy's mean and population std over the train windows (combined in another
    # order than the default layout's, so equal to rounding, not bit for bit).
    x = got.arrays("train")["x"].astype(np.float64).reshape(-1, len(got.channels))
    norm = manifest["normalization"]["x"]
    assert np.allclose(norm["mean"], x.mean(axis=0), rtol=1e-9, atol=1e-12)
    assert np.allclose(norm["std"], x.std(axis=0), rtol=1e-9, atol=1e-12)
    ref_norm = json.loads((work / f"{kind}-reference" / "manifest.json").read_text())["normalization"]["x"]
    assert np.allclose(norm["mean"], ref_norm["mean"], rtol=1e-9) and np.allclose(norm["std"], ref_norm["std"], rtol=1e-9)
    # Folds survive the layout.
    train, held = got.folds(0)
    assert len(train) + len(held) == got.num_windows("train")


def test_hdf5_partitions_read_with_h5py_and_hugging_face(work, tmp_path):
    h5py = pytest.importorskip("h5py")
    merged = work / "hdf5-merged"
    if not merged.exists():
        pytest.skip("needs the merge of test_parts_merged_equal_one_machine_and_hold_the_default_layouts_windows")
    manifest = json.loads((merged / "manifest.json").read_text())
    t, c = manifest["arrays"]["x"]["shape"][1:]
    total = 0
    for f in manifest["splits"]["train"]["files"]:
        with h5py.File(merged / f["path"], "r") as h:
            assert h.attrs["split"] == "train"
            assert h["x"].shape == (f["num_windows"], t, c)
            assert list(h.attrs["recording_names"]) == manifest["recordings"]
            total += h["x"].shape[0]
    assert total == manifest["splits"]["train"]["num_windows"]
    hf = pytest.importorskip("datasets")
    # Hugging Face's loaders fail on a file with no window (datasets 5.2: "range() arg 3 must not be
    # zero" for HDF5, no features inferred from an empty tar): give them the files that hold windows.
    files = [str(merged / f["path"]) for f in manifest["splits"]["train"]["files"] if f["num_windows"] > 0]
    assert len(files) >= 2
    ds = hf.load_dataset("hdf5", data_files={"train": files}, split="train", cache_dir=str(tmp_path / "hf"))
    assert len(ds) == total
    assert np.asarray(ds[0]["x"]).shape == (t, c)


def test_shard_partitions_read_with_hugging_face_webdataset(work, tmp_path):
    merged = work / "shards-merged"
    if not merged.exists():
        pytest.skip("needs the merge of test_parts_merged_equal_one_machine_and_hold_the_default_layouts_windows")
    hf = pytest.importorskip("datasets")
    manifest = json.loads((merged / "manifest.json").read_text())
    files = [str(merged / f["path"]) for f in manifest["splits"]["train"]["files"] if f["num_windows"] > 0]
    ds = hf.load_dataset("webdataset", data_files={"train": files}, split="train", cache_dir=str(tmp_path / "hf"))
    assert len(ds) == manifest["splits"]["train"]["num_windows"]
    keys = ds["__key__"]
    assert len(set(keys)) == len(keys)   # the partition is in the key: no two samples share one
    assert all(k.startswith("train-p0000") for k in keys)


def refuse(work, out, *parts, code, words):
    p = motionprep("merge", out, *parts, check=False)
    assert p.returncode == code, p.stderr
    assert words in p.stderr, p.stderr
    assert not Path(out).exists() and not Path(str(out) + ".partial").exists()


@pytest.mark.parametrize("kind", ["hdf5", "shards"])
def test_merge_refuses_a_missing_repeated_foreign_or_damaged_part_and_moves_nothing(work, kind):
    parts = workers(work, kind, 2, name="refuse")
    before = {p: tree(p) for p in parts}
    out = work / f"{kind}-refused"
    refuse(work, out, parts[0], code=66, words="worker(s) 1/2")
    refuse(work, out, parts[0], parts[0], parts[1], code=64, words="given twice")
    foreign = workers(work, kind, 3, name="foreign")
    refuse(work, out, parts[0], foreign[1], code=65, words="different pipeline or worker count")
    # A part of the default layout (same data, other pipeline hash) is another pipeline's.
    motionprep("run", work / f"{kind}.yaml", "--worker", "1/2", "--out", work / f"{kind}-plain-1", "--quiet")
    refuse(work, out, parts[0], work / f"{kind}-plain-1", code=65, words="different pipeline")
    # A data file cut short, or gone.
    data = next(p for p in sorted((parts[1] / "train").iterdir()))
    saved = data.read_bytes()
    data.write_bytes(saved[:-1])
    refuse(work, out, *parts, code=65, words="rerun worker 1/2")
    data.unlink()
    refuse(work, out, *parts, code=65, words="is missing")
    data.write_bytes(saved)
    assert {p: tree(p) for p in parts} == before
    motionprep("merge", out, *parts, "--quiet")
    assert motionprep("validate", out, check=False).returncode == 0


def plan_parts(work, yaml, n, name, root=None):
    """Worker parts of `yaml` (under `root`, default `work`), into work/NAME/pI."""
    root = root or work
    parts = []
    for i in range(n):
        out = work / name / f"p{i}"
        motionprep("run", root / yaml, "--worker", f"{i}/{n}", "--out", out, "--quiet")
        parts.append(out)
    return parts


def plan_digest(recordings):
    """docs/scale.md, "The plan's digest": SHA-256 of the compact, key-sorted JSON listing."""
    listing = [{k: r[k] for k in ("files", "name", "subject")} for r in recordings]
    text = json.dumps(listing, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def rewrite_part(part: Path, change):
    """Edits part.json and writes its new SHA-256, so the field checks (not the digest) decide."""
    o = json.loads((part / "part.json").read_text())
    change(o)
    text = json.dumps(o, indent=2) + "\n"
    (part / "part.json").write_text(text)
    (part / "part.json.sha256").write_text(hashlib.sha256(text.encode()).hexdigest() + "  part.json\n")


@pytest.mark.parametrize("yaml", ["hdf5-p.yaml", "hdf5.yaml"])
def test_each_part_lists_only_its_own_recordings_and_the_plans_digest(work, yaml):
    n = 3
    parts = plan_parts(work, yaml, n, f"own-{yaml}")
    manifest = json.loads((work / "hdf5-reference" / "manifest.json").read_text())
    jsons = [json.loads((p / "part.json").read_text()) for p in parts]
    union = []
    for i, o in enumerate(jsons):
        assert o["format_version"] == 3 and "owned" not in o
        # Only its own: every recording it lists hashes to this worker (FNV-1a-64 + splitmix64).
        assert all(stable_hash(r["name"]) % n == i for r in o["recordings"]), o["recordings"]
        assert [r["index"] for r in o["recordings"]] == sorted(r["index"] for r in o["recordings"])
        union += o["recordings"]
    # N parts list the run's recordings once in all, not N times.
    assert len(union) == len(manifest["recordings"]) == 18
    assert sorted(r["name"] for r in union) == sorted(manifest["recordings"])
    assert sorted(r["index"] for r in union) == list(range(18))
    union.sort(key=lambda r: r["index"])
    # Plan order is canonical: (subject, name) by UTF-8 bytes.
    assert union == sorted(union, key=lambda r: (r["subject"].encode(), r["name"].encode()))
    for o in jsons:
        assert o["plan"] == {"recordings": 18, "sha256": plan_digest(union)}


@pytest.mark.parametrize("yaml", ["hdf5-p.yaml", "hdf5.yaml"])
def test_merge_refuses_parts_whose_recordings_are_not_the_plan(work, tmp_path, yaml):
    parts = plan_parts(work, yaml, 2, f"notplan-{yaml}")
    before = {p: tree(p) for p in parts}
    out = tmp_path / "merged"
    # A foreign part: worker 1 of the same pipeline over one more recording.
    other = tmp_path / "other"
    (other / "data").mkdir(parents=True)
    for f in (work / "data").rglob("*"):
        if f.is_file():
            (other / f.relative_to(work)).parent.mkdir(parents=True, exist_ok=True)
            os.link(f, other / f.relative_to(work))
    extra = sorted((work / "data").rglob("*.csv"))[0]
    (other / "data" / "zz-extra").mkdir()
    (other / "data" / "zz-extra" / extra.name).write_bytes(extra.read_bytes())
    (other / yaml).write_text((work / yaml).read_text())
    foreign = plan_parts(tmp_path, yaml, 2, "foreign", root=other)
    p = motionprep("merge", out, parts[0], foreign[1], check=False)
    assert p.returncode == 65, p.stderr
    assert f"{foreign[1]} was planned over other recordings than {parts[0]}" in p.stderr
    assert "19 recording(s)" in p.stderr and "the workers found different input files" in p.stderr
    assert not out.exists() and not Path(str(out) + ".partial").exists()

    # A recording missing from its part (part.json edited, its checksum rewritten).
    copies = []
    for q in parts:
        subprocess.run(["cp", "-a", str(q), str(tmp_path / q.name)], check=True)
        copies.append(tmp_path / q.name)
    held = {i: json.loads((q / "part.json").read_text())["recordings"] for i, q in enumerate(copies)}
    lost = held[1][1]
    rewrite_part(copies[1], lambda o: o["recordings"].remove(lost))
    p = motionprep("merge", out, *copies, check=False)
    assert p.returncode == 65, p.stderr
    before_lost = {r["index"]: (i, r["name"]) for i, rs in held.items() for r in rs}[lost["index"] - 1]
    assert f"no part holds recording {lost['index']} of the run's 18" in p.stderr, p.stderr
    assert f"the one after `{before_lost[1]}`, which {copies[before_lost[0]]} holds" in p.stderr, p.stderr
    assert not out.exists()

    # A recording index held by two parts: part 1 claims one of part 0's indices.
    rewrite_part(copies[1], lambda o: o["recordings"].insert(1, lost))
    taken = next(r["index"] for r in held[0] if r["index"] < held[1][1]["index"])
    rewrite_part(copies[1], lambda o: o["recordings"][0].update(index=taken))
    p = motionprep("merge", out, *copies, check=False)
    assert p.returncode == 65, p.stderr
    assert f"(index {taken} of the plan) is held by two parts, {copies[0]} and {copies[1]}" in p.stderr, p.stderr
    assert not out.exists()

    # Put back, the same copies merge, and the originals were never touched.
    rewrite_part(copies[1], lambda o: o["recordings"][0].update(index=held[1][0]["index"]))
    assert {p: tree(p) for p in parts} == before
    motionprep("merge", out, *copies, "--quiet")
    assert motionprep("validate", out, check=False).returncode == 0


def test_a_merge_killed_before_commit_leaves_the_parts_whole_and_a_rerun_completes(work):
    parts = workers(work, "hdf5", 2, name="killed")
    before = {p: tree(p) for p in parts}
    out = work / "hdf5-killed-out"
    env = dict(os.environ, MOTIONPREP_TEST_PAUSE_AT="before-commit")
    proc = subprocess.Popen([BIN, "merge", str(out), *map(str, parts)], env=env, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    line = ""
    while time.time() < deadline and "paused at before-commit" not in line:
        line = proc.stderr.readline()
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert Path(str(out) + ".partial").is_dir() and not out.exists()
    assert {p: tree(p) for p in parts} == before   # linked, not yet taken away
    motionprep("merge", out, *parts, "--quiet")
    one = work / "hdf5-killed-one"
    motionprep("run", work / "hdf5-p.yaml", "--partitions", 2, "--out", one, "--quiet")
    assert tree(out) == tree(one)


def test_partitions_option_needs_the_layout_and_no_worker(work):
    p = motionprep("run", work / "hdf5.yaml", "--partitions", 2, "--out", work / "nope", check=False)
    assert p.returncode == 64 and "output.partitioned: true" in p.stderr
    p = motionprep("run", work / "hdf5-p.yaml", "--partitions", 2, "--worker", "0/2", "--out", work / "nope", check=False)
    assert p.returncode == 64 and "do not go together" in p.stderr


def other_filesystem(path: Path):
    """A writable folder on another filesystem than `path` (/dev/shm, a tmpfs), or None."""
    shm = Path("/dev/shm")
    if not shm.is_dir() or not os.access(shm, os.W_OK) or os.stat(shm).st_dev == os.stat(path).st_dev:
        return None
    return shm


def test_parts_on_another_filesystem_are_copied_checked_and_give_the_same_bytes(work, tmp_path):
    shm = other_filesystem(work)
    if shm is None:
        pytest.skip("no writable folder on another filesystem than the test's (/dev/shm)")
    import tempfile
    with tempfile.TemporaryDirectory(dir=shm) as far:
        parts = []
        for i in range(2):
            out = Path(far) / f"p{i}"
            motionprep("run", work / "shards-p.yaml", "--worker", f"{i}/2", "--out", out, "--quiet")
            parts.append(out)
        # A byte changed in place (size kept): a link would pass it on (validate finds it), a copy
        # hashes what it copies and refuses it, leaving nothing behind.
        data = max((parts[0] / "train").iterdir(), key=lambda p: p.stat().st_size)
        saved = data.read_bytes()
        data.write_bytes(saved[:600] + bytes([saved[600] ^ 1]) + saved[601:])
        refuse(work, tmp_path / "copied", *parts, code=65, words="changed since the worker wrote it")
        data.write_bytes(saved)
        p = motionprep("merge", tmp_path / "copied", *parts)
        said = " ".join(p.stderr.split())   # long lines are wrapped on stderr
        assert "(0 linked, 42 copied from another filesystem)" in said or ("0 linked," in said and "copied from another filesystem" in said), said
        for part in parts:
            assert sorted(q.name for q in part.iterdir()) == ["part.json", "part.json.sha256"]
    one = tmp_path / "one"
    motionprep("run", work / "shards-p.yaml", "--partitions", 2, "--out", one, "--quiet")
    assert tree(tmp_path / "copied") == tree(one)
    # No temporary copy is left in the dataset.
    assert not [p for p in (tmp_path / "copied").rglob("*.tmp")]
