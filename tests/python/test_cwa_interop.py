"""Axivity CWA input (docs/inputs.md, "Axivity CWA (cwa)") against an independent reader:
actfast (PyPI, a Rust reader of CWA, GT3X and GENEActiv files) decodes the files that
`motionprep synth --format cwa` writes to OpenMovement's published format, and motionprep's samples
(`inspect --samples`, values as read and after unit conversion) must be actfast's: the same
values, at the same times within the format's 1/32768 s timestamp resolution. Also: damaged blocks
counted and never passed on, `{device_id}` in templates, `init`, and a long recording streamed
in bounded memory."""
import csv
import json
import os
import re
import resource
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import BIN, motionprep, peak_rss_kib

actfast = pytest.importorskip("actfast")

DEG = np.pi / 180


def pipeline(sensors="[acc]", units="native", extra="", window="{length_s: 2, stride_s: 1}", resample="{rate_hz: 50}"):
    return f"""\
version: 1
units: {units}
inputs:
  - type: cwa
    paths: ["data/**/*.cwa"]
    sensors: {sensors}
{extra}resample: {resample}
window: {window}
output: {{type: hdf5, path: out}}
"""


def synth(root, *args, minutes=1, subjects=1, recordings=1):
    motionprep("synth", "--out", root / "data", "--format", "cwa", "--subjects", subjects, "--recordings", recordings,
               "--minutes", minutes, "--seed", 11, *args)
    return sorted((root / "data").glob("**/*.cwa"))


def samples(root, sensors="[acc]", units="native"):
    """`inspect --samples` of the folder's pipeline: {recording: {sensor: (times, values)}}."""
    (root / "p.yaml").write_text(pipeline(sensors, units))
    motionprep("inspect", root / "p.yaml", "--samples", root / "samples")
    out = {}
    for f in sorted((root / "samples").glob("**/*.csv")):
        rows = list(csv.reader(f.open()))
        data = np.array(rows[1:], dtype=np.float64)
        out.setdefault(f.parent.relative_to(root / "samples").as_posix(), {})[f.stem] = (data[:, 0], data[:, 1:])
    return out


@pytest.mark.parametrize("device", ["ax3-packed", "ax3-unpacked", "ax6"])
def test_samples_are_actfasts(tmp_path, device):
    files = synth(tmp_path, "--cwa-device", device)
    gyro = device == "ax6"
    got = samples(tmp_path, "[acc, gyro]" if gyro else "[acc]")
    ref = actfast.read(files[0])
    assert ref["format"] == "Axivity CWA"
    assert ref["metadata"]["device"]["hardware_type"] == ("AX6" if gyro else "AX3")
    hf = ref["timeseries"]["high_frequency"]
    t_ref = hf["datetime"].astype(np.float64) / 1e9
    (name, streams), = got.items()
    t, acc = streams["acc"]
    assert len(t) == len(t_ref) == 6000          # 1 minute at 100 Hz
    # Values: actfast's float32 of the same raw integer × scale (exact in motionprep's float64).
    np.testing.assert_array_equal(acc.astype(np.float32), hf["acceleration"])
    # Times: actfast places each block's samples at the nominal rate from its timestamp;
    # motionprep interpolates between consecutive timestamps. On a steady 100 Hz clock they
    # agree within the timestamp's resolution (1/32768 s), and both increase.
    assert np.max(np.abs(t - t_ref)) < 1 / 32768 + 1e-6
    assert np.all(np.diff(t) > 0) and np.all(np.diff(t_ref) > 0)
    assert abs(np.median(np.diff(t)) - 0.01) < 1e-6
    if gyro:
        tg, g = streams["gyro"]
        np.testing.assert_array_equal(tg, t)
        np.testing.assert_array_equal(g.astype(np.float32), hf["gyroscope"])
        assert np.abs(g).max() > 1             # deg/s: the model turns and rocks


def test_units_si_convert_g_and_deg_per_s(tmp_path):
    files = synth(tmp_path, "--cwa-device", "ax6")
    native = samples(tmp_path, "[acc, gyro]")
    (tmp_path / "samples").rename(tmp_path / "samples-native")
    si = samples(tmp_path, "[acc, gyro]", units="si")
    (name, n), = native.items()
    s = si[name]
    np.testing.assert_array_equal(s["acc"][1], n["acc"][1] * 9.80665)
    np.testing.assert_array_equal(s["gyro"][1], n["gyro"][1] * DEG)
    header = (tmp_path / "samples" / name / "gyro.csv").read_text().split("\n")[0]
    assert header == "time_s,gyro_x,gyro_y,gyro_z"


def test_damaged_blocks_are_counted_and_the_rest_is_the_clean_files(tmp_path):
    clean = synth(tmp_path / "clean")
    damaged = synth(tmp_path / "damaged", "--cwa-damaged-blocks", 6)
    assert damaged[0].stat().st_size == clean[0].stat().st_size + 6 * 512
    # actfast, lenient, skips the blocks whose checksum fails and keeps the others (repeated and
    # back-in-time copies); motionprep drops those too, so its samples are the clean file's.
    ref = actfast.read(damaged[0], lenient=True)
    assert sum("failed checksum" in w for w in ref["warnings"]) == 2
    t_ref = ref["timeseries"]["high_frequency"]["datetime"]
    assert len(t_ref) == 6000 + 4 * 120         # two repeated and two back-in-time blocks of 120 samples
    a = samples(tmp_path / "clean")
    b = samples(tmp_path / "damaged")
    assert a.keys() == b.keys()
    for name in a:
        np.testing.assert_array_equal(a[name]["acc"][0], b[name]["acc"][0])
        np.testing.assert_array_equal(a[name]["acc"][1], b[name]["acc"][1])
    # A run counts the blocks by reason in the manifest and names them in its warnings.
    (tmp_path / "damaged/p.yaml").write_text(pipeline())
    proc = motionprep("run", tmp_path / "damaged/p.yaml")
    manifest = json.loads((tmp_path / "damaged/out/manifest.json").read_text())
    assert manifest["counts"]["rows_dropped"] == {"cwa_bad_checksum": 2, "cwa_repeated_block": 2, "cwa_backwards_block": 2}
    assert manifest["counts"]["rows_read"] == 6000
    assert re.search(r"rec-01\.cwa: warning: 2 blocks dropped \(cwa_bad_checksum: its checksum fails\), the first at byte \d+", proc.stderr)
    assert "cwa_repeated_block" in proc.stderr and "cwa_backwards_block" in proc.stderr


def test_device_and_session_ids_in_templates(tmp_path):
    synth(tmp_path, subjects=2, recordings=2, minutes=0.2)
    (tmp_path / "p.yaml").write_text(pipeline(extra='    subject: "{device_id}"\n    recording: "{device_id}-{session_id}"\n'))
    motionprep("run", tmp_path / "p.yaml")
    manifest = json.loads((tmp_path / "out/manifest.json").read_text())
    assert manifest["subjects"] == ["30001", "30002"]
    names = manifest["recordings"]
    assert len(names) == 4 and all(re.fullmatch(r"3000[12]-\d+", n) for n in names), names
    # The ids are actfast's too.
    for f in sorted((tmp_path / "data").glob("**/*.cwa")):
        meta = actfast.read(f)["metadata"]["device"]
        assert f"{meta['device_id']}-{meta['session_id']}" in names
    # Other inputs refuse them (78).
    (tmp_path / "bad.yaml").write_text(pipeline().replace("type: cwa", "type: motioncollector").replace(
        "    sensors: [acc]\n", '    subject: "{device_id}"\n'))
    proc = motionprep("validate", tmp_path / "bad.yaml", check=False)
    assert proc.returncode == 78 and "only `type: cwa` inputs have" in proc.stderr


def test_init_recognises_cwa_files(tmp_path):
    synth(tmp_path, "--cwa-device", "ax6", subjects=2, minutes=0.3)
    proc = motionprep("init", tmp_path / "data", "-o", tmp_path / "draft.yaml")
    text = (tmp_path / "draft.yaml").read_text()
    assert "  - type: cwa\n" in text and "sensors: [acc, gyro]" in text, text
    motionprep("run", tmp_path / "draft.yaml", "--out", tmp_path / "drafted")
    manifest = json.loads((tmp_path / "drafted/manifest.json").read_text())
    assert [c["name"] for c in manifest["channels"]][:6] == ["acc_x", "acc_y", "acc_z", "gyro_x", "gyro_y", "gyro_z"]


def test_same_bytes_for_any_jobs_and_block_size(tmp_path):
    synth(tmp_path, subjects=2, recordings=2, minutes=0.5)
    outs = []
    for jobs, block in ((1, str(1 << 40)), (2, "4096"), (2, "700")):
        (tmp_path / "p.yaml").write_text(pipeline().replace("path: out", f"path: out-{jobs}-{block}"))
        subprocess.run([BIN, "run", tmp_path / "p.yaml", "--jobs", str(jobs), "--quiet"], check=True,
                       env={**os.environ, "MOTIONPREP_STREAM_BLOCK_BYTES": block})
        d = tmp_path / f"out-{jobs}-{block}"
        outs.append({f.relative_to(d).as_posix(): f.read_bytes() for f in sorted(d.rglob("*")) if f.is_file()})
    assert outs[0] == outs[1] == outs[2]


def test_a_long_recording_streams_in_bounded_memory(tmp_path):
    """One hour at 100 Hz (360 000 samples in 3 000 blocks) against 6 minutes: the peak memory of
    `run` does not grow with the recording's length (the windows go to the file as they are cut)."""
    peaks = {}
    for minutes in (6, 60):
        root = tmp_path / f"m{minutes}"
        synth(root, minutes=minutes)
        # Few windows (one every 30 s), so that what grows with the hour is only what ingest holds;
        # without anti-aliasing, whose median pass keeps a recording under 64 MiB (a CWA file
        # counted 10 times) as blocks rather than read it twice (docs/streaming.md).
        (root / "p.yaml").write_text(pipeline(window="{length_s: 1, stride_s: 30}", resample="{rate_hz: 50, antialias: false}"))
        peaks[minutes] = peak_rss_kib(["run", root / "p.yaml", "--quiet", "--jobs", 1],
                                       env={"MOTIONPREP_STREAM_BLOCK_BYTES": str(64 << 10)})
        manifest = json.loads((root / "out/manifest.json").read_text())
        assert manifest["counts"]["rows_read"] == minutes * 6000
    # Ten times the samples; the whole hour held as float64 would add 360 000 × 4 × 8 B ≈ 11 MiB.
    assert peaks[60] < peaks[6] + 3 * 1024, peaks


def test_apply_and_live_vectors_read_the_datasets_own_pipeline(tmp_path):
    """A dataset's `pipeline.resolved` lists `units: {}` for every input. `apply` and
    `live-vectors` read that pipeline again: the empty mapping says nothing and is accepted for
    `type: cwa` (they refused every CWA dataset before), while a `units` mapping with a column
    in it is still refused, at its line and column."""
    files = synth(tmp_path, minutes=0.5)
    (tmp_path / "p.yaml").write_text(pipeline())
    motionprep("run", tmp_path / "p.yaml", "--quiet")
    resolved = json.loads((tmp_path / "out" / "manifest.json").read_text())["pipeline"]["resolved"]
    assert resolved["inputs"][0]["units"] == {}
    motionprep("apply", tmp_path / "out", files[0], "--out", tmp_path / "applied", "--quiet")
    motionprep("validate", tmp_path / "applied")
    motionprep("live-vectors", tmp_path / "out", files[0], "-o", tmp_path / "vectors.json")
    vectors = json.loads((tmp_path / "vectors.json").read_text())
    assert vectors["windows"], "live-vectors wrote no window"
    (tmp_path / "bad.yaml").write_text(pipeline(extra="    units: {acc_x: mg}\n"))
    proc = motionprep("validate", tmp_path / "bad.yaml", check=False)
    assert proc.returncode == 78, proc.stderr
    assert re.search(r"bad\.yaml:\d+:\d+: error: key `units` in `inputs\[0\]`.* does not apply to `type: cwa`", proc.stderr), proc.stderr
