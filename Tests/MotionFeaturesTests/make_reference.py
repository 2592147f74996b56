#!/usr/bin/env python3
"""Generates ReferenceValues.swift: float32 windows and their docs/signal.md, "Features" features per numpy/scipy.

Regenerate (from the package root):
    /work/main/.venv/bin/python Tests/MotionFeaturesTests/make_reference.py

Inputs are seeded, so the output is deterministic for a given numpy version. Every feature is
computed in float64 from the float32 values with numpy/scipy, following docs/signal.md, "Features" literally:
np.mean, np.var/np.std (population), np.percentile (linear), scipy.stats.skew/kurtosis
(bias=True, Fisher), np.fft.rfft in float64, np.corrcoef. The documented special cases (constant
window -> 0 for std, skew, kurtosis, spectral features, corr) are applied explicitly.
"""
import math
import os
import sys

import numpy as np
import scipy
import scipy.stats

CATALOGUE = ["mean", "std", "var", "min", "max", "range", "median", "iqr", "rms", "mad", "skew",
             "kurtosis", "zero_crossings", "energy", "dominant_freq_hz", "spectral_entropy",
             "spectral_centroid_hz", "corr"]
PER_CHANNEL = CATALOGUE[:-1]


def channel_features(x32, rate):
    x = x32.astype(np.float64)
    n = x.size
    const = x.max() == x.min()
    mean = np.mean(x)
    var = 0.0 if const else np.var(x)
    med = np.percentile(x, 50)
    q25, q75 = np.percentile(x, [25, 75])
    d = x - mean
    neg = d < 0
    f = {
        "mean": mean,
        "std": math.sqrt(var),
        "var": var,
        "min": x.min(),
        "max": x.max(),
        "range": x.max() - x.min(),
        "median": med,
        "iqr": q75 - q25,
        "rms": math.sqrt(np.mean(x * x)),
        "mad": np.percentile(np.abs(x - med), 50),
        "skew": 0.0 if const else scipy.stats.skew(x, bias=True),
        "kurtosis": 0.0 if const else scipy.stats.kurtosis(x, fisher=True, bias=True),
        "zero_crossings": float(np.count_nonzero(neg[1:] != neg[:-1])),
        "energy": np.sum(x * x) / n,
    }
    dominant = entropy = centroid = 0.0
    if not const:
        spectrum = np.fft.rfft(d)[1:]
        power = np.abs(spectrum) ** 2
        freqs = np.fft.rfftfreq(n, 1.0 / rate)[1:]
        if power.size >= 1 and power.sum() > 0:
            dominant = freqs[np.argmax(np.abs(spectrum))]
            # float32 FFTs can flip near-ties: record how clear the winner is.
            top2 = np.sort(power)[-2:] if power.size >= 2 else np.array([0.0, power[0]])
            f["_dominant_margin"] = (top2[1] - top2[0]) / top2[1]
            centroid = np.sum(freqs * power) / np.sum(power)
            if power.size >= 2:
                p = power / power.sum()
                p = p[p > 0]
                entropy = -np.sum(p * np.log2(p)) / math.log2(power.size)
    f["dominant_freq_hz"] = dominant
    f.setdefault("_dominant_margin", 1.0)
    f["spectral_entropy"] = entropy
    f["spectral_centroid_hz"] = centroid
    return f


def sensors(channel_names):
    """Sensors for corr: {sensor}_x/_y/_z groups with >= 2 axes, in order of first channel."""
    found = {}
    order = []
    for i, name in enumerate(channel_names):
        for axis, suffix in enumerate(["_x", "_y", "_z"]):
            if name.endswith(suffix) and len(name) > 2:
                sensor = name[:-2]
                if sensor not in found:
                    found[sensor] = [None, None, None]
                    order.append(sensor)
                found[sensor][axis] = i
    return [(s, found[s]) for s in order if sum(a is not None for a in found[s]) >= 2]


def window_features(x32, channel_names, rate, margins=None):
    names, values = [], []
    margins = [] if margins is None else margins
    for c, channel in enumerate(channel_names):
        f = channel_features(x32[:, c], rate)
        margins.append((f"{channel}_dominant_freq_hz", f["_dominant_margin"]))
        for feature in PER_CHANNEL:
            names.append(f"{channel}_{feature}")
            values.append(float(f[feature]))
    for sensor, axes in sensors(channel_names):
        for a, b, suffix in [(0, 1, "xy"), (0, 2, "xz"), (1, 2, "yz")]:
            if axes[a] is None or axes[b] is None:
                continue
            u = x32[:, axes[a]].astype(np.float64)
            v = x32[:, axes[b]].astype(np.float64)
            r = 0.0 if (u.max() == u.min() or v.max() == v.min()) else float(np.corrcoef(u, v)[0, 1])
            names.append(f"{sensor}_corr_{suffix}")
            values.append(r)
    assert all(math.isfinite(v) for v in values), names
    return names, values


def make_cases():
    rng = np.random.default_rng(20240601)
    f32 = np.float32
    cases = []

    def add(name, rate, channel_names, columns, skip=()):
        x = np.stack([np.asarray(c, dtype=f32) for c in columns], axis=1).astype(f32)
        assert x.shape[1] == len(channel_names)
        cases.append((name, rate, channel_names, x, list(skip)))

    t128 = np.arange(128)
    # Random normal, correlated axes and a magnitude channel.
    ax = rng.normal(0.2, 1.5, 128)
    ay = 0.6 * ax + rng.normal(0, 0.8, 128)
    az = rng.normal(9.8, 0.3, 128)
    mag = np.sqrt(ax.astype(f32).astype(np.float64) ** 2 + ay.astype(f32) ** 2 + az.astype(f32) ** 2)
    add("normal_acc_with_magnitude", 50.0, ["acc_x", "acc_y", "acc_z", "acc_mag"], [ax, ay, az, mag])
    # Constant windows: alone, and as one axis of a sensor (corr with it is 0).
    add("constant", 50.0, ["c"], [np.full(128, 3.3)])
    add("constant_axis", 50.0, ["gyro_x", "gyro_y", "gyro_z"],
        [np.full(128, 0.5), rng.normal(0, 1, 128), rng.normal(0, 1, 128)])
    # A single spike: flat spectrum (entropy 1), every bin a tie, so no dominant bin to compare.
    spike = np.zeros(128)
    spike[40] = 5.0
    add("single_spike", 50.0, ["s"], [spike], skip=["s_dominant_freq_hz"])
    # Pure tones at known bins (even length): bin 10 → 3.90625 Hz; two tones; Nyquist.
    add("tones_128", 50.0, ["a", "b", "nyquist"], [
        0.5 + 2.0 * np.sin(2 * np.pi * 10 * t128 / 128 + 0.3) + rng.normal(0, 0.01, 128),
        np.sin(2 * np.pi * 5 * t128 / 128) + 0.4 * np.cos(2 * np.pi * 20 * t128 / 128),
        np.where(t128 % 2 == 0, 1.0, -1.0) + rng.normal(0, 0.05, 128),
    ])
    # Odd length: tones at bins 7 and 50 (the highest bin of n = 101).
    t101 = np.arange(101)
    add("tones_101_odd", 100.0, ["a", "b"], [
        -1.0 + 3.0 * np.sin(2 * np.pi * 7 * t101 / 101) + rng.normal(0, 0.02, 101),
        np.cos(2 * np.pi * 50 * t101 / 101) + 0.1 * np.sin(2 * np.pi * 3 * t101 / 101),
    ])
    # Huge offset with small variation: noise (float32 steps of 1/16 at 1e6), and two levels one
    # float32 step apart (skew 0, kurtosis -2, var 2^-10).
    add("large_offset", 50.0, ["noise", "steps"], [
        1e6 + rng.normal(0, 1.0, 128),
        np.where(t128 % 2 == 0, 1e6, 1e6 + 0.0625),
    ])
    add("tiny_values", 50.0, ["tiny_x", "tiny_y"], [
        1e-6 * rng.normal(0, 1, 128),
        1e-6 + 1e-8 * rng.normal(0, 1, 128),
    ])
    add("all_negative", 20.0, ["neg_x", "neg_y"], [
        -50.0 + 3.0 * rng.normal(0, 1, 128),
        -0.001 - np.abs(rng.normal(0, 1, 128)),
    ])
    # Many ties for median/iqr/mad.
    add("integer_ties", 50.0, ["k"], [rng.integers(0, 5, 128).astype(np.float64)])
    # Short windows.
    add("length_1", 50.0, ["p_x", "p_y"], [[2.5], [-1.0]])
    add("length_2", 50.0, ["p_x", "p_y"], [[1.0, 3.0], [2.0, -1.0]])
    add("length_3", 10.0, ["q"], [[0.5, -2.0, 4.25]])
    add("length_4", 10.0, ["q_x", "q_y"], [[1.0, 2.0, 2.0, 7.0], [0.0, 1.0, -1.0, 0.5]])
    add("length_5", 10.0, ["q"], rng.normal(0, 1, (1, 5)))
    # Several sensors, one lone axis, a magnitude channel, a sensor with two axes only.
    t64 = np.arange(64)
    base = rng.normal(0, 1, 64)
    add("sensors", 25.0, ["acc_x", "acc_y", "acc_z", "gyro_x", "baro", "gyro_z", "mag_y", "acc_mag"], [
        base, -2.0 * base + rng.normal(0, 0.1, 64), rng.normal(0, 1, 64),
        np.sin(2 * np.pi * 4 * t64 / 64), 101.3 + rng.normal(0, 0.01, 64),
        np.cos(2 * np.pi * 4 * t64 / 64) + rng.normal(0, 0.2, 64),
        rng.normal(0, 1, 64), np.abs(base) + 1,
    ])
    return cases


def swift_double(v):
    if v == 0:
        return "0"
    return repr(float(v))


def render(cases):
    out = []
    out.append("// GENERATED by make_reference.py — do not edit by hand.")
    out.append("// Regenerate from the package root with:")
    out.append("//     /work/main/.venv/bin/python Tests/MotionFeaturesTests/make_reference.py")
    out.append(f"// numpy {np.__version__}, scipy {scipy.__version__}. Inputs are float32 bit patterns,")
    out.append("// time-major (x[t*C + c]); expected values are float64, in featureNames order, for the")
    out.append("// full catalogue in docs/signal.md, \"Features\" order.")
    out.append("")
    out.append("struct ReferenceCase: Sendable, CustomStringConvertible {")
    out.append("    let name: String")
    out.append("    let rateHz: Double")
    out.append("    let length: Int")
    out.append("    let channelNames: [String]")
    out.append("    let bits: [UInt32]")
    out.append("    let featureNames: [String]")
    out.append("    let expected: [Double]")
    out.append("    /// Feature names not compared, with the reason in make_reference.py.")
    out.append("    let skipped: [String]")
    out.append("    var description: String { name }")
    out.append("}")
    out.append("")
    out.append("enum ReferenceValues {")
    out.append("    static let features: [String] = [" + ", ".join(f'"{f}"' for f in CATALOGUE) + "]")
    out.append("")
    out.append("    static let cases: [ReferenceCase] = [")
    for name, rate, channel_names, x, skip in cases:
        margins = []
        names, values = window_features(x, channel_names, rate, margins)
        for feature, margin in margins:
            # A dominant bin compared in the tests must win by far more than float32 FFT error.
            assert feature in skip or margin > 1e-3, (name, feature, margin)
        bits = x.reshape(-1).view(np.uint32)
        out.append("        ReferenceCase(")
        out.append(f'            name: "{name}", rateHz: {swift_double(rate)}, length: {x.shape[0]},')
        out.append("            channelNames: [" + ", ".join(f'"{c}"' for c in channel_names) + "],")
        out.append("            bits: [")
        for i in range(0, bits.size, 8):
            out.append("                " + ", ".join(f"0x{int(b):08x}" for b in bits[i:i + 8]) + ",")
        out.append("            ],")
        out.append("            featureNames: [")
        for i in range(0, len(names), 4):
            out.append("                " + ", ".join(f'"{s}"' for s in names[i:i + 4]) + ",")
        out.append("            ],")
        out.append("            expected: [")
        for i in range(0, len(values), 4):
            out.append("                " + ", ".join(swift_double(v) for v in values[i:i + 4]) + ",")
        out.append("            ],")
        out.append("            skipped: [" + ", ".join(f'"{s}"' for s in skip) + "]")
        out.append("        ),")
    out.append("    ]")
    out.append("}")
    return "\n".join(out) + "\n"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "ReferenceValues.swift")
    with open(path, "w", encoding="utf-8") as f:
        f.write(render(make_cases()))
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
