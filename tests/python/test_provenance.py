"""Data safety, provenance (issue #14 points 3 and 4; docs/hardening.md, "Data safety: provenance
and intermediate state"):

- the manifest's `inputs` lists every file read (recordings, the intervals labels file, every
  IIO layout attribute file), each hashed from the bytes that were parsed;
- `--resume` and `merge` refuse when any of them changed, naming the file;
- a file that changes while a run reads it (appended to, rewritten, truncated, replaced between
  two passes) fails the run (exit 74, "changed as we read it"), with a real writer process;
- damaged resume records are redone, damaged parts are refused, and every field of `part.json`
  is checked.

The changed-while-read cases are made deterministic with the CLI's test hook: the run stops
after the first chunk of the first recording file it reads (`MOTIONPREP_TEST_PAUSE_AT=input-read`)
until the test has run its writer and created the file `MOTIONPREP_TEST_CONTINUE_WHEN` names.
"""
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import BIN, motionprep

FILES = ["SHA256SUMS", "manifest.json", "train.h5", "validation.h5", "test.h5"]

MC = """\
version: 1
name: prov
inputs:
  - type: motioncollector
    paths: ["PATHS"]
resample: {rate_hz: 50, max_gap_s: 0.2}
window: {length_s: 2.56, stride_s: 1.28}
labels: {from: intervals, path: intervals.csv, policy: majority, min_fraction: 0.5, classes: [walk, run]}
split: {seed: 3, fractions: {train: 0.5, validation: 0.25, test: 0.25}}
output: {type: hdf5, path: out}
"""

IIO = """\
version: 1
name: iio
inputs:
  - type: iio
    paths: ["iio/**/*.bin"]
    layout: "{dirpath}/sysfs"
    sensor: imu
resample: {rate_hz: 50, max_gap_s: 0.2, antialias: false}
window: {length_samples: 64, stride_samples: 32}
split: {seed: 42, fractions: {train: 0.5, validation: 0.25, test: 0.25}}
output: {type: hdf5, path: out}
"""


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    root = tmp_path_factory.mktemp("prov")
    motionprep("synth", "--out", root / "data", "--subjects", 4, "--recordings", 2, "--minutes", 0.5, "--seed", 4)
    motionprep("synth", "--out", root / "iio", "--subjects", 3, "--minutes", 0.5, "--seed", 4, "--format", "iio")
    names = sorted(str(p.relative_to(root / "data").with_suffix("")) for p in (root / "data").glob("**/*.csv"))
    rows = ["recording,start_s,end_s,label"] + [f"{n},0,12,walk\n{n},12,25,run" for n in names]
    (root / "intervals.csv").write_text("\n".join(rows) + "\n")
    (root / "mc.yaml").write_text(MC.replace("PATHS", "data/**/*.csv"))
    (root / "iio.yaml").write_text(IIO)
    motionprep("run", root / "mc.yaml", "--quiet", "--out", root / "mc-reference")
    motionprep("run", root / "iio.yaml", "--quiet", "--out", root / "iio-reference")
    return root


def sha(p: Path):
    return hashlib.sha256(p.read_bytes()).hexdigest()


def snapshot(d: Path):
    return {f: (d / f).read_bytes() for f in FILES}


class Restore:
    """Restores a file's bytes afterwards (the module's data is shared by its tests)."""

    def __init__(self, path: Path):
        self.path, self.data = path, path.read_bytes()

    def __enter__(self):
        return self.path

    def __exit__(self, *exc):
        self.path.write_bytes(self.data)


def wait_for_pause(proc, point):
    """Reads stderr up to the test hook's line (warnings may come first)."""
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if f"paused at {point}" in line:
            return
    raise AssertionError(f"the run ended (exit {proc.wait()}) before pausing at {point}:\n{''.join(seen)}")


def killed_before_manifest(work, pipeline, out):
    """Runs `pipeline` until every record is written (the before-manifest hook), then SIGKILLs it."""
    proc = subprocess.Popen([BIN, "run", str(pipeline), "--quiet", "--jobs", "1", "--out", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "MOTIONPREP_TEST_PAUSE_AT": "before-manifest"})
    wait_for_pause(proc, "before-manifest")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = Path(str(out) + ".partial")
    return sorted((partial / "records").glob("*.mprec"))


# --- point 3: every byte that shapes the output is in the manifest ---------------------------

def test_manifest_lists_the_labels_file_with_its_role(work):
    m = json.loads((work / "mc-reference/manifest.json").read_text())
    roles = [e["role"] for e in m["inputs"]]
    assert roles == sorted(roles, key=["recording", "labels", "iio_layout"].index)
    labels = [e for e in m["inputs"] if e["role"] == "labels"]
    assert labels == [{"path": "intervals.csv", "bytes": (work / "intervals.csv").stat().st_size,
                       "sha256": sha(work / "intervals.csv"), "role": "labels"}]
    recordings = [e for e in m["inputs"] if e["role"] == "recording"]
    assert len(recordings) == 8
    for e in recordings:
        assert e["sha256"] == sha(work / e["path"]) and e["path"].startswith("data/")
    motionprep("validate", work / "mc-reference")


def test_manifest_lists_every_iio_layout_file_read(work):
    m = json.loads((work / "iio-reference/manifest.json").read_text())
    layout = [e for e in m["inputs"] if e["role"] == "iio_layout"]
    folders = sorted({p.parent for p in (work / "iio").glob("**/*.bin")})
    # Every recording's own layout folder is read, and each file read is listed once.
    def folder(path):
        parts = Path(path).parts
        return str(Path(*parts[:parts.index("sysfs") + 1]))
    assert {folder(e["path"]) for e in layout} == {str((f / "sysfs").relative_to(work)) for f in folders}
    assert len({e["path"] for e in layout}) == len(layout)
    assert [e["path"] for e in layout] == sorted(e["path"] for e in layout)
    for e in layout:
        p = work / e["path"]
        assert p.is_file() and e["bytes"] == p.stat().st_size and e["sha256"] == sha(p)
    # The scan-element files (`_en`, `_index`, `_type`) are among them.
    assert any(e["path"].endswith("_type") for e in layout) and any(e["path"].endswith("_en") for e in layout)
    motionprep("validate", work / "iio-reference")


def test_resume_refuses_a_changed_labels_file(work, tmp_path):
    out = tmp_path / "out"
    assert killed_before_manifest(work, work / "mc.yaml", out)
    with Restore(work / "intervals.csv") as f:
        f.write_text(f.read_text().replace(",12,", ",13,"))
        p = motionprep("run", work / "mc.yaml", "--resume", "--quiet", "--out", out, check=False)
        assert p.returncode == 65, p.stderr
        assert "intervals.csv" in p.stderr and "changed since the interrupted run" in p.stderr


def test_resume_refuses_state_that_does_not_list_the_run_wide_inputs(work, tmp_path):
    """state.json of an older motionprep (no `inputs`): the labels file cannot be checked."""
    out = tmp_path / "out"
    assert killed_before_manifest(work, work / "mc.yaml", out)
    state = Path(str(out) + ".partial") / "state.json"
    o = json.loads(state.read_text())
    del o["inputs"]
    state.write_text(json.dumps(o))
    p = motionprep("run", work / "mc.yaml", "--resume", "--quiet", "--out", out, check=False)
    assert p.returncode == 65 and "state.json" in p.stderr and "intervals.csv" in p.stderr, p.stderr


def test_resume_refuses_a_changed_layout_file(work, tmp_path):
    out = tmp_path / "out"
    assert killed_before_manifest(work, work / "iio.yaml", out)
    scale = sorted((work / "iio").glob("**/sysfs/in_accel_scale"))[-1]
    with Restore(scale) as f:
        f.write_text("0.5\n")
        p = motionprep("run", work / "iio.yaml", "--resume", "--quiet", "--out", out, check=False)
        assert p.returncode == 65, p.stderr
        assert str(scale.relative_to(work)) in p.stderr and "iio_layout" in p.stderr


@pytest.fixture(scope="module")
def iio_parts(work):
    parts = []
    for i in range(2):
        out = work / "iio-parts" / f"p{i}"
        motionprep("run", work / "iio.yaml", "--worker", f"{i}/2", "--out", out, "--quiet")
        parts.append(out)
    return parts


def test_merge_of_iio_parts_equals_one_run(work, iio_parts, tmp_path):
    motionprep("merge", tmp_path / "merged", *iio_parts, "--quiet")
    assert snapshot(tmp_path / "merged") == snapshot(work / "iio-reference")


@pytest.mark.parametrize("which", ["recording", "layout"])
def test_merge_refuses_an_input_changed_since_the_workers_read_it(work, iio_parts, tmp_path, which):
    target = sorted((work / "iio").glob("**/*.bin"))[0] if which == "recording" else \
        sorted((work / "iio").glob("**/sysfs/in_accel_scale"))[-1]
    with Restore(target) as f:
        data = bytearray(f.read_bytes())
        if which == "recording":
            data[len(data) // 2] ^= 0x01
        else:
            data = bytearray(b"0.5\n")  # still a valid layout: only the hashes tell
        f.write_bytes(bytes(data))
        p = motionprep("merge", tmp_path / "merged", *iio_parts, check=False)
        assert p.returncode == 65, p.stderr
        assert str(target.relative_to(work)) in p.stderr and "cannot merge" in p.stderr
        assert not (tmp_path / "merged").exists()


# --- point 3: a file that changes while it is read --------------------------------------------

WRITERS = {
    # A real process appends rows, rewrites bytes in place (same size) or truncates the file.
    "append": "open(p, 'ab').write(open(p, 'rb').read().split(b'\\n', 1)[1][:4000])",
    "rewrite": "f = open(p, 'r+b'); f.seek(200); b = f.read(50); f.seek(200); f.write(b.swapcase())",
    "truncate": "os.truncate(p, os.path.getsize(p) // 2)",
    # Replaced by another file (a new inode): the first pass reads the old one to its end, the
    # streamed path's next pass opens the new one.
    "replace": "open(p + '.new', 'wb').write(open(p, 'rb').read() + b''); os.utime(p + '.new', ns=(1, 1)); os.replace(p + '.new', p)",
}


@pytest.mark.parametrize("how", list(WRITERS))
def test_a_file_changed_while_it_is_read_fails_the_run(work, tmp_path, how):
    data = tmp_path / "data"
    shutil.copytree(work / "data", data)
    shutil.copy(work / "intervals.csv", tmp_path)
    first = sorted(data.glob("**/*.csv"))[0]
    (tmp_path / "one.yaml").write_text(MC.replace("PATHS", str(first.relative_to(tmp_path))))
    go = tmp_path / "go"
    env = {**os.environ, "MOTIONPREP_TEST_PAUSE_AT": "input-read", "MOTIONPREP_TEST_CONTINUE_WHEN": str(go)}
    proc = subprocess.Popen([BIN, "run", str(tmp_path / "one.yaml"), "--quiet", "--jobs", "1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    wait_for_pause(proc, "input-read")
    subprocess.run([sys.executable, "-c", f"import os; p = {str(first)!r}; {WRITERS[how]}"], check=True)
    go.touch()
    err = proc.stderr.read()
    assert proc.wait() == 74, err
    assert f"{first.relative_to(tmp_path)} changed as we read it" in err or f"{first} changed as we read it" in err, err
    assert not (tmp_path / "out").exists() and not (tmp_path / "out.partial").exists()


def test_an_unchanged_file_passes_the_hook(work, tmp_path):
    """The hook alone (no writer) changes nothing: the run succeeds with the reference's bytes."""
    go = tmp_path / "go"
    go.touch()
    env = {**os.environ, "MOTIONPREP_TEST_PAUSE_AT": "input-read", "MOTIONPREP_TEST_CONTINUE_WHEN": str(go)}
    p = subprocess.run([BIN, "run", str(work / "mc.yaml"), "--quiet", "--out", str(tmp_path / "out")],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    assert snapshot(tmp_path / "out") == snapshot(work / "mc-reference")


# --- point 4: intermediate state is checksummed -----------------------------------------------

def flip(path: Path, offset: int):
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x40
    path.write_bytes(bytes(data))


def test_resume_redoes_damaged_truncated_and_old_records(work, tmp_path):
    out = tmp_path / "out"
    recs = killed_before_manifest(work, work / "mc.yaml", out)
    assert len(recs) == 8
    flip(recs[0], 100)                                    # a byte of the first block's windows
    recs[1].write_bytes(recs[1].read_bytes()[:-30])       # truncated
    data = bytearray(recs[2].read_bytes())                # the previous format (SHA-256 digests)
    data[5:6] = b"3"
    recs[2].write_bytes(bytes(data))
    flip(recs[3], recs[3].stat().st_size - 70)            # a byte of the header's digest region
    p = motionprep("run", work / "mc.yaml", "--resume", "--json", "--out", out)
    assert json.loads(p.stdout)["resumed_recordings"] == 4, p.stderr
    for r in recs[:4]:
        assert f"the record {r}" in p.stderr or r.name in p.stderr, p.stderr
    assert "block of windows 0..<" in p.stderr and "does not match the block's checksum" in p.stderr
    assert "it is in record format 3, written by an older motionprep; this one reads format 6" in p.stderr
    assert snapshot(out) == snapshot(work / "mc-reference")


@pytest.fixture(scope="module")
def mc_parts(work):
    parts = []
    for i in range(2):
        out = work / "mc-parts" / f"p{i}"
        motionprep("run", work / "mc.yaml", "--worker", f"{i}/2", "--out", out, "--quiet")
        parts.append(out)
    return parts


def test_merge_of_parts_equals_one_run(work, mc_parts, tmp_path):
    motionprep("merge", tmp_path / "merged", *mc_parts, "--quiet")
    assert snapshot(tmp_path / "merged") == snapshot(work / "mc-reference")


def copy_parts(mc_parts, tmp_path):
    copies = []
    for p in mc_parts:
        shutil.copytree(p, tmp_path / p.name)
        copies.append(tmp_path / p.name)
    return copies


@pytest.mark.parametrize("damage", ["block", "truncate", "header"])
def test_merge_refuses_a_damaged_record(mc_parts, tmp_path, damage):
    parts = copy_parts(mc_parts, tmp_path)
    rec = sorted((parts[1] / "records").glob("*.mprec"))[0]
    if damage == "block":
        flip(rec, 64)
    elif damage == "truncate":
        rec.write_bytes(rec.read_bytes()[:-1])
    else:
        flip(rec, rec.stat().st_size - 80)
    p = motionprep("merge", tmp_path / "merged", *parts, check=False)
    assert p.returncode == 65, p.stderr
    assert str(rec) in p.stderr and "rerun worker 1/2" in p.stderr
    assert not (tmp_path / "merged").exists()


def test_merge_refuses_a_changed_part_json(mc_parts, tmp_path):
    parts = copy_parts(mc_parts, tmp_path)
    pj = parts[0] / "part.json"
    pj.write_text(pj.read_text().replace('"workers": 2', '"workers": 3'))
    p = motionprep("merge", tmp_path / "merged", *parts, check=False)
    assert p.returncode == 65 and f"{pj} is damaged" in p.stderr, p.stderr
    (parts[0] / "part.json.sha256").unlink()
    p = motionprep("merge", tmp_path / "merged", *parts, check=False)
    assert p.returncode == 65 and "part.json.sha256" in p.stderr, p.stderr


def edit_part(part: Path, change):
    pj = part / "part.json"
    o = json.loads(pj.read_text())
    change(o)
    text = json.dumps(o, indent=2) + "\n"
    pj.write_text(text)
    (part / "part.json.sha256").write_text(hashlib.sha256(text.encode()).hexdigest() + "  part.json\n")


def other_worker_recording(other):
    """A recording of worker 1 (from its part.json `other`), which worker 0 does not hold."""
    return other["recordings"][0]


def add_recording(o, rec):
    """Puts `rec` among o's recordings in plan order (so the index order is not what refuses it)."""
    o["recordings"] = sorted(o["recordings"] + [rec], key=lambda r: r["index"])


# Each case edits part 0's part.json (given part 1's as `other`) and names the field refused.
BAD_FIELDS = {
    "workers negative": (lambda o, other: o.update(workers=-3), "`workers`"),
    "workers zero": (lambda o, other: o.update(workers=0), "`workers`"),
    "workers absurd": (lambda o, other: o.update(workers=10**12), "`workers`"),
    "workers a string": (lambda o, other: o.update(workers="2"), "`workers`"),
    "workers fractional": (lambda o, other: o.update(workers=2.5), "`workers`"),
    "worker out of range": (lambda o, other: o.update(worker=2), "`worker`"),
    "worker negative": (lambda o, other: o.update(worker=-1), "`worker`"),
    "format_version old": (lambda o, other: o.update(format_version=1), "`format_version`"),
    "format_version 2": (lambda o, other: o.update(format_version=2), "rerun the workers"),
    "pipeline_sha256": (lambda o, other: o.update(pipeline_sha256="xyz"), "`pipeline_sha256`"),
    "pipeline missing": (lambda o, other: o.pop("pipeline"), "`pipeline`"),
    "plan missing": (lambda o, other: o.pop("plan"), "`plan`"),
    "plan recordings zero": (lambda o, other: o["plan"].update(recordings=0), "`plan.recordings`"),
    "plan recordings absurd": (lambda o, other: o["plan"].update(recordings=10**12), "`plan.recordings`"),
    "plan sha256": (lambda o, other: o["plan"].update(sha256="A" * 64), "`plan.sha256`"),
    "recordings not a list": (lambda o, other: o.update(recordings=5), "`recordings`"),
    "recording name empty": (lambda o, other: o["recordings"][0].update(name=""), "`recordings[0].name`"),
    "recording name repeated": (lambda o, other: o["recordings"][1].update(name=o["recordings"][0]["name"]), "`recordings[1].name`"),
    "recording files empty": (lambda o, other: o["recordings"][0].update(files=[]), "`recordings[0].files`"),
    "input_index negative": (lambda o, other: o["recordings"][0]["files"][0].update(input_index=-1), "input_index"),
    "input_index past the inputs": (lambda o, other: o["recordings"][0]["files"][0].update(input_index=7), "input_index"),
    "index missing": (lambda o, other: o["recordings"][0].pop("index"), "missing key `index` in `recordings[0]`"),
    "index past the plan": (lambda o, other: o["recordings"][-1].update(index=o["plan"]["recordings"]), "`plan.recordings` is"),
    "index negative": (lambda o, other: o["recordings"][0].update(index=-1), "`recordings[0].index`"),
    "index repeated": (lambda o, other: o["recordings"][1].update(index=o["recordings"][0]["index"]), "`recordings[1].index`"),
    "another worker's recording": (lambda o, other: add_recording(o, other_worker_recording(other)), "belongs to worker 1/2"),
    "failure out of range": (lambda o, other: o.update(failures=[{"recording": 99, "error": "x"}]), "`failures[0].recording`"),
    "failure not held": (lambda o, other: o.update(failures=[{"recording": other_worker_recording(other)["index"], "error": "x"}]),
                         "`failures[0].recording`"),
    "inputs entry": (lambda o, other: o.update(inputs=[{"path": "intervals.csv"}]), "`inputs[0]`"),
}


def test_merge_refuses_parts_that_read_an_input_with_different_contents(mc_parts, tmp_path):
    parts = copy_parts(mc_parts, tmp_path)
    edit_part(parts[1], lambda o: o["inputs"][0].update(sha256="0" * 64))
    p = motionprep("merge", tmp_path / "merged", *parts, check=False)
    assert p.returncode == 65, p.stderr
    assert "intervals.csv (labels) was read with two different contents" in p.stderr
    assert not (tmp_path / "merged").exists()


def test_merge_refuses_parts_whose_recordings_are_not_the_plan(mc_parts, tmp_path):
    # A recording changed in one part: all parts still agree on the plan's digest, but the
    # union of their recordings no longer hashes to it.
    parts = copy_parts(mc_parts, tmp_path)
    edit_part(parts[1], lambda o: o["recordings"][0].update(subject="someone-else"))
    p = motionprep("merge", tmp_path / "merged", *parts, check=False)
    assert p.returncode == 65 and "are not the run's plan" in p.stderr, p.stderr
    assert str(parts[0]) in p.stderr and str(parts[1]) in p.stderr
    assert not (tmp_path / "merged").exists()


def test_validate_checks_the_role_of_inputs(work, tmp_path):
    shutil.copytree(work / "mc-reference", tmp_path / "d")
    m = tmp_path / "d/manifest.json"
    m.write_text(m.read_text().replace('"role": "labels"', '"role": "lables"'))
    p = motionprep("validate", tmp_path / "d", check=False)
    assert p.returncode == 1 and "role" in p.stdout + p.stderr and "lables" in p.stdout + p.stderr


@pytest.mark.parametrize("case", list(BAD_FIELDS))
def test_merge_checks_every_field_of_part_json(mc_parts, tmp_path, case):
    parts = copy_parts(mc_parts, tmp_path)
    change, field = BAD_FIELDS[case]
    other = json.loads((parts[1] / "part.json").read_text())
    edit_part(parts[0], lambda o: change(o, other))
    p = motionprep("merge", tmp_path / "merged", *parts, check=False)
    assert p.returncode == 65, (p.returncode, p.stderr)
    assert "part.json" in p.stderr and field in p.stderr, p.stderr
    assert "Fatal error" not in p.stderr
    assert not (tmp_path / "merged").exists()
