"""Runs the same pipeline with `output: {type: shards}` (zstd and plain tar) and `{type: hdf5}` and
reads the shards back with webdataset, Hugging Face datasets, numpy + zstandard + tarfile, the zstd
CLI and tar (docs/dataset-format.md, "Shards"): one WebDataset sample per window, every window
exactly once with the HDF5 bytes, shuffled across shards deterministically.

The PyTorch DataLoader over shards (workers sharing the shards out) is tested with the motionprep
Python package, in test_python_package.py."""
import hashlib
import io
import json
import os
import shutil
import signal
import subprocess
import tarfile
import time

import h5py
import numpy as np
import pytest

import motionprep as mpkg  # the Python package (python/); `motionprep` below runs the binary

from conftest import BIN, motionprep

PER_SHARD = 50
SPLITS = ("train", "validation", "test")

PIPELINE = """\
version: 1
name: shards-interop
inputs:
  - type: motioncollector
    paths: ["data/**/*.csv"]
resample: {{rate_hz: 50, max_gap_s: 0.2, antialias: false}}
window: {{length_samples: 128, stride_samples: 64}}
labels: {{from: rows, policy: majority, min_fraction: 0.8, map: {{W: walk, T: turn}}, classes: [walk, turn]}}
features: [mean, std, max]
split: {{seed: 42, fractions: {{train: 0.5, validation: 0.25, test: 0.25}}, folds: 3}}
output: {output}
"""


@pytest.fixture(scope="module")
def datasets(walk_data):
    (walk_data / "shards.yaml").write_text(PIPELINE.format(output=f"{{type: shards, path: out-shards, windows_per_shard: {PER_SHARD}}}"))
    (walk_data / "shards-tar.yaml").write_text(PIPELINE.format(
        output=f"{{type: shards, path: out-shards-tar, windows_per_shard: {PER_SHARD}, compression: none}}"))
    (walk_data / "shards-h5.yaml").write_text(PIPELINE.format(output="{type: hdf5, path: out-shards-h5}"))
    for name in ("shards", "shards-tar", "shards-h5"):
        motionprep("run", walk_data / f"{name}.yaml", "--jobs", 2, "--quiet")
    return walk_data / "out-shards", walk_data / "out-shards-h5", walk_data / "out-shards-tar"


def shard_paths(root, split):
    return mpkg.open_dataset(root).files(split)


def shard_files(root):
    return [p for split in SPLITS for p in shard_paths(root, split)]


def urls(root, split):
    return [f"pipe:zstd -dc < {p}" if p.name.endswith(".zst") else str(p) for p in shard_paths(root, split)]


def hdf5(h5root, split):
    with h5py.File(h5root / f"{split}.h5", "r") as f:
        return {k: f[k][...] for k in f}


def test_layout_manifest_and_checksums(datasets):
    root, _, tar_root = datasets
    for r, ext in ((root, ".tar.zst"), (tar_root, ".tar")):
        manifest = json.loads((r / "manifest.json").read_text())
        assert manifest["storage"] == "shards" and manifest["format_version"] == 2
        resolved = manifest["pipeline"]["resolved"]
        assert resolved["output"]["compression"] == ("zstd" if ext == ".tar.zst" else "none")
        assert resolved["output"]["windows_per_shard"] == PER_SHARD and resolved["split"]["seed"] == 42
        on_disk = sorted(str(p.relative_to(r)) for p in r.rglob("*") if p.is_file())
        listed = [f["path"] for s in SPLITS for f in manifest["splits"][s]["files"]]
        assert on_disk == sorted(listed + ["SHA256SUMS", "manifest.json"])
        subprocess.run(["sha256sum", "--quiet", "-c", "SHA256SUMS"], cwd=r, check=True)
        for split in SPLITS:
            files = manifest["splits"][split]["files"]
            assert [f["path"] for f in files] == [f"{split}/{split}-{i:05d}{ext}" for i in range(len(files))]
            counts = [f["num_windows"] for f in files]
            assert all(n == PER_SHARD for n in counts[:-1]) and 0 < counts[-1] <= PER_SHARD
            assert sum(counts) == manifest["splits"][split]["num_windows"]
    # The plain tars are the zstd shards decompressed.
    zstandard = pytest.importorskip("zstandard")
    for p in shard_files(root):
        plain = tar_root / p.relative_to(root).with_suffix("")
        assert zstandard.ZstdDecompressor().decompress(p.read_bytes()) == plain.read_bytes()


def test_hdf5_manifest_is_version_2_with_the_resolved_pipeline(datasets):
    _, h5root, _ = datasets
    manifest = json.loads((h5root / "manifest.json").read_text())
    assert manifest["format_version"] == 2
    resolved = manifest["pipeline"]["resolved"]
    assert resolved["output"]["type"] == "hdf5" and resolved["resample"]["rate_hz"] == 50.0
    # The hash is the SHA-256 of this object as compact sorted-key JSON.
    text = json.dumps(resolved, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert hashlib.sha256(text.encode()).hexdigest() == manifest["pipeline"]["sha256"]


@pytest.mark.parametrize("which", ["zstd", "tar"])
def test_webdataset_gives_every_window_once_equal_to_hdf5(datasets, which):
    wds = pytest.importorskip("webdataset")
    root, h5root, tar_root = datasets
    r = root if which == "zstd" else tar_root
    manifest = json.loads((r / "manifest.json").read_text())
    for split in SPLITS:
        # The recipe of docs/dataset-format.md, as is.
        pairs = list(wds.WebDataset(urls(r, split), shardshuffle=False).decode().to_tuple("x.npy", "y.cls"))
        got = list(wds.WebDataset(urls(r, split), shardshuffle=False).decode()
                   .to_tuple("__key__", "x.npy", "y.cls", "features.npy", "json"))
        ref = hdf5(h5root, split)
        n = len(ref["y"])
        assert len(pairs) == len(got) == n
        assert [int(p[1]) for p in pairs] == [int(g[2]) for g in got]
        keys = [g[0] for g in got]
        numbers = [int(k.split("-")[1]) for k in keys]
        assert all(k == f"{split}-{i:09d}" for k, i in zip(keys, numbers))
        assert sorted(numbers) == list(range(n))               # every window exactly once
        order = np.argsort(numbers)
        x = np.stack([got[i][1] for i in order])
        assert x.dtype == np.float32 and x.shape == ref["x"].shape
        assert x.tobytes() == ref["x"].tobytes()
        assert np.stack([got[i][3] for i in order]).tobytes() == ref["features"].tobytes()
        assert [got[i][2] for i in order] == ref["y"].tolist()
        metas = [got[i][4] for i in order]
        classes = manifest["classes"]
        for m, y, s, rec, t, fold in zip(metas, ref["y"], ref["subject_index"], ref["recording_index"],
                                         ref["start_time_s"], ref["fold_index"]):
            assert list(m) == sorted(m)
            assert m == {"subject": manifest["subjects"][s], "recording": manifest["recordings"][rec],
                         "start_time_s": float(t), "label": classes[y] if y >= 0 else None, "fold_index": int(fold)}
        if split != "train":
            assert all(m["fold_index"] == -1 for m in metas)


def test_huggingface_datasets_one_row_per_window(datasets, tmp_path):
    try:
        import datasets as hf
    except ImportError as e:
        pytest.skip(f"Hugging Face `datasets` is not installed ({e}); `make venv` installs it")
    _, h5root, tar_root = datasets
    files = [str(p) for p in shard_paths(tar_root, "validation")]
    ds = hf.load_dataset("webdataset", data_files={"validation": files}, split="validation", cache_dir=str(tmp_path / "hf"))
    ref = hdf5(h5root, "validation")
    assert len(ds) == len(ref["y"])
    row = ds[0]
    assert {"__key__", "x.npy", "y.cls", "features.npy", "json"} <= set(row)
    assert np.asarray(row["x.npy"]).shape == (128, 18)


def test_one_zstd_frame_with_content_size_and_checksum(datasets):
    root, _, _ = datasets
    zstandard = pytest.importorskip("zstandard")
    for path in shard_files(root):
        subprocess.run(["zstd", "-q", "-t", str(path)], check=True)
        data = path.read_bytes()
        params = zstandard.get_frame_parameters(data)
        assert params.has_checksum
        assert params.content_size != zstandard.CONTENTSIZE_UNKNOWN
        raw = zstandard.ZstdDecompressor().decompress(data)
        assert len(raw) == params.content_size
        assert len(data) == _frame_length(data)


def _frame_length(data):
    """Length of the first zstd frame, walking its block headers (RFC 8878)."""
    fhd = data[4]
    single = fhd & 0x20
    fcs = [1 if single else 0, 2, 4, 8][fhd >> 6]
    i = 5 + (0 if single else 1) + [0, 1, 2, 4][fhd & 3] + fcs
    while True:
        bh = int.from_bytes(data[i:i + 3], "little")
        last, kind, size = bh & 1, (bh >> 1) & 3, bh >> 3
        i += 3 + (1 if kind == 1 else size)
        if last:
            break
    return i + (4 if fhd & 0x04 else 0)


def test_tar_members_per_window_with_clean_headers(datasets):
    _, _, tar_root = datasets
    for path in shard_files(tar_root):
        raw = path.read_bytes()
        assert len(raw) % 512 == 0 and raw[-1024:] == bytes(1024)
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as tar:
            members = tar.getmembers()
        assert len(members) % 4 == 0
        for i in range(0, len(members), 4):
            key = members[i].name.split(".")[0]
            assert [m.name for m in members[i:i + 4]] == [f"{key}.x.npy", f"{key}.y.cls", f"{key}.features.npy", f"{key}.json"]
        for m in members:
            assert m.isreg() and m.mode == 0o644 and m.uid == 0 and m.gid == 0 and m.mtime == 0
            assert m.uname == "root" and m.gname == "root"
            if m.name.endswith(".npy"):
                blob = raw[m.offset_data:m.offset_data + m.size]
                header_len = int.from_bytes(blob[8:10], "little")
                assert blob[:8] == b"\x93NUMPY\x01\x00" and (10 + header_len) % 64 == 0


def test_zstd_dc_tar_x_and_the_example(datasets, tmp_path):
    root, h5root, _ = datasets
    path = shard_paths(root, "train")[-1]
    subprocess.run(f"zstd -dc '{path}' | tar x", shell=True, check=True, cwd=tmp_path)
    keys = sorted(p.name.split(".")[0] for p in tmp_path.glob("*.json"))
    assert len(list(tmp_path.iterdir())) == 4 * len(keys) > 0
    for k in keys[:3]:
        x = np.load(tmp_path / f"{k}.x.npy", allow_pickle=False)
        assert x.shape == (128, 18) and x.dtype.str == "<f4" and x.flags.c_contiguous
        assert np.load(tmp_path / f"{k}.features.npy").shape == (54,)
        int((tmp_path / f"{k}.y.cls").read_text())
    # The motionprep package gathers the shards in the canonical order.
    a = mpkg.open_dataset(root).arrays("test")
    ref = hdf5(h5root, "test")
    assert a["x"].tobytes() == ref["x"].tobytes() and a["y"].tolist() == ref["y"].tolist()


def test_windows_are_shuffled_across_shards(datasets):
    root, _, _ = datasets
    windows = list(mpkg.open_dataset(root).iter_windows("train"))
    metas = [w["meta"] for w in windows]
    keys = [w["key"] for w in windows]
    assert keys != sorted(keys)
    same = sum(a["recording"] == b["recording"] for a, b in zip(metas, metas[1:]))
    # In canonical order nearly all neighbours share a recording; shuffled, about Σ p_r² do.
    recordings = [m["recording"] for m in metas]
    random_share = sum((recordings.count(r) / len(recordings)) ** 2 for r in set(recordings))
    assert len(set(recordings)) >= 2 and random_share < 0.6
    assert same < (random_share + 0.15) * (len(metas) - 1), f"{same} of {len(metas) - 1} neighbours from one recording"
    # The first shard draws from the whole split, not from its first recordings.
    assert {m["recording"] for m in metas[:PER_SHARD]} == set(recordings)


def test_same_bytes_for_any_jobs(walk_data, datasets):
    root, _, _ = datasets
    motionprep("run", walk_data / "shards.yaml", "--jobs", 1, "--quiet", "--out", walk_data / "out-shards-j1")
    _same_tree(root, walk_data / "out-shards-j1")


def test_same_bytes_after_worker_parts_and_merge(walk_data, datasets):
    root, _, _ = datasets
    parts = []
    for i in range(2):
        part = walk_data / f"shards-part{i}"
        motionprep("run", walk_data / "shards.yaml", "--quiet", "--worker", f"{i}/2", "--out", part)
        parts.append(part)
    motionprep("merge", walk_data / "out-shards-merged", *parts, "--quiet", "--jobs", 2)
    _same_tree(root, walk_data / "out-shards-merged")


def test_same_bytes_after_kill_and_resume(walk_data, datasets, tmp_path):
    root, _, _ = datasets
    out = tmp_path / "out"
    errf = open(tmp_path / "stderr", "w+")
    proc = subprocess.Popen([BIN, "run", walk_data / "shards.yaml", "--quiet", "--jobs", "2", "--out", out],
                            stdout=subprocess.DEVNULL, stderr=errf,
                            env={**os.environ, "MOTIONPREP_TEST_PAUSE_AT": "before-manifest"})
    deadline = time.monotonic() + 60
    while "paused at" not in (tmp_path / "stderr").read_text() and time.monotonic() < deadline:
        assert proc.poll() is None, (tmp_path / "stderr").read_text()
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    motionprep("run", walk_data / "shards.yaml", "--quiet", "--resume", "--jobs", "1", "--out", out)
    _same_tree(root, out)


def _same_tree(a, b):
    fa = sorted(str(p.relative_to(a)) for p in a.rglob("*") if p.is_file())
    fb = sorted(str(p.relative_to(b)) for p in b.rglob("*") if p.is_file())
    assert fa == fb
    for f in fa:
        assert (a / f).read_bytes() == (b / f).read_bytes(), f


def test_empty_split_has_one_empty_archive(walk_data):
    text = PIPELINE.format(output="{type: shards, path: out-shards-empty, windows_per_shard: 1000}")
    text = text.replace("fractions: {train: 0.5, validation: 0.25, test: 0.25}",
                        "fractions: {train: 0.5, validation: 0.5, test: 0.0}")
    (walk_data / "shards-empty.yaml").write_text(text)
    motionprep("run", walk_data / "shards-empty.yaml", "--quiet")
    root = walk_data / "out-shards-empty"
    manifest = json.loads((root / "manifest.json").read_text())
    files = manifest["splits"]["test"]["files"]
    assert [(f["path"], f["num_windows"], f["class_counts"]) for f in files] == [("test/test-00000.tar.zst", 0, [0, 0])]
    subprocess.run(["zstd", "-q", "-t", str(root / files[0]["path"])], check=True)
    assert list(mpkg.iter_shard(root / files[0]["path"])) == []
    motionprep("validate", root)


def test_validate_passes_and_fails_on_a_tampered_member(datasets, tmp_path):
    root, _, tar_root = datasets
    motionprep("validate", root)
    motionprep("validate", tar_root)
    # Change one window's label in its json, and re-seal the checksums so only the content is wrong.
    copy = tmp_path / "tampered"
    shutil.copytree(tar_root, copy)
    path = copy / "train" / "train-00000.tar"
    raw = bytearray(path.read_bytes())
    with tarfile.open(fileobj=io.BytesIO(bytes(raw)), mode="r:") as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith(".json") and b'"walk"' in raw[m.offset_data:m.offset_data + m.size])
    blob = raw[member.offset_data:member.offset_data + member.size]
    raw[member.offset_data:member.offset_data + member.size] = blob.replace(b'"walk"', b'"turn"')
    path.write_bytes(bytes(raw))
    digest = hashlib.sha256(bytes(raw)).hexdigest()
    manifest = json.loads((copy / "manifest.json").read_text())
    old = manifest["splits"]["train"]["files"][0]["sha256"]
    manifest["splits"]["train"]["files"][0]["sha256"] = digest
    (copy / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    (copy / "SHA256SUMS").write_text((copy / "SHA256SUMS").read_text().replace(old, digest))
    p = motionprep("validate", copy, check=False)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "disagree on their class" in p.stdout + p.stderr
    assert member.name.split(".")[0] in p.stdout + p.stderr


def test_validate_explains_a_format_version_1_dataset(datasets, tmp_path):
    _, h5root, _ = datasets
    copy = tmp_path / "old"
    shutil.copytree(h5root, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["format_version"] = 1
    del manifest["pipeline"]["resolved"]
    (copy / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    p = motionprep("validate", copy, check=False)
    assert p.returncode == 1
    out = p.stdout + p.stderr
    assert "manifest.schema" in out and "older motionprep (format_version 1)" in out and "motionprep run" in out


def test_a_newer_format_version_is_named_by_validate_report_and_inspect(datasets, tmp_path):
    """One sentence naming the version found, the one this build reads and the writer; the
    other keys of a newer format are not listed as problems, and report and inspect refuse it."""
    _, h5root, _ = datasets
    copy = tmp_path / "newer"
    shutil.copytree(h5root, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["format_version"] = 3
    manifest["created_by"] = "motionprep 9.0.0"
    manifest["a_version_3_key"] = {}
    (copy / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    sentence = ("`format_version` is 3: the dataset was written by a newer motionprep (`created_by` is "
                "\"motionprep 9.0.0\") than this one, which reads format_version 2 only")
    p = motionprep("validate", copy, check=False)
    assert p.returncode == 1 and sentence in p.stdout + p.stderr, p.stdout + p.stderr
    assert "a_version_3_key" not in p.stdout + p.stderr
    for args in (["report", copy, "-o", tmp_path / "r.html"], ["inspect", copy]):
        p = motionprep(*args, check=False)
        assert p.returncode == 65 and sentence in p.stderr, (args, p.returncode, p.stderr)
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("which", ["zstd", "tar"])
def test_inspect_a_shard(datasets, which):
    root, _, tar_root = datasets
    path = shard_paths(root if which == "zstd" else tar_root, "validation")[0]
    info = json.loads(motionprep("inspect", path, "--json").stdout)
    windows = list(mpkg.iter_shard(path))
    assert info["num_windows"] == len(windows) == PER_SHARD
    assert info["sample_members"] == [".x.npy", ".y.cls", ".features.npy", ".json"]
    assert info["first_key"] == windows[0]["key"]
    assert sum(info["labels"].values()) == len(windows)
    assert {a["name"]: a["shape"] for a in info["arrays"]}["x"] == [PER_SHARD, 128, 18]
    text = motionprep("inspect", path).stdout
    assert f"{PER_SHARD} windows (one webdataset sample each)" in text
