"""Read a motionprep `shards` dataset (docs/dataset-format.md, "Shards") with numpy, tarfile and zstandard.

Layout: DATASET/{split}/{split}-NNNNN.tar.zst (or .tar with `output.compression: none`). Each
archive holds one WebDataset sample per window, its members sharing the key
`{split}-{window number, 9 digits}`: `{key}.x.npy` (float32 [T, C]), `{key}.y.cls` (class id,
-1 unlabelled), `{key}.features.npy` (float32 [F], with features) and `{key}.json` (subject,
recording, start_time_s, label, fold_index with folds). Windows are shuffled across the split's
shards at write time; the window number is the position in the canonical (subject, recording,
start) order. Names and units are in manifest.json.

    for key, x, y, meta in iter_windows("build/walk", "train"):   # one shard in memory at a time
        ...

With WebDataset (zstd through a pipe on Python < 3.14; a plain path for .tar):

    import webdataset as wds
    urls = [f"pipe:zstd -dc < {p}" for p in shard_paths("build/walk", "train")]
    ds = wds.WebDataset(urls, shardshuffle=False).decode().to_tuple("x.npy", "y.cls")
"""
import io
import json
import tarfile
from pathlib import Path

import numpy as np


def shard_paths(dataset, split):
    """The split's shards in order (`.tar.zst` or `.tar`)."""
    folder = Path(dataset) / split
    return sorted(p for p in folder.glob(f"{split}-*.tar*") if p.name.endswith((".tar", ".tar.zst")))


def _archive(path):
    data = Path(path).read_bytes()
    if str(path).endswith(".zst"):
        try:
            import zstandard
            data = zstandard.ZstdDecompressor().decompress(data)
        except ImportError:  # Python 3.14+
            from compression import zstd
            data = zstd.decompress(data)
    return tarfile.open(fileobj=io.BytesIO(data), mode="r:")


def iter_shard(path):
    """(key, x, y, meta) per window, in archive order; features, when present, in meta["features"]."""
    sample, key = {}, None
    with _archive(path) as tar:
        for member in tar:
            k, ext = member.name.split(".", 1)
            if key is not None and k != key:
                yield _window(key, sample)
                sample = {}
            key = k
            sample[ext] = tar.extractfile(member).read()
    if key is not None:
        yield _window(key, sample)


def _window(key, sample):
    meta = json.loads(sample["json"])
    if "features.npy" in sample:
        meta["features"] = np.load(io.BytesIO(sample["features.npy"]))
    return key, np.load(io.BytesIO(sample["x.npy"])), int(sample["y.cls"]), meta


def iter_windows(dataset, split):
    """Every window of a split, shard by shard (shuffled order)."""
    for path in shard_paths(dataset, split):
        yield from iter_shard(path)


def load_split(dataset, split):
    """x [N, T, C] and y [N] in the canonical order (sorted by window number)."""
    windows = sorted(iter_windows(dataset, split), key=lambda w: w[0])
    if not windows:
        return np.zeros((0,), np.float32), np.zeros((0,), np.int64)
    return np.stack([w[1] for w in windows]), np.array([w[2] for w in windows], np.int64)


if __name__ == "__main__":
    import sys
    for key, x, y, meta in iter_windows(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "train"):
        print(key, x.shape, y, meta["subject"], meta["recording"], meta["start_time_s"])
