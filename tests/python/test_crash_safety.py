"""Crash safety (issue 10 §4, docs/dataset-format.md, "Manifest, checksums and commit"): SIGKILL a run at several points — during ingest,
during writing, just before the manifest, just before the finished dataset is moved into
place — over a previous dataset in the same folder. Afterwards the previous dataset must be
intact (byte for byte, and `motionprep validate` passes), nothing unfinished may look finished,
and `run --resume` completes the new dataset byte-identical to an uninterrupted run.

"During ingest" and "during writing" are reached by polling `DIR.partial/`; the two points at
the end are too brief to hit by polling, so the CLI's test hook `MOTIONPREP_TEST_PAUSE_AT`
(docs/hardening.md) holds the run there until it is killed.
"""
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import BIN, motionprep

FILES = ["SHA256SUMS", "manifest.json", "train.h5", "validation.h5", "test.h5"]

PIPELINE = """\
version: 1
name: crash
inputs:
  - type: motioncollector
    paths: ["data/**/*.csv"]
resample: {rate_hz: 50, max_gap_s: 0.2}
window: {length_s: 2.56, stride_s: 0.64}
labels: {map: {W: walk, T: turn}, min_fraction: 0.8}
features: [mean, std, dominant_freq_hz]
split: {seed: SEED, fractions: {train: 0.5, validation: 0.25, test: 0.25}}
output: {type: hdf5, path: out}
"""


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    root = tmp_path_factory.mktemp("crash")
    motionprep("synth", "--out", root / "data", "--subjects", 6, "--recordings", 3, "--minutes", 2, "--seed", 5)
    (root / "old.yaml").write_text(PIPELINE.replace("SEED", "1"))
    (root / "new.yaml").write_text(PIPELINE.replace("SEED", "2"))
    motionprep("run", root / "old.yaml", "--quiet", "--out", root / "old-reference")
    motionprep("run", root / "new.yaml", "--quiet", "--out", root / "new-reference")
    # The two pipelines give different datasets, so "still the old one" is observable.
    assert (root / "old-reference/manifest.json").read_bytes() != (root / "new-reference/manifest.json").read_bytes()
    return root


def snapshot(d: Path):
    return {f: (d / f).read_bytes() for f in FILES}


def records(partial: Path):
    r = partial / "records"
    return len([p for p in r.iterdir() if p.suffix == ".mprec"]) if r.is_dir() else 0


def size(p: Path):
    try:
        return p.stat().st_size
    except FileNotFoundError:
        return 0


# point → (environment, condition on DIR.partial that triggers the kill)
POINTS = {
    "ingest": ({}, lambda partial, err: records(partial) >= 1),
    "writing": ({}, lambda partial, err: size(partial / "train.h5") >= 256 * 1024),
    "before-manifest": ({"MOTIONPREP_TEST_PAUSE_AT": "before-manifest"}, lambda partial, err: "paused at" in err()),
    "before-commit": ({"MOTIONPREP_TEST_PAUSE_AT": "before-commit"}, lambda partial, err: "paused at" in err()),
}


@pytest.mark.parametrize("point", list(POINTS))
def test_sigkill_keeps_the_previous_dataset_and_resume_completes(work, point, tmp_path):
    out = tmp_path / "out"
    partial = Path(str(out) + ".partial")
    shutil.copytree(work / "old-reference", out)
    before = snapshot(out)
    env, reached = POINTS[point]
    errf = open(tmp_path / "stderr", "w+")
    proc = subprocess.Popen([BIN, "run", work / "new.yaml", "--quiet", "--jobs", "1", "--out", out],
                            stdout=subprocess.DEVNULL, stderr=errf, env={**os.environ, **env})
    err = lambda: (tmp_path / "stderr").read_text()
    deadline = time.monotonic() + 60
    while proc.poll() is None and not reached(partial, err) and time.monotonic() < deadline:
        time.sleep(0.005)
    if proc.poll() is not None:
        pytest.fail(f"the run ended (exit {proc.returncode}) before reaching {point}:\n{err()}")
    assert reached(partial, err), f"{point} not reached in 60 s"
    proc.send_signal(signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL

    # The previous dataset is intact and valid; nothing new in DIR.
    assert snapshot(out) == before
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in (work / "old-reference").iterdir())
    motionprep("validate", out)
    # Nothing half-written looks finished: before the manifest there is none in DIR.partial.
    if point != "before-commit":
        assert not (partial / "manifest.json").exists()
    assert not list(Path(str(out) + ".previous").glob("*"))

    # A record damaged after the kill (one byte of its windows) is redone, not copied
    # (docs/hardening.md, "Data safety: provenance and intermediate state").
    recs = sorted((partial / "records").glob("*.mprec")) if partial.is_dir() else []
    if recs:
        data = bytearray(recs[0].read_bytes())
        data[len(data) // 3] ^= 0x01
        recs[0].write_bytes(bytes(data))
    p = motionprep("run", work / "new.yaml", "--quiet", "--resume", "--jobs", "2", "--out", out)
    assert snapshot(out) == snapshot(work / "new-reference"), p.stderr
    if recs:
        assert f"the record {recs[0]} is damaged" in p.stderr and "processed again" in p.stderr, p.stderr
    assert not partial.exists()
    motionprep("validate", out)


def test_a_stale_previous_folder_is_put_back(work, tmp_path):
    """A two-step commit (filesystems without RENAME_EXCHANGE) killed between its renames leaves
    the previous dataset in DIR.previous and no DIR; the next run puts it back first, so even a
    run that then fails leaves the previous dataset in DIR."""
    out = tmp_path / "out"
    shutil.copytree(work / "old-reference", Path(str(out) + ".previous"))
    # The two-step commit marks what it sets aside (docs/hardening.md, "Staging folders").
    (Path(str(out) + ".previous") / ".motionprep-previous").write_text(PREVIOUS_MARK)
    (tmp_path / "data").mkdir()
    (tmp_path / "data/rec.csv").write_text("")
    (tmp_path / "bad.yaml").write_text(PIPELINE.replace("SEED", "1"))
    p = motionprep("run", tmp_path / "bad.yaml", "--quiet", "--out", out, check=False)
    assert p.returncode == 65, p.stderr
    assert snapshot(out) == snapshot(work / "old-reference")
    assert not Path(str(out) + ".previous").exists()
    assert "put the previous dataset back" in p.stderr, p.stderr
    motionprep("validate", out)


PREVIOUS_MARK = ("This folder is a motionprep dataset set aside while a newer one replaced it. "
                 "motionprep removes it, or puts it back, on the next run.\n")


@pytest.mark.parametrize("where", ["previous", "partial"])
def test_a_finished_dataset_at_previous_or_partial_without_the_mark_is_left_alone(work, tmp_path, where):
    """A dataset copied (or left by hand) at DIR.previous or DIR.partial carries no mark of a
    commit: it is neither deleted nor moved into place, and the run is refused naming it."""
    out = tmp_path / "out"
    aside = Path(f"{out}.{where}")
    shutil.copytree(work / "old-reference", aside)
    before = snapshot(aside)
    p = motionprep("run", work / "new.yaml", "--quiet", "--out", out, check=False)
    assert p.returncode == 73, p.stderr
    assert str(aside) in p.stderr, p.stderr
    assert snapshot(aside) == before and not out.exists()
