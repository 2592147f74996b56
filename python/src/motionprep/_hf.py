"""A Hugging Face datasets.Dataset of a motionprep split (imported only by Dataset.hf_dataset)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Iterator, Optional

import datasets
import numpy as np

from ._dataset import SPLITS, open_dataset

if TYPE_CHECKING:
    from ._dataset import Dataset, View


def _rows(path: str, split: str, fold: Optional[int], holdout: bool, normalize: bool, digests: str) -> Iterator[Dict[str, Any]]:
    # `digests` (the split files' SHA-256, joined) is not read: it is one of the generator's arguments, so
    # the Hugging Face cache fingerprint changes whenever the files do. It is a string, not a list:
    # from_generator would deal a list's items out as shards, one generator run each.
    ds = open_dataset(path)
    view = ds.folds(fold)[1 if holdout else 0] if fold is not None else ds.view(split)
    x_stats = ds._stats("x") if normalize else None
    f_stats = ds._stats("features") if normalize and ds.has_features else None
    for s in ds.iter_windows(view):
        meta = s["meta"]
        row: Dict[str, Any] = {"x": x_stats.apply(s["x"]) if x_stats else s["x"], "y": s["y"],
                               "subject": meta["subject"], "recording": meta["recording"],
                               "start_time_s": meta["start_time_s"], "window": s["window"]}
        if ds.has_y_seq:
            row["y_seq"] = s["y_seq"]
        if ds.has_features:
            row["features"] = f_stats.apply(s["features"]) if f_stats else s["features"]
        if ds.num_folds is not None:
            row["fold_index"] = meta["fold_index"]
        yield row


def build(ds: "Dataset", view: "View", normalize: bool, cache_dir: Optional[str]) -> Any:
    t, c = ds.manifest["arrays"]["x"]["shape"][1:]
    cols: Dict[str, Any] = {
        "x": datasets.Array2D(shape=(t, c), dtype="float32"),
        "y": datasets.ClassLabel(names=ds.classes) if ds.classes else datasets.Value("int64"),
    }
    if ds.has_y_seq:
        cols["y_seq"] = datasets.Sequence(datasets.Value("int64"), length=t)
    if ds.has_features:
        cols["features"] = datasets.Sequence(datasets.Value("float32"), length=len(ds.feature_names))
    cols.update({"subject": datasets.Value("string"), "recording": datasets.Value("string"),
                 "start_time_s": datasets.Value("float64")})
    if ds.num_folds is not None:
        cols["fold_index"] = datasets.Value("int32")
    cols["window"] = datasets.Value("int64")
    digests = " ".join(f["sha256"] for f in ds.manifest["splits"][view.split]["files"])
    out = datasets.Dataset.from_generator(
        _rows, features=datasets.Features(cols), cache_dir=cache_dir,
        gen_kwargs={"path": str(ds.path.resolve()), "split": view.split, "fold": view.fold, "holdout": view.holdout,
                    "normalize": normalize, "digests": digests},
        split=datasets.NamedSplit(view.split if view.split in SPLITS else "train"))
    if ds.storage == "shards":  # generated in the shards' shuffled order: put the rows in canonical order
        out = out.select(np.argsort(np.asarray(out["window"]), kind="stable")).flatten_indices()
    return out
