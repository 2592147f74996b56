"""Read a motionprep `shards` dataset (docs/dataset-format.md, "Shards") with numpy and zstandard only.

Layout: DATASET/{split}/{split}-NNNNN.tar.zst, each a tar archive compressed as one zstd frame,
holding {stem}.json and one .npy per array ({stem}.x.npy, {stem}.y.npy, ...). Each shard holds
N windows (N = windows_per_shard except in the last shard of a split, which may be smaller; an
empty split has one shard with N = 0).

    from read_shards import load_split, iter_windows
    arrays = load_split("build/walk", "train")        # {"x": [N, T, C] float32, "y": [N] int64, ...}
    for x, y in iter_windows("build/walk", "train"):  # one window at a time, one shard in memory
        ...

Decompression uses the `zstandard` package, or Python 3.14's standard `compression.zstd` when
`zstandard` is not installed.

With PyTorch: `ShardWindows(dataset, split)` is an IterableDataset (when torch is importable)
that gives each DataLoader worker every k-th shard.

With WebDataset: each shard is ONE WebDataset sample holding N windows, keyed by its stem.
`wds.WebDataset(urls).decode().unbatched()` does not work as is: on Python < 3.14 tarfile cannot
open .tar.zst (decompress through a pipe), and `unbatched()` on a dict sample also tries to split
`__key__`, `__url__` and the json header. Pick the arrays first:

    import webdataset as wds
    paths = shard_paths("build/walk", "train")
    urls = [f"pipe:zstd -dc {p}" for p in paths]   # Python 3.14+: the .tar.zst paths themselves
    ds = (wds.WebDataset(urls, shardshuffle=False)  # or a shuffle buffer size, e.g. 100
            .decode()                               # .npy → numpy arrays, .json → dict
            .to_tuple("x.npy", "y.npy")             # a tuple of [N, ...] arrays per shard
            .unbatched())                           # → (x [T, C], y) per window
    # Shuffle windows with .shuffle(1000) after .unbatched(); batch with .batched(64).
"""
import io
import json
import tarfile
from pathlib import Path

import numpy as np

try:
    import zstandard as _zstandard
except ImportError:  # Python 3.14+: the standard library can do it.
    _zstandard = None

try:
    from torch.utils.data import IterableDataset as _Base
    from torch.utils.data import get_worker_info as _worker_info
except ImportError:  # Works without torch: a plain iterable.
    _Base = object
    def _worker_info():
        return None


def decompress(data):
    """Decompresses one zstd frame (the frame header records the content size)."""
    if _zstandard is not None:
        return _zstandard.ZstdDecompressor().decompress(data)
    from compression import zstd  # Python 3.14+
    return zstd.decompress(data)


def read_shard(path):
    """Reads one .tar.zst shard: {"json": header dict, "x": array, "y": array, ...} in archive order."""
    raw = decompress(Path(path).read_bytes())
    out = {}
    with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as tar:
        for member in tar:
            data = tar.extractfile(member).read()
            _stem, _, suffix = member.name.partition(".")  # "train-00000", "x.npy"
            if suffix == "json":
                out["json"] = json.loads(data)
            elif suffix.endswith(".npy"):
                out[suffix[:-len(".npy")]] = np.load(io.BytesIO(data), allow_pickle=False)
    return out


def shard_paths(dataset, split):
    """The shards of a split in order, as listed in manifest.json (falling back to a sorted glob)."""
    root = Path(dataset)
    manifest = root / "manifest.json"
    if manifest.exists():
        files = json.loads(manifest.read_text())["splits"][split]["files"]
        return [root / f["path"] for f in files]
    return sorted((root / split).glob(f"{split}-*.tar.zst"))


def load_split(dataset, split):
    """Every array of a split, concatenated over its shards (needs the whole split in memory)."""
    shards = [read_shard(p) for p in shard_paths(dataset, split)]
    names = [k for k in shards[0] if k != "json"]
    return {k: np.concatenate([s[k] for s in shards]) for k in names}


def iter_windows(dataset, split, arrays=("x", "y"), paths=None):
    """Yields one tuple per window (by default (x [T, C] float32, y int64)), shard by shard."""
    for path in paths if paths is not None else shard_paths(dataset, split):
        shard = read_shard(path)
        columns = [shard[name] for name in arrays]
        for i in range(shard["json"]["num_windows"]):
            yield tuple(c[i] for c in columns)


class ShardWindows(_Base):
    """Iterates the windows of one split; with several DataLoader workers each reads every k-th shard."""

    def __init__(self, dataset, split, arrays=("x", "y")):
        self.paths = shard_paths(dataset, split)
        self.arrays = tuple(arrays)

    def __iter__(self):
        info = _worker_info()
        paths = self.paths if info is None else self.paths[info.id::info.num_workers]
        return iter_windows(None, None, self.arrays, paths=paths)


if __name__ == "__main__":
    import sys
    root = sys.argv[1] if len(sys.argv) > 1 else "build/walk"
    for split in ("train", "validation", "test"):
        n = sum(1 for _ in iter_windows(root, split))
        print(f"{split}: {n} windows in {len(shard_paths(root, split))} shard(s)")
