"""The numpy half of the bench's peer jobs (bench/pandas_job.py, bench/pandas_usecols_job.py,
bench/polars_job.py): what comes after parsing, done the way a competent numpy/h5py user would, the
same for every peer so that only the CSV reader differs between them.

The pipeline is bench.py's end-to-end one (a walk-style pipeline): sensors A and G scaled to SI
units, linear resampling at 50 Hz on the streams' common span with 0.2 s gaps, windows of 128
samples every 64 inside gap-free runs, labels from rows (majority, at least 80 %), `acc_mag`, and
five features per channel (mean, std, min, max, rms), written with h5py with the chunking and
filters motionprep uses (shuffle + gzip 4 + fletcher32). docs/signal.md has the semantics.
"""
import multiprocessing as mp
import os
from concurrent.futures import ThreadPoolExecutor

import h5py
import numpy as np

# BENCH_CHAIN=uci: the UCI HAR chain of pipelines/uci-har-style.yaml with scipy (bench/uci_scipy_job.py).
CHAIN = os.environ.get("BENCH_CHAIN", "")

RATE, LENGTH, STRIDE, MAX_GAP, MIN_FRACTION = 50.0, 128, 64, 0.2, 0.8
G = 9.80665
SENSORS = ("A", "G")                       # in channel order: acc_x..z, gyro_x..z, then acc_mag
SCALE = {"A": G, "G": 1.0}                 # MotionCollector accelerometer rows are in g
CLASSES = {"W": 0, "T": 1}
FEATURES = ("mean", "std", "min", "max", "rms")
CHANNELS = ("acc_x", "acc_y", "acc_z", "gyro_x", "gyro_y", "gyro_z", "acc_mag")


def clean(t, v, code):
    """One sensor's rows as read (times, values [n, 3], float64): scaled, equal times keep the last."""
    keep = np.r_[t[1:] != t[:-1], True]
    return t[keep], v[keep] * SCALE[code]


def windows(streams, label_times, label_codes):
    """streams: [(t, v[n, 3])] for SENSORS in order; label_times (float64) and label_codes (int64:
    CLASSES of the Label column's text, -2 for a label that is not a class) of every labelled row,
    in file order. Returns x [n, 128, 7] float32, y [n] int64, features [n, 35] float32 and
    start_time_s [n] float64."""
    t0 = max(t[0] for t, _ in streams)
    t1 = min(t[-1] for t, _ in streams)
    limit = t1 + max(1e-9 * max(1.0, abs(t1 - t0)), 4 * np.spacing(abs(t1)))
    grid = t0 + np.arange(int((limit - t0) * RATE) + 3) / RATE
    grid = grid[grid <= limit]
    valid = np.ones(len(grid), bool)
    cols = []
    for t, v in streams:
        i = np.clip(np.searchsorted(t, grid, side="right") - 1, 0, len(t) - 2)
        valid &= (t[i + 1] - t[i]) <= MAX_GAP
        cols += [np.interp(grid, t, v[:, c]) for c in range(v.shape[1])]
    x = np.empty((len(grid), len(CHANNELS)), np.float32)
    x[:, :6] = np.stack(cols, axis=1)
    x[:, 6] = np.sqrt((x[:, :3].astype(np.float64) ** 2).sum(axis=1))
    if CHAIN == "uci":
        x = uci_chain(x, valid)
    # The label in force at each grid point: the latest labelled row at or before it (file order on ties).
    lv = np.asarray(label_codes, np.int64)
    order = np.argsort(label_times, kind="stable")
    idx = np.searchsorted(label_times[order], grid, side="right") - 1
    point = np.where(idx >= 0, lv[order][np.maximum(idx, 0)], -1) if len(lv) else np.full(len(grid), -1)
    # Windows inside runs of valid points; majority label, ties to the one that comes first.
    edges = np.flatnonzero(np.diff(np.r_[0, valid.astype(np.int8), 0]))
    starts = np.concatenate([np.arange(a, b - LENGTH + 1, STRIDE) for a, b in zip(edges[::2], edges[1::2])]
                            or [np.array([], np.int64)]).astype(np.int64)
    if len(starts) == 0:
        return empty()
    win = np.lib.stride_tricks.sliding_window_view(point, LENGTH)[starts]
    counts = np.stack([(win == c).sum(axis=1) for c in (0, 1)], axis=1)
    first = np.stack([np.where((win == c).any(axis=1), (win == c).argmax(axis=1), LENGTH) for c in (0, 1)], axis=1)
    best = np.where((counts[:, 1] > counts[:, 0]) | ((counts[:, 1] == counts[:, 0]) & (first[:, 1] < first[:, 0])), 1, 0)
    keep = counts[np.arange(len(best)), best] / LENGTH >= MIN_FRACTION
    starts = starts[keep]
    xs = np.ascontiguousarray(np.lib.stride_tricks.sliding_window_view(x, (LENGTH, x.shape[1]))[starts, 0])
    return xs, best[keep].astype(np.int64), features(xs), grid[starts]


def uci_chain(x, valid):
    """The UCI HAR chain (docs/signal.md, "Transforms"), per gap-free run of the grid, with scipy:
    median of 3 and a 3rd-order 20 Hz zero-phase low-pass (sosfiltfilt) on A and G, a 0.3 Hz
    low-pass splitting A into gravity and body, the jerk (first difference × rate) of body
    acceleration and gyroscope, and five magnitudes: 17 channels appended to the 7."""
    from scipy.ndimage import median_filter
    from scipy.signal import butter, sosfiltfilt
    low = butter(3, 20, btype="lowpass", fs=RATE, output="sos")
    grav = butter(3, 0.3, btype="lowpass", fs=RATE, output="sos")
    out = np.zeros((len(x), x.shape[1] + 17), np.float32)
    out[:, :x.shape[1]] = x
    edges = np.flatnonzero(np.diff(np.r_[0, valid.astype(np.int8), 0]))
    for a, b in zip(edges[::2], edges[1::2]):
        if b - a < 3 * 12:  # too short for sosfiltfilt's padding: no windows there either
            continue
        ag = median_filter(x[a:b, :6].astype(np.float64), size=(3, 1), mode="nearest")
        ag = sosfiltfilt(low, ag, axis=0)
        gravity = sosfiltfilt(grav, ag[:, :3], axis=0)
        body = ag[:, :3] - gravity
        jerk = np.vstack([np.zeros((1, 6)), np.diff(np.hstack([body, ag[:, 3:]]), axis=0) * RATE])
        mags = [np.sqrt((m ** 2).sum(axis=1)) for m in (body, gravity, jerk[:, :3], ag[:, 3:], jerk[:, 3:])]
        out[a:b, :6] = ag
        out[a:b, 7:] = np.hstack([body, gravity, jerk, np.stack(mags, axis=1)])
    return out


def features(xs):
    """mean, std, min, max, rms of every channel of float32 windows, computed in float64."""
    w = xs.astype(np.float64)
    mean = w.mean(axis=1)
    f = np.stack([mean, w.std(axis=1), xs.min(axis=1), xs.max(axis=1), np.sqrt((w * w).mean(axis=1))], axis=2)  # [n, channel, feature]
    return f.reshape(len(xs), -1).astype(np.float32)


def empty():
    ch = len(CHANNELS) + (17 if CHAIN == "uci" else 0)
    return (np.zeros((0, LENGTH, ch), np.float32), np.zeros(0, np.int64),
            np.zeros((0, ch * len(FEATURES)), np.float32), np.zeros(0))


def run(process, files, data, out, jobs, pool="processes"):
    """process(path) -> windows(...) for each file, `jobs` at a time (a process pool, or a thread
    pool for readers that release the GIL and are multi-threaded themselves), then one HDF5 file."""
    if pool == "processes":
        with mp.Pool(jobs) as p:
            results = p.map(process, files, chunksize=1)
    else:
        with ThreadPoolExecutor(jobs) as p:
            results = list(p.map(process, files))
    write(out, files, data, results)
    return sum(len(r[1]) for r in results)


def write(out, files, data, results):
    os.makedirs(out, exist_ok=True)
    x = np.concatenate([r[0] for r in results])
    ch = x.shape[2]
    names = list(CHANNELS) + ([f"uci_{i}" for i in range(ch - len(CHANNELS))])
    nf = ch * len(FEATURES)
    with h5py.File(os.path.join(out, "all.h5"), "w", libver=("v108", "v108"), track_order=False) as f:
        opts = dict(shuffle=True, compression="gzip", compression_opts=4, fletcher32=True, track_times=False)
        f.create_dataset("x", data=x, chunks=(max(1, 65536 // (LENGTH * ch * 4)), LENGTH, ch),
                         maxshape=(None, LENGTH, ch), **opts)
        del x
        f.create_dataset("features", data=np.concatenate([r[2] for r in results]),
                         chunks=(max(1, 65536 // (nf * 4)), nf), maxshape=(None, nf), **opts)
        for name, k, dtype in (("y", 1, np.int64), ("start_time_s", 3, np.float64)):
            f.create_dataset(name, data=np.concatenate([r[k] for r in results]).astype(dtype), chunks=(4096,),
                             maxshape=(None,), **opts)
        ridx = np.concatenate([np.full(len(r[1]), i, np.int32) for i, r in enumerate(results)])
        f.create_dataset("recording_index", data=ridx, chunks=(4096,), maxshape=(None,), **opts)
        f.attrs["recording_names"] = [os.path.splitext(os.path.relpath(p, data))[0] for p in files]
        f.attrs["channel_names"] = names


def codes_pandas(labels):
    """A pandas Series of label texts (no missing ones) → CLASSES codes (-2 for a label that is not
    a class); a categorical one through its categories."""
    if hasattr(labels, "cat"):
        table = np.array([CLASSES.get(str(c).strip(), -2) for c in labels.cat.categories], np.int64)
        return table[labels.cat.codes.to_numpy()]
    return labels.str.strip().map(CLASSES).fillna(-2).to_numpy(np.int64)


def from_pandas(df):
    """The pipeline from a DataFrame with columns Source, Label, When, X, Y, Z (both pandas jobs)."""
    df = df.dropna(subset=["When"])
    streams = []
    for code in SENSORS:
        s = df[df["Source"] == code].dropna(subset=["X", "Y", "Z"])
        streams.append(clean(s["When"].to_numpy(), s[["X", "Y", "Z"]].to_numpy(), code))
    lab = df[df["Label"].notna()]
    return windows(streams, lab["When"].to_numpy(), codes_pandas(lab["Label"]))
