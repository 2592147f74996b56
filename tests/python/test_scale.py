"""--worker/merge, --resume after SIGKILL and SIGINT, refusal when inputs change, and crash
safety of the output folder: compared byte for byte with an uninterrupted single run."""
import json
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
name: scale
inputs:
  - type: motioncollector
    paths: ["data/**/*.csv"]
resample: {rate_hz: 50, max_gap_s: 0.2}
window: {length_s: 2.56, stride_s: 1.28}
labels: {map: {W: walk, T: turn}, min_fraction: 0.8}
features: [mean, std, dominant_freq_hz]
split: {fractions: {train: 0.5, validation: 0.25, test: 0.25}, folds: 3}
output: {type: hdf5, path: out}
"""


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    root = tmp_path_factory.mktemp("scale")
    motionprep("synth", "--out", root / "data", "--subjects", 6, "--recordings", 3, "--minutes", 2, "--seed", 11)
    (root / "scale.yaml").write_text(PIPELINE)
    motionprep("run", root / "scale.yaml", "--quiet", "--out", root / "reference")
    return root


def same(a: Path, b: Path):
    for f in FILES:
        assert (a / f).read_bytes() == (b / f).read_bytes(), f


def test_workers_then_merge_equal_one_run(work):
    parts = []
    for i in range(3):
        out = work / "parts" / f"p{i}"
        motionprep("run", work / "scale.yaml", "--worker", f"{i}/3", "--out", out, "--quiet")
        parts.append(out)
    # Each part's part.json has its SHA-256 beside it, in sha256sum's format.
    for part in parts:
        subprocess.run(["sha256sum", "--check", "--quiet", "part.json.sha256"], cwd=part, check=True)
    motionprep("merge", work / "merged", *parts, "--quiet")
    same(work / "reference", work / "merged")
    # A missing part is refused.
    p = motionprep("merge", work / "merged2", *parts[:2], check=False)
    assert p.returncode == 66 and "worker(s) 2/3" in p.stderr


def start_and_stop(work, out, sig):
    """Starts a one-job run and sends `sig` once a recording has been saved."""
    proc = subprocess.Popen([BIN, "run", str(work / "scale.yaml"), "--jobs", "1", "--quiet", "--out", str(out)],
                            stderr=subprocess.PIPE, text=True)
    records = Path(str(out) + ".partial") / "records"
    deadline = time.time() + 60
    while time.time() < deadline and proc.poll() is None:
        if records.is_dir() and any(p.suffix == ".mprec" for p in records.iterdir()):
            proc.send_signal(sig)
            break
        time.sleep(0.005)
    _, err = proc.communicate()
    return proc.returncode, err


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_resume_after_interruption_gives_the_same_bytes(work, sig):
    out = work / f"resume-{sig.name}"
    # A previous dataset in the folder must survive the interrupted run untouched.
    shutil.copytree(work / "reference", out)
    before = {f: (out / f).read_bytes() for f in FILES}
    code, err = start_and_stop(work, out, sig)
    if code == 0:
        pytest.skip("the run finished before it could be interrupted")
    assert code == (-signal.SIGKILL if sig == signal.SIGKILL else 130), err
    if sig == signal.SIGINT:
        assert "--resume" in err
    assert {f: (out / f).read_bytes() for f in FILES} == before
    partial = Path(str(out) + ".partial")
    assert partial.is_dir() and not (partial / "manifest.json").exists()
    done = [p for p in (partial / "records").iterdir() if p.suffix == ".mprec"]
    assert done
    p = motionprep("run", work / "scale.yaml", "--resume", "--quiet", "--json", "--out", out)
    same(work / "reference", out)
    assert not partial.exists()
    # Completed recordings were loaded, not processed again.
    assert json.loads(p.stdout)["resumed_recordings"] == len(done)


def test_resume_refuses_when_an_input_changed(work):
    out = work / "changed"
    code, _ = start_and_stop(work, out, signal.SIGKILL)
    if code == 0:
        pytest.skip("the run finished before it could be interrupted")
    records = sorted((Path(str(out) + ".partial") / "records").glob("*.mprec"))
    assert records
    # Touch the first recording's file (sorted by subject, then name).
    first = sorted((work / "data").glob("**/*.csv"))[0]
    backup = first.read_bytes()
    try:
        first.write_bytes(backup + b"\n")
        p = motionprep("run", work / "scale.yaml", "--resume", "--quiet", "--out", out, check=False)
        assert p.returncode == 65 and "changed since the interrupted run" in p.stderr and first.name in p.stderr
    finally:
        first.write_bytes(backup)


def test_resume_refuses_a_changed_pipeline(work):
    out = work / "changed-pipeline"
    code, _ = start_and_stop(work, out, signal.SIGKILL)
    if code == 0:
        pytest.skip("the run finished before it could be interrupted")
    other = work / "scale2.yaml"
    other.write_text(PIPELINE.replace("stride_s: 1.28", "stride_s: 0.64"))
    p = motionprep("run", other, "--resume", "--quiet", "--out", out, check=False)
    assert p.returncode == 65 and "the pipeline changed" in p.stderr


def test_slurm_example_scripts_run_as_an_array(work):
    """Runs examples/slurm/*.sbatch as Slurm would (array env vars, workers at once), then merges."""
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PATH=f"{Path(BIN).parent}:{os.environ['PATH']}", SLURM_ARRAY_TASK_COUNT="3",
               SLURM_ARRAY_JOB_ID="42", SLURM_CPUS_PER_TASK="1")
    out = work / "slurm" / "walk"
    procs = [subprocess.Popen(["bash", str(root / "examples/slurm/motionprep-array.sbatch"), str(work / "scale.yaml"), str(out)],
                              env=dict(env, SLURM_ARRAY_TASK_ID=str(i)), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for i in range(3)]
    for p in procs:
        _, err = p.communicate()
        assert p.returncode == 0, err
    m = subprocess.run(["bash", str(root / "examples/slurm/motionprep-merge.sbatch"), str(out), "3"], env=env,
                       capture_output=True, text=True)
    assert m.returncode == 0 or "validate" in m.stderr, m.stderr
    same(work / "reference", out)
