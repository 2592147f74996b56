"""Issue #24, points 6 and 7 (docs/hardening.md, "Data safety: FIFOs and special files" and
"Data safety: bounded work on odd input"): nothing motionprep reads is waited on, and odd input
(a very wide header, a very long first line, a million workers) costs bounded time and message.

Every command runs with a timeout, so that a hang fails the test instead of hanging the suite."""
import os
import shutil
import subprocess
import time

import pytest

from conftest import BIN
from test_hostile import IIO_LAYOUT, SYSFS, csv_rows, iio_dump, pipeline

TIMEOUT = 20
REFUSED = "not a regular file; motionprep reads only regular files and never waits on a pipe, device or socket"


def run(*args, cwd, timeout=TIMEOUT, **kw):
    return subprocess.run([BIN, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=timeout, **kw)


def refused(proc, path, code=66):
    """One error line naming `path` as a FIFO, exit `code`, nothing on stdout."""
    assert proc.returncode == code, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "error" in line]
    assert len(lines) == 1, proc.stderr
    assert str(path) in lines[0] and "is a FIFO, " + REFUSED in lines[0], proc.stderr
    assert proc.stdout == ""


@pytest.fixture
def project(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data/rec.csv").write_bytes(b"t,x,y,z\n" + csv_rows(300))
    (tmp_path / "p.yaml").write_text(pipeline("csv"))
    return tmp_path


@pytest.fixture
def dataset(project):
    proc = run("run", "p.yaml", "--quiet", cwd=project)
    assert proc.returncode == 0, proc.stderr
    return project


def test_intervals_labels_fifo(project):
    os.mkfifo(project / "labels.csv")
    (project / "p.yaml").write_text(pipeline("csv", extra="labels: {from: intervals, path: labels.csv, classes: [W]}\n"))
    # validate reports the labels file among the data checks, 65 (docs/commands.md, `validate`).
    for args, code in ((["run", "p.yaml"], 66), (["validate", "p.yaml"], 65)):
        proc = run(*args, cwd=project)
        assert proc.returncode == code, (args, proc.stderr)
        assert "labels.csv" in proc.stderr and "is a FIFO, " + REFUSED in proc.stderr, proc.stderr
    # inspect describes the recordings, but an unreadable intervals file stops it (docs/commands.md).
    proc = run("inspect", "p.yaml", cwd=project)
    assert "labels.csv" in proc.stderr + proc.stdout and "is a FIFO" in proc.stderr + proc.stdout, proc.stderr
    assert not (project / "out").exists() and not (project / "out.partial").exists()


def test_iio_layout_folder_file_fifo(tmp_path):
    for name, data in {"data/rec.bin": iio_dump(), **SYSFS}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    fifo = tmp_path / "data/sysfs/scan_elements/in_accel_x_type"
    fifo.unlink()
    os.mkfifo(fifo)
    (tmp_path / "p.yaml").write_text(pipeline("iio", layout='"{dirpath}/sysfs"'))
    proc = run("run", "p.yaml", cwd=tmp_path)
    refused(proc, "data/sysfs/scan_elements/in_accel_x_type")
    assert not (tmp_path / "out").exists()
    proc = run("validate", "p.yaml", cwd=tmp_path)
    assert proc.returncode == 66 and "in_accel_x_type" in proc.stderr and "is a FIFO" in proc.stderr, proc.stderr


def test_pipeline_file_fifo(project):
    os.mkfifo(project / "fifo.yaml")
    for command in ("run", "validate", "inspect"):
        proc = run(command, "fifo.yaml", cwd=project)
        refused(proc, "fifo.yaml")
    assert not (project / "out").exists()


def test_expectations_file_fifo(dataset):
    os.mkfifo(dataset / "expect.yaml")
    refused(run("validate", "out", "--expect", "expect.yaml", cwd=dataset), "expect.yaml")


def test_dataset_file_fifo_for_report_and_validate(dataset):
    (dataset / "out/train.h5").unlink()
    os.mkfifo(dataset / "out/train.h5")
    proc = run("report", "out", "-o", "page.html", "--quiet", cwd=dataset)
    refused(proc, "train.h5")
    assert not (dataset / "page.html").exists()
    proc = run("validate", "out", cwd=dataset)
    assert proc.returncode == 1 and "train.h5" in proc.stdout + proc.stderr and "FIFO" in proc.stdout + proc.stderr


def test_manifest_fifo_for_report_and_inspect(dataset):
    (dataset / "out/manifest.json").unlink()
    os.mkfifo(dataset / "out/manifest.json")
    for args in (["report", "out", "-o", "page.html", "--quiet"], ["inspect", "out"]):
        proc = run(*args, cwd=dataset)
        refused(proc, "out/manifest.json")
    assert not (dataset / "page.html").exists()


def test_inspect_fifo(project):
    os.mkfifo(project / "data/live.csv")
    refused(run("inspect", "data/live.csv", cwd=project), "data/live.csv")


def test_inspect_pipe_as_dev_fd_is_refused(project):
    # `inspect <(cat file)`: the writer keeps the pipe open, so a read would wait for ever.
    r, w = os.pipe()
    try:
        os.write(w, b"t,x,y,z\n" + csv_rows(10))
        proc = run("inspect", f"/dev/fd/{r}", cwd=project, pass_fds=(r,))
        refused(proc, f"/dev/fd/{r}")
    finally:
        os.close(r)
        os.close(w)


# --- point 7: bounded work on odd input -------------------------------------------------------

def _wide_csv_pipeline(folder, columns):
    (folder / "data").mkdir(parents=True)
    names = ["t"] + [f"c{i}" for i in range(columns)]
    row = ",".join(["0"] * columns)
    body = "".join(f"{i / 100:.2f},{row}\n" for i in range(300))
    (folder / "data/rec.csv").write_text(",".join(names) + "\n" + body)
    channels = ", ".join(f"ch{i}: c{i}" for i in range(columns))
    (folder / "p.yaml").write_text(
        'version: 1\ninputs:\n  - type: csv\n    paths: ["data/*.csv"]\n    time: {column: t, unit: s}\n'
        "    channels: {%s}\nresample: {rate_hz: 50}\nwindow: {length_s: 1, stride_s: 0.5}\n"
        "output: {type: hdf5, path: out}\n" % channels)


def test_csv_with_30000_columns_is_linear(tmp_path):
    # Work linear in the columns, checked as a ratio rather than against the clock (the house
    # rule: no timed unit tests): 10 times the columns (and the bytes) must cost about 10 times,
    # not 100. The quadratic code this guards against (the pipeline's 30,000-key mapping as a
    # YAML tree, the header lookups) took 16 s at 30,000 columns (101 s in the issue), against
    # about 2 s now; it would give a ratio near 100. Each side is the best of three runs, the
    # two sides taking turns, so that a busy moment of the machine slows one run, not one side.
    def once(folder, command):
        start = time.monotonic()
        proc = run(command, "p.yaml", *(["--quiet"] if command == "run" else []), cwd=folder, timeout=300)
        elapsed = time.monotonic() - start
        assert proc.returncode == 0, proc.stderr[-2000:]
        shutil.rmtree(folder / "out", ignore_errors=True)
        return elapsed

    _wide_csv_pipeline(tmp_path / "narrow", 3_000)
    _wide_csv_pipeline(tmp_path / "wide", 30_000)
    for command in ("validate", "run"):
        narrow, wide = [], []
        for _ in range(3):
            narrow.append(once(tmp_path / "narrow", command))
            wide.append(once(tmp_path / "wide", command))
        assert min(wide) / min(narrow) < 30, (command, narrow, wide)


@pytest.mark.parametrize("size", [2 << 20, 3 << 20])
def test_inspect_long_first_line_is_too_long(tmp_path, size):
    (tmp_path / "rec.csv").write_bytes(b"t," + b"x" * size + b"\n" + csv_rows(10))
    proc = run("inspect", "rec.csv", cwd=tmp_path)
    assert proc.returncode == 65, proc.stderr
    assert proc.stderr.strip().endswith("rec.csv:1: error: line is longer than 1048576 bytes (is a quote left open, or is this not a delimited text file?)"), proc.stderr
    assert "no header line" not in proc.stderr


def test_inspect_100000_column_header(tmp_path):
    # 100,000 columns: a 1.4 MB header, over the line limit, for inspect and for a run.
    header = "t," + ",".join(f"column{i:06d}" for i in range(100_000))
    (tmp_path / "data").mkdir()
    (tmp_path / "data/rec.csv").write_text(header + "\n" + "0.0," + ",".join(["1"] * 100_000) + "\n")
    (tmp_path / "p.yaml").write_text(pipeline("csv"))
    for args in (["inspect", "data/rec.csv"], ["run", "p.yaml"]):
        proc = run(*args, cwd=tmp_path)
        assert proc.returncode == 65, proc.stderr
        assert "data/rec.csv:1: error: line is longer than 1048576 bytes" in proc.stderr, proc.stderr
        assert "no header line" not in proc.stderr and proc.stdout == ""


def test_inspect_wide_header_under_the_limit_is_guessed(tmp_path):
    # 40,000 columns, a 360 KB header: past the 256 KiB guess window, under the line limit.
    header = "t," + ",".join(f"c{i:06d}" for i in range(40_000))
    rows = "".join(f"{i / 100:.2f}," + ",".join(["1"] * 40_000) + "\n" for i in range(3))
    (tmp_path / "rec.csv").write_text(header + "\n" + rows)
    proc = run("inspect", "rec.csv", "--json", cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "no header line" not in proc.stderr


def test_run_worker_count_over_the_merge_limit_is_a_usage_error(project):
    proc = run("run", "p.yaml", "--worker", "0/1000001", cwd=project)
    assert proc.returncode == 64, proc.stderr
    assert "at most 1000000 workers" in proc.stderr and "1000001" in proc.stderr, proc.stderr
    assert not (project / "out").exists()


def test_merge_one_part_of_a_million_names_few_missing_parts(project):
    proc = run("run", "p.yaml", "--quiet", "--worker", "0/1000000", "--out", "part0", cwd=project, timeout=120)
    assert proc.returncode == 0, proc.stderr
    proc = run("merge", "merged", "part0", cwd=project, timeout=120)
    assert proc.returncode == 66, proc.stderr[:2000]
    assert len(proc.stderr) < 1000, len(proc.stderr)
    assert "missing part(s) for worker(s) 1/1000000, 2/1000000, 3/1000000, 4/1000000, 5/1000000 and 999994 more; merge needs all 1000000" in proc.stderr, proc.stderr
    assert not (project / "merged").exists()


def test_channel_lists_in_messages_are_bounded(tmp_path):
    # 30,000 channels and a magnitude of channels that do not exist: the message lists 20.
    (tmp_path / "data").mkdir()
    (tmp_path / "data/rec.csv").write_text("t," + ",".join(f"c{i}" for i in range(30_000)) + "\n")
    channels = ", ".join(f"ch{i}: c{i}" for i in range(30_000))
    (tmp_path / "p.yaml").write_text(
        'version: 1\ninputs:\n  - type: csv\n    paths: ["data/*.csv"]\n    time: {column: t, unit: s}\n'
        "    channels: {%s}\nresample: {rate_hz: 50}\nmagnitude: [acc]\nwindow: {length_s: 1, stride_s: 0.5}\n"
        "output: {type: hdf5, path: out}\n" % channels)
    proc = run("run", "p.yaml", cwd=tmp_path, timeout=60)
    assert proc.returncode == 78, proc.stderr[:2000]
    assert len(proc.stderr) < 2000, len(proc.stderr)
    assert "the channels are ch0, ch1, " in proc.stderr and "ch19, … and 29980 more" in proc.stderr, proc.stderr
