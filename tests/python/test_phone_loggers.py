"""Many apps, one dataset (issue 17 points 5 and 6): three csv inputs written the way three phone loggers write
them feed one dataset with one channel layout (docs/inputs.md, "Delimited text (csv)" and "Recordings, subjects and
channels"):

- an AndroSensor-like export: Excel's `sep=;` first line, a trailing space in a header name, values in g, a time
  column in milliseconds;
- a logger with a two-line preamble (`skip_lines: 2`), values in m/s², times in seconds;
- a logger with wall-clock times `2022-10-22 18:36:24:895` (`time.format`), values in m/s².

Every channel is linear in time, so the resampled values are known exactly: the HDF5 is checked with h5py against
the converted values, each file in one block and in small blocks (MOTIONPREP_STREAM_BLOCK_BYTES). A recording that gets the same channels from
two inputs is refused at discovery, naming both inputs and the recording."""
import datetime
import os
import subprocess

import h5py
import numpy as np
import pytest

from conftest import BIN

G = 9.80665
PIPELINE = """\
version: 1
name: apps
inputs:
  - type: csv
    paths: ["andro/*.csv"]
    time: {column: "Time since start in ms", unit: ms}
    channels: {acc_x: "X (g)", acc_y: "Y (g)", acc_z: "Z (g)"}
    units: {acc_x: g, acc_y: g, acc_z: g}
  - type: csv
    paths: ["preamble/*.csv"]
    skip_lines: 2
    time: {column: t}
    channels: {acc_x: ax, acc_y: ay, acc_z: az}
    units: {acc_x: m/s^2, acc_y: m/s^2, acc_z: m/s^2}
  - type: csv
    paths: ["wall/*.csv"]
    delimiter: "\\t"
    time: {column: when, format: "%Y-%m-%d %H:%M:%S:%f"}
    channels: {acc_x: x, acc_y: y, acc_z: z}
    units: {acc_x: m/s^2, acc_y: m/s^2, acc_z: m/s^2}
resample: {rate_hz: 50, antialias: false}
window: {length_samples: 100, stride_samples: 100}
split: {by: recording, seed: 1}
output: {type: hdf5, path: out}
"""
T0_WALL = datetime.datetime(2022, 10, 22, 18, 36, 24, 895000, tzinfo=datetime.timezone.utc).timestamp()


def signal(t, k):
    """Channel values in m/s² at `t` seconds after the file's first sample (k: recording number)."""
    return [0.5 + 0.1 * k + 0.2 * t, -1.0 + 0.05 * t, 0.25 * k]


def write(root):
    """Two recordings per app; returns {recording: (clock time of the first sample, k)}."""
    expected = {}
    n, k = 1200, 0
    for app in ("andro", "preamble", "wall"):
        (root / app).mkdir(parents=True)
        for r in (1, 2):
            k += 1
            name = f"{app}{r}"
            lines = []
            if app == "andro":
                lines += ["sep=;", "X (g);Y (g);Z (g);Time since start in ms ;Other"]
                for i in range(n):
                    v = [c / G for c in signal(i / 100, k)]
                    lines.append(f"{v[0]};{v[1]};{v[2]};{i * 10 + 7};x")
                start = 0.007
            elif app == "preamble":
                lines += ["Recorded with SomeLogger 1.2", "device, \"Pixel", "t,ax,ay,az"]
                for i in range(n):
                    v = signal(i / 100, k)
                    lines.append(f"{100 + i / 100},{v[0]},{v[1]},{v[2]}")
                start = 100.0
            else:
                lines += ["when\tx\ty\tz"]
                for i in range(n):
                    v = signal(i / 100, k)
                    ms = round(T0_WALL * 1000) + i * 10
                    t = datetime.datetime.fromtimestamp(ms // 1000, datetime.timezone.utc)
                    stamp = t.strftime("%Y-%m-%d %H:%M:%S") + f":{ms % 1000:03d}"
                    lines.append(f"{stamp}\t{v[0]}\t{v[1]}\t{v[2]}")
                start = T0_WALL
            (root / app / f"{name}.csv").write_text("\r\n".join(lines) + "\r\n")
            expected[name] = (start, k)
    (root / "pipeline.yaml").write_text(PIPELINE)
    return expected


def run(root, out, env):
    return subprocess.run([BIN, "run", str(root / "pipeline.yaml"), "--quiet", "--out", str(out)],
                          capture_output=True, text=True, env={**os.environ, **env})


def read(out):
    windows = {}
    for split in ("train", "validation", "test"):
        path = out / f"{split}.h5"
        if not path.exists():
            continue
        with h5py.File(path, "r") as f:
            assert list(f.attrs["channel_names"]) == ["acc_x", "acc_y", "acc_z"]
            assert list(f.attrs["channel_units"]) == ["m/s^2"] * 3
            names = list(f.attrs["recording_names"])
            x, ridx, starts = f["x"][...], f["recording_index"][...], f["start_time_s"][...]
            for w in range(len(x)):
                windows.setdefault(names[ridx[w]], []).append((float(starts[w]), x[w]))
    return windows


@pytest.mark.parametrize("env", [{"MOTIONPREP_STREAM_BLOCK_BYTES": str(1 << 40)},
                                 {"MOTIONPREP_STREAM_BLOCK_BYTES": "4096"}],
                         ids=["whole", "streamed"])
def test_three_apps_one_dataset(tmp_path, env):
    expected = write(tmp_path)
    proc = run(tmp_path, tmp_path / "out", env)
    assert proc.returncode == 0, proc.stderr
    windows = read(tmp_path / "out")
    assert sorted(windows) == sorted(expected)
    for name, (first, k) in expected.items():
        assert len(windows[name]) >= 5, name
        for start, x in windows[name]:
            t = start + np.arange(100) / 50 - first
            want = np.stack([signal(tt, k) for tt in t]).astype(np.float32)
            # Wall-clock times are whole milliseconds of a 1.67e9 s epoch: float64 keeps them to ~2e-7 s.
            np.testing.assert_allclose(x, want, rtol=1e-5, atol=1e-5, err_msg=name)


def test_same_channels_from_two_inputs_in_one_recording(tmp_path):
    write(tmp_path)
    # A file of the second app with the name of one of the first app's: both are recording `andro1`.
    # One subject for all, so that the recording is not refused for its subjects first.
    (tmp_path / "pipeline.yaml").write_text(PIPELINE.replace("    paths:", "    subject: one\n    paths:"))
    (tmp_path / "preamble" / "preamble1.csv").rename(tmp_path / "preamble" / "andro1.csv")
    proc = run(tmp_path, tmp_path / "out", {})
    assert proc.returncode == 78, proc.stderr
    a, b = tmp_path / "andro" / "andro1.csv", tmp_path / "preamble" / "andro1.csv"
    assert (f"recording `andro1` has files of inputs[0] ({a}) and inputs[1] ({b}), "
            "which both give acc_x, acc_y, acc_z of") in proc.stderr, proc.stderr
    assert not (tmp_path / "out").exists()


def test_channel_shared_with_other_units_is_a_pipeline_error(tmp_path):
    write(tmp_path)
    text = PIPELINE.replace("units: {acc_x: m/s^2, acc_y: m/s^2, acc_z: m/s^2}\n  - type: csv\n    paths: [\"wall",
                            "\n  - type: csv\n    paths: [\"wall", 1)
    (tmp_path / "pipeline.yaml").write_text(text)
    proc = run(tmp_path, tmp_path / "out", {})
    assert proc.returncode == 78, proc.stderr
    assert "channel `acc_x` occurs twice in" in proc.stderr
    assert "inputs[0] gives it with acc_x [m/s^2], acc_y [m/s^2], acc_z [m/s^2] but inputs[1] with acc_x [1], acc_y [1], acc_z [1]" in proc.stderr


def test_recording_without_any_source_of_shared_channels(tmp_path):
    """A recording with none of the inputs that give the shared channels lacks a stream: with `on_error: skip` it is
    skipped, and the message says which inputs could have given them."""
    write(tmp_path)
    (tmp_path / "baro").mkdir()
    (tmp_path / "baro" / "lonely.csv").write_text("t,p\n" + "".join(f"{i / 10},{100 + i}\n" for i in range(100)))
    text = PIPELINE.replace("resample:", '  - {type: csv, paths: ["baro/*.csv"], time: {column: t}, channels: {pressure: p}}\n'
                            "on_error: skip\nresample:", 1)
    (tmp_path / "pipeline.yaml").write_text(text)
    proc = run(tmp_path, tmp_path / "out", {})  # every recording lacks a stream: nothing is left
    assert ("skipped recording `lonely`: recording `lonely` has none of the streams inputs[0], inputs[1], inputs[2] "
            "that give acc_x, acc_y, acc_z (read ") in proc.stderr, proc.stderr
