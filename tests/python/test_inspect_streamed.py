"""`motionprep inspect` reads recordings in blocks, in bounded memory (docs/commands.md, "inspect"):
its report must be the one of the whole recording, number for number, whatever the block size,
also where times go back (sorted on disk). Through the binary, each block size is compared with one
block per file (`MOTIONPREP_STREAM_BLOCK_BYTES` huge, the "whole" case of docs/streaming.md) and
with numpy; the whole reading itself (`RecordingLoader.loadRaw`) is no command's, and the Swift
tests (`StreamedInspectionTests`) compare the blocks with it."""
import json
import os
import subprocess

import numpy as np
import pytest

from conftest import BIN, motionprep

WHOLE = {"MOTIONPREP_STREAM_BLOCK_BYTES": str(1 << 60)}
BLOCKS = [700, 20000, 1 << 23]


def inspect(*args, env=None):
    p = subprocess.run([BIN, "inspect", *map(str, args), "--json"], capture_output=True, text=True,
                       env={**os.environ, **(env or {})})
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def streamed(block):
    return {"MOTIONPREP_STREAM_BLOCK_BYTES": str(block)}


def in_order(tmp_path, name="in-order.csv"):
    """A current-variant file whose times never go back per sensor: jitter, a duplicate time,
    a gap, missing values, label segments, G rows stamped 1 ms after A rows (so label events go
    slightly back in time from row to row)."""
    rows = ["Source, Label, When, X, Y, Z, UA_X, UA_Y, UA_Z, Pitch, Roll, Yaw"]
    rng = np.random.default_rng(3)
    for i in range(3000):
        t = 1.0 + i * 0.01 + rng.uniform(0, 0.004)
        if 1500 <= i < 1530:
            continue  # a 0.3 s gap
        label = "" if i < 500 else ("W" if i < 2000 else "T")
        rows.append(f"A,{label},{t!r},{rng.normal():.6f},{-0.5},{1e-3 * i}")
        if i % 2 == 0:
            rows.append(f"G,{label},{t - 0.001!r},{rng.normal():.6f},0.2,0.3")
        if i == 2222:
            rows.append(f"A,T,{t!r},9,9,9")       # a duplicate time: the last one wins
        if i == 2500:
            rows.append(f"A,T,{t + 0.001!r},,2,3")  # a missing value: left out
    p = tmp_path / name
    p.write_text("\n".join(rows) + "\n")
    return p


@pytest.mark.parametrize("block", BLOCKS)
def test_a_bare_file_streams_and_matches_numpy_and_the_whole_reading(tmp_path, block):
    path = in_order(tmp_path)
    report = inspect(path, env=streamed(block))
    assert report == inspect(path, env=WHOLE)
    a = next(s for s in report[0]["streams"] if s["sensor"] == "A")
    rows = [line.split(",") for line in path.read_text().splitlines()[1:]]
    times = np.array([float(r[2]) for r in rows if r[0] == "A" and r[3] != ""])
    assert a["samples"] == len(times) and a["out_of_order"] == 0
    d = np.diff(times)
    pos = d[d > 0]
    assert a["duplicate_times"] == int((d == 0).sum()) == 1
    for k, q in (("p50", 50), ("p95", 95), ("p99", 99)):
        assert a["interval_s"][k] == np.percentile(pos, q)
    assert abs(a["interval_s"]["std"] - pos.std()) < 1e-15
    assert a["gaps"]["count"] == int((pos > 0.25).sum()) == 1
    assert [seg["label"] for seg in report[0]["labels"]["segments"]] == [None, "W", "T"]


def test_times_going_back_are_sorted_on_disk(tmp_path):
    """A stream whose times go back streams too: its times are spilled and sorted after the
    read, and the report is the whole reading's (which sorts them in memory)."""
    path = in_order(tmp_path)
    with open(path, "a") as f:
        f.write("A,T,2.5,1,2,3\n")  # earlier than the previous A row
    report = inspect(path, env=streamed(700))
    assert report == inspect(path, env=WHOLE)
    assert next(s for s in report[0]["streams"] if s["sensor"] == "A")["out_of_order"] == 1


def test_an_error_in_a_recording_of_two_files_is_the_first_in_file_order(tmp_path):
    """Two files of one recording, each with a bad number: read interleaved by time, the second
    file's (earlier in time) is met first; inspect reads the files again one after the other and
    reports the first file's, as the whole reading does."""
    (tmp_path / "s1/r1").mkdir(parents=True)
    a = in_order(tmp_path / "s1/r1", "a.csv").read_text().split("\n")
    b = in_order(tmp_path / "s1/r1", "b.csv").read_text().split("\n")
    a[2800] = "A,T,29.5,x-late,2,3"
    b[30] = "A,,1.2,p-early,2,3"
    (tmp_path / "s1/r1/a.csv").write_text("\n".join(a))
    (tmp_path / "s1/r1/b.csv").write_text("\n".join(b))
    (tmp_path / "p.yaml").write_text('version: 1\ninputs: [{type: motioncollector, paths: ["s1/*/*.csv"], recording: "{dir}", '
                                     'sensors: [A, G]}]\nresample: {rate_hz: 50, antialias: false}\nwindow: {length_s: 1}\n'
                                     'output: {path: out}\n')
    report = inspect(tmp_path / "p.yaml", env=streamed(700))
    assert report == inspect(tmp_path / "p.yaml", env=WHOLE)
    error = report["recordings"][0]["error"]
    assert "a.csv" in error and "x-late" in error, error


@pytest.fixture(scope="module")
def synth(tmp_path_factory):
    root = tmp_path_factory.mktemp("inspect-synth")
    motionprep("synth", "--out", root / "mc", "--subjects", 2, "--recordings", 2, "--minutes", 1, "--seed", 5)
    motionprep("synth", "--out", root / "legacy", "--subjects", 1, "--recordings", 2, "--minutes", 1, "--seed", 6,
               "--legacy")
    motionprep("synth", "--out", root / "phone", "--subjects", 1, "--recordings", 2, "--minutes", 1, "--seed", 7,
               "--format", "csv")
    (root / "mc.yaml").write_text("""version: 1
inputs: [{type: motioncollector, paths: ["mc/**/*.csv"], sensors: [A, G, M, D]}]
resample: {rate_hz: 50, max_gap_s: {default: 0.2, M: 0.5}}
window: {length_s: 2}
labels: {from: rows, map: {W: walk, T: turn}}
output: {path: out}
""")
    (root / "legacy.yaml").write_text("""version: 1
inputs: [{type: motioncollector, paths: ["legacy/**/*.csv"], sensors: [A, G]}]
resample: {rate_hz: 50}
window: {length_s: 2}
labels: {from: markers, map: {W: walk, T: turn}}
output: {path: out}
""")
    return root


@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize("what", ["mc.yaml", "legacy.yaml", "legacy-file", "mc-file"])
def test_pipelines_and_files_stream_to_the_whole_report(synth, block, what):
    target = {"mc.yaml": synth / "mc.yaml", "legacy.yaml": synth / "legacy.yaml",
              "legacy-file": synth / "legacy/subject01/rec-01.csv", "mc-file": synth / "mc/subject02/rec-02.csv"}[what]
    report = inspect(target, env=streamed(block))
    assert report == inspect(target, env=WHOLE)
    recordings = report["recordings"] if isinstance(report, dict) else report
    assert len(recordings) >= 1 and all(r["error"] is None for r in recordings)
    assert any(r["labels"]["segments"] for r in recordings), "the case has labels"


def test_the_shipped_pipelines_report_the_same_streamed(tmp_path):
    """walk (MotionCollector) and stairs (two csv files per recording, both labelled, read
    interleaved by time) stream: the reports are the same as the whole reading's."""
    root = os.path.join(os.path.dirname(__file__), "..", "..", "pipelines")
    for name in ("walk.yaml", "stairs.yaml", "uci-har-style.yaml"):
        path = os.path.join(root, name)
        assert inspect(path, env=streamed(5000)) == inspect(path, env=WHOLE), name


@pytest.mark.parametrize("name", ["walk.yaml", "stairs.yaml", "uci-har-style.yaml"])
def test_report_recordings_streamed_is_the_whole_page(tmp_path, name):
    """`report --recordings` draws each recording from the streamed engine (buckets merged as
    the grid grows); the page is the one the whole reading draws, byte for byte."""
    root = os.path.join(os.path.dirname(__file__), "..", "..", "pipelines")
    pipeline = os.path.join(root, name)
    out = tmp_path / "ds"
    p = subprocess.run([BIN, "run", pipeline, "--quiet", "--out", str(out)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    pages = []
    for env in ({"MOTIONPREP_STREAM_BLOCK_BYTES": str(1 << 40)}, streamed(3000)):   # each file in one block, and blocks
        page = tmp_path / f"r{len(pages)}.html"
        p = subprocess.run([BIN, "report", str(out), "--recordings", pipeline, "-o", str(page), "--quiet"],
                           capture_output=True, text=True, env={**os.environ, **env})
        assert p.returncode == 0, p.stderr
        pages.append(page.read_bytes())
    assert pages[0] == pages[1]
    assert b'class="timeline"' in pages[0]


def tree(root):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def samples_both_ways(pipeline, tmp_path, block):
    """`inspect PIPELINE --samples` read whole and in blocks of `block`: the two trees of files."""
    trees = []
    for env in (WHOLE, streamed(block)):
        d = tmp_path / f"samples-{len(trees)}"
        p = subprocess.run([BIN, "inspect", str(pipeline), "--samples", str(d)], capture_output=True, text=True,
                           env={**os.environ, **env})
        assert p.returncode == 0, p.stderr
        trees.append(tree(d))
    return trees


@pytest.mark.parametrize("what", ["mc.yaml", "legacy.yaml", "stairs"])
def test_samples_are_written_as_they_are_read(synth, tmp_path, what):
    """`inspect --samples` writes each stream as its blocks come; the files are those of the
    whole reading, byte for byte (stairs: labels in both files of a recording, read interleaved)."""
    pipeline = os.path.join(os.path.dirname(__file__), "..", "..", "pipelines", "stairs.yaml") if what == "stairs" \
        else synth / what
    a, b = samples_both_ways(pipeline, tmp_path, 3000)
    assert a == b
    assert any(k.endswith("labels.csv") for k in a) and len(a) >= 3


@pytest.mark.parametrize("block", [700, 1 << 23])
@pytest.mark.parametrize("name", ["Accelerometer.csv", "Barometer.csv"])
def test_a_sniffed_csv_streams_to_the_whole_report(synth, block, name):
    """`inspect FILE.csv` (a phone logger's file, sniffed): gap limits from each stream's median
    interval, found after the read; the report is the whole reading's."""
    path = next((synth / "phone").rglob(name))
    report = inspect(path, env=streamed(block))
    assert report == inspect(path, env=WHOLE)
    assert report["recording"]["streams"] and report["recording"]["error"] is None


def test_iio_dumps_stream_to_the_whole_report(tmp_path):
    """IIO dumps (one stream each, its layout folder beside it) are described from their blocks;
    the report, warnings included, is the whole reading's."""
    motionprep("synth", "--out", tmp_path / "iiodata", "--format", "iio", "--subjects", 2, "--minutes", 1, "--seed", 3)
    from test_apply import IIO_PIPELINE  # reads iiodata/**/*.bin with its layout folders
    (tmp_path / "iio.yaml").write_text(IIO_PIPELINE)
    for block in (999, 1 << 23):
        report = inspect(tmp_path / "iio.yaml", env=streamed(block))
        assert report == inspect(tmp_path / "iio.yaml", env=WHOLE)
    recordings = report["recordings"]
    assert len(recordings) >= 2 and all(r["error"] is None and r["streams"][0]["samples"] > 1000 for r in recordings)


@pytest.mark.parametrize("sort", [False, True])
def test_iio_samples_are_written_as_they_are_read(tmp_path, sort):
    """`inspect --samples` of IIO dumps (and of inputs with `sort: true`, which inspect reads as
    they are) writes each stream's file from its blocks: the whole reading's files, byte for byte."""
    motionprep("synth", "--out", tmp_path / "iiodata", "--format", "iio", "--subjects", 2, "--minutes", 1, "--seed", 3)
    from test_apply import IIO_PIPELINE
    text = IIO_PIPELINE.replace("  - type: iio\n", "  - type: iio\n    sort: true\n") if sort else IIO_PIPELINE
    assert ("sort: true" in text) == sort
    (tmp_path / "iio.yaml").write_text(text)
    a, b = samples_both_ways(tmp_path / "iio.yaml", tmp_path, 999)
    assert a == b and len([k for k in a if k.endswith(".csv")]) >= 2


def test_samples_with_a_label_row_far_back_in_time(tmp_path):
    """A label row far back in time (an M row, not kept, stamped early and placed last) cannot be
    folded as it comes: `--samples` writes the recording again keeping every label event, and
    labels.csv is the whole reading's."""
    (tmp_path / "s1").mkdir()
    path = in_order(tmp_path / "s1", "r1.csv")
    with open(path, "a") as f:
        f.write("M,T,1.5,1,1,1\n")
    (tmp_path / "p.yaml").write_text('version: 1\ninputs: [{type: motioncollector, paths: ["s1/*.csv"], sensors: [A, G]}]\n'
                                     'resample: {rate_hz: 50}\nwindow: {length_s: 1}\n'
                                     'labels: {from: rows, map: {W: walk, T: turn}}\noutput: {path: out}\n')
    a, b = samples_both_ways(tmp_path / "p.yaml", tmp_path, 700)
    assert a == b
    labels = next(v for k, v in a.items() if k.endswith("labels.csv")).decode()
    assert "1.5,T" in labels, labels


def test_samples_refuse_a_stream_in_two_files_of_a_recording(tmp_path):
    """`--samples` writes one file per stream of a recording: a stream that two of its files give
    is refused (65), naming both files in file order, read whole or in blocks (it used to fail on
    the second file's `File exists`)."""
    (tmp_path / "s1/r1").mkdir(parents=True)
    in_order(tmp_path / "s1/r1", "a.csv")
    in_order(tmp_path / "s1/r1", "b.csv")
    (tmp_path / "p.yaml").write_text('version: 1\ninputs: [{type: motioncollector, paths: ["s1/*/*.csv"], recording: "{dir}", '
                                     'sensors: [A, G]}]\nresample: {rate_hz: 50}\nwindow: {length_s: 1}\noutput: {path: out}\n')
    errors = []
    for env in (WHOLE, streamed(700)):
        d = tmp_path / f"samples-{len(errors)}"
        p = subprocess.run([BIN, "inspect", str(tmp_path / "p.yaml"), "--samples", str(d)], capture_output=True, text=True,
                           env={**os.environ, **env})
        assert p.returncode == 65, p.stderr
        errors.append(p.stderr)
    assert errors[0] == errors[1]
    assert "has stream `A` in both" in errors[0] and errors[0].index("a.csv") < errors[0].index("b.csv"), errors[0]
