"""An independent numpy implementation of docs/inputs.md, "MotionCollector"; docs/signal.md, "Resampling and gaps" and "Windows and labels"; docs/dataset-format.md, "Splits and normalisation" for MotionCollector input,
used to check what motionprep writes. Written from the documentation in docs/, not from the Swift code."""
import csv
import math

import numpy as np

G = 9.80665
SENSORS = {
    "A": (["acc_x", "acc_y", "acc_z"], [G, G, G]),
    "G": (["gyro_x", "gyro_y", "gyro_z"], [1, 1, 1]),
    "M": (["mag_x", "mag_y", "mag_z"], [1, 1, 1]),
    "D": (["rot_x", "rot_y", "rot_z", "uacc_x", "uacc_y", "uacc_z", "pitch", "roll", "yaw"], [1, 1, 1, G, G, G, 1, 1, 1]),
}
MISSING = {"", "na", "n/a", "null", "nan", "inf", "-inf", "+inf", "infinity", "-infinity", "+infinity"}


def number(text):
    s = text.strip()
    if s.lower() in MISSING:
        return None
    v = float(s)
    return None if math.isinf(v) else v


def read_motioncollector(path):
    """Returns ({code: (times, values[n, c])}, label_events [(t, label)]) in file order."""
    streams = {code: ([], []) for code in SENSORS}
    events = []
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    for row in rows[1:]:
        if not row or all(not c.strip() for c in row):
            continue
        code, label, when = row[0].strip(), row[1].strip(), row[2]
        t = number(when)
        if t is None:
            continue
        if label:
            events.append((t, label))
        names, factors = SENSORS[code]
        vals = [number(v) for v in row[3:3 + len(names)]]
        if any(v is None for v in vals):
            continue
        streams[code][0].append(t)
        streams[code][1].append([v * k for v, k in zip(vals, factors)])
    out = {}
    for code, (ts, vs) in streams.items():
        t = np.asarray(ts, dtype=np.float64)
        v = np.asarray(vs, dtype=np.float64).reshape(len(ts), len(SENSORS[code][0]))
        # Equal times keep the last sample.
        keep = np.ones(len(t), dtype=bool)
        keep[:-1] = t[1:] != t[:-1]
        out[code] = (t[keep], v[keep])
    return out, events


def resample(streams, rate, max_gap):
    """Grid times, values [K, C] (float32 via float64 np.interp), valid mask [K]."""
    t0 = max(s[0][0] for s in streams)
    t1 = min(s[0][-1] for s in streams)
    # motionprep tightens the original contract's 1e-9 × max(1, |T1|) for epoch clocks (see ResampleGrid.swift).
    limit = t1 + max(1e-9 * max(1.0, abs(t1 - t0)), 4 * np.spacing(abs(t1)))
    k = np.arange(int(math.floor((limit - t0) * rate)) + 3)
    grid = t0 + k / rate
    grid = grid[grid <= limit]
    valid = np.ones(len(grid), dtype=bool)
    cols = []
    for t, v in streams:
        i = np.clip(np.searchsorted(t, grid, side="right") - 1, 0, len(t) - 2)
        valid &= (t[i + 1] - t[i]) <= max_gap
        for c in range(v.shape[1]):
            cols.append(np.interp(grid, t, v[:, c]))
    return grid, np.stack(cols, axis=1).astype(np.float32), valid


def segments(valid):
    out, k, n = [], 0, len(valid)
    while k < n:
        while k < n and not valid[k]:
            k += 1
        s = k
        while k < n and valid[k]:
            k += 1
        if k > s:
            out.append((s, k))
    return out


def window_starts(valid, length, stride):
    starts = []
    for a, b in segments(valid):
        s = a
        while s + length <= b:
            starts.append(s)
            s += stride
    return starts


def labels_at(events, grid):
    """Label in force at each grid time: the latest event at or before t (last in file order on ties)."""
    if not events:
        return [None] * len(grid)
    order = sorted(range(len(events)), key=lambda i: (events[i][0], i))
    times = np.array([events[i][0] for i in order])
    labs = [events[i][1] for i in order]
    idx = np.searchsorted(times, grid, side="right") - 1
    return [labs[i] if i >= 0 else None for i in idx]


def majority(points, min_fraction):
    counts, first = {}, {}
    for pos, l in enumerate(points):
        if l is None:
            continue
        counts[l] = counts.get(l, 0) + 1
        first.setdefault(l, pos)
    if not counts:
        return None, "no_label"
    best = sorted(counts, key=lambda l: (-counts[l], first[l]))[0]
    if counts[best] / len(points) < min_fraction:
        return None, "below_min_fraction"
    return best, None


def stable_unit(key):
    """u = (h >> 11) × 2^-53 of the key's FNV-1a-64 + splitmix64 hash."""
    return (stable_hash(key) >> 11) * 2.0 ** -53


def split_of(seed, subject, fractions=(0.7, 0.15, 0.15)):
    u = stable_unit(f"{seed}:{subject}")
    cum = 0.0
    for name, f in zip(("train", "validation", "test"), fractions):
        cum += f
        if u < cum:
            return name
    return "test"


def stable_hash(key):
    """FNV-1a-64 + splitmix64 of the UTF-8 key (the 64-bit value before the unit mapping)."""
    h = 0xCBF29CE484222325
    for b in key.encode("utf-8"):
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    z = h
    z ^= z >> 30
    z = (z * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z ^= z >> 27
    z = (z * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    z ^= z >> 31
    return z


def exact_splits(seed, subjects, fractions=(0.7, 0.15, 0.15), assign=None):
    """`allocation: exact`: unpinned subjects ordered by u get floor(f × n) each, the rest by
    largest remainder (ties train, validation, test)."""
    assign = assign or {}
    names = ("train", "validation", "test")
    free = sorted((s for s in set(subjects) if s not in assign), key=lambda s: (stable_unit(f"{seed}:{s}"), s.encode()))
    n = len(free)
    exact = [round(f * n * 1e9) / 1e9 for f in fractions]
    q = [int(e // 1) for e in exact]
    order = sorted(range(3), key=lambda i: (-(exact[i] - q[i]), i))
    for i in order[: n - sum(q)]:
        q[i] += 1
    out, k = {}, 0
    for name, quota in zip(names, q):
        for s in free[k:k + quota]:
            out[s] = name
        k += quota
    out.update(assign)
    return out


def folds_of(seed, train_subjects, k=None):
    """Train subjects ordered by the hash of "{seed}:fold:{subject}", dealt to folds 0..k-1;
    k = None is leave-one-out."""
    order = sorted(set(train_subjects), key=lambda s: (stable_hash(f"{seed}:fold:{s}"), s.encode()))
    k = len(order) if k is None else k
    return {s: i % max(k, 1) for i, s in enumerate(order)}
