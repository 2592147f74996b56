"""PyTorch datasets over a motionprep split (imported only by Dataset.torch_dataset)."""
from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import torch
from torch.utils.data import Dataset as MapDataset
from torch.utils.data import IterableDataset, get_worker_info

from ._dataset import Stats
from ._shards import iter_shard


def _item(x: np.ndarray, feats: Optional[np.ndarray], y: Any, window: int, x_stats: Optional[Stats],
          f_stats: Optional[Stats], features: bool, with_index: bool) -> Tuple[Any, ...]:
    x = x_stats.apply(x) if x_stats is not None else np.ascontiguousarray(x, dtype=np.float32)
    out: List[Any] = [torch.from_numpy(x)]
    if features:
        assert feats is not None
        f = f_stats.apply(feats) if f_stats is not None else np.ascontiguousarray(feats, dtype=np.float32)
        out.append(torch.from_numpy(f))
    # y: the class id, or (``y_seq=True``) each point's class id as an int64 tensor [T].
    out.append(torch.from_numpy(np.array(y, dtype=np.int64)) if isinstance(y, np.ndarray) else int(y))
    if with_index:
        out.append(int(window))
    return tuple(out)


class HDF5Windows(MapDataset):  # type: ignore[misc]
    """Map-style dataset over the selected rows of one split's .h5 file.

    The file is opened on first access in each process (and again after a fork), never pickled.
    Its datasets stay open, so h5py's chunk cache serves neighbouring windows without inflating
    their chunk again; ``__getitems__`` (used by the DataLoader for a batch) reads a batch with one
    selection per array."""

    #: h5py's chunk cache per dataset, in bytes (its default is 1 MiB).
    CHUNK_CACHE_BYTES = 16 << 20

    def __init__(self, path: Any, indices: np.ndarray, x_stats: Optional[Stats], f_stats: Optional[Stats],
                 features: bool, with_index: bool, offsets: Optional[List[int]] = None, y_seq: bool = False):
        # A partitioned split has one file per partition: `path` is then their list and `offsets`
        # the split's window number of each file's first row.
        self.path = path
        self.paths: List[str] = list(path) if isinstance(path, (list, tuple)) else [path]
        self.offsets = np.asarray(offsets if offsets is not None else [0], np.int64)
        self.indices = np.asarray(indices, np.int64)
        self.x_stats, self.f_stats = x_stats, f_stats
        self.features, self.with_index = features, with_index
        #: Items carry `y_seq` [T] in place of `y`.
        self.y_seq = y_seq
        self._file: Any = None
        self._arrays: Any = None
        self._pid: Optional[int] = None

    def _h5s(self) -> Any:
        if self._file is None or self._pid != os.getpid():
            import h5py
            self._file = [h5py.File(p, "r", rdcc_nbytes=self.CHUNK_CACHE_BYTES) for p in self.paths]
            y = "y_seq" if self.y_seq else "y"
            self._arrays = [(f["x"], f[y], f["features"] if self.features else None) for f in self._file]
            self._pid = os.getpid()
        return self._arrays

    def _h5(self) -> Any:
        return self._h5s()[0]

    def _locate(self, w: int) -> Tuple[int, int]:
        """(file, row) of the split's window ``w``."""
        k = int(np.searchsorted(self.offsets, w, side="right")) - 1
        return k, w - int(self.offsets[k])

    def __len__(self) -> int:
        return len(self.indices)

    def _window(self, i: int) -> int:
        n = len(self.indices)
        if not -n <= i < n:
            raise IndexError(f"window {i} out of range for a dataset of {n}")
        return int(self.indices[i])

    def __getitem__(self, i: int) -> Tuple[Any, ...]:
        w = self._window(i)
        k, r = self._locate(w)
        x, y, f = self._h5s()[k]
        return _item(x[r], f[r] if f is not None else None, y[r] if self.y_seq else int(y[r]), w, self.x_stats, self.f_stats,
                     self.features, self.with_index)

    def __getitems__(self, items: List[int]) -> List[Tuple[Any, ...]]:
        windows = np.array([self._window(i) for i in items], np.int64)
        if len(windows) == 0:
            return []
        if len(self.paths) > 1:
            return [self[i] for i in items]
        x, y, f = self._h5()
        rows, back = np.unique(windows, return_inverse=True)   # h5py reads increasing, distinct rows
        xs, ys = x[rows], y[rows]
        fs = f[rows] if f is not None else None
        return [_item(xs[j], fs[j] if fs is not None else None, ys[j] if self.y_seq else int(ys[j]), int(rows[j]),
                      self.x_stats, self.f_stats,
                      self.features, self.with_index) for j in back]

    def __getstate__(self) -> Dict[str, Any]:
        state = dict(self.__dict__)
        state["_file"], state["_arrays"], state["_pid"] = None, None, None
        return state

    def close(self) -> None:
        """Closes this process's h5py handle (it is reopened on the next access)."""
        if self._file is not None and self._pid == os.getpid():
            for f in self._file:
                f.close()
        self._file, self._arrays, self._pid = None, None, None


class ShardWindows(IterableDataset):  # type: ignore[misc]
    """Iterable dataset over a split's shards, dealt out across DataLoader workers without overlap."""

    def __init__(self, paths: List[str], fold: Optional[int], holdout: bool, length: Optional[int],
                 x_stats: Optional[Stats], f_stats: Optional[Stats], features: bool, with_index: bool,
                 shuffle: bool, seed: int, offsets: Optional[List[int]] = None, y_seq: bool = False):
        self.paths = list(paths)
        self.y_seq = y_seq
        # Per shard, what its window numbers are shifted by (a partitioned split; else 0).
        self.offsets = dict(zip(self.paths, offsets if offsets is not None else [0] * len(self.paths)))
        self.fold, self.holdout, self.length = fold, holdout, length
        self.x_stats, self.f_stats = x_stats, f_stats
        self.features, self.with_index = features, with_index
        self.shuffle, self.seed, self.epoch = shuffle, seed, 0

    def set_epoch(self, epoch: int) -> None:
        """Sets the epoch that, with ``seed``, draws the shuffle (call before each epoch's iteration)."""
        self.epoch = int(epoch)

    def __len__(self) -> int:
        if self.length is None:
            raise TypeError("the number of windows of a fold of a shards dataset is not known without reading the "
                            "shards; take len() of the View (it reads them once)")
        return self.length

    def shards_for_worker(self, worker: int, workers: int) -> List[str]:
        """The shards reader ``worker`` of ``workers`` reads this epoch (every shard goes to exactly one)."""
        paths = list(self.paths)
        if self.shuffle:
            order = np.random.default_rng([self.seed, self.epoch]).permutation(len(paths))
            paths = [paths[i] for i in order]
        return paths[worker::workers]

    def __iter__(self) -> Any:
        info = get_worker_info()
        worker, workers = (info.id, info.num_workers) if info is not None else (0, 1)
        rank, ranks = 0, 1
        if torch.distributed.is_available() and torch.distributed.is_initialized():
            rank, ranks = torch.distributed.get_rank(), torch.distributed.get_world_size()
        for path in self.shards_for_worker(rank * workers + worker, ranks * workers):
            samples = iter_shard(path)
            if self.shuffle:
                listed = list(samples)
                rng = np.random.default_rng([self.seed, self.epoch, self.paths.index(path)])
                samples = iter([listed[i] for i in rng.permutation(len(listed))])
            for s in samples:
                if self.fold is not None:
                    fold = int(s["meta"]["fold_index"])
                    if (fold == self.fold) != self.holdout:
                        continue
                yield _item(s["x"], s["features"], s["y_seq"] if self.y_seq else s["y"], s["window"] + self.offsets.get(path, 0), self.x_stats, self.f_stats,
                            self.features, self.with_index)
