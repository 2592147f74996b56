"""Runs the same pipeline with `output: {type: shards}` and `{type: hdf5}` and reads the shards
back with numpy, zstandard, tarfile, the zstd CLI and tar (docs/dataset-format.md, "Shards"): the arrays must equal the
HDF5 arrays exactly, and every shard must follow the documented container layout."""
import hashlib
import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path

import h5py
import numpy as np
import pytest

from conftest import motionprep

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
import read_shards  # noqa: E402

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
ARRAYS = ["x", "y", "features", "subject_index", "recording_index", "start_time_s", "fold_index"]


@pytest.fixture(scope="module")
def datasets(walk_data):
    (walk_data / "shards.yaml").write_text(PIPELINE.format(output=f"{{type: shards, path: out-shards, windows_per_shard: {PER_SHARD}}}"))
    (walk_data / "shards-h5.yaml").write_text(PIPELINE.format(output="{type: hdf5, path: out-shards-h5}"))
    motionprep("run", walk_data / "shards.yaml", "--jobs", 2, "--quiet")
    motionprep("run", walk_data / "shards-h5.yaml", "--jobs", 2, "--quiet")
    return walk_data / "out-shards", walk_data / "out-shards-h5"


def shard_files(root):
    return [p for split in SPLITS for p in read_shards.shard_paths(root, split)]


def test_layout_manifest_and_checksums(datasets):
    root, _ = datasets
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["storage"] == "shards"
    on_disk = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    listed = [f["path"] for s in SPLITS for f in manifest["splits"][s]["files"]]
    assert on_disk == sorted(listed + ["SHA256SUMS", "manifest.json"])
    sums = (root / "SHA256SUMS").read_text().splitlines()
    assert [line.split("  ", 1)[1] for line in sums] == listed
    subprocess.run(["sha256sum", "--quiet", "-c", "SHA256SUMS"], cwd=root, check=True)
    for split in SPLITS:
        files = manifest["splits"][split]["files"]
        assert [f["path"] for f in files] == [f"{split}/{split}-{i:05d}.tar.zst" for i in range(len(files))]
        counts = [f["num_windows"] for f in files]
        assert all(n == PER_SHARD for n in counts[:-1]) and 0 < counts[-1] <= PER_SHARD
        assert sum(counts) == manifest["splits"][split]["num_windows"]
        for f in files:
            p = root / f["path"]
            assert f["bytes"] == p.stat().st_size
            assert f["sha256"] == hashlib.sha256(p.read_bytes()).hexdigest()


def test_arrays_equal_the_hdf5_arrays(datasets):
    root, h5root = datasets
    manifest = json.loads((root / "manifest.json").read_text())
    for split in SPLITS:
        got = read_shards.load_split(root, split)
        assert list(got) == ARRAYS
        with h5py.File(h5root / f"{split}.h5", "r") as f:
            for name in ARRAYS:
                expected = f[name][...]
                assert got[name].dtype == expected.dtype, (split, name)
                assert got[name].shape == expected.shape, (split, name)
                # Exactly equal, bit for bit (NaN-free, but compare bytes anyway).
                assert got[name].tobytes() == expected.tobytes(), (split, name)
        # Per-shard headers agree with the arrays and the manifest.
        for i, (path, entry) in enumerate(zip(read_shards.shard_paths(root, split), manifest["splits"][split]["files"])):
            shard = read_shards.read_shard(path)
            header = shard["json"]
            assert header == {"format": "motionprep.shard", "format_version": 1, "split": split, "shard_index": i,
                              "num_windows": entry["num_windows"], "class_counts": entry["class_counts"]}
            assert header["class_counts"] == [int((shard["y"] == c).sum()) for c in range(2)]
            assert all(shard[a].shape[0] == header["num_windows"] for a in ARRAYS)


def test_iter_windows_gives_every_window_in_order(datasets):
    root, h5root = datasets
    with h5py.File(h5root / "validation.h5", "r") as f:
        x, y = f["x"][...], f["y"][...]
    windows = list(read_shards.iter_windows(root, "validation"))
    assert len(windows) == len(y)
    for i, (wx, wy) in enumerate(windows):
        assert wx.shape == (128, 18) and wy == y[i]
        np.testing.assert_array_equal(wx, x[i])


def test_one_zstd_frame_with_content_size_and_checksum(datasets):
    root, _ = datasets
    zstandard = pytest.importorskip("zstandard")
    for path in shard_files(root):
        subprocess.run(["zstd", "-q", "-t", str(path)], check=True)
        data = path.read_bytes()
        params = zstandard.get_frame_parameters(data)
        assert params.has_checksum
        assert params.content_size != zstandard.CONTENTSIZE_UNKNOWN
        # Exactly one frame: its compressed size is the file size.
        assert zstandard.frame_content_size(data) == params.content_size
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


def test_tar_members_in_order_with_clean_headers(datasets):
    root, _ = datasets
    for path in shard_files(root):
        stem = path.name[:-len(".tar.zst")]
        expected = [f"{stem}.json"] + [f"{stem}.{a}.npy" for a in ARRAYS]
        listing = subprocess.run(f"zstd -dc '{path}' | tar t", shell=True, check=True, capture_output=True, text=True)
        assert listing.stdout.split() == expected
        raw = read_shards.decompress(path.read_bytes())
        assert len(raw) % 512 == 0 and raw[-1024:] == bytes(1024)
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as tar:
            members = tar.getmembers()
            assert [m.name for m in members] == expected
            for m in members:
                assert m.isreg() and m.mode == 0o644 and m.uid == 0 and m.gid == 0 and m.mtime == 0
                assert m.offset_data % 512 == 0
                if m.name.endswith(".npy"):
                    blob = raw[m.offset_data:m.offset_data + m.size]
                    assert blob[:8] == b"\x93NUMPY\x01\x00"
                    header_len = int.from_bytes(blob[8:10], "little")
                    data_offset = 10 + header_len
                    assert data_offset % 64 == 0 and (m.offset_data + data_offset) % 64 == 0, m.name
                    assert blob[data_offset - 1:data_offset] == b"\n"


def test_npy_files_load_after_tar_x(datasets, tmp_path):
    root, _ = datasets
    path = read_shards.shard_paths(root, "train")[-1]
    subprocess.run(f"zstd -dc '{path}' | tar x", shell=True, check=True, cwd=tmp_path)
    stem = path.name[:-len(".tar.zst")]
    header = json.loads((tmp_path / f"{stem}.json").read_text())
    n = header["num_windows"]
    shapes = {"x": (n, 128, 18), "features": (n, 3 * 18)}
    dtypes = {"x": "<f4", "y": "<i8", "features": "<f4", "start_time_s": "<f8"}
    for a in ARRAYS:
        arr = np.load(tmp_path / f"{stem}.{a}.npy", allow_pickle=False)
        assert arr.shape == shapes.get(a, (n,)), a
        assert arr.dtype.str == dtypes.get(a, "<i4"), a
        assert arr.flags.c_contiguous


def test_webdataset_recipe(datasets):
    wds = pytest.importorskip("webdataset")
    root, h5root = datasets
    urls = [f"pipe:zstd -dc {p}" for p in read_shards.shard_paths(root, "test")]
    ds = wds.WebDataset(urls, shardshuffle=False).decode().to_tuple("x.npy", "y.npy").unbatched()
    got = list(ds)
    with h5py.File(h5root / "test.h5", "r") as f:
        x, y = f["x"][...], f["y"][...]
    assert len(got) == len(y)
    np.testing.assert_array_equal(np.stack([g[0] for g in got]), x)
    assert [int(g[1]) for g in got] == y.tolist()


def test_same_bytes_for_any_jobs(walk_data, datasets):
    root, _ = datasets
    motionprep("run", walk_data / "shards.yaml", "--jobs", 1, "--quiet", "--out", walk_data / "out-shards-j1")
    other = walk_data / "out-shards-j1"
    for p in sorted(root.rglob("*")):
        if p.is_file():
            assert p.read_bytes() == (other / p.relative_to(root)).read_bytes(), p


def test_empty_split_has_one_empty_shard(walk_data):
    text = PIPELINE.format(output="{type: shards, path: out-shards-empty, windows_per_shard: 1000}")
    text = text.replace("fractions: {train: 0.5, validation: 0.25, test: 0.25}",
                        "fractions: {train: 0.5, validation: 0.5, test: 0.0}")
    (walk_data / "shards-empty.yaml").write_text(text)
    motionprep("run", walk_data / "shards-empty.yaml", "--quiet")
    root = walk_data / "out-shards-empty"
    manifest = json.loads((root / "manifest.json").read_text())
    files = manifest["splits"]["test"]["files"]
    assert [(f["path"], f["num_windows"], f["class_counts"]) for f in files] == [("test/test-00000.tar.zst", 0, [0, 0])]
    shard = read_shards.read_shard(root / files[0]["path"])
    assert shard["json"]["num_windows"] == 0
    assert shard["x"].shape == (0, 128, 18) and shard["features"].shape == (0, 54) and shard["y"].shape == (0,)
    subprocess.run(["zstd", "-q", "-t", str(root / files[0]["path"])], check=True)


def test_read_hdf5_example(datasets):
    import pickle
    import read_hdf5
    _, h5root = datasets
    ds = read_hdf5.WindowDataset(h5root / "train.h5")
    with h5py.File(h5root / "train.h5", "r") as f:
        x, y = f["x"][...], f["y"][...]
    assert len(ds) == len(y) and ds.class_names == ["walk", "turn"]
    for i in (0, len(ds) // 2, -1):
        wx, wy = ds[i]
        np.testing.assert_array_equal(wx, x[i])
        assert wy == y[i] and wx.dtype == np.float32
    # Picklable for DataLoader workers even after the file was opened.
    clone = pickle.loads(pickle.dumps(ds))
    np.testing.assert_array_equal(clone[1][0], x[1])
    with pytest.raises(IndexError):
        ds[len(ds)]
    ds.close()
