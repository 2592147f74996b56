"""A motionprep dataset folder: its manifest, its splits, selections of windows (views) and folds.

The format is docs/dataset-format.md; the API is docs/python.md."""
from __future__ import annotations

import hashlib
import json
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

import numpy as np

from ._errors import ChecksumError, FormatVersionError, NotADatasetError
from ._shards import Sample, iter_shard

FORMAT = "motionprep.dataset"
#: The manifest format_version this package reads.
FORMAT_VERSION = 2
SPLITS: Tuple[str, ...] = ("train", "validation", "test")
#: The ``format`` of the output of ``motionprep apply`` (docs/dataset-format.md, "Applied windows"),
#: the format_version of it this package reads, and its one split.
APPLIED_FORMAT = "motionprep.applied"
APPLIED_FORMAT_VERSION = 1
APPLIED_SPLIT = "windows"
#: Arrays an applied output adds: the windows normalised with the source dataset's train statistics.
NORMALIZED_ARRAYS = ("x_normalized", "features_normalized")


@dataclass(frozen=True)
class Stats:
    """Per-column mean and population standard deviation (float64), from the manifest."""

    mean: np.ndarray
    std: np.ndarray

    def apply(self, a: np.ndarray) -> np.ndarray:
        """``(a - mean) / std`` over the last axis, computed in float64 and returned as float32.

        A column whose ``std`` is 0 (constant over the train split) is divided by 1 instead, so it
        becomes ``a - mean``: 0 on the train split, the offset from the train value elsewhere
        (scikit-learn's StandardScaler does the same)."""
        std = np.where(self.std == 0, 1.0, self.std)
        out: np.ndarray = ((np.asarray(a, dtype=np.float64) - self.mean) / std).astype(np.float32)
        return out


@dataclass(frozen=True)
class Normalization:
    """The manifest's ``normalization``: ``x`` per channel, ``features`` per feature (None without features)."""

    x: Stats
    features: Optional[Stats]


class View:
    """The windows of one split, or of one side of a fold: ``ds.view("train")``, ``ds.folds(k)``.

    Every method of :class:`Dataset` that takes a split name takes a view as well."""

    def __init__(self, dataset: "Dataset", split: str, fold: Optional[int] = None, holdout: bool = False):
        self.dataset = dataset
        self.split = split
        #: None for the whole split; else the fold k, with ``holdout`` True for the windows of fold k
        #: (the validation side) and False for those of every other fold (the training side).
        self.fold = fold
        self.holdout = holdout
        self._indices: Optional[np.ndarray] = None

    @property
    def name(self) -> str:
        """``train``, ``train[fold!=2]`` or ``train[fold==2]``."""
        if self.fold is None:
            return self.split
        return f"{self.split}[fold{'==' if self.holdout else '!='}{self.fold}]"

    def __repr__(self) -> str:
        return f"<motionprep.View {self.name} of {self.dataset.path}>"

    def accepts(self, fold_index: int) -> bool:
        """Whether a window with this ``fold_index`` belongs to the view."""
        if self.fold is None:
            return True
        return (fold_index == self.fold) if self.holdout else (fold_index != self.fold)

    def indices(self) -> np.ndarray:
        """The window numbers (positions in the split's canonical order) the view holds, ascending, int64.

        For a fold of a shards dataset this reads every sample's JSON of the split once (cached)."""
        if self._indices is None:
            n = self.dataset.num_windows(self.split)
            if self.fold is None:
                self._indices = np.arange(n, dtype=np.int64)
            else:
                folds = self.dataset._fold_index(self.split)
                mask = (folds == self.fold) if self.holdout else (folds != self.fold)
                self._indices = np.flatnonzero(mask).astype(np.int64)
        return self._indices

    def __len__(self) -> int:
        if self.fold is None:
            return self.dataset.num_windows(self.split)
        return len(self.indices())

    # Conveniences: the Dataset methods on this view.
    def arrays(self, normalize: bool = False) -> Dict[str, np.ndarray]:
        return self.dataset.arrays(self, normalize=normalize)

    def class_counts(self) -> np.ndarray:
        return self.dataset.class_counts(self)

    def class_weights(self) -> np.ndarray:
        return self.dataset.class_weights(self)

    def torch_dataset(self, **kwargs: Any) -> Any:
        return self.dataset.torch_dataset(self, **kwargs)

    def hf_dataset(self, **kwargs: Any) -> Any:
        return self.dataset.hf_dataset(self, **kwargs)


SplitLike = Union[str, View]


class Dataset:
    """A motionprep dataset folder (``format_version`` 2), or the output of ``motionprep apply``
    (``is_applied``; one split, ``windows``), opened with :func:`open_dataset`."""

    def __init__(self, path: Union[str, Path], manifest: Dict[str, Any]):
        self.path = Path(path)
        #: The parsed manifest.json (docs/dataset-format.md, "manifest.json").
        self.manifest = manifest
        #: ``"hdf5"`` or ``"shards"``.
        self.storage: str = manifest["storage"]
        self.classes: List[str] = list(manifest["classes"])
        self.channels: List[str] = [c["name"] for c in manifest["channels"]]
        self.channel_units: List[str] = [c["unit"] for c in manifest["channels"]]
        self.feature_names: List[str] = list(manifest["feature_names"])
        self.subjects: List[str] = list(manifest["subjects"])
        self.recordings: List[str] = list(manifest["recordings"])
        self.sample_rate_hz: float = float(manifest["sample_rate_hz"])
        self.window_length: int = int(manifest["window_length"])
        self.window_stride: int = int(manifest["window_stride"])
        #: True for the output of ``motionprep apply``: new recordings made with a dataset's pipeline,
        #: with ``x_normalized`` (and ``features_normalized``) from that dataset's train statistics.
        self.is_applied: bool = manifest.get("format") == APPLIED_FORMAT
        #: An applied output's ``source_dataset`` (``name``, ``manifest_sha256``, ``pipeline_sha256``); None for a dataset.
        self.source_dataset: Optional[Dict[str, Any]] = manifest.get("source_dataset") if self.is_applied else None
        #: The split names, in order: ``("train", "validation", "test")``; ``("windows",)`` when applied.
        self.splits: Tuple[str, ...] = tuple(s for s in (((APPLIED_SPLIT,) if self.is_applied else SPLITS))
                                             if s in manifest["splits"])
        #: The number of folds (``split_policy.folds``), None when the pipeline has no folds.
        self.num_folds: Optional[int] = (manifest["split_policy"].get("folds")
                                         if "fold_index" in manifest["arrays"] and not self.is_applied else None)
        self.has_features: bool = "features" in manifest["arrays"]
        #: True when the windows carry ``y_seq`` [T], each point's class id (``labels.per_sample``).
        self.has_y_seq: bool = "y_seq" in manifest["arrays"]
        #: The ``qa`` column names (the pipeline's ``qa`` section: ``("nonwear", "clipped", "imputed")``),
        #: empty without it; ``qa_report`` is the manifest's ``qa`` (each recording's calibration
        #: and non-wear), None without it.
        self.qa_columns: Tuple[str, ...] = tuple((manifest.get("qa") or {}).get("columns", ())) if "qa" in manifest["arrays"] else ()
        self.qa_report: Optional[Dict[str, Any]] = manifest.get("qa")
        norm = manifest.get("normalization")
        #: The train split's statistics (an applied output's: its source dataset's), None when the
        #: train split has no window.
        self.normalization: Optional[Normalization] = None
        if norm is not None and norm.get("x") is not None:
            f = norm.get("features")
            self.normalization = Normalization(
                x=Stats(np.asarray(norm["x"]["mean"], np.float64), np.asarray(norm["x"]["std"], np.float64)),
                features=None if f is None else Stats(np.asarray(f["mean"], np.float64), np.asarray(f["std"], np.float64)))
        self._folds_cache: Dict[str, np.ndarray] = {}
        #: The number of partitions of a partitioned dataset (``output.partitioned``; its split files
        #: are listed partition by partition), None for the default layout.
        self.partitions: Optional[int] = manifest.get("partitions")

    def __repr__(self) -> str:
        counts = ", ".join(f"{s} {self.num_windows(s)}" for s in self.splits)
        kind = "applied, " if self.is_applied else ""
        return f"<motionprep.Dataset {self.path} ({kind}{self.storage}; {counts} windows)>"

    # ----- splits, files, views

    def view(self, split: SplitLike) -> View:
        """The whole split ``split`` as a :class:`View` (a view is returned as is)."""
        if isinstance(split, View):
            if split.dataset is not self:
                raise ValueError(f"{split!r} belongs to another dataset than {self.path}")
            return split
        if split not in self.splits:
            raise ValueError(f"{self.path}: unknown split {split!r}; the dataset has {', '.join(self.splits)}")
        return View(self, split)

    def num_windows(self, split: SplitLike) -> int:
        """The number of windows of a split (from the manifest) or of a view."""
        if isinstance(split, View):
            return len(split)
        return int(self.manifest["splits"][self.view(split).split]["num_windows"])

    def files(self, split: SplitLike) -> List[Path]:
        """The split's data files, in order: ``[train.h5]`` or its shards ``train/train-00000.tar.zst``, …"""
        name = self.view(split).split
        return [self.path / f["path"] for f in self.manifest["splits"][name]["files"]]

    def window_offsets(self, split: SplitLike) -> List[int]:
        """Per file of the split (in :meth:`files` order), what its windows' numbers within the file
        are shifted by to number them within the split: 0 for a dataset of one file per split or of
        shards numbered across the split; in a partitioned dataset, the windows of the partitions
        before the file's (a split's windows are numbered in partition order, then in canonical order
        within the partition; docs/dataset-format.md, "Partitioned datasets")."""
        listed = self.manifest["splits"][self.view(split).split]["files"]
        if self.partitions is None:
            return [0] * len(listed)
        before: Dict[int, int] = {}
        total = 0
        for f in listed:
            before.setdefault(int(f["partition"]), total)
            total += int(f["num_windows"])
        return [before[int(f["partition"])] for f in listed]

    def iter_shards(self, split: SplitLike) -> Iterator[Sample]:
        """Every sample of a split's shards, shard by shard, ``window`` numbered within the split."""
        view = self.view(split)
        for path, offset in zip(self.files(view), self.window_offsets(view)):
            for s in iter_shard(path):
                if offset:
                    s["window"] += offset
                yield s

    def folds(self, k: int) -> Tuple[View, View]:
        """``(train on folds != k, validate on fold k)``: two views of the train split, by ``fold_index``.

        Raises ValueError when the dataset has no folds or k is not in ``0 … num_folds - 1``. A fold
        with no window (more folds than train subjects; ``run`` warns) gives an empty validation view."""
        if self.num_folds is None:
            raise ValueError(f"{self.path}: the dataset has no folds (its pipeline sets neither `split.folds` "
                             "nor `split.leave_one_out`; docs/pipeline.md, \"Splits and folds\")")
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= k < self.num_folds:
            raise ValueError(f"{self.path}: fold {k!r} does not exist; the dataset has folds 0 to {self.num_folds - 1}")
        return View(self, "train", int(k), holdout=False), View(self, "train", int(k), holdout=True)

    # ----- reading

    def iter_windows(self, split: SplitLike) -> Iterator[Sample]:
        """Every window of a split or view as a dict (``window``, ``x``, ``y``, ``features``, ``meta``),
        in storage order: canonical for HDF5, the write-time shuffle for shards (one shard at a time)."""
        view = self.view(split)
        if self.storage == "shards":
            for s in self.iter_shards(view):
                if view.fold is None or view.accepts(int(s["meta"].get("fold_index", -1))):
                    yield s
            return
        a = self.arrays(view)
        for i, w in enumerate(a["window"]):
            meta: Dict[str, Any] = {"subject": self.subjects[a["subject_index"][i]],
                                    "recording": self.recordings[a["recording_index"][i]],
                                    "start_time_s": float(a["start_time_s"][i]),
                                    "label": self.classes[a["y"][i]] if a["y"][i] >= 0 else None}
            if "fold_index" in a:
                meta["fold_index"] = int(a["fold_index"][i])
            if "qa" in a:
                meta["qa"] = {c: float(a["qa"][i][k]) for k, c in enumerate(self.qa_columns)}
            sample = {"key": f"{view.split}-{int(w):09d}", "window": int(w), "x": a["x"][i], "y": int(a["y"][i]),
                      "features": a["features"][i] if "features" in a else None, "meta": meta}
            for name in ("y_seq", *NORMALIZED_ARRAYS):
                if name in a:
                    sample[name] = a[name][i]
            yield sample

    def arrays(self, split: SplitLike, normalize: bool = False) -> Dict[str, np.ndarray]:
        """The windows of a split or view as numpy arrays, in canonical order (the HDF5 file's order).

        Keys: ``x`` float32 [N, T, C], ``y`` int64 [N], ``y_seq`` int64 [N, T] (with
        ``labels.per_sample``: each point's class id, -1 where none), ``qa`` float32 [N, Q] (with the
        pipeline's ``qa``: columns ``qa_columns``, each a fraction of the window), ``features`` float32 [N, F] (when computed),
        ``subject_index``, ``recording_index`` int32 [N], ``start_time_s`` float64 [N], ``fold_index``
        int32 [N] (with folds) and ``window`` int64 [N], the window numbers within the split; an
        applied output adds ``x_normalized`` float32 [N, T, C] and ``features_normalized`` float32
        [N, F] as ``motionprep apply`` wrote them. With ``normalize=True``, ``x`` and ``features``
        are normalised with the manifest's statistics (:meth:`Stats.apply`; for an applied output
        the stored normalised arrays, the same values). Everything is read into memory."""
        view = self.view(split)
        idx = view.indices()
        out: Dict[str, np.ndarray] = {}
        if self.storage == "hdf5":
            import h5py
            # One file per split, or (partitioned) one per partition, read one after the other.
            parts: Dict[str, List[np.ndarray]] = {}
            for path in self.files(view):
                with h5py.File(path, "r") as f:
                    for name in ("x", "y", "y_seq", "qa", "features", "subject_index", "recording_index", "start_time_s",
                                 "fold_index", *NORMALIZED_ARRAYS):
                        if name in f:
                            parts.setdefault(name, []).append(f[name][...])
            for name, arrays in parts.items():
                whole = arrays[0] if len(arrays) == 1 else np.concatenate(arrays)
                out[name] = whole if view.fold is None else whole[idx]
        else:
            out = self._gather_shards(view, idx)
        out["window"] = idx.copy()
        if normalize:
            for name in ("x", "features"):
                if name not in out:
                    continue
                stored = out.get(f"{name}_normalized")
                out[name] = stored.copy() if stored is not None else self._stats(name).apply(out[name])
        return out

    def _gather_shards(self, view: View, idx: np.ndarray) -> Dict[str, np.ndarray]:
        n = len(idx)
        arrays = self.manifest["arrays"]
        shape = arrays["x"]["shape"]
        out: Dict[str, np.ndarray] = {
            "x": np.zeros((n, shape[1], shape[2]), np.float32), "y": np.zeros(n, np.int64),
            "subject_index": np.zeros(n, np.int32), "recording_index": np.zeros(n, np.int32),
            "start_time_s": np.zeros(n, np.float64)}
        if "features" in arrays:
            out["features"] = np.zeros((n, arrays["features"]["shape"][1]), np.float32)
        if "fold_index" in arrays:
            out["fold_index"] = np.zeros(n, np.int32)
        if "y_seq" in arrays:
            out["y_seq"] = np.zeros((n, arrays["y_seq"]["shape"][1]), np.int64)
        if "qa" in arrays:
            out["qa"] = np.zeros((n, arrays["qa"]["shape"][1]), np.float32)
        for name in NORMALIZED_ARRAYS:
            if name in arrays:
                out[name] = np.zeros((n, *arrays[name]["shape"][1:]), np.float32)
        row = {int(w): i for i, w in enumerate(idx)}
        subject = {s: i for i, s in enumerate(self.subjects)}
        recording = {r: i for i, r in enumerate(self.recordings)}
        seen = np.zeros(n, bool)
        for s in self.iter_windows(view):
            i = row.get(s["window"])
            if i is None or seen[i]:
                raise ValueError(f"{self.path}: window {s['key']} is {'twice' if i is not None else 'not expected'} "
                                 f"in split {view.split!r} (run `motionprep validate {self.path}`)")
            seen[i] = True
            meta = s["meta"]
            out["x"][i], out["y"][i] = s["x"], s["y"]
            out["subject_index"][i] = subject[meta["subject"]]
            out["recording_index"][i] = recording[meta["recording"]]
            out["start_time_s"][i] = meta["start_time_s"]
            if "features" in out:
                out["features"][i] = s["features"]
            if "fold_index" in out:
                out["fold_index"][i] = meta["fold_index"]
            if "y_seq" in out:
                if s.get("y_seq") is None:
                    raise ValueError(f"{self.path}: sample {s['key']} has no `y_seq.npy` member, which the samples of a "
                                     f"dataset made with `labels.per_sample` hold (run `motionprep validate {self.path}`)")
                out["y_seq"][i] = s["y_seq"]
            if "qa" in out:
                if "qa" not in meta:
                    raise ValueError(f"{self.path}: sample {s['key']} has no `qa` in its json, which the samples of a "
                                     f"dataset made with `qa` hold (run `motionprep validate {self.path}`)")
                out["qa"][i] = [meta["qa"][c] for c in self.qa_columns]
            for name in NORMALIZED_ARRAYS:
                if name in out:
                    if s.get(name) is None:
                        raise ValueError(f"{self.path}: sample {s['key']} has no `{name}.npy` member, which an applied "
                                         f"output's samples hold (run `motionprep validate {self.path}`)")
                    out[name][i] = s[name]
        if not seen.all():
            raise ValueError(f"{self.path}: {int((~seen).sum())} window(s) of split {view.split!r} are missing from "
                             f"its shards (run `motionprep validate {self.path}`)")
        return out

    def _fold_index(self, split: str) -> np.ndarray:
        if split not in self._folds_cache:
            if self.storage == "hdf5":
                import h5py
                arrays = []
                for path in self.files(split):
                    with h5py.File(path, "r") as f:
                        arrays.append(f["fold_index"][...])
                self._folds_cache[split] = np.concatenate(arrays) if len(arrays) != 1 else arrays[0]
            else:
                folds = np.full(self.num_windows(split), -1, np.int32)
                for s in self.iter_shards(split):
                    folds[s["window"]] = s["meta"]["fold_index"]
                self._folds_cache[split] = folds
        return self._folds_cache[split]

    # ----- normalisation, classes

    def _stats(self, which: str) -> Stats:
        if self.normalization is None:
            raise ValueError(f"{self.path}: the manifest has no normalisation statistics (its train split has no "
                             "window), so normalize=True cannot be used")
        stats = self.normalization.x if which == "x" else self.normalization.features
        if stats is None:
            raise ValueError(f"{self.path}: the manifest has no feature statistics (no features are computed)")
        return stats

    def _default_split(self, split: Optional[SplitLike]) -> SplitLike:
        return split if split is not None else (APPLIED_SPLIT if self.is_applied else "train")

    def class_counts(self, split: Optional[SplitLike] = None) -> np.ndarray:
        """Windows per class (int64, class-id order) of a split (from the manifest) or view (counted
        from ``y``; default ``train``, an applied output's ``windows``); unlabelled windows (y = -1)
        are not counted."""
        view = self.view(self._default_split(split))
        if view.fold is None:
            return np.asarray(self.manifest["splits"][view.split]["class_counts"], np.int64)
        y = self.arrays(view)["y"] if self.storage == "hdf5" else np.array([s["y"] for s in self.iter_windows(view)], np.int64)
        return np.bincount(y[y >= 0], minlength=len(self.classes)).astype(np.int64)

    def class_weights(self, split: Optional[SplitLike] = None) -> np.ndarray:
        """"Balanced" class weights (float32, computed in float64; class-id order) for a weighted loss: ``n / (k * count_c)``,
        n the labelled windows of the split or view, k the number of classes with at least one window.

        A class with no window gets weight 0 and a warning naming it (it cannot be learnt from this
        split); the weights of the present classes average to 1 over the windows. Raises ValueError
        when the split has no labelled window."""
        view = self.view(self._default_split(split))
        if not self.classes:
            raise ValueError(f"{self.path}: the dataset has no classes (its pipeline has no `labels`), so there are no class weights")
        counts = self.class_counts(view)
        n, present = int(counts.sum()), counts > 0
        if n == 0:
            raise ValueError(f"{self.path}: split {view.name!r} has no labelled window, so there are no class weights")
        absent = [self.classes[i] for i in np.flatnonzero(~present)]
        if absent:
            warnings.warn(f"{self.path}: class(es) {', '.join(absent)} have no window in {view.name!r}; their weight is 0",
                          stacklevel=2)
        weights = np.zeros(len(counts), np.float64)
        weights[present] = n / (int(present.sum()) * counts[present])
        # float32, the dtype of the logits: torch.tensor(weights) goes into CrossEntropyLoss as is
        return weights.astype(np.float32)

    # ----- training frameworks

    def torch_dataset(self, split: SplitLike, normalize: bool = True, features: bool = False,
                      with_index: bool = False, shuffle: bool = False, seed: int = 0, y_seq: bool = False) -> Any:
        """A PyTorch dataset over a split or view (needs ``torch``).

        HDF5: a map-style ``torch.utils.data.Dataset`` (the file is opened lazily in each process, so
        DataLoader workers never share an h5py handle). Shards: an ``IterableDataset`` whose shards are
        dealt out across DataLoader workers (worker w of W reads shards w, w + W, …), so every window
        comes once per epoch; ``shuffle=True`` shuffles the shard order and the windows within each
        shard, from ``seed`` and the epoch set with ``set_epoch`` (HDF5 ignores both: use the
        DataLoader's ``shuffle``).

        Items are ``(x, y)``, ``(x, features, y)`` with ``features=True``, and the window number
        last with ``with_index=True``: x a float32 tensor [T, C], features float32 [F], y an int; with
        ``y_seq=True`` (a dataset made with ``labels.per_sample``) y is the window's ``y_seq``, an int64
        tensor [T] of each point's class id (-1 where none), for segmentation models."""
        view = self.view(split)
        if features and not self.has_features:
            raise ValueError(f"{self.path}: features=True but the dataset has no features")
        if y_seq and not self.has_y_seq:
            raise ValueError(f"{self.path}: y_seq=True but the dataset has no `y_seq` (its pipeline does not set "
                             "`labels.per_sample: true`; docs/pipeline.md, \"labels\")")
        try:
            from . import _torch
        except ImportError as e:
            raise ImportError(f"torch_dataset() needs PyTorch, which is not importable here ({e}); "
                              "install it with `pip install torch`") from e
        x_stats = self._stats("x") if normalize else None
        f_stats = self._stats("features") if normalize and features else None
        if self.storage == "hdf5":
            files = [str(p) for p in self.files(view)]
            return _torch.HDF5Windows(files if len(files) > 1 else files[0], view.indices(), x_stats, f_stats, features,
                                      with_index, offsets=self.window_offsets(view) if len(files) > 1 else None,
                                      y_seq=y_seq)
        length = len(view) if view.fold is None or view._indices is not None else None
        return _torch.ShardWindows([str(p) for p in self.files(view)], view.fold, view.holdout, length,
                                   x_stats, f_stats, features, with_index, shuffle, seed,
                                   offsets=self.window_offsets(view), y_seq=y_seq)

    def hf_dataset(self, split: SplitLike, normalize: bool = False, cache_dir: Optional[str] = None) -> Any:
        """A Hugging Face ``datasets.Dataset`` of a split or view (needs ``datasets``), one row per
        window in canonical order: ``x`` (Array2D float32 [T, C]), ``y`` (ClassLabel of the classes;
        -1 unlabelled), ``y_seq`` (int64 [T], with ``labels.per_sample``), ``features`` (float32 [F],
        when computed), ``subject``, ``recording``,
        ``start_time_s``, ``fold_index`` (with folds) and ``window``. Built with
        ``Dataset.from_generator`` into ``cache_dir`` (default: the Hugging Face cache)."""
        view = self.view(split)
        try:
            from . import _hf
        except ImportError as e:
            raise ImportError(f"hf_dataset() needs Hugging Face `datasets`, which is not importable here ({e}); "
                              "install it with `pip install datasets`") from e
        if normalize:
            self._stats("x")
        return _hf.build(self, view, normalize, cache_dir)

    # ----- checksums

    def verify(self) -> None:
        """Checks every data file against SHA256SUMS and the manifest's ``files`` digests, raising
        :class:`ChecksumError` naming the first file that is missing, unlisted or changed; then the
        consistency rules C1, C2, C4, C5 and C6 (docs/validate.md, "Consistency rules"), raising
        :class:`ConsistencyError` naming the rule and the file. Every data file is read twice: once
        hashed, once for the rules (a block of rows, or one shard sample, at a time)."""
        self._verify_checksums()
        from . import _consistency
        _consistency.check_manifest(self)
        _consistency.check_files(self)

    def _verify_checksums(self) -> None:
        sums_path = self.path / "SHA256SUMS"
        try:
            lines = sums_path.read_text(encoding="utf-8").splitlines()
        except OSError as e:
            raise ChecksumError(f"{sums_path}: cannot be read ({e.strerror or e})") from e
        sums: Dict[str, str] = {}
        for number, line in enumerate(lines, 1):
            digest, sep, rel = line.partition("  ")
            if not sep or len(digest) != 64:
                raise ChecksumError(f"{sums_path}:{number}: not a `HEX  PATH` line: {line!r}")
            sums[rel] = digest
        listed = {f["path"]: f["sha256"] for s in self.splits for f in self.manifest["splits"][s]["files"]}
        for rel, digest in listed.items():
            if rel not in sums:
                raise ChecksumError(f"{sums_path}: {rel}, a file of manifest.json, is not listed")
            if sums[rel] != digest:
                raise ChecksumError(f"{sums_path}: {rel} is listed with SHA-256 {sums[rel]}, manifest.json says {digest}")
        for rel, digest in sums.items():
            actual = _sha256(self.path / rel)
            if actual is None:
                raise ChecksumError(f"{self.path / rel}: missing (listed in SHA256SUMS)")
            if actual != digest:
                raise ChecksumError(f"{self.path / rel}: SHA-256 is {actual}, SHA256SUMS says {digest}: "
                                    "the file changed after motionprep wrote it")


def _sha256(path: Path) -> Optional[str]:
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except FileNotFoundError:
        return None
    return h.hexdigest()


def open_dataset(path: Union[str, "os.PathLike[str]"], verify: bool = False) -> Dataset:
    """Opens a dataset folder written by ``motionprep run`` or ``merge`` (manifest format_version 2),
    or the output of ``motionprep apply`` (``format`` ``motionprep.applied``, format_version 1), which
    opens as a dataset with one split, ``windows``, and ``is_applied`` true.

    Raises FileNotFoundError (no such folder), NotADirectoryError, :class:`NotADatasetError` (no
    readable motionprep manifest.json), :class:`FormatVersionError` (another format_version) and,
    with ``verify=True``, :class:`ChecksumError` (a data file differs from SHA256SUMS) and
    :class:`ConsistencyError` (a consistency rule of docs/validate.md is broken)."""
    root = Path(path)
    if not root.exists():
        raise FileNotFoundError(f"{root}: no such dataset folder")
    if not root.is_dir():
        raise NotADirectoryError(f"{root}: not a folder; a motionprep dataset is a folder with manifest.json")
    manifest_path = root / "manifest.json"
    if not manifest_path.is_file():
        hint = ""
        if Path(f"{root}.partial").exists():
            hint = f" ({root}.partial exists: a run into it has not finished)"
        raise NotADatasetError(f"{root}: no manifest.json, so not a motionprep dataset{hint}; write one with `motionprep run`")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise NotADatasetError(f"{manifest_path}: not valid JSON ({e})") from e
    if not isinstance(manifest, dict) or manifest.get("format") not in (FORMAT, APPLIED_FORMAT):
        found = manifest.get("format") if isinstance(manifest, dict) else type(manifest).__name__
        raise NotADatasetError(f"{manifest_path}: `format` is {found!r}, not {FORMAT!r} (or {APPLIED_FORMAT!r}, "
                               "the output of `motionprep apply`): not a motionprep dataset manifest")
    version = manifest.get("format_version")
    applied = manifest["format"] == APPLIED_FORMAT
    if applied and version != APPLIED_FORMAT_VERSION:
        raise FormatVersionError(f"{manifest_path}: format_version {version!r} of an applied output is not one this "
                                 f"package reads ({APPLIED_FORMAT_VERSION}); run `motionprep apply` again with the "
                                 "motionprep of this package")
    if not applied and version != FORMAT_VERSION:
        if isinstance(version, int) and not isinstance(version, bool) and version < FORMAT_VERSION:
            raise FormatVersionError(f"{manifest_path}: format_version {version} was written by an older motionprep; "
                                     f"this package reads version {FORMAT_VERSION}: rerun `motionprep run` to write the dataset again")
        raise FormatVersionError(f"{manifest_path}: format_version {version!r} is not one this package reads "
                                 f"({FORMAT_VERSION}); install the Python package of the motionprep that wrote it (`pip install ./python`)")
    missing = [k for k in ("storage", "splits", "arrays", "channels", "classes", "feature_names", "subjects", "recordings",
                           "source_dataset" if applied else "split_policy", "sample_rate_hz", "window_length",
                           "window_stride") if k not in manifest]
    if manifest.get("storage") == "createml":
        raise NotADatasetError(f"{manifest_path}: a Create ML folder (storage 'createml'): it holds CSV rows for Create ML's "
                               "activity classifier, not windows; read its CSVs, or write the dataset with `output.type: hdf5` "
                               "or `shards` (docs/dataset-format.md, \"Create ML folders\")")
    if missing or manifest.get("storage") not in ("hdf5", "shards"):
        what = f"lacks {', '.join(missing)}" if missing else f"has storage {manifest.get('storage')!r}"
        raise NotADatasetError(f"{manifest_path}: {what}; run `motionprep validate {root}`")
    ds = Dataset(root, manifest)
    if verify:
        ds.verify()
    return ds
