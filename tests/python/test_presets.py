"""Phone-logger presets (issue 17 point 2; docs/inputs.md, "Phone-logger presets").

`motionprep synth --format sensorlogger|phyphox|androsensor` writes small exports the way each app writes them; a
short pipeline with `type: sensorlogger | phyphox | androsensor` turns them into a dataset. The HDF5 is checked with
h5py/numpy against values computed independently from the CSV files: each window's samples are the linear
interpolation of the file's samples at `start_time_s + i / rate_hz`, converted to SI (hPa → kPa). The manifest's
`pipeline.resolved` holds the csv inputs the preset expanded to. Files that are not the app's are refused naming the
header the app writes; phyphox's tab and `Raw Data.csv` variants read with `delimiter` and `raw_data`; its
decimal-comma variant is refused with a clear message."""
import csv
import json
import os
import shutil
import subprocess

import h5py
import numpy as np
import pytest

from conftest import BIN

RATE = 50
PIPELINE = """\
version: 1
name: {app}
inputs:
  - type: {app}
    paths: [{paths}]
{extra}resample: {{rate_hz: {rate}, antialias: false, max_gap_s: {{default: 0.3, Barometer: 2.5, Pressure: 1.0}}}}
window: {{length_samples: 50, stride_samples: 25}}
split: {{fractions: {{train: 1}}}}
output: {{type: hdf5, path: out}}
"""


def run(root, app, paths, extra="", env=None, check=True):
    (root / "p.yaml").write_text(PIPELINE.format(app=app, paths=paths, extra=extra, rate=RATE))
    proc = subprocess.run([BIN, "run", "p.yaml", "--quiet"], cwd=root, capture_output=True, text=True,
                          env={**os.environ, **(env or {})})
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def synth(root, fmt):
    subprocess.run([BIN, "synth", "--out", str(root / "data"), "--format", fmt, "--subjects", "2", "--recordings", "1",
                    "--minutes", "0.2", "--seed", "5"], check=True, capture_output=True)


def read_csv(path, delimiter=",", skip=0):
    """The header and the rows of a CSV file as text (csv module: RFC 4180 quotes)."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter=delimiter))[skip:]
    return [h.strip() for h in rows[0]], rows[1:]


def columns(path, names, time, scale_time, delimiter=",", skip=0):
    """(times in seconds, {name: values}) of the rows where every wanted field is a number."""
    header, rows = read_csv(path, delimiter, skip)
    index = {n: header.index(n) for n in [time] + names}
    t, v = [], {n: [] for n in names}
    for r in rows:
        try:
            values = [float(r[index[n]]) for n in names]
            stamp = int(r[index[time]]) if scale_time != 1 else float(r[index[time]])
        except ValueError:
            continue
        if any(np.isnan(values)):
            continue
        t.append(stamp / scale_time)
        for n, x in zip(names, values):
            v[n].append(x)
    return np.array(t), {n: np.array(x) for n, x in v.items()}


def check_dataset(root, expect):
    """`expect(recording_name)` gives {channel: (times, values in SI)}; every window of every recording is compared."""
    with h5py.File(root / "out" / "train.h5") as f:
        x, starts, rec = f["x"][...], f["start_time_s"][...], f["recording_index"][...]
        names = list(f.attrs["channel_names"])
        recordings = list(f.attrs["recording_names"])
        units = list(f.attrs["channel_units"])
    assert len(x) > 0
    checked = 0
    for r, name in enumerate(recordings):
        truth = expect(name)
        assert set(truth) == set(names)
        for w in np.flatnonzero(rec == r):
            grid = starts[w] + np.arange(x.shape[1]) / RATE
            for c, channel in enumerate(names):
                t, v = truth[channel]
                want = np.interp(grid, t, v)
                np.testing.assert_allclose(x[w, :, c], want, rtol=2e-6, atol=2e-5, err_msg=f"{name} window {w} {channel}")
            checked += 1
    assert checked == len(x)
    return names, units


def manifest(root):
    return json.loads((root / "out" / "manifest.json").read_text())


@pytest.mark.parametrize("streamed", [False, True])
def test_sensorlogger(tmp_path, streamed):
    synth(tmp_path, "sensorlogger")
    folder = tmp_path / "data" / "subject01" / "rec-01"
    assert (folder / "Accelerometer.csv").read_text().startswith("time,seconds_elapsed,z,y,x\n")
    assert (folder / "Barometer.csv").read_text().startswith("time,seconds_elapsed,relativeAltitude,pressure\n")
    run(tmp_path, "sensorlogger", '"data/*/*"', "    sensors: [TotalAcceleration, Gyroscope, Barometer]\n",
        env={"MOTIONPREP_STREAM_BLOCK_BYTES": "4096"} if streamed else None)

    def expect(name):
        f = tmp_path / "data" / name
        out = {}
        for file, prefix in (("TotalAcceleration.csv", "acc"), ("Gyroscope.csv", "gyro")):
            t, v = columns(f / file, ["x", "y", "z"], "time", 1e9)
            out.update({f"{prefix}_{a}": (t, v[a]) for a in "xyz"})
        t, v = columns(f / "Barometer.csv", ["pressure", "relativeAltitude"], "time", 1e9)
        out["pressure"] = (t, v["pressure"] * 0.1)  # hPa → kPa
        out["relative_altitude"] = (t, v["relativeAltitude"])
        return out

    names, units = check_dataset(tmp_path, expect)
    assert names == ["acc_x", "acc_y", "acc_z", "gyro_x", "gyro_y", "gyro_z", "pressure", "relative_altitude"]
    assert units == ["m/s^2"] * 3 + ["rad/s"] * 3 + ["kPa", "m"]
    m = manifest(tmp_path)
    assert m["recordings"] == ["subject01/rec-01", "subject02/rec-01"] and m["subjects"] == ["subject01", "subject02"]
    resolved = m["pipeline"]["resolved"]["inputs"]
    assert [i["paths"] for i in resolved] == [["data/*/*/TotalAcceleration.csv"], ["data/*/*/Gyroscope.csv"], ["data/*/*/Barometer.csv"]]
    assert resolved[2]["preset"] == {"type": "sensorlogger", "input": 0, "sensor": "Barometer", "paths": ["data/*/*"]}
    assert resolved[2]["type"] == "csv" and resolved[2]["time"] == {"column": "time", "unit": "ns"}
    assert resolved[2]["units"] == {"pressure": "hPa", "relative_altitude": "m"}
    # Metadata.csv, Annotation.csv and the sensors not chosen are not read.
    assert not any(e["path"].endswith(("Metadata.csv", "Annotation.csv", "Gravity.csv")) for e in m["inputs"])


def test_sensorlogger_refusals(tmp_path):
    synth(tmp_path, "sensorlogger")
    gyro = tmp_path / "data" / "subject02" / "rec-01" / "Gyroscope.csv"
    text = gyro.read_text()
    gyro.write_text(text.replace("time,seconds_elapsed,z,y,x", "time,seconds_elapsed,gz,gy,gx", 1))
    proc = run(tmp_path, "sensorlogger", '"data/*/*"', check=False)
    assert proc.returncode == 65
    assert proc.stderr.strip() == (f"data/subject02/rec-01/Gyroscope.csv:1:1: error: not Sensor Logger's `Gyroscope.csv`: its header "
                                   "`time,seconds_elapsed,gz,gy,gx` has no column `x` (expected the header `time,seconds_elapsed,z,y,x`)")
    gyro.unlink()
    proc = run(tmp_path, "sensorlogger", '"data/*/*"', check=False)
    assert proc.returncode == 65
    assert "recording `subject02/rec-01` has no `Gyroscope` stream" in proc.stderr
    proc = run(tmp_path, "sensorlogger", '"data/*/*"', "    sensors: [Gyroscope, Orientation, Magnetometer]\n", check=False)
    assert proc.returncode == 65  # subject02 still lacks its gyroscope
    shutil.rmtree(tmp_path / "data" / "subject02")
    for f in (tmp_path / "data" / "subject01" / "rec-01").glob("Gyroscope.csv"):
        f.unlink()
    proc = run(tmp_path, "sensorlogger", '"data/*/*"', check=False)
    assert proc.returncode == 66
    assert proc.stderr.strip() == ("motionprep: error: no folder matched by `data/*/*` in inputs[0] (`type: sensorlogger`, sensor `Gyroscope`) of p.yaml "
                                   "holds `Gyroscope.csv` (paths are relative to the pipeline file's folder `.`; leave out of `sensors` "
                                   "the sensors that were not recorded)")


PHYPHOX = {
    "Accelerometer.csv": ("acc", ["Acceleration x (m/s^2)", "Acceleration y (m/s^2)", "Acceleration z (m/s^2)"]),
    "Gyroscope.csv": ("gyro", ["Gyroscope x (rad/s)", "Gyroscope y (rad/s)", "Gyroscope z (rad/s)"]),
    "Magnetometer.csv": ("mag", ["Magnetic field x (µT)", "Magnetic field y (µT)", "Magnetic field z (µT)"]),
}


def phyphox_expect(root, delimiter=","):
    def expect(name):
        f = root / "data" / name
        out = {}
        for file, (prefix, cols) in PHYPHOX.items():
            t, v = columns(f / file, cols, "Time (s)", 1, delimiter)
            out.update({f"{prefix}_{a}": (t, v[c]) for a, c in zip("xyz", cols)})
        t, v = columns(f / "Pressure.csv", ["Pressure (hPa)"], "Time (s)", 1, delimiter)
        out["pressure"] = (t, v["Pressure (hPa)"] * 0.1)
        return out
    return expect


def test_phyphox(tmp_path):
    synth(tmp_path, "phyphox")
    folder = tmp_path / "data" / "subject01" / "rec-01"
    assert (folder / "Accelerometer.csv").read_bytes().startswith(
        b'"Time (s)","Acceleration x (m/s^2)","Acceleration y (m/s^2)","Acceleration z (m/s^2)"\n')
    assert (folder / "meta" / "time.csv").exists() and (folder / "meta" / "device.csv").exists()
    sensors = "    sensors: [Accelerometer, Gyroscope, Magnetometer, Pressure]\n"
    run(tmp_path, "phyphox", '"data/**"', sensors)
    names, units = check_dataset(tmp_path, phyphox_expect(tmp_path))
    assert names == ["acc_x", "acc_y", "acc_z", "gyro_x", "gyro_y", "gyro_z", "mag_x", "mag_y", "mag_z", "pressure"]
    assert units == ["m/s^2"] * 3 + ["rad/s"] * 3 + ["uT"] * 3 + ["kPa"]
    resolved = manifest(tmp_path)["pipeline"]["resolved"]["inputs"]
    assert resolved[0]["time"] == {"column": "Time (s)", "unit": "s"} and resolved[0]["delimiter"] == ","

    # The same export in phyphox's "CSV (Tabulator, decimal point)" format reads with `delimiter: "\t"`.
    for f in folder.parent.parent.glob("*/*/*.csv"):
        f.write_text(f.read_text(encoding="utf-8").replace(",", "\t"), encoding="utf-8")
    shutil.rmtree(tmp_path / "out")
    proc = run(tmp_path, "phyphox", '"data/**"', sensors, check=False)
    assert proc.returncode == 65
    assert ("data/subject01/rec-01/Accelerometer.csv:1:1: error: not phyphox's `Accelerometer.csv`: its header" in proc.stderr
            and "needs `delimiter:`" in proc.stderr)
    run(tmp_path, "phyphox", '"data/**"', sensors + '    delimiter: "\\t"\n')
    check_dataset(tmp_path, phyphox_expect(tmp_path, "\t"))

    # "CSV (Tabulator, decimal comma)" cannot be read: the message says which formats can.
    gyro = folder / "Gyroscope.csv"
    lines = gyro.read_text(encoding="utf-8").split("\n")
    gyro.write_text("\n".join([lines[0]] + [l.replace(".", ",") for l in lines[1:]]), encoding="utf-8")
    proc = run(tmp_path, "phyphox", '"data/**"', sensors + '    delimiter: "\\t"\n', check=False)
    assert proc.returncode == 65
    first = lines[1].split("\t")[0].replace(".", ",")
    assert proc.stderr.strip() == (f"data/subject01/rec-01/Gyroscope.csv:2:1: error: `{first}` is not a number (expected a decimal "
                                   "such as `-0.25` or `1e-05`; phyphox's decimal-comma CSV formats cannot be read: export with "
                                   "`CSV (Comma, decimal point)`, `CSV (Tabulator, decimal point)` or `CSV (Semicolon, decimal point)`)")


def test_phyphox_raw_data(tmp_path):
    """A built-in one-sensor experiment ("Acceleration with g") exports `Raw Data.csv` with an absolute column."""
    synth(tmp_path, "phyphox")
    for folder in (tmp_path / "data").glob("*/*"):
        header, rows = read_csv(folder / "Accelerometer.csv")
        lines = ['"Time (s)","Acceleration x (m/s^2)","Acceleration y (m/s^2)","Acceleration z (m/s^2)","Absolute acceleration (m/s^2)"']
        for r in rows:
            lines.append(",".join(r + [f"{np.sqrt(sum(float(v) ** 2 for v in r[1:])):.9E}"]))
        (folder / "Raw Data.csv").write_text("\n".join(lines) + "\n")
        for f in list(folder.glob("*.csv")):
            if f.name != "Raw Data.csv":
                f.unlink()
    run(tmp_path, "phyphox", '"data/*/*"', "    raw_data: true\n    sensors: Accelerometer\n")

    def expect(name):
        t, v = columns(tmp_path / "data" / name / "Raw Data.csv", PHYPHOX["Accelerometer.csv"][1], "Time (s)", 1)
        return {f"acc_{a}": (t, v[c]) for a, c in zip("xyz", PHYPHOX["Accelerometer.csv"][1])}

    names, _ = check_dataset(tmp_path, expect)
    assert names == ["acc_x", "acc_y", "acc_z"]


def test_androsensor(tmp_path):
    synth(tmp_path, "androsensor")
    files = sorted((tmp_path / "data").glob("*/*.csv"))
    assert [f.name for f in files] == ["Sensor_record_20240501_080000_AndroSensor.csv", "Sensor_record_20240502_080000_AndroSensor.csv"]
    raw = files[0].read_bytes()
    assert raw.startswith(b"sep=;\nACCELEROMETER X (m/s\xc2\xb2);")
    assert b";MAGNETIC FIELD X (\xce\xbcT);" in raw and b";Time since start in ms ;YYYY-MO-DD HH-MI-SS_SSS\n" in raw
    run(tmp_path, "androsensor", '"data/*/*.csv"', "    sensors: [Accelerometer, Gyroscope, Magnetometer, Pressure]\n")
    groups = {"acc": "ACCELEROMETER {} (m/s²)", "gyro": "GYROSCOPE {} (rad/s)", "mag": "MAGNETIC FIELD {} (μT)"}

    def expect(name):
        path = tmp_path / "data" / (name + ".csv")
        cols = [g.format(a) for g in groups.values() for a in "XYZ"] + ["ATMOSPHERIC PRESSURE (hPa)"]
        t, v = columns(path, cols, "Time since start in ms", 1e3, ";", skip=1)
        out = {f"{p}_{a.lower()}": (t, v[g.format(a)]) for p, g in groups.items() for a in "XYZ"}
        out["pressure"] = (t, v["ATMOSPHERIC PRESSURE (hPa)"] * 0.1)
        return out

    names, units = check_dataset(tmp_path, expect)
    assert names == ["acc_x", "acc_y", "acc_z", "gyro_x", "gyro_y", "gyro_z", "mag_x", "mag_y", "mag_z", "pressure"]
    assert units == ["m/s^2"] * 3 + ["rad/s"] * 3 + ["uT"] * 3 + ["kPa"]
    resolved = manifest(tmp_path)["pipeline"]["resolved"]["inputs"]
    assert len(resolved) == 1 and resolved[0]["sensor"] == "AndroSensor" and resolved[0]["delimiter"] == ";"
    assert resolved[0]["time"] == {"column": "Time since start in ms", "unit": "ms"}

    # A phone without a gyroscope: its file lacks the columns, and the message names the header AndroSensor writes.
    text = files[1].read_text(encoding="utf-8").replace("GYROSCOPE X (rad/s)", "LIGHT2 (lux)")
    files[1].write_text(text, encoding="utf-8")
    proc = run(tmp_path, "androsensor", '"data/*/*.csv"', "    sensors: [Gyroscope]\n", check=False)
    assert proc.returncode == 65
    assert proc.stderr.startswith(f"data/subject02/{files[1].name}:2:1: error: not an AndroSensor export: its header `ACCELEROMETER X (m/s²),")
    assert proc.stderr.strip().endswith("has no column `GYROSCOPE X (rad/s)` (expected the header `GYROSCOPE X (rad/s);GYROSCOPE Y (rad/s);"
                                        "GYROSCOPE Z (rad/s);Time since start in ms ` among its columns, after its `sep=;` line; AndroSensor "
                                        "writes the columns of the sensors the phone has, so leave out of `sensors` those it lacks)")
