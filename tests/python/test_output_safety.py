"""Output folders are motionprep's or empty; one writer at a time; regular input files, each once
(issue 14 points 1, 2 and 5; docs/hardening.md, "Data safety: output folders" and "Data safety:
input files").

Every refusal is checked three ways: the exit status (73 for the output, 66/78 for inputs), a
message naming the folder and what is in the way, and that nothing on disk changed (a snapshot of
every file's bytes, links and modes before and after).
"""
import hashlib
import json
import re
import struct
import os
import stat
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from conftest import BIN, motionprep

PIPELINE = """\
version: 1
name: safety
inputs:
  - type: motioncollector
    paths: ["{data}/**/*.csv"]
    sensors: [A]
resample: {{rate_hz: 50, max_gap_s: 0.2}}
window: {{length_s: 2.56, stride_s: 1.28}}
labels: {{map: {{W: walk, T: turn}}}}
split: {{seed: {seed}, fractions: {{train: 0.5, validation: 0.25, test: 0.25}}}}
output: {{type: hdf5, path: out}}
"""


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    root = tmp_path_factory.mktemp("safety")
    motionprep("synth", "--out", root / "data", "--subjects", 4, "--recordings", 1, "--minutes", 0.5, "--seed", 3,
               "--sensors", "A")
    (root / "walk.yaml").write_text(PIPELINE.format(data="data", seed=1))
    (root / "other.yaml").write_text(PIPELINE.format(data="data", seed=2))
    motionprep("run", root / "walk.yaml", "--quiet", "--out", root / "reference")
    motionprep("run", root / "other.yaml", "--quiet", "--out", root / "other-reference")
    return root


def tree(root: Path):
    """Every entry below root (and root itself): kind, mode, bytes or link target."""
    out = {}
    root = Path(root)
    paths = [root] + (sorted(root.rglob("*")) if root.is_dir() and not root.is_symlink() else [])
    for p in paths:
        st = p.lstat()
        if p.is_symlink():
            out[str(p)] = ("link", os.readlink(p))
        elif p.is_dir():
            out[str(p)] = ("dir", st.st_mode)
        elif p.is_file():
            out[str(p)] = ("file", st.st_mode, p.read_bytes())
        else:
            out[str(p)] = ("other", st.st_mode)
    return out


def refused(args, cwd=None, status=73):
    p = motionprep(*args, cwd=cwd, check=False)
    assert p.returncode == status, f"exit {p.returncode}:\n{p.stderr}"
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("motionprep: error: "), p.stderr
    return p.stderr


def wait_paused(proc):
    """Reads the run's stderr up to the test hook's "paused at" line."""
    while True:
        line = proc.stderr.readline()
        assert line, f"the run ended (exit {proc.wait()}) before pausing"
        if "test hook: paused at" in line:
            return


def no_leftovers(out: Path):
    for suffix in (".partial", ".previous", ".lock"):
        assert not Path(str(out) + suffix).exists(), f"{out}{suffix} left behind"


# --- Point 1: the output folder is ours or empty ---------------------------------------------------

def test_a_folder_of_the_users_files_is_refused_untouched(work, tmp_path):
    """The reported failure: `run --out mydocs` deleted the user's file."""
    docs = tmp_path / "mydocs"
    docs.mkdir()
    (docs / "thesis.tex").write_text("months of work\n")
    (docs / "sub").mkdir()
    (docs / "sub/data.bin").write_bytes(b"\0\1\2")
    before = tree(tmp_path)
    err = refused(["run", work / "walk.yaml", "--quiet", "--out", docs])
    assert f"refusing to replace {docs}" in err and "thesis.tex" in err and "not a motionprep dataset" in err
    assert tree(tmp_path) == before
    no_leftovers(docs)


def test_a_hidden_file_alone_is_enough_to_refuse(work, tmp_path):
    docs = tmp_path / "mydocs"
    docs.mkdir()
    (docs / ".git").mkdir()
    (docs / ".git/HEAD").write_text("ref: refs/heads/main\n")
    before = tree(tmp_path)
    err = refused(["run", work / "walk.yaml", "--quiet", "--out", docs])
    assert ".git" in err
    assert tree(tmp_path) == before


@pytest.mark.parametrize("where", ["input folder", "parent of the inputs", "project", "subject folder"])
def test_an_output_holding_inputs_or_the_pipeline_is_refused(work, tmp_path, where):
    project = tmp_path / "project"
    shutil.copytree(work / "data", project / "data")
    (project / "walk.yaml").write_text(PIPELINE.format(data="data", seed=1))
    out = {"input folder": project / "data", "parent of the inputs": project / "data" / "..",
           "project": project, "subject folder": project / "data" / "subject01"}[where]
    before = tree(tmp_path)
    err = refused(["run", project / "walk.yaml", "--quiet", "--out", out])
    assert "refusing to write the dataset to" in err
    assert ("input file" in err) or ("pipeline file" in err), err
    assert tree(tmp_path) == before


def test_the_pipeline_file_inside_the_output_is_refused(work, tmp_path):
    (tmp_path / "walk.yaml").write_text(PIPELINE.format(data=str(work / "data"), seed=1))
    before = tree(tmp_path)
    err = refused(["run", tmp_path / "walk.yaml", "--quiet", "--out", tmp_path])
    assert "pipeline file" in err and "walk.yaml" in err
    assert tree(tmp_path) == before


def test_an_output_reached_through_a_link_to_the_inputs_is_refused(work, tmp_path):
    project = tmp_path / "project"
    shutil.copytree(work / "data", project / "data")
    (project / "walk.yaml").write_text(PIPELINE.format(data="data", seed=1))
    (tmp_path / "alias").symlink_to(project)
    before = tree(tmp_path)
    refused(["run", project / "walk.yaml", "--quiet", "--out", tmp_path / "alias" / "data"])
    assert tree(tmp_path) == before


def test_a_label_file_inside_the_output_is_refused(work, tmp_path):
    names = ["subject01/rec-01", "subject02/rec-01"]
    (tmp_path / "labels").mkdir()
    rows = ["recording,start_s,end_s,label"] + [f"{n},1.0,10.0,walk" for n in names]
    (tmp_path / "labels/intervals.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "l.yaml").write_text(PIPELINE.format(data=str(work / "data"), seed=1).replace(
        "labels: {map: {W: walk, T: turn}}", "labels: {from: intervals, path: labels/intervals.csv, classes: [walk]}"))
    before = tree(tmp_path)
    err = refused(["run", tmp_path / "l.yaml", "--quiet", "--out", tmp_path / "labels"])
    assert "label file" in err
    assert tree(tmp_path) == before


def test_a_symlinked_output_is_refused_and_neither_link_nor_target_change(work, tmp_path):
    shutil.copytree(work / "reference", tmp_path / "real")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    before = tree(tmp_path)
    err = refused(["run", work / "other.yaml", "--quiet", "--out", tmp_path / "link"])
    assert "symbolic link" in err and str(tmp_path / "real") in err
    assert tree(tmp_path) == before


def test_an_existing_file_as_output_is_refused(work, tmp_path):
    (tmp_path / "out").write_text("mine\n")
    before = tree(tmp_path)
    err = refused(["run", work / "walk.yaml", "--quiet", "--out", tmp_path / "out"])
    assert "is a file, not a folder" in err
    assert tree(tmp_path) == before


def test_an_own_dataset_and_an_empty_folder_are_replaced(work, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    motionprep("run", work / "walk.yaml", "--quiet", "--out", out)
    assert (out / "train.h5").read_bytes() == (work / "reference/train.h5").read_bytes()
    motionprep("run", work / "other.yaml", "--quiet", "--out", out)
    assert (out / "manifest.json").read_bytes() == (work / "other-reference/manifest.json").read_bytes()
    no_leftovers(out)


def test_an_own_dataset_with_an_extra_file_is_refused(work, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(work / "reference", out)
    (out / "report.html").write_text("<html>my notes</html>")
    before = tree(tmp_path)
    err = refused(["run", work / "other.yaml", "--quiet", "--out", out])
    assert "report.html" in err and "not part of the motionprep dataset" in err
    assert tree(tmp_path) == before


def test_a_link_inside_an_own_dataset_is_refused(work, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(work / "reference", out)
    (tmp_path / "precious").write_text("keep\n")
    (out / "train.h5").unlink()
    (out / "train.h5").symlink_to(tmp_path / "precious")
    before = tree(tmp_path)
    err = refused(["run", work / "other.yaml", "--quiet", "--out", out])
    assert "train.h5 (a symbolic link)" in err
    assert tree(tmp_path) == before


def test_a_manifest_that_only_claims_a_dataset_does_not_make_other_files_ours(work, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "manifest.json").write_text('{"format": "motionprep.dataset", "splits": {"train": {"files": [{"path": "../x"}]}}}')
    (out / "notes.txt").write_text("mine\n")
    before = tree(tmp_path)
    refused(["run", work / "walk.yaml", "--quiet", "--out", out])
    assert tree(tmp_path) == before


@pytest.mark.parametrize("kind", ["folder", "symlink", "file"])
def test_a_partial_folder_motionprep_did_not_make_is_never_deleted(work, tmp_path, kind):
    out = tmp_path / "out"
    partial = Path(str(out) + ".partial")
    if kind == "folder":
        partial.mkdir()
        (partial / "mine.txt").write_text("mine\n")
    elif kind == "symlink":
        (tmp_path / "elsewhere").mkdir()
        (tmp_path / "elsewhere/mine.txt").write_text("mine\n")
        partial.symlink_to(tmp_path / "elsewhere")
    else:
        partial.write_text("mine\n")
    before = tree(tmp_path)
    err = refused(["run", work / "walk.yaml", "--quiet", "--out", out])
    assert f"{partial}" in err and "staging folder" in err
    assert tree(tmp_path) == before
    err = refused(["run", work / "walk.yaml", "--quiet", "--resume", "--out", out])
    assert tree(tmp_path) == before


def test_a_previous_folder_motionprep_did_not_make_is_never_moved_into_place(work, tmp_path):
    out = tmp_path / "out"
    previous = Path(str(out) + ".previous")
    previous.mkdir()
    (previous / "mine.txt").write_text("mine\n")
    before = tree(tmp_path)
    err = refused(["run", work / "walk.yaml", "--quiet", "--out", out])
    assert str(previous) in err
    assert tree(tmp_path) == before


def test_files_that_appear_in_the_output_during_the_run_are_kept(work, tmp_path):
    """The check is repeated just before the commit: a file the user put into the old dataset
    while the run was going is neither deleted nor swallowed."""
    out = tmp_path / "out"
    shutil.copytree(work / "reference", out)
    go = tmp_path / "go"
    env = {**os.environ, "MOTIONPREP_TEST_PAUSE_AT": "before-commit", "MOTIONPREP_TEST_CONTINUE_WHEN": str(go)}
    proc = subprocess.Popen([BIN, "run", work / "other.yaml", "--quiet", "--out", out], env=env,
                            stderr=subprocess.PIPE, text=True)
    wait_paused(proc)
    (out / "notes.txt").write_text("written during the run\n")
    go.write_text("")
    err = proc.stderr.read()
    assert proc.wait() == 73, err
    assert "notes.txt" in err
    assert (out / "notes.txt").read_text() == "written during the run\n"
    assert (out / "manifest.json").read_bytes() == (work / "reference/manifest.json").read_bytes()
    no_leftovers(out)


def test_merge_refuses_an_output_that_is_a_part_or_holds_user_files(work, tmp_path):
    for i in range(2):
        motionprep("run", work / "walk.yaml", "--quiet", "--worker", f"{i}/2", "--out", tmp_path / f"part{i}")
    before = tree(tmp_path)
    err = refused(["merge", tmp_path / "part0", tmp_path / "part0", tmp_path / "part1"])
    assert "part" in err
    refused(["merge", tmp_path, tmp_path / "part0", tmp_path / "part1"])
    assert tree(tmp_path) == before
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("a\n")
    before = tree(tmp_path)
    refused(["merge", docs, tmp_path / "part0", tmp_path / "part1"])
    assert tree(tmp_path) == before
    motionprep("merge", tmp_path / "merged", tmp_path / "part0", tmp_path / "part1")
    assert (tmp_path / "merged/train.h5").read_bytes() == (work / "reference/train.h5").read_bytes()
    # A rerun of a worker replaces its own part.
    motionprep("run", work / "walk.yaml", "--quiet", "--worker", "0/2", "--out", tmp_path / "part0")


# --- Point 2: one writer at a time -----------------------------------------------------------------

def test_a_second_run_on_a_held_output_is_refused_naming_the_holder(work, tmp_path):
    out = tmp_path / "out"
    go = tmp_path / "go"
    env = {**os.environ, "MOTIONPREP_TEST_PAUSE_AT": "before-commit", "MOTIONPREP_TEST_CONTINUE_WHEN": str(go)}
    first = subprocess.Popen([BIN, "run", work / "walk.yaml", "--quiet", "--out", out], env=env,
                             stderr=subprocess.PIPE, text=True)
    wait_paused(first)
    err = refused(["run", work / "other.yaml", "--quiet", "--out", out])
    assert f"in use by process {first.pid}" in err and f"{out}.lock" in err
    # merge and --resume take the same lock.
    refused(["run", work / "other.yaml", "--quiet", "--resume", "--out", out])
    go.write_text("")
    assert first.wait() == 0, first.stderr.read()
    assert (out / "manifest.json").read_bytes() == (work / "reference/manifest.json").read_bytes()
    no_leftovers(out)


def test_a_lock_left_by_a_killed_run_is_stale(work, tmp_path):
    out = tmp_path / "out"
    env = {**os.environ, "MOTIONPREP_TEST_PAUSE_AT": "before-commit"}
    first = subprocess.Popen([BIN, "run", work / "walk.yaml", "--quiet", "--out", out], env=env,
                             stderr=subprocess.PIPE, text=True)
    wait_paused(first)
    first.send_signal(signal.SIGKILL)
    first.wait()
    assert Path(f"{out}.lock").read_text() == f"motionprep lock\npid {first.pid}\n"
    p = motionprep("run", work / "other.yaml", "--quiet", "--out", out)
    assert f"was left by process {first.pid}" in p.stderr
    assert (out / "manifest.json").read_bytes() == (work / "other-reference/manifest.json").read_bytes()
    no_leftovers(out)


def test_a_lock_file_motionprep_did_not_make_is_refused_and_kept(work, tmp_path):
    out = tmp_path / "out"
    Path(f"{out}.lock").write_text("my own lock file\n")
    before = tree(tmp_path)
    err = refused(["run", work / "walk.yaml", "--quiet", "--out", out])
    assert "was not made by motionprep" in err
    assert tree(tmp_path) == before
    Path(f"{out}.lock").unlink()
    Path(f"{out}.lock").symlink_to(tmp_path / "target")
    before = tree(tmp_path)
    err = refused(["run", work / "walk.yaml", "--quiet", "--out", out])
    assert "symbolic link" in err
    assert tree(tmp_path) == before
    assert not (tmp_path / "target").exists()


def test_runs_started_together_never_both_succeed_with_a_mixed_result(work, tmp_path):
    """Two runs of different pipelines on one output, started at the same instant, ten times:
    each ends in success or in the "in use" refusal, and the folder always holds exactly one of
    the two datasets, which validates."""
    out = tmp_path / "out"
    refs = {name: (work / f"{name}-reference" if name == "other" else work / "reference") for name in ("walk", "other")}
    for round in range(10):
        barrier = threading.Barrier(2)
        results = {}

        def go(name):
            barrier.wait()
            results[name] = subprocess.run([BIN, "run", work / f"{name}.yaml", "--quiet", "--jobs", "1", "--out", out],
                                           capture_output=True, text=True)

        threads = [threading.Thread(target=go, args=(n,)) for n in ("walk", "other")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for name, r in results.items():
            assert r.returncode == 0 or (r.returncode == 73 and "is in use by" in r.stderr), f"round {round} {name}: {r.returncode} {r.stderr}"
        assert any(r.returncode == 0 for r in results.values())
        got = (out / "manifest.json").read_bytes()
        winner = [n for n, ref in refs.items() if (ref / "manifest.json").read_bytes() == got]
        assert len(winner) == 1, f"round {round}: the manifest is neither dataset's"
        for f in ("train.h5", "validation.h5", "test.h5", "SHA256SUMS"):
            assert (out / f).read_bytes() == (refs[winner[0]] / f).read_bytes(), f"round {round}: {f} mixed"
        no_leftovers(out)
    motionprep("validate", out)


# --- Point 5: regular files, each once -------------------------------------------------------------

def project_with(work, tmp_path):
    project = tmp_path / "project"
    shutil.copytree(work / "data", project / "data")
    (project / "walk.yaml").write_text(PIPELINE.format(data="data", seed=1))
    return project


def test_a_fifo_matched_by_a_glob_is_refused_without_waiting(work, tmp_path):
    project = project_with(work, tmp_path)
    os.mkfifo(project / "data/subject01/live.csv")
    start = time.monotonic()
    p = subprocess.run([BIN, "run", project / "walk.yaml", "--quiet"], capture_output=True, text=True, timeout=60)
    assert time.monotonic() - start < 30
    assert p.returncode == 66, p.stderr
    assert "live.csv" in p.stderr and "is a FIFO, not a regular file" in p.stderr
    assert not (project / "out").exists()
    v = subprocess.run([BIN, "validate", project / "walk.yaml"], capture_output=True, text=True, timeout=60)
    assert v.returncode == 66 and "is a FIFO" in v.stderr


def test_a_device_matched_by_a_glob_is_refused(work, tmp_path):
    project = project_with(work, tmp_path)
    (project / "data/subject01/null.csv").symlink_to("/dev/null")
    p = motionprep("run", project / "walk.yaml", "--quiet", check=False)
    assert p.returncode == 66 and "null.csv" in p.stderr and "a character device" in p.stderr


def test_double_star_does_not_follow_a_folder_link_and_a_cycle_ends(work, tmp_path):
    project = project_with(work, tmp_path)
    (project / "data/subject01/loop").symlink_to(project / "data")  # a cycle
    (project / "data/again").symlink_to(project / "data/subject02")  # the same recordings twice
    p = motionprep("run", project / "walk.yaml", "--quiet", "--out", tmp_path / "out")
    got = (tmp_path / "out/manifest.json").read_text()
    ref = (work / "reference/manifest.json").read_text()
    assert got == ref, p.stderr


def test_the_same_file_under_two_names_is_read_once(work, tmp_path):
    project = project_with(work, tmp_path)
    os.link(project / "data/subject01/rec-01.csv", project / "data/subject01/zz-hardlink.csv")
    (project / "data/subject02/alias.csv").symlink_to(project / "data/subject02/rec-01.csv")
    p = motionprep("run", project / "walk.yaml", "--quiet", "--out", tmp_path / "out")
    assert "zz-hardlink.csv is the same file as" in p.stderr and "alias.csv is the same file as" in p.stderr
    assert (tmp_path / "out/train.h5").read_bytes() == (work / "reference/train.h5").read_bytes()


def test_one_file_in_two_recordings_through_two_inputs_is_an_error(work, tmp_path):
    project = project_with(work, tmp_path)
    text = PIPELINE.format(data="data", seed=1).replace(
        'inputs:\n  - type: motioncollector\n    paths: ["data/**/*.csv"]\n    sensors: [A]\n',
        'inputs:\n  - type: motioncollector\n    paths: ["data/**/*.csv"]\n    sensors: [A]\n'
        '  - type: motioncollector\n    paths: ["data/subject01/*.csv"]\n    sensors: [A]\n    recording: "copy-{stem}"\n')
    (project / "two.yaml").write_text(text)
    p = motionprep("run", project / "two.yaml", "--quiet", check=False)
    assert p.returncode == 78, p.stderr
    assert "is the same file as" in p.stderr and "copy-rec-01" in p.stderr


def test_resume_refuses_a_fifo_where_a_record_should_be(work, tmp_path):
    out = tmp_path / "out"
    env = {**os.environ, "MOTIONPREP_TEST_PAUSE_AT": "before-manifest"}
    first = subprocess.Popen([BIN, "run", work / "walk.yaml", "--quiet", "--jobs", "1", "--out", out], env=env,
                             stderr=subprocess.PIPE, text=True)
    wait_paused(first)
    first.send_signal(signal.SIGKILL)
    first.wait()
    records = sorted(Path(f"{out}.partial/records").glob("*.mprec"))
    assert records
    records[0].unlink()
    os.mkfifo(records[0])
    p = subprocess.run([BIN, "run", work / "walk.yaml", "--quiet", "--resume", "--out", out],
                       capture_output=True, text=True, timeout=60)
    # The staging folder holds something motionprep never writes there: it is refused whole
    # (docs/hardening.md, "Staging folders"), before any record is opened, and left as it is.
    assert p.returncode == 73 and "records/rec-00000000.mprec, which is a FIFO" in p.stderr, p.stderr
    assert stat.S_ISFIFO(records[0].lstat().st_mode)


# --- Issue 24: ownership by content, not by names (docs/hardening.md) ----------------------------

def forge_manifest(folder: Path, files: dict, fmt="motionprep.dataset"):
    """A manifest as a forger (or a copy from another dataset) would write it: it claims files
    that are in the folder, with sizes and hashes given by `files` (path -> (bytes, sha256))."""
    listed = [{"path": p, "bytes": b, "sha256": h, "num_windows": 1, "class_counts": [1]} for p, (b, h) in files.items()]
    (folder / "manifest.json").write_text(json.dumps({"format": fmt, "format_version": 2,
                                                      "splits": {"train": {"files": listed}}}))


@pytest.mark.parametrize("lie", ["size", "hash"])
def test_a_forged_manifest_does_not_make_the_users_file_ours(work, tmp_path, lie):
    out = tmp_path / "out"
    out.mkdir()
    mine = b"my own training file, not motionprep's\n" * 10
    (out / "train.h5").write_bytes(mine)
    size = len(mine) + 1 if lie == "size" else len(mine)
    forge_manifest(out, {"train.h5": (size, hashlib.sha256(b"something else").hexdigest())})
    before = tree(tmp_path)
    err = refused(["run", work / "walk.yaml", "--quiet", "--out", out])
    assert "train.h5" in err and ("bytes" in err if lie == "size" else "SHA-256" in err), err
    assert tree(tmp_path) == before


def test_a_forged_applied_manifest_does_not_let_apply_delete_a_thesis(work, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "thesis.pdf").write_bytes(b"%PDF-1.7 years of work\n")
    forge_manifest(out, {"thesis.pdf": (23, "0" * 64)}, fmt="motionprep.applied")
    before = tree(tmp_path)
    err = refused(["apply", work / "reference", work / "data", "--out", out])
    assert "thesis.pdf" in err, err
    assert tree(tmp_path) == before


def test_a_copied_dataset_with_one_file_changed_is_not_ours(work, tmp_path):
    """A real dataset whose train.h5 was rewritten (same size, other bytes) is the user's now."""
    out = tmp_path / "out"
    shutil.copytree(work / "reference", out)
    data = bytearray((out / "train.h5").read_bytes())
    data[-1] ^= 0xFF
    (out / "train.h5").write_bytes(bytes(data))
    before = tree(tmp_path)
    err = refused(["run", work / "other.yaml", "--quiet", "--out", out])
    assert "train.h5" in err and "SHA-256" in err, err
    assert tree(tmp_path) == before


def test_an_unchanged_own_dataset_is_still_replaced(work, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(work / "reference", out)
    motionprep("run", work / "other.yaml", "--quiet", "--out", out)
    assert (out / "manifest.json").read_bytes() == (work / "other-reference/manifest.json").read_bytes()
    no_leftovers(out)


def test_a_marked_partial_folder_holding_user_files_is_not_deleted(work, tmp_path):
    """The mark alone does not make a staging folder ours: a file motionprep never writes there
    keeps the whole folder, on a fresh run and on --resume."""
    out = tmp_path / "out"
    env = {**os.environ, "MOTIONPREP_TEST_PAUSE_AT": "before-manifest"}
    first = subprocess.Popen([BIN, "run", work / "walk.yaml", "--quiet", "--out", out], env=env,
                             stderr=subprocess.PIPE, text=True)
    wait_paused(first)
    first.send_signal(signal.SIGKILL)
    first.wait()
    partial = Path(f"{out}.partial")
    assert (partial / ".motionprep-partial").is_file()
    (partial / "records" / "notes.txt").write_text("mine\n")
    (partial / "results").mkdir()
    (partial / "results" / "table.csv").write_text("a,b\n")
    before = tree(tmp_path)
    for extra in ([], ["--resume"]):
        p = motionprep("run", work / "walk.yaml", "--quiet", *extra, "--out", out, check=False)
        err = p.stderr
        assert p.returncode == 73 and err.splitlines()[-1].startswith("motionprep: error: "), err
        assert str(partial) in err and ("notes.txt" in err or "results" in err), err
        assert {k: v for k, v in tree(tmp_path).items() if not k.endswith(".lock")} == \
               {k: v for k, v in before.items() if not k.endswith(".lock")}


def test_an_empty_folder_the_user_prepared_is_filled_not_replaced(work, tmp_path):
    """Mode, setgid bit, group, ACL and inode of an empty output folder stay as the user made
    them; the files written inside get the folder's group."""
    out = tmp_path / "out"
    out.mkdir()
    os.chown(out, -1, 4242)
    os.chmod(out, 0o2770)
    # A default ACL (system.posix_acl_default, format version 2): user::rwx group::r-x
    # group:4243:rwx mask::rwx other::---.
    acl = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", tag, perm, ident) for tag, perm, ident in
                                           [(0x01, 7, 0xFFFFFFFF), (0x04, 5, 0xFFFFFFFF), (0x08, 7, 4243),
                                            (0x10, 7, 0xFFFFFFFF), (0x20, 0, 0xFFFFFFFF)])
    os.setxattr(out, "system.posix_acl_default", acl)
    before = out.lstat()
    motionprep("run", work / "walk.yaml", "--quiet", "--out", out)
    after = out.lstat()
    assert (after.st_ino, after.st_dev) == (before.st_ino, before.st_dev)
    assert stat.S_IMODE(after.st_mode) == 0o2770 and after.st_gid == 4242
    assert os.getxattr(out, "system.posix_acl_default") == acl
    assert (out / "manifest.json").read_bytes() == (work / "reference/manifest.json").read_bytes()
    assert all(p.lstat().st_gid == 4242 for p in out.rglob("*")), [(p, p.lstat().st_gid) for p in out.rglob("*")]
    assert not (out / ".motionprep-partial").exists()
    no_leftovers(out)
    motionprep("validate", out)
    # A rerun replaces the dataset and keeps what the user set on the folder.
    motionprep("run", work / "other.yaml", "--quiet", "--out", out)
    again = out.lstat()
    assert stat.S_IMODE(again.st_mode) == 0o2770 and again.st_gid == 4242
    assert os.getxattr(out, "system.posix_acl_default") == acl


# --- Issue 24: no race between check and use -------------------------------------------------------

def paused_run(work, out, point, go):
    env = {**os.environ, "MOTIONPREP_TEST_PAUSE_AT": point, "MOTIONPREP_TEST_CONTINUE_WHEN": str(go)}
    proc = subprocess.Popen([BIN, "run", work / "walk.yaml", "--quiet", "--out", out], env=env,
                            stderr=subprocess.PIPE, text=True)
    wait_paused(proc)
    return proc


@pytest.mark.parametrize("point", ["before-manifest", "before-commit"])
def test_a_staging_folder_swapped_for_a_link_is_neither_written_through_nor_moved_into_place(work, tmp_path, point):
    out, go = tmp_path / "out", tmp_path / "go"
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "mine.txt").write_text("mine\n")
    proc = paused_run(work, out, point, go)
    partial = Path(f"{out}.partial")
    partial.rename(tmp_path / "moved-away")
    partial.symlink_to(foreign)
    before = tree(foreign)
    go.write_text("")
    err = proc.stderr.read()
    assert proc.wait() == 73, err
    assert "was replaced while the run was writing it" in err, err
    assert tree(foreign) == before and not (foreign / "manifest.json").exists()
    assert not out.exists()
    assert partial.is_symlink()


@pytest.mark.parametrize("output", ["hdf5", "shards"])
def test_a_staging_folder_swapped_for_a_link_before_the_data_files_gets_none_of_them(work, tmp_path, output):
    """Paused before any data file exists (`before-data-files`): the HDF5 split files, the shard
    spool and shards, and the record files are created through the staging folder's descriptor,
    so none of them lands in the folder the link points to (issue 24 point 3)."""
    pipeline = tmp_path / "walk.yaml"
    pipeline.write_text(PIPELINE.format(data=work / "data", seed=1).replace("type: hdf5", f"type: {output}"))
    out, go = tmp_path / "out", tmp_path / "go"
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "mine.txt").write_text("mine\n")
    env = {**os.environ, "MOTIONPREP_TEST_PAUSE_AT": "before-data-files", "MOTIONPREP_TEST_CONTINUE_WHEN": str(go)}
    proc = subprocess.Popen([BIN, "run", pipeline, "--quiet", "--out", out], env=env, stderr=subprocess.PIPE, text=True)
    wait_paused(proc)
    partial = Path(f"{out}.partial")
    assert sorted(p.name for p in partial.iterdir()) == [".motionprep-partial", "records", "state.json"]
    partial.rename(tmp_path / "moved-away")
    partial.symlink_to(foreign)
    before = tree(foreign)
    go.write_text("")
    err = proc.stderr.read()
    assert proc.wait() == 73, err
    assert "was replaced while the run was writing it" in err, err
    assert tree(foreign) == before, sorted(set(tree(foreign)) - set(before))
    assert not out.exists() and partial.is_symlink()
    # The files went where the staging folder went.
    moved = tmp_path / "moved-away"
    if output == "hdf5":
        assert (moved / "train.h5").is_file()
    else:
        assert (moved / "train").is_dir()
    assert any((moved / "records").iterdir())


@pytest.mark.parametrize("point", ["before-manifest", "before-commit"])
def test_a_foreign_folder_put_in_place_of_the_staging_folder_is_not_moved_into_place(work, tmp_path, point):
    out, go = tmp_path / "out", tmp_path / "go"
    proc = paused_run(work, out, point, go)
    partial = Path(f"{out}.partial")
    partial.rename(tmp_path / "moved-away")
    partial.mkdir()
    (partial / "mine.txt").write_text("mine\n")
    before = tree(partial)
    go.write_text("")
    err = proc.stderr.read()
    assert proc.wait() == 73, err
    assert "was replaced while the run was writing it" in err, err
    assert tree(partial) == before
    assert not out.exists()
