"""Streamed recordings (issue 8, docs/streaming.md "One path"): every recording goes through the
engine a block at a time, and any block size gives exactly the bytes of the same recording read
in one block ("whole"), for every stage option and output type; errors are the same; --resume
and merge work on streamed records; memory does not grow with a recording's length.

`MOTIONPREP_STREAM_BLOCK_BYTES` sets the input bytes per block (a huge value: each file in one
block)."""
import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import h5py
import numpy as np
import pytest

from conftest import BIN, motionprep

WHOLE = {"MOTIONPREP_STREAM_BLOCK_BYTES": str(1 << 40)}  # each file in one block


def streamed(block):
    return {"MOTIONPREP_STREAM_BLOCK_BYTES": str(block)}


def run(pipeline, out, env, *extra, check=True):
    proc = subprocess.run([BIN, "run", str(pipeline), "--quiet", "--json", "--out", str(out), *extra],
                          capture_output=True, text=True, env={**os.environ, **env})
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def files(out: Path):
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def roughen(path: Path, seed: int):
    """Adds what docs/inputs.md, "Bad rows and time order" tolerates to a MotionCollector file: duplicate times (last wins),
    missing values, blank lines, CRLF line ends."""
    rng = random.Random(seed)
    lines = path.read_text().split("\n")
    out = [lines[0]]
    for line in lines[1:]:
        if not line:
            continue
        out.append(line)
        r = rng.random()
        f = line.split(",")
        if r < 0.01 and f[0] in "AG":
            f2 = list(f)
            f2[3] = str(float(f2[3]) + 1.0)
            out.append(",".join(f2))          # same time, new values: replaces the row before
        elif r < 0.015:
            out.append("")                    # blank line
        elif r < 0.02 and f[0] in "AG":
            f2 = list(f)
            f2[4] = ""                        # missing value: dropped and counted
            out.append(",".join(f2))
    path.write_bytes(("\r\n".join(out) + "\r\n").encode())


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("stream")
    motionprep("synth", "--out", root / "cur", "--subjects", 4, "--recordings", 1, "--minutes", 3, "--seed", 21)
    motionprep("synth", "--out", root / "leg", "--subjects", 3, "--recordings", 1, "--minutes", 2, "--seed", 22, "--legacy")
    for i, p in enumerate(sorted((root / "cur").rglob("*.csv"))):
        roughen(p, i)
    motionprep("synth", "--out", root / "iio", "--format", "iio", "--subjects", 2, "--minutes", 2, "--seed", 23)
    with open(sorted((root / "iio").rglob("*.bin"))[0], "ab") as f:
        f.write(b"\x01\x02\x03")   # a partial scan: dropped, counted, warned about
    motionprep("synth", "--out", root / "phone", "--format", "csv", "--subjects", 2, "--minutes", 2, "--seed", 24)
    # Axivity AX6 files with damaged blocks (a failed checksum, a repeated block, one back in time)
    # and one cut inside its last block: all counted, never passed on.
    motionprep("synth", "--out", root / "cwa", "--format", "cwa", "--cwa-device", "ax6", "--cwa-damaged-blocks", 3,
               "--subjects", 2, "--recordings", 1, "--minutes", 2, "--seed", 25)
    with open(sorted((root / "cwa").rglob("*.cwa"))[0], "ab") as f:
        f.write(b"\x41\x58\x00")
    # ActiGraph files with damaged records and idle sleep (a stretch filled with the last sample,
    # in blocks): counted, never passed on, the same for every block size.
    motionprep("synth", "--out", root / "gt3x", "--format", "gt3x", "--gt3x-damaged-records", 3, "--gt3x-idle-seconds", 20,
               "--subjects", 2, "--recordings", 1, "--minutes", 2, "--seed", 26)
    # An isolated run of 10 accelerometer samples between two gaps: too short to filter, warned about.
    acc = sorted((root / "phone").rglob("Accelerometer.csv"))[-1]
    lines = acc.read_bytes().split(b"\n")
    acc.write_bytes(b"\n".join(lines[:3000] + lines[3040:3050] + lines[3090:]))
    # One recording's barometer stops halfway: the accelerometer file runs on past the grid.
    baro = sorted((root / "phone").rglob("Barometer.csv"))[0]
    lines = baro.read_bytes().split(b"\n")
    baro.write_bytes(b"\n".join(lines[: len(lines) // 2]) + b"\n")
    # A long-format file: A and G rows interleaved, `;`, ISO 8601 times with a zone, labels.
    rng = random.Random(5)
    lines = ["timestamp;sensor;x;y;z;activity"]
    t = 1_714_566_600.0
    from datetime import datetime, timedelta, timezone
    zone = timezone(timedelta(hours=2))
    for i in range(30000):
        t += 0.005 + rng.random() * 0.001
        stamp = datetime.fromtimestamp(t, zone).isoformat(timespec="microseconds")
        label = "walk" if (i // 4000) % 2 == 0 else "stairs; up"
        sensor = "AG"[i % 2]
        lines.append(f"{stamp};{sensor};{rng.gauss(0, 1):.6f};{rng.gauss(0, 1):.6f};{rng.gauss(9.8, 1):.6f};\"{label}\"")
    (root / "long").mkdir()
    (root / "long/rec.csv").write_text("\n".join(lines) + "\n")
    # The gyroscope starts 60 % into the recording: the accelerometer waits for T0.
    (root / "latestart").mkdir()
    rows = (root / "cur/subject02/rec-01.csv").read_bytes().decode().split("\r\n")
    body = [r for r in rows[1:] if r]
    cut = int(len(body) * 0.6)
    body = [r for i, r in enumerate(body) if i >= cut or not r.startswith("G,")]
    (root / "latestart/rec.csv").write_text("\n".join([rows[0]] + body) + "\n")
    # Rows out of time order (every 50th row swapped with the one after it), for `sort: true`.
    (root / "unsorted").mkdir()
    rows = (root / "cur/subject01/rec-01.csv").read_bytes().decode().split("\r\n")
    body = [r for r in rows[1:] if r]
    for i in range(10, len(body) - 1, 50):
        body[i], body[i + 1] = body[i + 1], body[i]
    (root / "unsorted/rec.csv").write_text("\n".join([rows[0]] + body) + "\n")
    # Interval labels for the current-variant recordings.
    rows = ["recording,start_s,end_s,label"]
    for p in sorted((root / "cur").rglob("*.csv")):
        name = p.relative_to(root / "cur").with_suffix("").as_posix()
        rows += [f"{name},5,40,walk", f"{name},40,70,turn", f"{name},90,150,walk"]
    (root / "intervals.csv").write_text("\n".join(rows) + "\n")
    return root


PIPELINES = {
    "antialias-rows-features": """
inputs: [{type: motioncollector, paths: ["cur/**/*.csv"]}]
resample: {rate_hz: 50, max_gap_s: 0.2}
window: {length_s: 2.56, stride_s: 1.28}
labels: {map: {W: walk, T: turn}, min_fraction: 0.6}
features: [mean, std, min, max, rms, dominant_freq_hz]
magnitude: [acc]
split: {fractions: {train: 0.5, validation: 0.25, test: 0.25}}
output: {type: hdf5, path: out}
""",
    "methods-center-gaps": """
inputs: [{type: motioncollector, paths: ["cur/**/*.csv"], sensors: [A, G, M]}]
resample: {rate_hz: 40, method: {default: linear, G: nearest, M: previous}, max_gap_s: {default: 0.03, M: 0.5}, antialias: false}
window: {length_s: 1.0, stride_s: 0.3}
labels: {policy: center, map: {W: walk, T: turn}}
split: {fractions: {train: 0.5, validation: 0.25, test: 0.25}, folds: 2}
output: {type: hdf5, path: out}
""",
    "legacy-markers-pure-shards": """
inputs: [{type: motioncollector, paths: ["leg/**/*.csv"], sensors: [A, D]}]
resample: {rate_hz: 25, max_gap_s: 0.3}
window: {length_s: 2.0, stride_s: 0.5}
labels: {from: markers, policy: pure, map: {W: walk, T: turn}}
features: [mean, energy]
split: {fractions: {train: 0.34, validation: 0.33, test: 0.33}}
output: {type: shards, path: out, windows_per_shard: 100}
""",
    "intervals-unlabelled-classes": """
inputs: [{type: motioncollector, paths: ["cur/**/*.csv"], sensors: [A]}]
resample: {rate_hz: 100, antialias: true}
window: {length_s: 0.64, stride_s: 0.64}
labels: {from: intervals, path: intervals.csv, classes: [walk]}
split: {fractions: {train: 0.5, validation: 0.25, test: 0.25}}
output: {type: hdf5, path: out}
""",
    "iio-antialias": """
inputs: [{type: iio, paths: ["iio/**/*.bin"], layout: "{dirpath}/sysfs", sensor: imu}]
resample: {rate_hz: 40, max_gap_s: 0.2}
window: {length_samples: 64, stride_samples: 32}
features: [mean, std]
split: {fractions: {train: 0.5, validation: 0.5, test: 0.0}}
output: {type: hdf5, path: out}
""",
    "cwa-ax6-temperature": """
inputs: [{type: cwa, paths: ["cwa/**/*.cwa"], sensors: [acc, gyro, temperature]}]
resample: {rate_hz: 50, max_gap_s: {default: 0.2, temperature: 1}}
window: {length_samples: 64, stride_samples: 32}
split: {fractions: {train: 0.5, validation: 0.5, test: 0.0}}
output: {type: hdf5, path: out}
""",
    "gt3x-idle-damaged": """
inputs: [{type: gt3x, paths: ["gt3x/**/*.gt3x"]}]
resample: {rate_hz: 25, max_gap_s: 0.2}
window: {length_samples: 50, stride_samples: 25}
split: {fractions: {train: 0.5, validation: 0.5, test: 0.0}}
output: {type: hdf5, path: out}
""",
    "iio-stem-shards": """
inputs: [{type: iio, paths: ["iio/**/*.bin"], layout: "{dirpath}/sysfs"}]
resample: {rate_hz: 100, antialias: false, method: nearest}
window: {length_samples: 50}
split: {fractions: {train: 0.5, validation: 0.5, test: 0.0}}
output: {type: shards, path: out, windows_per_shard: 64}
""",
    "csv-phone-two-files": """
inputs:
  - {type: csv, paths: ["phone/*/*/Accelerometer.csv"], recording: "{dirpath}", subject: "{dir:2}",
     time: {column: time, unit: s}, channels: {acc_x: x, acc_y: y, acc_z: z}, units: {acc_x: g, acc_y: g, acc_z: g},
     label_column: activity}
  - {type: csv, paths: ["phone/*/*/Barometer.csv"], recording: "{dirpath}", subject: "{dir:2}",
     time: {column: time, unit: s}, channels: {pressure: pressure, relative_altitude: relative_altitude},
     units: {pressure: kPa, relative_altitude: m}, label_column: activity}
resample: {rate_hz: 50, method: {default: linear, Barometer: previous}, max_gap_s: {default: 0.2, Barometer: 1.5}}
window: {length_s: 2.0, stride_s: 1.0}
labels: {min_fraction: 0.7, classes: [walk, stairs]}
features: [mean, std, range]
split: {fractions: {train: 0.5, validation: 0.5, test: 0.0}}
output: {type: hdf5, path: out}
""",
    "csv-long-iso": """
inputs:
  - {type: csv, paths: ["long/*.csv"], delimiter: ";", time: {column: timestamp, unit: iso8601}, sensor_column: sensor,
     sensor_channels: {A: {acc_x: x, acc_y: y, acc_z: z}, G: {gyro_x: x, gyro_y: y, gyro_z: z}},
     units: {acc_x: g, acc_y: g, acc_z: g, gyro_x: deg/s, gyro_y: deg/s, gyro_z: deg/s}, label_column: activity,
     sensors: [G, A]}
resample: {rate_hz: 20, max_gap_s: 0.2}
window: {length_samples: 20, stride_samples: 10}
labels: {classes: [walk, "stairs; up"], policy: pure}
split: {fractions: {train: 1.0, validation: 0.0, test: 0.0}}
output: {type: hdf5, path: out}
""",
    "late-start": """
inputs: [{type: motioncollector, paths: ["latestart/*.csv"], sensors: [A, G]}]
resample: {rate_hz: 50}
window: {length_s: 2.56, stride_s: 1.28}
labels: {map: {W: walk, T: turn}}
split: {fractions: {train: 1.0, validation: 0.0, test: 0.0}}
output: {type: hdf5, path: out}
""",
    "sort-true": """
inputs: [{type: motioncollector, paths: ["unsorted/*.csv"], sort: true, sensors: [A, G]}]
resample: {rate_hz: 50}
window: {length_s: 2.56, stride_s: 1.28}
labels: {map: {W: walk, T: turn}}
features: [mean, max]
split: {fractions: {train: 1.0, validation: 0.0, test: 0.0}}
output: {type: hdf5, path: out}
""",
    "no-labels": """
inputs: [{type: motioncollector, paths: ["cur/**/*.csv"], sensors: [G]}]
resample: {rate_hz: 20}
window: {length_s: 3.0, stride_s: 1.0}
split: {fractions: {train: 0.5, validation: 0.25, test: 0.25}}
output: {type: shards, path: out}
""",
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_streamed_equals_whole(data, name):
    pipeline = data / f"{name}.yaml"
    pipeline.write_text(f"version: 1\nname: {name}\n" + PIPELINES[name].lstrip())
    whole = run(pipeline, data / f"{name}-whole", WHOLE)
    reference = files(data / f"{name}-whole")
    summary = json.loads(whole.stdout)
    for block in [97, 4096, 1 << 20]:
        out = data / f"{name}-stream-{block}"
        p = run(pipeline, out, streamed(block))
        s = json.loads(p.stdout)
        assert s["streamed_recordings"] == s["recordings"] > 0
        assert {k: v for k, v in s.items() if k not in ("streamed_recordings", "output")} == \
               {k: v for k, v in summary.items() if k not in ("streamed_recordings", "output")}
        assert p.stderr == whole.stderr
        got = files(out)
        assert got.keys() == reference.keys()
        for k in reference:
            assert got[k] == reference[k], f"{name}, block {block}: {k} differs"
    if "cur/" in PIPELINES[name]:
        assert summary["rows_dropped"].get("duplicate_time", 0) > 0
    if "phone/" in PIPELINES[name]:
        assert "run(s) of Accelerometer between gaps had 15 samples or fewer" in whole.stderr
    if "cwa/" in PIPELINES[name]:
        assert summary["rows_dropped"] == {"cwa_bad_checksum": 2, "cwa_repeated_block": 2, "cwa_backwards_block": 2,
                                           "cwa_partial_block": 1}
        assert "cwa_partial_block" in whole.stderr and "cwa_bad_checksum" in whole.stderr
    if "gt3x/" in PIPELINES[name]:
        assert summary["rows_dropped"] == {"gt3x_bad_checksum": 2, "gt3x_repeated_record": 2, "gt3x_backwards_record": 2,
                                           "gt3x_idle_sleep_filled": 2 * 600}
        assert "gt3x_idle_sleep_filled" in whole.stderr and "gt3x_bad_checksum" in whole.stderr
    if "iio/" in PIPELINES[name]:
        assert summary["rows_dropped"] == {"partial_scan": 1}
        assert "W_TRUNCATED_TAIL:3B" in whole.stderr


def test_streamed_with_several_jobs_and_skip(data):
    """--jobs 1 and --jobs 2 give the same bytes when streaming; a bad recording is skipped with
    the same error as whole processing gives it."""
    bad = data / "bad"
    bad.mkdir(exist_ok=True)
    lines = (data / "cur/subject01/rec-01.csv").read_bytes().decode().split("\r\n")
    lines[5000] = "A,,12.5,abc,0,0"
    (bad / "broken.csv").write_text("\r\n".join(lines))
    pipeline = data / "skip.yaml"
    pipeline.write_text("""version: 1
name: skip
inputs: [{type: motioncollector, paths: ["cur/**/*.csv", "bad/*.csv"], subject: "{stem}"}]
resample: {rate_hz: 50}
window: {length_s: 2.56, stride_s: 1.28}
labels: {map: {W: walk, T: turn}}
split: {fractions: {train: 0.5, validation: 0.25, test: 0.25}}
on_error: skip
output: {type: hdf5, path: out}
""")
    whole = run(pipeline, data / "skip-whole", WHOLE, "--jobs", "1")
    one = run(pipeline, data / "skip-s1", streamed(5000), "--jobs", "1")
    two = run(pipeline, data / "skip-s2", streamed(5000), "--jobs", "2")
    sw, s1, s2 = (json.loads(p.stdout) for p in (whole, one, two))
    assert sw["skipped"] and sw["skipped"] == s1["skipped"] == s2["skipped"]
    assert "broken.csv:5001" in sw["skipped"][0]["error"]
    assert files(data / "skip-whole") == files(data / "skip-s1") == files(data / "skip-s2")


def test_errors_are_those_of_whole_processing(data):
    """A decreasing time (docs/inputs.md, "Bad rows and time order") stops the run with the same message and exit code."""
    bad = data / "order"
    bad.mkdir(exist_ok=True)
    lines = (data / "cur/subject02/rec-01.csv").read_bytes().decode().split("\r\n")
    f = lines[9000].split(",")
    f[2] = "0.5"
    lines[9000] = ",".join(f)
    (bad / "rec.csv").write_text("\r\n".join(lines))
    pipeline = data / "order.yaml"
    pipeline.write_text("""version: 1
name: order
inputs: [{type: motioncollector, paths: ["order/*.csv"]}]
resample: {rate_hz: 50}
window: {length_s: 2.56, stride_s: 1.28}
output: {type: hdf5, path: out}
""")
    a = run(pipeline, data / "order-whole", WHOLE, check=False)
    b = run(pipeline, data / "order-stream", streamed(4096), check=False)
    assert a.returncode == b.returncode == 65
    assert a.stderr == b.stderr and "rec.csv:9001" in a.stderr
    assert not (data / "order-stream").exists() and not Path(str(data / "order-stream") + ".partial").exists()


ORDER_PIPELINE = """version: 1
name: order
inputs: [{type: motioncollector, paths: ["order/*.csv"], sensors: [A, G]}]
resample: {rate_hz: 50}
window: {length_s: 2.56, stride_s: 1.28}
output: {type: hdf5, path: out}
"""


@pytest.mark.parametrize("case", ["decrease-then-bad-line", "two-decreases", "missing-stream", "iio-decrease"])
def test_error_precedence_is_that_of_whole_processing(data, case):
    """Whole processing reads the file, then checks each kept stream in order; a streamed
    recording reports the same first error: a bad line after a decrease wins, the stream first in
    the layout wins, a missing stream is named, an iio dump's decreasing scan is located."""
    d = data / f"prec-{case}"
    (d / "order").mkdir(parents=True, exist_ok=True)
    pipeline = d / "p.yaml"
    if case == "iio-decrease":
        src = sorted((data / "iio").rglob("*.bin"))[-1]
        raw = bytearray(src.read_bytes())
        scan = 16
        i = 5000 * scan
        raw[i:i + scan], raw[i + scan:i + 2 * scan] = raw[i + scan:i + 2 * scan], raw[i:i + scan]
        (d / "order/rec.bin").write_bytes(bytes(raw))
        import shutil
        shutil.copytree(src.parent / "sysfs", d / "order/sysfs", dirs_exist_ok=True)
        pipeline.write_text(ORDER_PIPELINE.replace("type: motioncollector, paths: [\"order/*.csv\"], sensors: [A, G]",
                                                   "type: iio, paths: [\"order/*.bin\"], layout: \"{dirpath}/sysfs\", sensor: imu"))
    else:
        lines = (data / "cur/subject04/rec-01.csv").read_bytes().decode().split("\r\n")
        def set_time(k, t):
            f = lines[k].split(",")
            f[2] = str(t)
            lines[k] = ",".join(f)
        g = [k for k in range(1, len(lines)) if lines[k].startswith("G,")]
        a = [k for k in range(1, len(lines)) if lines[k].startswith("A,")]
        if case == "decrease-then-bad-line":
            set_time(g[100], 0.001)
            lines[len(lines) - 20] = "A,,99999,x1,2,3"
        elif case == "two-decreases":
            set_time(g[50], 0.001)     # G decreases first in the file …
            set_time(a[3000], 0.002)   # … but A is first in the layout
        (d / "order/rec.csv").write_text("\r\n".join(lines))
        text = ORDER_PIPELINE
        if case == "missing-stream":
            text = text.replace("[A, G]", "[A, G, M]")
            (d / "order/rec.csv").write_text("\r\n".join(l for l in lines if not l.startswith("M,")))
        pipeline.write_text(text)
    a_ = run(pipeline, d / "whole", WHOLE, check=False)
    b_ = run(pipeline, d / "stream", streamed(4096), check=False)
    assert a_.returncode == b_.returncode == 65, a_.stderr
    assert a_.stderr == b_.stderr
    expected = {"decrease-then-bad-line": "`x1`", "two-decreases": "`A` time 0.002", "missing-stream": "no `M` stream",
                "iio-decrease": "at byte"}[case]
    assert expected in a_.stderr, a_.stderr


TWO_FILES_PIPELINE = """version: 1
name: two-files
inputs:
  - {type: csv, paths: ["prec2/*/*/Accelerometer.csv"], recording: "{dirpath}", subject: "{dir:2}",
     time: {column: time, unit: s}, channels: {acc_x: x, acc_y: y, acc_z: z}, units: {acc_x: g, acc_y: g, acc_z: g}}
  - {type: csv, paths: ["prec2/*/*/Baro*.csv"], recording: "{dirpath}", subject: "{dir:2}",
     time: {column: time, unit: s}, channels: {pressure: pressure}, units: {pressure: kPa}, sensor: baro}
resample: {rate_hz: 50, max_gap_s: 2, antialias: false}   # no extra pass in file order first
window: {length_s: 2.0, stride_s: 1.0}
output: {type: hdf5, path: out}
"""


@pytest.mark.parametrize("case", ["bad-lines", "stream-in-two-files"])
def test_several_files_report_the_first_error_in_file_order(data, case):
    """A recording of several files is streamed interleaved by time, so the first error it meets
    may lie in a later file; the engine then reads the files once more in file order, only to
    check them, and reports the error that comes first there, as the one-block read does
    (docs/inputs.md, "Bad rows and time order"): bad-lines, an accelerometer line late in time
    against a barometer line early in time (the accelerometer file comes first); a stream in two
    files, against a bad line of the first file after the point where the second file starts."""
    import shutil
    d = data / f"prec2-{case}"
    src = sorted((data / "phone").rglob("Accelerometer.csv"))[-1].parent
    rec = d / "prec2/s1/r1"
    rec.mkdir(parents=True, exist_ok=True)
    acc = (src / "Accelerometer.csv").read_text().split("\n")
    baro = (src / "Barometer.csv").read_text().split("\n")
    acc[len(acc) - 30] = "12.5,x-late,0,0,"
    if case == "bad-lines":
        baro[5] = baro[5].replace(",", ",p-early,", 1).split(",p-early,")[0] + ",p-early,0.0,"
        (rec / "Barometer.csv").write_text("\n".join(baro))
    else:
        (rec / "Barometer.csv").write_text("\n".join(baro))
        (rec / "Barometer2.csv").write_text("\n".join(baro))   # the same stream, `baro`, again
    (rec / "Accelerometer.csv").write_text("\n".join(acc))
    pipeline = d / "p.yaml"
    pipeline.write_text(TWO_FILES_PIPELINE)
    a_ = run(pipeline, d / "whole", WHOLE, check=False)
    b_ = run(pipeline, d / "stream", streamed(2048), check=False)
    assert a_.returncode == b_.returncode == 65, a_.stderr
    assert "Accelerometer.csv:" in a_.stderr and "x-late" in a_.stderr, a_.stderr
    assert a_.stderr == b_.stderr


def test_label_rows_far_out_of_order_are_read_first(data):
    """Label rows a block behind the samples around them cannot be folded as they come: the run
    says so, reads that recording's label rows in a pass of their own and streams it again, with
    the bytes of the one-block read."""
    src = (data / "cur/subject03/rec-01.csv").read_bytes().decode().split("\r\n")
    header, rows = src[0], [r for r in src[1:] if r]
    # An M row (not kept) labelled T, stamped early, placed near the end of the file.
    t = float(rows[2000].split(",")[2])
    rows.insert(len(rows) - 50, f"M,T,{t},1,2,3")
    d = data / "late"
    d.mkdir(exist_ok=True)
    (d / "rec.csv").write_text("\r\n".join([header] + rows) + "\r\n")
    pipeline = data / "late.yaml"
    pipeline.write_text("""version: 1
name: late
inputs: [{type: motioncollector, paths: ["late/*.csv"], sensors: [A, G]}]
resample: {rate_hz: 50}
window: {length_s: 2.56, stride_s: 1.28}
labels: {map: {W: walk, T: turn}}
split: {fractions: {train: 1.0, validation: 0.0, test: 0.0}}
output: {type: hdf5, path: out}
""")
    whole = run(pipeline, data / "late-whole", WHOLE)
    p = subprocess.run([BIN, "run", str(pipeline), "--json", "--out", str(data / "late-stream")],
                       capture_output=True, text=True, env={**os.environ, **streamed(65536)})
    assert p.returncode == 0, p.stderr
    assert "label rows are read first, in a pass of their own" in p.stderr and "recording `rec`" in p.stderr
    assert json.loads(p.stdout)["streamed_recordings"] == 1
    assert files(data / "late-whole") == files(data / "late-stream")


def test_resume_and_merge_with_streamed_records(data):
    pipeline = data / "antialias-rows-features.yaml"
    if not pipeline.exists():
        pipeline.write_text("version: 1\nname: antialias-rows-features\n" + PIPELINES["antialias-rows-features"].lstrip())
    run(pipeline, data / "rm-ref", WHOLE)
    reference = files(data / "rm-ref")
    # Workers stream, merge replays their records a block at a time.
    parts = []
    for i in range(2):
        out = data / f"rm-part{i}"
        run(pipeline, out, streamed(8192), "--worker", f"{i}/2")
        parts.append(str(out))
    motionprep("merge", data / "rm-merged", *parts, "--quiet")
    assert files(data / "rm-merged") == reference
    # Kill a streamed run once a record exists, then resume it.
    out = data / "rm-resume"
    env = {**os.environ, **streamed(8192)}
    proc = subprocess.Popen([BIN, "run", str(pipeline), "--jobs", "1", "--quiet", "--out", str(out)],
                            stderr=subprocess.PIPE, text=True, env=env)
    records = Path(str(out) + ".partial") / "records"
    deadline = time.time() + 60
    while time.time() < deadline and proc.poll() is None:
        if records.is_dir() and any(p.suffix == ".mprec" for p in records.iterdir()):
            proc.send_signal(signal.SIGKILL)
            break
        time.sleep(0.002)
    proc.communicate()
    p = run(pipeline, out, streamed(8192), "--resume")
    if proc.returncode == -signal.SIGKILL:
        assert json.loads(p.stdout)["resumed_recordings"] >= 1
    assert files(out) == reference


def test_hdf5_values_match_an_independent_reader(data):
    """The streamed dataset opens in h5py with windows in recording order and the right shapes."""
    out = data / "antialias-rows-features-stream-4096"
    if not out.exists():
        pytest.skip("needs test_streamed_equals_whole")
    with h5py.File(out / "train.h5") as f:
        x, t, r = f["x"][...], f["start_time_s"][...], f["recording_index"][...]
        assert x.shape[1:] == (128, 19) and np.isfinite(x).all()  # A, G, M, D channels + acc_mag
        for rec in np.unique(r):
            assert np.all(np.diff(t[r == rec]) > 0)


def test_progress_bar_moves_within_a_streamed_recording(tmp_path):
    """On a terminal the bar counts bytes, so one long recording fills it while it streams."""
    import pty
    motionprep("synth", "--out", tmp_path / "data", "--subjects", 1, "--recordings", 1, "--minutes", 60,
               "--seed", 4, "--sensors", "A,G")
    (tmp_path / "p.yaml").write_text("""version: 1
name: bar
inputs: [{type: motioncollector, paths: ["data/**/*.csv"], sensors: [A, G]}]
resample: {rate_hz: 50}
window: {length_s: 2.56, stride_s: 1.28}
features: [mean, std, dominant_freq_hz]
split: {fractions: {train: 1.0, validation: 0.0, test: 0.0}}
output: {type: hdf5, path: out}
""")
    master, slave = pty.openpty()
    # Every progress report draws (the bar's 100 ms throttle would let a fast machine finish the
    # recording between two draws).
    env = {**os.environ, **streamed(1 << 18), "MOTIONPREP_TEST_PROGRESS_INTERVAL_MS": "0"}
    proc = subprocess.Popen([BIN, "run", str(tmp_path / "p.yaml"), "--jobs", "1"], stderr=slave,
                            stdout=subprocess.DEVNULL, env=env)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    assert proc.wait() == 0, out.decode(errors="replace")
    draws = [d for d in out.decode(errors="replace").split("\r") if d.startswith("[")]
    partial = [d for d in draws if "0/1 recordings" in d and "#" in d.split("]")[0]]
    assert partial, draws[:5]


def test_an_iio_dump_without_a_whole_scan_is_an_error(data, tmp_path):
    """A dump shorter than one scan (here empty) is the recording's error (docs/inputs.md, "Bad rows
    and time order": no data rows), with one message whatever the block size, in `run`, and in
    `inspect`'s report of that recording."""
    import shutil
    src = sorted((data / "iio").rglob("*.bin"))[-1]
    (tmp_path / "iio/s1").mkdir(parents=True)
    (tmp_path / "iio/s1/rec.bin").write_bytes(b"")
    shutil.copytree(src.parent / "sysfs", tmp_path / "iio/s1/sysfs")
    pipeline = tmp_path / "p.yaml"
    pipeline.write_text('version: 1\ninputs: [{type: iio, paths: ["iio/**/*.bin"], layout: "{dirpath}/sysfs", sensor: imu}]\n'
                        'resample: {rate_hz: 50}\nwindow: {length_s: 1}\noutput: {type: hdf5, path: out}\n')
    a = run(pipeline, tmp_path / "one", WHOLE, check=False)
    b = run(pipeline, tmp_path / "blocks", streamed(4096), check=False)
    assert a.returncode == b.returncode == 65 and a.stderr == b.stderr
    assert "rec.bin: error: no data rows: the dump is empty" in a.stderr, a.stderr
    p = subprocess.run([BIN, "inspect", str(pipeline), "--json"], capture_output=True, text=True)
    assert "no data rows: the dump is empty" in json.loads(p.stdout)["recordings"][0]["error"]
