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


@pytest.mark.parametrize("ids,step", [((0, 1, 2), 1), ((1, 2, 3), 1), ((0, 2, 4), 2)])
def test_slurm_example_scripts_run_as_an_array(work, bin_dir, ids, step):
    """Runs examples/slurm/*.sbatch with bash as Slurm would (the array's env vars, tasks at once;
    `--array=0-2`, `1-3` and `0-4:2`), then merges. tests/python/test_slurm.py submits the same
    scripts to a real Slurm."""
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", SLURM_ARRAY_TASK_COUNT="3",
               SLURM_ARRAY_TASK_MIN=str(ids[0]), SLURM_ARRAY_TASK_MAX=str(ids[-1]), SLURM_ARRAY_TASK_STEP=str(step),
               SLURM_ARRAY_JOB_ID="42", SLURM_CPUS_PER_TASK="1")
    out = work / f"slurm-{ids[0]}-{ids[-1]}-{step}" / "walk"
    procs = [subprocess.Popen(["bash", str(root / "examples/slurm/motionprep-array.sbatch"), str(work / "scale.yaml"), str(out)],
                              env=dict(env, SLURM_ARRAY_TASK_ID=str(i)), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in ids]
    for i, p in zip(ids, procs):
        so, err = p.communicate()
        assert p.returncode == 0, err
        # The first task prints the merge command, which needs no worker count.
        assert (f"examples/slurm/motionprep-merge.sbatch {out}" in so) == (i == ids[0]), so
    assert sorted(d.name for d in out.parent.glob("walk.parts/task-*[0-9]")) == [f"task-{i}" for i in ids]
    for k, i in enumerate(ids):
        assert json.loads((out.parent / "walk.parts" / f"task-{i}" / "part.json").read_text())["worker"] == k
    m = subprocess.run(["bash", str(root / "examples/slurm/motionprep-merge.sbatch"), str(out)], env=env,
                       capture_output=True, text=True)
    assert m.returncode == 0, m.stderr
    same(work / "reference", out)


def test_k8s_manifests_agree_on_the_worker_count():
    """No Kubernetes cluster runs here, and no schema-aware linter (kubeconform, kubeval) is
    packaged for this machine: the manifests are parsed and the fields the commands rely on are
    checked. Not run: the Jobs themselves."""
    yaml = pytest.importorskip("yaml")
    root = Path(__file__).resolve().parents[2]
    job = yaml.safe_load((root / "examples/k8s/motionprep-indexed-job.yaml").read_text())
    merge = yaml.safe_load((root / "examples/k8s/motionprep-merge-job.yaml").read_text())
    for doc, kind in ((job, "workers"), (merge, "merge")):
        assert doc["apiVersion"] == "batch/v1" and doc["kind"] == "Job", kind
        assert doc["spec"]["template"]["spec"]["restartPolicy"] == "Never", kind
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed"
    assert isinstance(spec["completions"], int) and spec["parallelism"] == spec["completions"]
    container = spec["template"]["spec"]["containers"][0]
    assert container["command"] == ["/bin/sh", "-c"]
    args = " ".join(container["args"]).split()
    assert args[:3] == ["motionprep", "run", "/data/pipelines/walk.yaml"]
    assert args[args.index("--worker") + 1] == "auto"
    assert int(args[args.index("--workers") + 1]) == spec["completions"]
    assert "--jobs" not in args  # the default follows the pod's CPU limit
    assert container["resources"]["limits"]["cpu"]
    assert args[args.index("--out") + 1] == '"/data/build/walk.parts/task-$JOB_COMPLETION_INDEX"'
    margs = " ".join(merge["spec"]["template"]["spec"]["containers"][0]["args"]).split()
    assert margs[:4] == ["motionprep", "merge", "/data/build/walk", "/data/build/walk.parts/task-*[0-9]"]
    # The same shell words, run here with the index the pod would get, give a mergeable part name.
    sh = subprocess.run(["sh", "-c", 'echo "/data/build/walk.parts/task-$JOB_COMPLETION_INDEX"'],
                        env=dict(os.environ, JOB_COMPLETION_INDEX="3"), capture_output=True, text=True)
    assert sh.stdout.strip() == "/data/build/walk.parts/task-3"
