"""ActiGraph GT3X input (docs/inputs.md, "ActiGraph GT3X (gt3x)") against two independent readers
of the files `motionprep synth --format gt3x` writes to ActiGraph's published format:

- pygt3x (PyPI; ActiGraph's own reader): ACTIVITY and ACTIVITY2 records, checksums, and the
  idle-sleep fill (the last sample repeated for every second the device slept);
- actfast (PyPI, a Rust reader): ACTIVITY records only, no checksum check and no idle-sleep fill.

motionprep's samples (`inspect --samples`) must be pygt3x's (times and values, fill included) and,
where actfast reads the records, actfast's. Also: damaged records counted and never passed on,
deflated archives, hostile files with their messages and exit codes, `{device_id}`, `init`, the
same bytes for any `--jobs` and block size, and a long recording in bounded memory."""
import csv
import io
import json
import os
import re
import subprocess
import zipfile

import h5py
import numpy as np
import pytest

from conftest import BIN, motionprep, peak_rss_kib

pygt3x_reader = pytest.importorskip("pygt3x.reader")
actfast = pytest.importorskip("actfast")


def pipeline(extra="", units="native", window="{length_s: 2, stride_s: 1}", resample="{rate_hz: 25}", paths='["data/**/*.gt3x"]'):
    return f"""\
version: 1
units: {units}
inputs:
  - type: gt3x
    paths: {paths}
{extra}resample: {resample}
window: {window}
output: {{type: hdf5, path: out}}
"""


def synth(root, *args, minutes=1, subjects=1, recordings=1):
    motionprep("synth", "--out", root / "data", "--format", "gt3x", "--subjects", subjects, "--recordings", recordings,
               "--minutes", minutes, "--seed", 11, *args)
    return sorted((root / "data").glob("**/*.gt3x"))


def samples(root, **kw):
    """`inspect --samples` of the folder's pipeline: {recording: (times, values)} of `acc`."""
    (root / "p.yaml").write_text(pipeline(**kw))
    motionprep("inspect", root / "p.yaml", "--samples", root / "samples")
    out = {}
    for f in sorted((root / "samples").glob("**/acc.csv")):
        rows = list(csv.reader(f.open()))
        data = np.array(rows[1:], dtype=np.float64)
        out[f.parent.relative_to(root / "samples").as_posix()] = (data[:, 0], data[:, 1:])
    return out


def pygt3x(path):
    with pygt3x_reader.FileReader(str(path)) as reader:
        df = reader.to_pandas()
    return df.index.to_numpy(np.float64), df[["X", "Y", "Z"]].to_numpy(), df["IdleSleepMode"].to_numpy()


@pytest.mark.parametrize("record", ["activity2", "activity"])
def test_samples_are_pygt3x_and_actfast(tmp_path, record):
    files = synth(tmp_path, "--gt3x-record", record)
    (t, acc), = samples(tmp_path).values()
    assert len(t) == 1800                         # 1 minute at 30 Hz
    t_ref, acc_ref, idle = pygt3x(files[0])
    assert not idle.any()
    # Values: pygt3x divides the raw integer by info.txt's scale in float64, then keeps float32.
    np.testing.assert_array_equal(acc.astype(np.float32), acc_ref)
    # Times: the record's second + i / 30, the same float64 sum.
    np.testing.assert_array_equal(t, t_ref)
    ref = actfast.read(files[0])
    assert ref["format"] == "Actigraph GT3X"
    if record == "activity":
        a = ref["timeseries"]["acceleration"]
        # actfast: raw as float32 / the PARAMETERS record's ACCEL_SCALE (341), times in integer ns.
        np.testing.assert_array_equal(acc.astype(np.float32), a["acceleration"])
        assert np.max(np.abs(t - a["datetime"].astype(np.float64) / 1e9)) < 1e-6
    else:
        # actfast 1.3 reads ACTIVITY (0x00) records only: an ACTIVITY2 file gives it no samples.
        assert "acceleration" not in ref["timeseries"] or len(ref["timeseries"]["acceleration"]["datetime"]) == 0


def test_units_si_multiply_by_standard_gravity(tmp_path):
    synth(tmp_path)
    (name, (t, g)), = samples(tmp_path).items()
    (tmp_path / "samples").rename(tmp_path / "samples-native")
    (_, (t2, si)), = samples(tmp_path, units="si").items()
    np.testing.assert_array_equal(t, t2)
    np.testing.assert_array_equal(si, g * 9.80665)


@pytest.mark.parametrize("record", ["activity2", "activity"])
def test_idle_sleep_is_filled_as_pygt3x_fills_it_and_counted(tmp_path, record):
    files = synth(tmp_path, "--gt3x-record", record, "--gt3x-idle-seconds", 10)
    (t, acc), = samples(tmp_path).values()
    t_ref, acc_ref, idle = pygt3x(files[0])
    assert idle.sum() == 300                      # 10 s at 30 Hz, flagged by pygt3x
    np.testing.assert_array_equal(t, t_ref)
    np.testing.assert_array_equal(acc.astype(np.float32), acc_ref)
    assert len(t) == 1800 and np.all(np.diff(t) > 0)
    # The filled seconds repeat the last sample before the device slept.
    filled = np.flatnonzero(idle)
    assert (acc[filled] == acc[filled[0] - 1]).all()
    if record == "activity":
        # actfast leaves the stretch out: its samples are motionprep's without the filled ones.
        a = actfast.read(files[0])["timeseries"]["acceleration"]
        keep = np.setdiff1d(np.arange(len(t)), filled)
        np.testing.assert_array_equal(acc[keep].astype(np.float32), a["acceleration"])
    (tmp_path / "p.yaml").write_text(pipeline())
    proc = motionprep("run", tmp_path / "p.yaml")
    counts = json.loads((tmp_path / "out/manifest.json").read_text())["counts"]
    assert counts["rows_read"] == 1500
    assert counts["rows_dropped"] == {"gt3x_idle_sleep_filled": 300}
    assert re.search(r"rec-01\.gt3x: warning: 300 samples added over 10 s of idle sleep mode in 1 stretch "
                     r"\(gt3x_idle_sleep_filled: the last sample repeated, as ActiGraph's software fills it\), "
                     r"the first at byte \d+ of `log.bin`", proc.stderr), proc.stderr


def test_qa_imputed_is_the_idle_sleep_fill(tmp_path):
    """With the pipeline's `qa`, a window's `imputed` fraction is the share of its grid points
    that lie within the idle-sleep fill, whose samples pygt3x flags (`IdleSleepMode`): 0 before
    and after the stretch, 1 inside it, the overlap at its ends (docs/pipeline.md, "qa")."""
    files = synth(tmp_path, "--gt3x-idle-seconds", 10)
    t_ref, _, idle = pygt3x(files[0])
    first, last = t_ref[idle.astype(bool)].min(), t_ref[idle.astype(bool)].max()
    text = pipeline(resample="{rate_hz: 30}").replace("output:", "qa: {range_g: 8}\noutput:")
    (tmp_path / "p.yaml").write_text(text)
    motionprep("run", tmp_path / "p.yaml", "--quiet")
    manifest = json.loads((tmp_path / "out/manifest.json").read_text())
    assert manifest["qa"]["columns"] == ["nonwear", "clipped", "imputed"]
    rows = []
    for path in sorted((tmp_path / "out").glob("*.h5")):
        with h5py.File(path) as f:
            rows += list(zip(f["start_time_s"][...], f["qa"][...]))
    assert len(rows) == 59                        # 60 s, windows of 2 s every 1 s
    t0 = min(start for start, _ in rows)          # the first window starts at the grid's first point
    seen = set()
    for start, qa in rows:
        k = round((start - t0) * 30) + np.arange(60)
        times = t0 + k / 30.0                     # the grid's times, as the engine computes them
        want = np.float32(np.mean((times >= first) & (times <= last)))
        assert qa[2] == want, (start - t0, qa, want)
        seen.add("none" if want == 0 else "all" if want == 1 else "part")
    assert seen == {"none", "all", "part"}
    motionprep("validate", tmp_path / "out")


def test_damaged_records_are_counted_and_the_rest_is_the_clean_file(tmp_path):
    clean = synth(tmp_path / "clean")
    damaged = synth(tmp_path / "damaged", "--gt3x-damaged-records", 6)
    assert damaged[0].stat().st_size == clean[0].stat().st_size + 6 * (9 + 180)
    a, = samples(tmp_path / "clean").values()
    b, = samples(tmp_path / "damaged").values()
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    # pygt3x skips the failed checksums and removes the repeated and back-in-time copies
    # (identical to records it has): the clean file's samples, as motionprep's.
    t_ref, acc_ref, _ = pygt3x(damaged[0])
    np.testing.assert_array_equal(b[0], t_ref)
    np.testing.assert_array_equal(b[1].astype(np.float32), acc_ref)
    (tmp_path / "damaged/p.yaml").write_text(pipeline())
    proc = motionprep("run", tmp_path / "damaged/p.yaml")
    counts = json.loads((tmp_path / "damaged/out/manifest.json").read_text())["counts"]
    assert counts["rows_dropped"] == {"gt3x_bad_checksum": 2, "gt3x_repeated_record": 2, "gt3x_backwards_record": 2}
    assert counts["rows_read"] == 1800
    assert re.search(r"rec-01\.gt3x: warning: 2 records dropped \(gt3x_bad_checksum: its checksum fails\), "
                     r"the first at byte \d+ of `log.bin`", proc.stderr), proc.stderr


def rezip(src, dst, order=("info.txt", "log.bin"), drop=(), add=None, edit=None):
    with zipfile.ZipFile(src) as z:
        members = {n: z.read(n) for n in z.namelist()}
    if edit:
        members = edit(members)
    members.update(add or {})
    with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as z:
        for n in list(order) + [n for n in members if n not in order]:
            if n in members and n not in drop:
                z.writestr(n, members[n])


def test_deflated_archive_in_any_order_reads_the_same(tmp_path):
    files = synth(tmp_path / "a")
    (tmp_path / "b/data").mkdir(parents=True)
    rezip(files[0], tmp_path / "b/data/rec.gt3x")
    with zipfile.ZipFile(tmp_path / "b/data/rec.gt3x") as z:
        assert [i.compress_type for i in z.infolist()] == [zipfile.ZIP_DEFLATED] * 2
    a, = samples(tmp_path / "a").values()
    b, = samples(tmp_path / "b").values()
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


def hostile(tmp_path, name, data):
    d = tmp_path / name
    (d / "data").mkdir(parents=True)
    (d / "data/rec.gt3x").write_bytes(data)
    (d / "p.yaml").write_text(pipeline(extra="    strict: true\n" if name == "strict" else ""))
    return motionprep("run", d / "p.yaml", check=False)


def test_an_idle_stretch_past_the_download_date_is_refused(tmp_path):
    """A damaged exit event far in the future would have the idle-sleep fill add samples without
    end: a stretch that ends after `info.txt`'s `Download Date` (the device recorded nothing
    after it) is refused with 65, naming the stretch's byte in `log.bin` and both times."""
    src, = synth(tmp_path / "src", "--gt3x-idle-seconds", 10)
    with zipfile.ZipFile(src) as z:
        start = re.search(rb"Start Date: (\d+)", z.read("info.txt")).group(1)
    out = io.BytesIO()
    rezip(src, out, edit=lambda m: {**m, "info.txt": re.sub(rb"Download Date: \d+", b"Download Date: " + start, m["info.txt"])})
    proc = hostile(tmp_path, "download", out.getvalue())
    assert proc.returncode == 65, proc.stderr
    assert re.search(r"rec\.gt3x: error: (at byte \d+: |byte \d+ of `log\.bin`: )?idle sleep mode from \S+ would be filled "
                     r"up to \S+, 10 s and after `info\.txt`'s `Download Date` \(\S+\): the device recorded nothing after "
                     r"it was downloaded", proc.stderr), proc.stderr
    assert "Traceback" not in proc.stderr and "Fatal error" not in proc.stderr
    # The same file with its own download date reads, the stretch filled.
    out = io.BytesIO()
    rezip(src, out)
    assert hostile(tmp_path, "control", out.getvalue()).returncode == 0


def test_hostile_files_give_one_sentence_and_exit_65(tmp_path):
    src, = synth(tmp_path / "src")
    good = src.read_bytes()

    def zipped(**kw):
        out = io.BytesIO()
        rezip(src, out, **kw)
        return out.getvalue()

    def info_edit(old, new):
        return lambda m: {**m, "info.txt": m["info.txt"].replace(old, new)}

    cases = {
        "truncated": (good[:-10], r"no ZIP end-of-central-directory record in the file's last \d+ bytes \(the file was cut short"),
        "empty": (b"", r"the file is empty"),
        "not-zip": (b"MD" + good[2:], r"not an ActiGraph GT3X file: it starts with 4d 44 03 04"),
        "no-info": (zipped(drop=("info.txt",)), r"the archive has no `info.txt` \(its members: `log.bin`\)"),
        "no-log": (zipped(drop=("log.bin",)), r"the archive has no `log.bin`"),
        "zero-scale": (zipped(edit=info_edit(b"Acceleration Scale: 256.0", b"Acceleration Scale: 0")),
                       r"`info.txt` line \d+: `Acceleration Scale: 0` is not a scale"),
        "wrong-scale": (zipped(edit=info_edit(b"Acceleration Scale: 256.0", b"Acceleration Scale: 341")),
                        r"the PARAMETERS record's ACCEL_SCALE is 256 LSB/g, but `info.txt`'s `Acceleration Scale` is 341"),
        "bad-rate": (zipped(edit=info_edit(b"Sample Rate: 30", b"Sample Rate: fast")),
                     r"`info.txt` line 5: `Sample Rate: fast` is not a sample rate"),
        "uncalibrated": (zipped(add={"calibration.json": b'{"isCalibrated": false, "calibrationMethod": 2}'}),
                         r"`calibration.json` says the data is not calibrated"),
        "strict": (zipped(edit=lambda m: {**m, "log.bin": m["log.bin"][:-100]}),
                   r"`log.bin` ends inside a record of which \d+ bytes are there"),
    }
    for name, (data, pattern) in cases.items():
        proc = hostile(tmp_path, name, data)
        assert proc.returncode == 65, (name, proc.stderr)
        assert re.search(r"rec\.gt3x: error: (at byte \d+: |byte \d+ of `log\.bin`: )?" + pattern, proc.stderr), (name, proc.stderr)
        assert "Traceback" not in proc.stderr and "Fatal error" not in proc.stderr
    # The truncated archive's message names the file's end.
    proc = hostile(tmp_path, "truncated2", good[:-10])
    assert f"rec.gt3x: error: at byte {len(good) - 10}: no ZIP end-of-central-directory" in proc.stderr, proc.stderr
    # Without `strict`, a cut log.bin keeps its whole records and counts the rest.
    proc = hostile(tmp_path, "cut", zipped(edit=lambda m: {**m, "log.bin": m["log.bin"][:-100]}))
    assert proc.returncode == 0, proc.stderr
    counts = json.loads((tmp_path / "cut/out/manifest.json").read_text())["counts"]
    assert counts["rows_dropped"] == {"gt3x_partial_record": 1}


def test_device_id_is_the_serial_number(tmp_path):
    synth(tmp_path, subjects=2, recordings=2, minutes=0.2)
    (tmp_path / "p.yaml").write_text(pipeline(extra='    subject: "{device_id}"\n    recording: "{device_id}-{stem}"\n'))
    motionprep("run", tmp_path / "p.yaml")
    manifest = json.loads((tmp_path / "out/manifest.json").read_text())
    serials = []
    for f in sorted((tmp_path / "data").glob("**/*.gt3x")):
        serials.append(actfast.read(f)["metadata"]["info"]["Serial Number"])
    assert manifest["subjects"] == sorted(set(serials)) == ["MOS2E22180001", "MOS2E22180002"]
    assert sorted(manifest["recordings"]) == sorted(f"{s}-rec-0{i}" for s in set(serials) for i in (1, 2))
    (tmp_path / "bad.yaml").write_text(pipeline(extra='    recording: "{session_id}"\n'))
    proc = motionprep("validate", tmp_path / "bad.yaml", check=False)
    assert proc.returncode == 78 and "uses `{session_id}`, which only `type: cwa` inputs have" in proc.stderr, proc.stderr


def test_init_recognises_gt3x_files(tmp_path):
    synth(tmp_path, subjects=2, minutes=0.3)
    motionprep("init", tmp_path / "data", "-o", tmp_path / "draft.yaml")
    text = (tmp_path / "draft.yaml").read_text()
    assert "  - type: gt3x\n" in text and "sensors: [acc]" in text, text
    motionprep("run", tmp_path / "draft.yaml", "--out", tmp_path / "drafted")
    manifest = json.loads((tmp_path / "drafted/manifest.json").read_text())
    assert [c["name"] for c in manifest["channels"]][:3] == ["acc_x", "acc_y", "acc_z"]


def test_same_bytes_for_any_jobs_and_block_size(tmp_path):
    synth(tmp_path, "--gt3x-idle-seconds", 5, "--gt3x-damaged-records", 3, subjects=2, recordings=2, minutes=0.5)
    outs = []
    for jobs, block in ((1, str(1 << 40)), (2, "4096"), (2, "700")):
        (tmp_path / "p.yaml").write_text(pipeline().replace("path: out", f"path: out-{jobs}-{block}"))
        subprocess.run([BIN, "run", tmp_path / "p.yaml", "--jobs", str(jobs), "--quiet"], check=True,
                       env={**os.environ, "MOTIONPREP_STREAM_BLOCK_BYTES": block})
        d = tmp_path / f"out-{jobs}-{block}"
        outs.append({f.relative_to(d).as_posix(): f.read_bytes() for f in sorted(d.rglob("*")) if f.is_file()})
    assert outs[0] == outs[1] == outs[2]


def test_a_long_recording_streams_in_bounded_memory(tmp_path):
    """Three hours at 30 Hz (324 000 samples) against 18 minutes: the peak memory of `run` does
    not grow with the recording's length, nor with a 2.5-hour idle-sleep stretch (270 000 samples
    filled, which come out in blocks)."""
    peaks = {}
    for minutes, idle in ((18, 0), (180, 0), (180, 9000)):
        root = tmp_path / f"m{minutes}-{idle}"
        synth(root, "--gt3x-idle-seconds", idle, minutes=minutes)
        (root / "p.yaml").write_text(pipeline(window="{length_s: 1, stride_s: 30}", resample="{rate_hz: 25, antialias: false}"))
        peaks[minutes, idle] = peak_rss_kib(["run", root / "p.yaml", "--quiet", "--jobs", 1],
                                             env={"MOTIONPREP_STREAM_BLOCK_BYTES": str(64 << 10)})
        counts = json.loads((root / "out/manifest.json").read_text())["counts"]
        assert counts["rows_read"] == (minutes * 60 - idle) * 30
        assert counts["rows_dropped"] == ({"gt3x_idle_sleep_filled": idle * 30} if idle else {})
    # Ten times the samples; the three hours held as float64 would add 324 000 × 4 × 8 B ≈ 10 MiB.
    assert peaks[180, 0] < peaks[18, 0] + 3 * 1024, peaks
    assert peaks[180, 9000] < peaks[18, 0] + 3 * 1024, peaks


def test_time_zone_converts_the_device_clock(tmp_path):
    """`time: {zone: Asia/Kolkata}` (+05:30, no daylight saving): every sample 19 800 s earlier,
    values bit for bit the same."""
    synth(tmp_path)
    (t, acc), = samples(tmp_path).values()
    (tmp_path / "samples").rename(tmp_path / "samples-utc")
    (t2, acc2), = samples(tmp_path, extra="    time: {zone: Asia/Kolkata}\n").values()
    np.testing.assert_array_equal(t - 19_800, t2)
    np.testing.assert_array_equal(acc, acc2)
