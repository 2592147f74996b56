"""Checks the antialias filter and every feature of docs/signal.md, "Features" end to end: motionprep's HDF5 output
against scipy (sosfiltfilt + np.interp) and numpy/scipy.stats recomputed from the stored x."""
import numpy as np
import pytest
import scipy.signal as ss
import scipy.stats as st
import h5py

import reference as ref
from conftest import motionprep

RATE, LENGTH, STRIDE, MAX_GAP = 25.0, 64, 32, 0.2
FEATURES = ["mean", "std", "var", "min", "max", "range", "median", "iqr", "rms", "mad", "skew", "kurtosis",
            "zero_crossings", "energy", "dominant_freq_hz", "spectral_entropy", "spectral_centroid_hz", "corr"]

PIPELINE = f"""\
version: 1
name: features
inputs:
  - type: motioncollector
    paths: ["data/**/*.csv"]
    sensors: [A, G]
resample: {{rate_hz: {RATE}, max_gap_s: {MAX_GAP}}}
window: {{length_samples: {LENGTH}, stride_samples: {STRIDE}}}
features: [{", ".join(FEATURES)}]
magnitude: [acc]
split: {{fractions: {{train: 1.0, validation: 0.0, test: 0.0}}}}
output: {{type: hdf5, path: feat}}
"""


@pytest.fixture(scope="module")
def dataset(walk_data):
    (walk_data / "features.yaml").write_text(PIPELINE)
    motionprep("run", walk_data / "features.yaml", "--quiet")
    return walk_data / "feat"


@pytest.fixture(scope="module")
def dataset_recording(walk_data):
    """The pipeline with `antialias_from: recording`: the filter from the whole recording's median."""
    (walk_data / "features_rec.yaml").write_text(
        PIPELINE.replace(f"max_gap_s: {MAX_GAP}}}", f"max_gap_s: {MAX_GAP}, antialias_from: recording}}")
                .replace("path: feat}", "path: feat_rec}"))
    motionprep("run", walk_data / "features_rec.yaml", "--quiet")
    return walk_data / "feat_rec"


def antialias(t, v, leading=True):
    """docs/signal.md, "Anti-aliasing": the median of the first 256 intervals (`antialias_from: leading`,
    the default) or of all of them (`recording`), of the times after the time rules."""
    d = np.diff(t)
    median = np.median(d[:256] if leading else d)
    if not median < 0.9 / RATE:
        return v
    sos = ss.butter(4, 0.4 * RATE, fs=1.0 / median, output="sos")
    out = v.copy()
    cuts = np.flatnonzero(d > MAX_GAP) + 1
    for a, b in zip(np.r_[0, cuts], np.r_[cuts, len(t)]):
        if b - a > 15:
            out[a:b] = ss.sosfiltfilt(sos, v[a:b], axis=0)
    return out


@pytest.mark.parametrize("antialias_from", ["leading", "recording"])
def test_antialiased_x_matches_scipy(walk_data, request, antialias_from):
    dataset = request.getfixturevalue("dataset" if antialias_from == "leading" else "dataset_recording")
    with h5py.File(dataset / "train.h5") as f:
        x, ridx, starts = f["x"][...], f["recording_index"][...], f["start_time_s"][...]
        recordings = list(f.attrs["recording_names"])
    checked = 0
    for path in sorted((walk_data / "data").glob("**/*.csv")):
        streams, _ = ref.read_motioncollector(path)
        filtered = [(t, antialias(t, v, antialias_from == "leading")) for t, v in (streams["A"], streams["G"])]
        grid, values, valid = ref.resample(filtered, RATE, MAX_GAP)
        acc_mag = np.sqrt((values[:, :3].astype(np.float64) ** 2).sum(axis=1)).astype(np.float32)
        values = np.concatenate([values, acc_mag[:, None]], axis=1)
        r = recordings.index(str(path.relative_to(walk_data / "data").with_suffix("")))
        rows = np.flatnonzero(ridx == r)
        expected = ref.window_starts(valid, LENGTH, STRIDE)
        assert len(rows) == len(expected)
        for row, s in zip(rows, expected):
            assert starts[row] == grid[s]
            scale = np.abs(values[s:s + LENGTH]).max(axis=0) + 1e-3
            assert (np.abs(x[row] - values[s:s + LENGTH]) <= 1e-5 * scale).all()
            checked += 1
    assert checked > 20


def numpy_features(w, rate):
    """Every feature (docs/signal.md, "Features") of one channel, computed with numpy/scipy in float64."""
    x = w.astype(np.float64)
    n = len(x)
    mean = x.mean()
    d = x - mean
    const = x.max() == x.min()
    p = np.abs(np.fft.rfft(d)) ** 2
    spec = p[1:]
    freqs = np.fft.rfftfreq(n, 1 / rate)[1:]
    total = spec.sum()
    if const or len(spec) == 0 or total == 0:
        dom = ent = cen = 0.0
    else:
        dom = freqs[np.argmax(np.sqrt(spec))]
        q = spec / total
        nz = q[q > 0]
        ent = float(-(nz * np.log2(nz)).sum() / np.log2(len(spec))) if len(spec) >= 2 else 0.0
        cen = float((freqs * spec).sum() / total)
    signs = d >= 0
    return {
        "mean": mean, "std": x.std(), "var": x.var(), "min": x.min(), "max": x.max(), "range": x.max() - x.min(),
        "median": np.median(x), "iqr": np.percentile(x, 75) - np.percentile(x, 25), "rms": np.sqrt((x ** 2).mean()),
        "mad": np.median(np.abs(x - np.median(x))),
        "skew": 0.0 if const else st.skew(x), "kurtosis": 0.0 if const else st.kurtosis(x),
        "zero_crossings": float((signs[1:] != signs[:-1]).sum()), "energy": (x ** 2).sum() / n,
        "dominant_freq_hz": dom, "spectral_entropy": ent, "spectral_centroid_hz": cen,
    }


def test_features_match_numpy_recomputed_from_x(dataset):
    with h5py.File(dataset / "train.h5") as f:
        x, feats = f["x"][...], f["features"][...]
        names = list(f.attrs["feature_names"])
        channels = list(f.attrs["channel_names"])
    assert feats.dtype == np.float32 and np.isfinite(feats).all()
    per_channel = [n for n in FEATURES if n != "corr"]
    expected_names = [f"{c}_{n}" for c in channels for n in per_channel]
    expected_names += [f"{s}_corr_{p}" for s in ("acc", "gyro") for p in ("xy", "xz", "yz")]
    assert names == expected_names
    for i in range(0, len(x), max(1, len(x) // 40)):
        col = 0
        for c in range(len(channels)):
            ref_f = numpy_features(x[i, :, c], RATE)
            for n in per_channel:
                got, want = float(feats[i, col]), float(ref_f[n])
                if n in ("dominant_freq_hz",):
                    # float32 FFT: a near-tie between bins may flip; accept an equally strong bin.
                    if got != pytest.approx(want, abs=1e-9):
                        spec = np.abs(np.fft.rfft(x[i, :, c].astype(np.float64) - x[i, :, c].mean())) ** 2
                        k = int(round(got * LENGTH / RATE))
                        assert spec[k] >= spec[1:].max() * (1 - 1e-4), (i, channels[c], n)
                elif n in ("spectral_entropy", "spectral_centroid_hz"):
                    assert got == pytest.approx(want, rel=1e-4, abs=1e-5 * max(1.0, RATE)), (i, channels[c], n)
                else:
                    scale = max(1.0, abs(want), float(np.abs(x[i, :, c]).max()))
                    tol = 1e-5 * scale if n not in ("var", "energy") else 1e-5 * scale * scale
                    if n in ("skew", "kurtosis"):
                        tol = 1e-4 * max(1.0, abs(want))
                    assert abs(got - want) <= tol, (i, channels[c], n, got, want)
                col += 1
        for s0 in (0, 3):
            a = x[i, :, s0:s0 + 3].astype(np.float64)
            for (p, q) in ((0, 1), (0, 2), (1, 2)):
                want = 0.0 if a[:, p].std() == 0 or a[:, q].std() == 0 else np.corrcoef(a[:, p], a[:, q])[0, 1]
                assert float(feats[i, col]) == pytest.approx(want, abs=1e-5), (i, s0, p, q)
                col += 1
