"""The walk pipeline done the way a competent pandas/numpy/h5py user would: multiprocessing over
recordings, pandas' C CSV reader, vectorised numpy resampling/windowing/labelling, h5py output
with the same chunking and filters (shuffle + gzip 4 + fletcher32). Used by bench.py as the
baseline; it implements the same semantics as pipelines/walk.yaml without antialias/features."""
import glob
import multiprocessing as mp
import os
import sys

import h5py
import numpy as np
import pandas as pd

RATE, LENGTH, STRIDE, MAX_GAP, MIN_FRACTION = 50.0, 128, 64, 0.2, 0.8
G = 9.80665
COLS = {"A": ["X", "Y", "Z"], "G": ["X", "Y", "Z"], "M": ["X", "Y", "Z"],
        "D": ["X", "Y", "Z", "UA_X", "UA_Y", "UA_Z", "Pitch", "Roll", "Yaw"]}
SCALE = {"A": [G] * 3, "G": [1] * 3, "M": [1] * 3, "D": [1, 1, 1, G, G, G, 1, 1, 1]}
CLASSES = {"W": 0, "T": 1}


def process(path):
    df = pd.read_csv(path, skipinitialspace=True, engine="c")
    df = df.dropna(subset=["When"])
    streams = []
    for code in "AGMD":
        s = df[df["Source"] == code].dropna(subset=COLS[code])
        t = s["When"].to_numpy()
        v = s[COLS[code]].to_numpy() * np.array(SCALE[code])
        keep = np.r_[t[1:] != t[:-1], True]
        streams.append((t[keep], v[keep]))
    t0 = max(t[0] for t, _ in streams)
    t1 = min(t[-1] for t, _ in streams)
    grid = t0 + np.arange(int((t1 - t0) * RATE) + 2) / RATE
    grid = grid[grid <= t1 + max(1e-9 * max(1, abs(t1 - t0)), 4 * np.spacing(abs(t1)))]
    valid = np.ones(len(grid), bool)
    cols = []
    for t, v in streams:
        i = np.clip(np.searchsorted(t, grid, side="right") - 1, 0, len(t) - 2)
        valid &= (t[i + 1] - t[i]) <= MAX_GAP
        cols += [np.interp(grid, t, v[:, c]) for c in range(v.shape[1])]
    x = np.stack(cols, axis=1).astype(np.float32)
    lab = df[df["Label"].notna()]
    lt, lv = lab["When"].to_numpy(), lab["Label"].map(CLASSES).fillna(-2).to_numpy().astype(np.int64)
    order = np.argsort(lt, kind="stable")
    idx = np.searchsorted(lt[order], grid, side="right") - 1
    point = np.where(idx >= 0, lv[order][np.maximum(idx, 0)], -1)
    # Windows inside runs of valid points.
    edges = np.flatnonzero(np.diff(np.r_[0, valid.astype(np.int8), 0]))
    starts = np.concatenate([np.arange(a, b - LENGTH + 1, STRIDE) for a, b in zip(edges[::2], edges[1::2])] or [np.array([], int)])
    if len(starts) == 0:
        return np.zeros((0, LENGTH, x.shape[1]), np.float32), np.zeros(0, np.int64)
    win = np.lib.stride_tricks.sliding_window_view(point, LENGTH)[starts]
    counts = np.stack([(win == c).sum(axis=1) for c in (0, 1)], axis=1)
    first = np.stack([np.where((win == c).any(axis=1), (win == c).argmax(axis=1), LENGTH) for c in (0, 1)], axis=1)
    best = np.where((counts[:, 1] > counts[:, 0]) | ((counts[:, 1] == counts[:, 0]) & (first[:, 1] < first[:, 0])), 1, 0)
    keep = counts[np.arange(len(best)), best] / LENGTH >= MIN_FRACTION
    xs = np.lib.stride_tricks.sliding_window_view(x, (LENGTH, x.shape[1]))[starts[keep], 0]
    return np.ascontiguousarray(xs), best[keep].astype(np.int64)


def main(data, out, jobs):
    files = sorted(glob.glob(os.path.join(data, "**", "*.csv"), recursive=True))
    with mp.Pool(jobs) as pool:
        results = pool.map(process, files, chunksize=1)
    os.makedirs(out, exist_ok=True)
    x = np.concatenate([r[0] for r in results])
    y = np.concatenate([r[1] for r in results])
    with h5py.File(os.path.join(out, "all.h5"), "w", libver=("v108", "v108"), track_order=False) as f:
        rows = max(1, 65536 // (LENGTH * x.shape[2] * 4))
        f.create_dataset("x", data=x, chunks=(rows, LENGTH, x.shape[2]), maxshape=(None, LENGTH, x.shape[2]),
                         shuffle=True, compression="gzip", compression_opts=4, fletcher32=True, track_times=False)
        f.create_dataset("y", data=y, chunks=(4096,), maxshape=(None,), shuffle=True, compression="gzip",
                         compression_opts=4, fletcher32=True, track_times=False)
    print(len(y))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
