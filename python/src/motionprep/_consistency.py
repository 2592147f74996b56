"""The consistency rules of docs/validate.md ("Consistency rules") that ``Dataset.verify()`` checks:
C1 (split_policy is the pipeline's), C2 (classes are the pipeline's, in every file), C3 (the chain is
the pipeline's), C4 (an HDF5 file holds only what the format defines), C5 (no window in two splits),
C6 (windows of a recording start later and later) and C8 (with ``labels.per_sample``: ``y`` is
what the label policy gives from ``y_seq``). C7 (features recomputed from x) is
``motionprep validate``'s only: it needs MotionFeatures, the code the run computes them with, bit for
bit (docs/python.md).

Each rule raises :class:`ConsistencyError` with one sentence naming the rule, the file (or
``manifest.json`` and the key path), the window where there is one, the value found and what is
expected. The data files are read one block of 4096 rows (HDF5) or one sample (shards) at a time;
per window only a 16-byte digest of ``x`` (C5), its number, recording index and start time (C6)
are kept: about 230 bytes a window in Python objects."""
from __future__ import annotations

import hashlib
import json
from array import array
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Tuple

import numpy as np

from ._errors import ConsistencyError
from ._shards import iter_shard

if TYPE_CHECKING:
    from ._dataset import Dataset

RULES = 'docs/validate.md, "Consistency rules"'
INT64_MAX = 2 ** 63 - 1
BLOCK = 4096

#: The root attributes of an HDF5 file (docs/dataset-format.md, "HDF5 files"); nothing else is written.
HDF5_ATTRIBUTES = ("format", "format_version", "split", "sample_rate_hz", "window_length", "window_stride",
                   "channel_names", "channel_units", "class_names", "feature_names", "subject_names", "recording_names")


def _fail(where: Path, rule: str, sentence: str) -> ConsistencyError:
    return ConsistencyError(f"{where}: rule {rule} ({RULES}): {sentence}")


def _show(v: Any) -> str:
    if isinstance(v, str):
        return f'"{v}"'
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    return repr(v)


def _names(items: List[str]) -> str:
    return "[" + ", ".join(f'"{n}"' for n in items) + "]"


def _number(v: Any) -> Optional[float]:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _integer(v: Any) -> Optional[int]:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v == int(v) and abs(v) < 9.2e18:
        return int(v)
    return None


# ----- C1, C2, C3: the manifest against pipeline.resolved


def check_manifest(ds: "Dataset") -> None:
    """C1, the manifest's part of C2, and C3 (a manifest without `chain` is not compared)."""
    where = ds.path / "manifest.json"
    resolved = ds.manifest.get("pipeline", {}).get("resolved") if isinstance(ds.manifest.get("pipeline"), dict) else None
    if not isinstance(resolved, dict):
        raise _fail(where, "C1", "`pipeline.resolved` is missing or not an object, so `split_policy` and `classes` "
                                 "cannot be traced to the pipeline")
    if ds.is_applied:
        # An applied output has no split policy; it names its pipeline twice, and both must agree.
        source = ds.source_dataset or {}
        pipeline_sha = ds.manifest.get("pipeline", {}).get("sha256")
        if source.get("pipeline_sha256") != pipeline_sha:
            raise _fail(where, "C1", f"`source_dataset.pipeline_sha256` is {_show(source.get('pipeline_sha256'))}, but "
                                     f"`pipeline.sha256` is {_show(pipeline_sha)}: an applied output is made with its "
                                     "source dataset's pipeline")
    else:
        _check_split_policy(where, ds.manifest.get("split_policy") or {}, resolved.get("split"))
    _check_classes(where, list(ds.manifest.get("classes") or []), resolved.get("labels"))
    chain = ds.manifest.get("chain")
    if isinstance(chain, dict):
        _check_chain(where, chain, resolved)


def _check_split_policy(where: Path, p: Dict[str, Any], s: Any) -> None:
    if not isinstance(s, dict):
        raise _fail(where, "C1", "`pipeline.resolved.split` is missing or not an object, so `split_policy` cannot be "
                                 "traced to the pipeline")

    def differ(key: str, policy: Any, resolved: Any) -> ConsistencyError:
        return _fail(where, "C1", f"`split_policy.{key}` is {_show(policy)}, but `pipeline.resolved.split.{key}` is "
                                  f"{_show(resolved)}: the split policy must be the pipeline's")

    if isinstance(s.get("by"), str) and s["by"] != p.get("by"):
        raise differ("by", p.get("by"), s["by"])
    seed, policy_seed = _integer(s.get("seed")), _integer(p.get("seed"))
    # The resolved pipeline clamps a seed above 2^63 - 1; split_policy keeps its bit pattern (negative).
    if seed is not None and seed != policy_seed and not (seed == INT64_MAX and policy_seed is not None and policy_seed < 0):
        raise differ("seed", p.get("seed"), s["seed"])
    fractions = s.get("fractions")
    if isinstance(fractions, dict):
        for name in ("train", "validation", "test"):
            r = _number(fractions.get(name))
            mine = (p.get("fractions") or {}).get(name)
            if r is not None and r != _number(mine):
                raise differ(f"fractions.{name}", mine, fractions[name])
    if isinstance(s.get("allocation"), str) and s["allocation"] != p.get("allocation", "hash"):
        raise differ("allocation", p.get("allocation", "hash"), s["allocation"])
    loo = bool(p.get("leave_one_out", False))
    if isinstance(s.get("leave_one_out"), bool) and s["leave_one_out"] != loo:
        raise differ("leave_one_out", loo, s["leave_one_out"])
    # With leave_one_out the manifest's folds is the number of train subjects, not the pipeline's.
    if not loo and "folds" in s:
        folds = s["folds"]
        if folds is None and p.get("folds") is not None:
            raise differ("folds", p["folds"], None)
        if _integer(folds) is not None and _integer(folds) != p.get("folds"):
            raise differ("folds", p.get("folds", "absent"), folds)
    if isinstance(s.get("assign"), dict):
        resolved_assign = {k: sorted(n for n in v if isinstance(n, str)) for k, v in s["assign"].items() if isinstance(v, list)}
        policy_assign = {k: sorted(v) for k, v in (p.get("assign") or {}).items()}
        if resolved_assign != policy_assign:
            raise differ("assign", policy_assign, resolved_assign)


def _check_classes(where: Path, classes: List[str], labels: Any) -> None:
    if isinstance(labels, dict):
        names = labels.get("classes")
        if isinstance(names, list):
            names = [n for n in names if isinstance(n, str)]
            if names != classes:
                raise _fail(where, "C2", f"`classes` is {_names(classes)}, but `pipeline.resolved.labels.classes` is "
                                         f"{_names(names)}: the classes must be the pipeline's, in its order")
    elif labels is None and classes:
        raise _fail(where, "C2", f"`classes` is {_names(classes)}, but `pipeline.resolved.labels` is null (no labels): "
                                 "an unlabelled dataset has no classes")


#: `pipeline.resolved` step kind -> the `op` it becomes in `chain.transforms` (DatasetConsistency.chainOp).
CHAIN_OP = {"median": "median", "butterworth": "filter", "gravity": "gravity", "derivative": "derivative",
            "magnitude": "magnitude", "calibrate": "calibrate"}


def _same(a: Any, b: Any) -> bool:
    """JSON values equal, numbers by value (3 is 3.0), a bool never a number."""
    if _number(a) is not None and _number(b) is not None:
        return _number(a) == _number(b)
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _show_json(v: Any) -> str:
    if isinstance(v, str) or v is None:
        return _show(v)
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def _check_chain(where: Path, c: Dict[str, Any], resolved: Dict[str, Any]) -> None:
    """C3, as DatasetConsistency.chainProblems (MotionDataset) states it."""
    if "implementation" in c:
        impl = c["implementation"]
        if not isinstance(impl, dict):
            raise _fail(where, "C3", "`chain.implementation` must be an object of stage names and version numbers "
                                     "(docs/dataset-format.md, \"Implementation versions\")")
        for key in sorted(impl, key=lambda k: k.encode()):
            v = impl[key]
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 2**31 - 1:
                raise _fail(where, "C3", f"`chain.implementation` `{key}` must be a whole number of at least 1, not "
                                         f"{_show_json(v)} (docs/dataset-format.md, \"Implementation versions\")")
    resample = resolved.get("resample") if isinstance(resolved.get("resample"), dict) else {}
    a, r = c.get("antialias"), resample.get("antialias")
    if isinstance(a, bool) and isinstance(r, bool) and a != r:
        raise _fail(where, "C3", f"`chain.antialias` is {_show(a)}, but `pipeline.resolved.resample.antialias` is "
                                 f"{_show(r)}: the chain must be the pipeline's")
    # `antialias_from`: absent is "recording" in both (a dataset written before the key).
    if a is True:
        af, rf = c.get("antialias_from", "recording"), resample.get("antialias_from", "recording")
        if not _same(af, rf):
            raise _fail(where, "C3", f"`chain.antialias_from` is {_show_json(af)}, but "
                                     f"`pipeline.resolved.resample.antialias_from` is {_show_json(rf)} "
                                     "(absent: \"recording\"): the chain must be the pipeline's")
    # Each stream's method and max_gap_s: the resolved pipeline's override for its name, else the default.
    streams = c.get("streams")
    if isinstance(streams, list):
        for i, st in enumerate(streams):
            if not isinstance(st, dict) or not isinstance(st.get("name"), str):
                continue
            name = st["name"]
            for key in ("method", "max_gap_s"):
                per = resample.get(key)
                if not isinstance(per, dict):
                    continue
                expected = per[name] if name in per else per.get("default")
                if (name not in per and "default" not in per) or key not in st:
                    continue
                if not _same(st[key], expected):
                    raise _fail(where, "C3", f"`chain.streams[{i}].{key}` (stream `{name}`) is {_show_json(st[key])}, but "
                                             f"`pipeline.resolved.resample.{key}` gives {_show_json(expected)} for it: "
                                             "the chain must be the pipeline's")
    steps: List[Tuple[str, Dict[str, Any]]] = []
    items = resolved.get("transforms")
    if isinstance(items, list):
        for item in items:
            if not isinstance(item, dict) or len(item) != 1:
                continue
            kind, body = next(iter(item.items()))
            steps.append((CHAIN_OP.get(kind, kind), body if isinstance(body, dict) else {}))
    chain_steps = c.get("transforms")
    if isinstance(chain_steps, list):
        ops = [s["op"] if isinstance(s, dict) and isinstance(s.get("op"), str) else "?" for s in chain_steps]
        if ops != [op for op, _ in steps]:
            raise _fail(where, "C3", f"`chain.transforms` runs {_names(ops)}, but `pipeline.resolved.transforms` gives "
                                     f"{_names([op for op, _ in steps])}: the chain must be the pipeline's")
        for i, (s, (_, body)) in enumerate(zip(chain_steps, steps)):
            if not isinstance(s, dict):
                continue
            for key in ("zero_phase", "samples"):
                if key in s and key in body and not _same(s[key], body[key]):
                    raise _fail(where, "C3", f"`chain.transforms[{i}].{key}` is {_show_json(s[key])}, but "
                                             f"`pipeline.resolved.transforms[{i}]` gives {_show_json(body[key])}: the "
                                             "chain must be the pipeline's")


# ----- C2 (files), C4, C5, C6: the data files


class _Windows:
    """What C6 keeps per window of a split: its number, recording (index), start time and file."""

    def __init__(self) -> None:
        self.windows = array("q")
        self.recordings = array("q")
        self.starts = array("d")
        self.files = array("l")


def check_files(ds: "Dataset") -> None:
    """C2 and C4 per file, then C5 across the splits and C6 within each."""
    # C5: per digest of an `x`, the first window with it: (split, file, window), as small ints.
    owner: Dict[bytes, Tuple[int, int, int]] = {}
    recording_index: Dict[str, int] = {r: i for i, r in enumerate(ds.recordings)}
    names: List[str] = list(ds.recordings)
    for si, split in enumerate(ds.splits):
        files = ds.files(split)
        seen = _Windows()
        offsets = ds.window_offsets(split) if ds.storage == "shards" else None
        first = 0   # HDF5: the split's number of the file's first row (a partitioned split has several files)
        for fi, path in enumerate(files):
            rows = _hdf5_file(ds, path, names) if ds.storage == "hdf5" else _shard_file(ds, path, recording_index, names)
            shift = first if offsets is None else offsets[fi]
            count = 0
            for window, recording, start, digest in rows:
                window += shift
                count += 1
                other = owner.setdefault(digest, (si, fi, window))
                if other[0] != si:
                    o_split = ds.splits[other[0]]
                    raise _fail(path, "C5", f"{_window_name(ds, split, window)} of split `{split}` has the same `x` (bit "
                                            f"for bit) as {_window_name(ds, o_split, other[2])} of "
                                            f"{ds.files(o_split)[other[1]]} in split `{o_split}`: a window in two splits "
                                            "leaks between training and evaluation")
                seen.windows.append(window)
                seen.recordings.append(recording)
                seen.starts.append(start)
                seen.files.append(fi)
            first += count
        _check_time_order(ds, split, files, seen, names)


def _window_name(ds: "Dataset", split: str, window: int) -> str:
    return f"window {window}" if ds.storage == "hdf5" else f"window {window} (sample `{split}-{window:09d}`)"


def _check_time_order(ds: "Dataset", split: str, files: List[Path], seen: _Windows, names: List[str]) -> None:
    """C6: in window order, each window of a recording starts later than the one before it."""
    order = np.argsort(np.frombuffer(seen.windows, np.int64), kind="stable")
    last: Dict[int, Tuple[float, int]] = {}
    for j in order:
        rec, t, w = seen.recordings[j], seen.starts[j], seen.windows[j]
        if not np.isfinite(t):
            continue
        previous = last.get(rec)
        if previous is not None and not t > previous[0]:
            raise _fail(files[seen.files[j]], "C6",
                        f"`start_time_s` goes back within recording `{names[rec]}`: {_window_name(ds, split, w)} starts at {t!r} s, "
                        f"but {_window_name(ds, split, previous[1])}, the window before it in that recording, starts at "
                        f"{previous[0]!r} s; each window of a recording must start later than the one before it")
        last[rec] = (t, w)


def _per_sample_rule(ds: "Dataset") -> Optional[Tuple[str, float]]:
    """(policy, min_fraction) of a dataset made with ``labels.per_sample``, else None."""
    labels = (ds.manifest.get("pipeline", {}).get("resolved") or {}).get("labels")
    if not isinstance(labels, dict) or labels.get("per_sample") is not True:
        return None
    return str(labels.get("policy")), float(_number(labels.get("min_fraction")) or 0.5)


def _check_y_seq(ds: "Dataset", path: Path, where: str, y: int, seq: np.ndarray, rule: Tuple[str, float]) -> None:
    """C8: ``y`` is what the label policy gives from ``y_seq`` (the checks of validate's
    `labels.per_sample`: values are class ids or -1; center and pure decided by y_seq; majority
    for a labelled window)."""
    k, t = len(ds.classes), len(seq)
    bad = np.flatnonzero((seq < -1) | (seq >= k))
    if len(bad):
        raise _fail(path, "C8", f"{where}: `y_seq` holds {int(seq[bad[0]])} at time step {int(bad[0])}; a point's class "
                                f"id is 0 to {k - 1}, or -1 where it has none")
    policy, min_fraction = rule
    expected: Optional[int] = None
    if policy == "center":
        expected = int(seq[t // 2])
    elif policy == "pure":
        expected = int(seq[0]) if (seq == seq[0]).all() else -1
    elif y >= 0:
        counts = [int((seq == c).sum()) for c in range(k)]
        firsts = [int(np.argmax(seq == c)) if counts[c] else t for c in range(k)]
        best = max(range(k), key=lambda c: (counts[c], -firsts[c]))
        if best != y or counts[y] == 0 or counts[y] / t < min_fraction:
            raise _fail(path, "C8", f"{where}: `y` is {y}, but `policy: majority` (min_fraction {min_fraction!r}) gives "
                                    f"{best if counts[best] / t >= min_fraction else 'no class'} from its `y_seq` "
                                    f"({counts[best]} of {t} points)")
    if expected is not None and expected != y:
        raise _fail(path, "C8", f"{where}: `y` is {y}, but `policy: {policy}` gives {expected} from its `y_seq`")


def _digest(row: np.ndarray) -> bytes:
    return hashlib.blake2b(np.ascontiguousarray(row, dtype="<f4").tobytes(), digest_size=16).digest()


def _text_list(value: Any) -> List[str]:
    return [v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in np.asarray(value).reshape(-1)]


def _hdf5_file(ds: "Dataset", path: Path, names: List[str]) -> Iterator[Tuple[int, int, float, bytes]]:
    """C4 and C2 of one HDF5 file, then (window, recording, start, digest of x) per row."""
    import h5py
    with h5py.File(path, "r") as f:
        # C4: only the format's root attributes, only datasets (no groups or links), none with attributes.
        for name in f.attrs:
            # `qa_columns` only with the pipeline's `qa` (docs/dataset-format.md, "HDF5 files").
            if name == "qa_columns" and ds.qa_columns:
                if _text_list(f.attrs[name]) != list(ds.qa_columns):
                    raise _fail(path, "C4", f"root attribute `qa_columns` is {_names(_text_list(f.attrs[name]))}, but the "
                                            f"manifest's `qa.columns` is {_names(list(ds.qa_columns))}")
                continue
            if name not in HDF5_ATTRIBUTES:
                raise _fail(path, "C4", f"holds a root attribute `{name}` that the format does not define "
                                        "(docs/dataset-format.md, \"HDF5 files\"); motionprep writes no other")
        arrays = set(ds.manifest["arrays"])
        for name in f:
            link = f.get(name, getlink=True)
            if not isinstance(link, h5py.HardLink):
                raise _fail(path, "C4", f"holds `{name}` as a {type(link).__name__}, which the format does not define "
                                        "(only datasets at the root)")
            obj = f[name]
            if not isinstance(obj, h5py.Dataset):
                raise _fail(path, "C4", f"holds `{name}`, a {type(obj).__name__}, where the format has only datasets")
            if name not in arrays:
                raise _fail(path, "C4", f"holds an array `{name}` that the manifest does not list")
            for attr in obj.attrs:
                raise _fail(path, "C4", f"dataset `{name}` holds an attribute `{attr}` that the format does not define "
                                        "(docs/dataset-format.md, \"HDF5 files\": datasets carry no attributes)")
        # C2: the file's class names are the manifest's.
        if "class_names" in f.attrs:
            names = _text_list(f.attrs["class_names"])
            if names != list(ds.classes):
                raise _fail(path, "C2", f"root attribute `class_names` is {_names(names)}, but the manifest's `classes` "
                                        f"is {_names(list(ds.classes))}")
        x, rec, start = f["x"], f["recording_index"], f["start_time_s"]
        n = len(x)
        rule = _per_sample_rule(ds)
        if rule is not None and "y_seq" in f:
            y_all, seqs = f["y"], f["y_seq"]
            for lo in range(0, n, BLOCK):
                ys, ss = y_all[lo:lo + BLOCK], seqs[lo:lo + BLOCK]
                for j in range(len(ys)):
                    _check_y_seq(ds, path, f"window {lo + j}", int(ys[j]), ss[j], rule)
        for lo in range(0, n, BLOCK):
            xs, rs, ts = x[lo:lo + BLOCK], rec[lo:lo + BLOCK], start[lo:lo + BLOCK]
            for k in range(len(xs)):
                r = int(rs[k])
                if not 0 <= r < len(ds.recordings):   # indices.range, validate's; named here for C6
                    names.append(f"#{r}")
                    r = len(names) - 1
                yield lo + k, r, float(ts[k]), _digest(xs[k])


def _shard_file(ds: "Dataset", path: Path, recording_index: Dict[str, int],
                names: List[str]) -> Iterator[Tuple[int, int, float, bytes]]:
    """C2 of each sample of one shard, and (window, recording, start, digest of x) per sample."""
    classes = list(ds.classes)
    rule = _per_sample_rule(ds)
    for s in iter_shard(path):
        y, meta = s["y"], s["meta"]
        if rule is not None and s.get("y_seq") is not None:
            _check_y_seq(ds, path, f"window {s['window']} (sample `{s['key']}`)", y, s["y_seq"], rule)
        expected = classes[y] if 0 <= y < len(classes) else None
        if meta.get("label") != expected:
            raise _fail(path, "C2", f"sample `{s['key']}` has the label {_show(meta.get('label'))} in its `json`, but its "
                                    f"`y.cls` {y} is {'class ' + _show(expected) if expected is not None else 'no class'}")
        recording = str(meta.get("recording"))
        r = recording_index.get(recording)
        if r is None:
            r = recording_index[recording] = len(names)
            names.append(recording)
        yield s["window"], r, float(meta.get("start_time_s", float("nan"))), _digest(s["x"])
