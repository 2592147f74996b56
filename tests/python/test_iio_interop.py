"""Runs motionprep on raw IIO buffer dumps written by `motionprep synth --format iio` and checks
the HDF5 output against an independent numpy decoder written from docs/iio-format.md (§2 type
grammar, §3.1 layout, §4 extraction and scaling, §5 timestamps), not from the Swift code."""
import json
import re
import shutil
from pathlib import Path

import h5py
import numpy as np
import pytest

import reference as ref
from conftest import motionprep

RATE, LENGTH, STRIDE, MAX_GAP = 50.0, 128, 64, 0.2

PIPELINE = """\
version: 1
name: iio
inputs:
  - type: iio
    paths: ["data/**/*.bin"]
    layout: "{dirpath}/sysfs"
    sensor: imu
resample: {rate_hz: 50, max_gap_s: 0.2, antialias: false}
window: {length_samples: 128, stride_samples: 64}
split: {seed: 42, fractions: {train: 0.5, validation: 0.25, test: 0.25}}
output: {type: hdf5, path: out}
"""

TYPE = re.compile(r"^(be|le):([su])(\d+)/(\d+)(?:X(\d+))?(?:>>(\d+))?$")


def read_attr(folder, name):
    p = Path(folder) / name
    return p.read_text().strip() if p.is_file() else None


def read_layout(sysfs):
    """[(name, index, endianness, signed, realbits, storagebits, repeat, shift, scale, offset)], ts, scan_bytes."""
    scan = Path(sysfs) / "scan_elements"
    channels, ts = [], None
    for en in sorted(scan.glob("*_en")):
        name = en.name[:-3]
        if en.read_text().strip() != "1":
            continue
        index = int(read_attr(scan, name + "_index"))
        m = TYPE.match(read_attr(scan, name + "_type"))
        assert m, name
        be, sign, real, storage, rep, shift = m.groups()
        t = dict(name=name, index=index, be=be == "be", signed=sign == "s", real=int(real), storage=int(storage),
                 repeat=int(rep or 1), shift=int(shift or 0))
        if name == "in_timestamp":
            ts = t
            continue
        direction, rest = name.split("_", 1)
        typ = re.sub(r"\d", "", rest.split("_", 1)[0])
        for attr in ("scale", "offset"):
            t[attr] = next((float(v) for v in (read_attr(sysfs, f"{name}_{attr}"), read_attr(sysfs, f"{direction}_{typ}_{attr}"),
                                               read_attr(sysfs, f"{direction}_{attr}"), read_attr(sysfs, attr)) if v is not None),
                           1.0 if attr == "scale" else 0.0)
        channels.append(t)
    channels.sort(key=lambda c: c["index"])
    # §3.1: each element aligned to its own size, the timestamp appended last, tail padding.
    pos, largest = 0, 0
    for c in channels:
        length = c["storage"] // 8 * c["repeat"]
        pos = (pos + length - 1) // length * length
        c["offset_bytes"] = pos
        pos += length
        largest = max(largest, length)
    if ts is not None:
        pos = (pos + 7) // 8 * 8
        ts["offset_bytes"] = pos
        pos += 8
        largest = max(largest, 8)
    scan_bytes = (pos + largest - 1) // largest * largest
    return channels, ts, scan_bytes


def extract(words, c):
    """§4.1 on an array of unsigned words: shift, mask, sign-extend from realbits."""
    v = words.astype(np.uint64) >> np.uint64(c["shift"])
    if c["real"] < 64:
        v &= np.uint64((1 << c["real"]) - 1)
    v = v.astype(np.int64) if c["signed"] else v
    if c["signed"] and c["real"] < 64:
        v = np.where(v >= (1 << (c["real"] - 1)), v - (1 << c["real"]), v)
    return v


def decode(path, sysfs):
    """(times s [N], values [N, C] float64, channel names) decoded with a structured dtype."""
    channels, ts, scan_bytes = read_layout(sysfs)
    names, formats, offsets = [], [], []
    for c in channels + ([ts] if ts else []):
        for k in range(c["repeat"]):
            names.append(f"{c['name']}_{k}")
            formats.append(np.dtype(f"u{c['storage'] // 8}").newbyteorder(">" if c["be"] else "<"))
            offsets.append(c["offset_bytes"] + k * c["storage"] // 8)
    dt = np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": scan_bytes})
    data = Path(path).read_bytes()
    n = len(data) // scan_bytes
    scans = np.frombuffer(data, dtype=dt, count=n)
    cols, out_names = [], []
    for c in channels:
        for k in range(c["repeat"]):
            raw = extract(scans[f"{c['name']}_{k}"], c)
            cols.append((raw.astype(np.float64) + c["offset"]) * c["scale"])
            base = re.sub(r"^in_", "", c["name"])
            base = re.sub(r"^accel", "acc", re.sub(r"^anglvel", "gyro", re.sub(r"^magn", "mag", base)))
            out_names.append(base if c["repeat"] == 1 else f"{base}_{k}")
    ns = extract(scans["in_timestamp_0"], ts)
    # Whole seconds exact, then the fraction: docs and IIODecoder agree on this form.
    times = (ns // 10**9).astype(np.float64) + (ns % 10**9).astype(np.float64) * 1e-9
    values = np.stack(cols, axis=1)
    keep = np.ones(n, dtype=bool)
    keep[:-1] = times[1:] != times[:-1]          # equal times keep the last sample (docs/inputs.md, "Bad rows and time order")
    return times[keep], values[keep], out_names, n


@pytest.fixture(scope="module")
def iio_data(tmp_path_factory):
    root = tmp_path_factory.mktemp("iio")
    motionprep("synth", "--out", root / "data", "--format", "iio", "--subjects", 3, "--minutes", 1.5, "--seed", 11)
    (root / "iio.yaml").write_text(PIPELINE)
    motionprep("run", root / "iio.yaml", "--jobs", 2, "--quiet")
    return root


def test_synth_layout_is_what_the_decoder_expects(iio_data):
    channels, ts, scan_bytes = read_layout(iio_data / "data/subject01/sysfs")
    assert [c["name"] for c in channels] == ["in_accel_x", "in_accel_y", "in_accel_z"]
    assert [c["offset_bytes"] for c in channels] == [0, 2, 4] and ts["offset_bytes"] == 8 and scan_bytes == 16
    data = (iio_data / "data/subject01/rec-01.bin").read_bytes()
    assert len(data) % 16 == 0 and data[6:8] == b"\xa5\xa5"


def test_windows_match_numpy_decoder(iio_data):
    data_dir = iio_data / "data"
    expected, total_scans = {}, 0
    for path in sorted(data_dir.glob("**/*.bin")):
        t, v, names, n = decode(path, path.parent / "sysfs")
        total_scans += n
        assert names == ["acc_x", "acc_y", "acc_z"]
        assert np.all(np.diff(t) > 0)
        grid, values, valid = ref.resample([(t, v)], RATE, MAX_GAP)
        starts = ref.window_starts(valid, LENGTH, STRIDE)
        rel = str(path.relative_to(data_dir).with_suffix(""))
        expected[rel] = (np.array([values[s:s + LENGTH] for s in starts], dtype=np.float32).reshape(-1, LENGTH, 3),
                         [grid[s] for s in starts])
    out = iio_data / "out"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"]["rows_read"] == total_scans
    assert manifest["counts"]["rows_dropped"] == {}
    assert manifest["channels"] == [{"name": f"acc_{a}", "unit": "m/s^2"} for a in "xyz"]
    seen = 0
    for split in ("train", "validation", "test"):
        with h5py.File(out / f"{split}.h5", "r") as f:
            assert list(f.attrs["channel_names"]) == ["acc_x", "acc_y", "acc_z"]
            assert list(f.attrs["channel_units"]) == ["m/s^2"] * 3
            recordings = list(f.attrs["recording_names"])
            x, ridx, starts = f["x"][...], f["recording_index"][...], f["start_time_s"][...]
            assert (f["y"][...] == -1).all()
            for r in sorted(set(ridx.tolist())):
                rows = ridx == r
                exp_x, exp_t = expected[recordings[r]]
                assert x[rows].shape == exp_x.shape, recordings[r]
                np.testing.assert_allclose(x[rows], exp_x, rtol=2e-6, atol=2e-6)
                np.testing.assert_allclose(starts[rows], np.array(exp_t), rtol=1e-12, atol=0)
                seen += 1
    assert seen == len([k for k, (xs, _) in expected.items() if len(xs)])


def test_truncated_tail_warns_and_strict_fails(iio_data, tmp_path):
    shutil.copytree(iio_data / "data/subject01", tmp_path / "data/subject01")
    for extra in (tmp_path / "data/subject01").glob("rec-02.bin"):
        extra.unlink()
    bin_path = tmp_path / "data/subject01/rec-01.bin"
    size = bin_path.stat().st_size
    with open(bin_path, "ab") as f:
        f.write(b"\x01\x02\x03\x04\x05")
    (tmp_path / "iio.yaml").write_text(PIPELINE)
    proc = motionprep("run", tmp_path / "iio.yaml")
    assert f"5 bytes at byte {size}" in proc.stderr and "W_TRUNCATED_TAIL:5B" in proc.stderr
    manifest = json.loads((tmp_path / "out/manifest.json").read_text())
    assert manifest["counts"]["rows_dropped"] == {"partial_scan": 1}
    assert manifest["counts"]["rows_read"] == size // 16

    (tmp_path / "strict.yaml").write_text(PIPELINE.replace("    sensor: imu\n", "    sensor: imu\n    strict: true\n")
                                          .replace("path: out", "path: out-strict"))
    proc = motionprep("run", tmp_path / "strict.yaml", check=False)
    assert proc.returncode == 65
    assert f"rec-01.bin: error: at byte {size}: the dump ends with a partial scan of 5 bytes" in proc.stderr


def test_declared_units_convert_like_the_spec_says(iio_data, tmp_path):
    """`units: {acc_x: g}` on an iio input (docs/pipeline.md; docs/inputs.md, "Units"): acc_x is read as g, so `units: si`
    multiplies it by 9.80665 and `native` keeps it and writes `g`; the other channels keep the
    ABI's m/s²."""
    shutil.copytree(iio_data / "data", tmp_path / "data")
    variants = {
        "plain": PIPELINE,
        "si": PIPELINE.replace("    sensor: imu\n", "    sensor: imu\n    units: {acc_x: g}\n"),
        "native": PIPELINE.replace("    sensor: imu\n", "    sensor: imu\n    units: {acc_x: g}\n")
                          .replace("resample:", "units: native\nresample:"),
    }
    x, units = {}, {}
    for name, text in variants.items():
        (tmp_path / f"{name}.yaml").write_text(text.replace("path: out", f"path: out-{name}"))
        motionprep("run", tmp_path / f"{name}.yaml", "--jobs", 2, "--quiet")
        units[name] = [c["unit"] for c in json.loads((tmp_path / f"out-{name}/manifest.json").read_text())["channels"]]
        with h5py.File(tmp_path / f"out-{name}/train.h5", "r") as f:
            x[name] = f["x"][...].astype(np.float64)
            assert list(f.attrs["channel_units"]) == units[name]
    assert units == {"plain": ["m/s^2"] * 3, "si": ["m/s^2"] * 3, "native": ["g", "m/s^2", "m/s^2"]}
    assert x["plain"].size > 0
    np.testing.assert_allclose(x["si"][..., 0], 9.80665 * x["plain"][..., 0], rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(x["si"][..., 1:], x["plain"][..., 1:])
    np.testing.assert_array_equal(x["native"], x["plain"])
