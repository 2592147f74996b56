"""Reading WebDataset shards as motionprep writes them (docs/dataset-format.md, "Shards")."""
from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path
from typing import IO, Any, Dict, Iterator, Optional, Union

import numpy as np

#: One window of a shard: ``key`` (``train-000000042``), ``window`` (its number in the split's
#: canonical order), ``x`` float32 [T, C], ``y`` (class id, -1 unlabelled), ``features`` float32 [F]
#: or None, ``meta`` (the sample's JSON: subject, recording, start_time_s, label, fold_index); with
#: ``labels.per_sample`` also ``y_seq`` int64 [T] (each point's class id, -1 where none); in the
#: output of ``motionprep apply`` also ``x_normalized`` float32 [T, C] and ``features_normalized``
#: float32 [F].
Sample = Dict[str, Any]


def _zstd_reader(raw: IO[bytes]) -> IO[bytes]:
    try:
        import zstandard
    except ImportError:  # Python 3.14+ has zstd in the standard library
        try:
            from compression import zstd  # type: ignore[import-not-found,unused-ignore]
        except ImportError as e:
            raise ImportError("reading .tar.zst shards needs the `zstandard` package (pip install zstandard)") from e
        return zstd.ZstdFile(raw)  # type: ignore[no-any-return]
    return zstandard.ZstdDecompressor().stream_reader(raw)  # type: ignore[no-any-return]


def iter_shard(path: Union[str, Path]) -> Iterator[Sample]:
    """Yields every window of one shard (``.tar.zst`` or ``.tar``) in archive order, streaming:
    the archive is decompressed as it is read, one sample in memory at a time."""
    path = Path(path)
    with open(path, "rb") as raw:
        stream: IO[bytes] = _zstd_reader(raw) if path.name.endswith(".zst") else raw
        try:
            with tarfile.open(fileobj=stream, mode="r|") as tar:
                key: Optional[str] = None
                members: Dict[str, bytes] = {}
                for member in tar:
                    if not member.isfile():
                        continue
                    k, _, ext = member.name.partition(".")
                    if key is not None and k != key:
                        yield _sample(path, key, members)
                        members = {}
                    key = k
                    f = tar.extractfile(member)
                    members[ext] = f.read() if f is not None else b""
                if key is not None:
                    yield _sample(path, key, members)
        finally:
            if stream is not raw:
                stream.close()


def _sample(path: Path, key: str, members: Dict[str, bytes]) -> Sample:
    try:
        window = int(key.rsplit("-", 1)[1])
        x = np.load(io.BytesIO(members["x.npy"]), allow_pickle=False)
        y = int(members["y.cls"])
        meta = json.loads(members["json"])
    except (KeyError, IndexError, ValueError) as e:
        raise ValueError(f"{path}: sample {key!r} is not a motionprep window ({e!r}); "
                         "expected members .x.npy, .y.cls and .json (docs/dataset-format.md, \"Shards\")") from e
    feats = members.get("features.npy")
    sample: Sample = {"key": key, "window": window, "x": x, "y": y,
                      "features": np.load(io.BytesIO(feats), allow_pickle=False) if feats is not None else None,
                      "meta": meta}
    # `labels.per_sample`: each point's class; the output of `motionprep apply`: the window
    # normalised with the source dataset's statistics.
    for name in ("y_seq", "x_normalized", "features_normalized"):
        member = members.get(name + ".npy")
        if member is not None:
            sample[name] = np.load(io.BytesIO(member), allow_pickle=False)
    return sample
